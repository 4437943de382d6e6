# 36_SIIM-ACR-Pneumothorax: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.Rotate(limit=10, p=1),
        A.GaussianBlur(blur_limit=(3, 5), p=1),
        A.Resize(height=128, width=128, p=1.0),
        A.ToTensorV2(p=1.0),
    ], p=1.0)
