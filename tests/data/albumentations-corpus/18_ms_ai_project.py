# 18_ms_ai_project: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.Resize(width=512, height=512, p=1.0),
        A.HorizontalFlip(p=0.5),
        A.VerticalFlip(p=0.5),
        A.RandomRotate90(p=0.5),
        A.Blur(p=0.3),
        A.CLAHE(p=0.3),
        A.ColorJitter(p=0.3),
        A.CoarseDropout(max_holes=12, max_height=20, max_width=20, p=0.3),
        A.Normalize(mean=(0.3199, 0.224, 0.1609), std=(0.302, 0.2183, 0.1741), max_pixel_value=255.0, p=1.0),
        A.ToTensorV2(p=1.0),
    ], p=1.0)
