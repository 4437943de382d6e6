# 16_APTOS-2019: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.Resize(height=224, width=224, p=1.0),
        A.HorizontalFlip(p=0.5),
        A.RandomBrightness(p=0.5),
        A.ShiftScaleRotate(rotate_limit=15, scale_limit=0.1, p=0.5),
        A.JpegCompression(quality_lower=80, p=0.5),
        A.HueSaturationValue(p=0.5),
        A.Normalize(p=1.0),
        ToTensor(p=1.0),
    ], p=1.0)
