# 25_Kaggle-seti: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.Resize(height=256, width=256, p=1.0),
        A.HorizontalFlip(p=0.5),
        A.VerticalFlip(p=0.5),
        A.Transpose(p=0.5),
        A.ShiftScaleRotate(p=0.5),
        A.RandomRotate90(p=0.5),
        A.ToTensorV2(p=1.0),
    ], p=1.0)
