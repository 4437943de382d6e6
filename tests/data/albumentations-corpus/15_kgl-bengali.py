# 15_kgl-bengali: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.RandomCrop(height=96, width=96, p=0.2),
        A.HorizontalFlip(p=0.3),
        A.Resize(height=128, width=128, always_apply=True, p=1.0),
        ToTensor(p=1.0),
    ], p=1.0)
