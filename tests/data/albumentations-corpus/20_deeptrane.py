# 20_deeptrane: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.RandomResizedCrop(height=384, width=384, scale=(0.5, 1.0), ratio=(0.75, 1.333), interpolation=cv2.INTER_LINEAR, p=1.0),
        A.ShiftScaleRotate(shift_limit=0.05, scale_limit=0.1, rotate_limit=30, interpolation=cv2.INTER_LINEAR, border_mode=cv2.BORDER_CONSTANT, value=0, p=0.5),
        A.HorizontalFlip(p=0.5),
        A.OneOf([
            A.MotionBlur(p=0.2),
            A.MedianBlur(blur_limit=3, p=0.1),
            A.Blur(blur_limit=3, p=0.1),
        ], p=0.4),
        A.OneOf([
            A.CLAHE(clip_limit=2, p=0.1),
            A.Sharpen(p=0.1),
            A.Emboss(p=0.1),
            A.RandomBrightnessContrast(p=0.3),
        ], p=0.6),
        A.CoarseDropout(max_holes=8, max_height=32, max_width=32, p=0.5),
        A.ToTensorV2(p=1.0),
    ], p=1.0)
