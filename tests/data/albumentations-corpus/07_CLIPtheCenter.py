# 07_CLIPtheCenter: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.RandomCrop(width=384, height=384, p=1.0),
    ], bbox_params=A.BboxParams(format='coco', min_area=1600, min_visibility=0.1, label_fields=('class_labels',)), p=1.0)
