# 29_table-extraction: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.ShiftScaleRotate(shift_limit=0, scale_limit=(0.0, 0.15), rotate_limit=1, border_mode=cv2.BORDER_CONSTANT, interpolation=cv2.INTER_AREA, value=(255, 255, 255), p=0.7),
        A.GridDistortion(distort_limit=0.1, border_mode=cv2.BORDER_CONSTANT, interpolation=cv2.INTER_AREA, value=(255, 255, 255), p=0.5),
        A.GaussNoise(var_limit=10, p=0.2),
        A.RandomBrightnessContrast(brightness_limit=0.05, contrast_limit=(-0.2, 0), brightness_by_max=True, p=0.2),
        A.ImageCompression(quality_lower=95, p=0.3),
        A.ToGray(always_apply=True, p=0.5),
        A.Normalize(p=1.0),
        A.ToTensorV2(p=1.0),
    ], p=1.0)
