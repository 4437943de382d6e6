# 04_cnn_bakeoff2: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.RandomCrop(height=512, width=512, p=1.0),
        A.RandomBrightnessContrast(p=0.3),
        A.HorizontalFlip(p=0.5),
    ], bbox_params=A.BboxParams(format='yolo'), p=1.0)
