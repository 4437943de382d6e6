# 28_LaTeX-OCR: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.Compose([
            A.ShiftScaleRotate(shift_limit=0, scale_limit=(-0.15, 0), rotate_limit=1, border_mode=cv2.BORDER_CONSTANT, interpolation=cv2.INTER_AREA, value=(255, 255, 255), p=1),
            A.GridDistortion(distort_limit=0.1, border_mode=cv2.BORDER_CONSTANT, interpolation=cv2.INTER_AREA, value=(255, 255, 255), p=0.5),
        ], p=0.15),
        A.RGBShift(r_shift_limit=15, g_shift_limit=15, b_shift_limit=15, p=0.3),
        A.GaussNoise(var_limit=10, p=0.2),
        A.RandomBrightnessContrast(brightness_limit=0.05, contrast_limit=(-0.2, 0), brightness_by_max=True, p=0.2),
        A.ImageCompression(quality_lower=95, p=0.3),
        A.ToGray(always_apply=True, p=0.5),
        A.Normalize(mean=(0.7931, 0.7931, 0.7931), std=(0.1738, 0.1738, 0.1738), p=1.0),
        A.ToTensorV2(p=1.0),
    ], p=1.0)
