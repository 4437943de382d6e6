# 22_nsu-diploma-wheat: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.HorizontalFlip(p=0.5),
        A.ShiftScaleRotate(shift_limit=0.0, scale_limit=(0.0, 0.1), rotate_limit=5, interpolation=cv2.INTER_LINEAR, p=0.75),
        A.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.0, hue=0.0, always_apply=False, p=0.75),
        A.PadIfNeeded(min_height=512, min_width=512, border_mode=cv2.BORDER_REPLICATE, always_apply=False, p=1.0),
        A.Resize(height=300, width=300, interpolation=cv2.INTER_LINEAR, always_apply=False, p=1.0),
        A.Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225), max_pixel_value=255.0, always_apply=False, p=1.0),
    ], p=1.0)
