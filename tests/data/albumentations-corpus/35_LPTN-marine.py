# 35_LPTN-marine: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.HorizontalFlip(p=0.5),
        A.VerticalFlip(p=0.5),
        A.ShiftScaleRotate(scale_limit=0.5, rotate_limit=0, shift_limit=0.1, border_mode=cv2.BORDER_CONSTANT, p=0.5),
        A.PadIfNeeded(min_height=384, min_width=512, always_apply=True, border_mode=cv2.BORDER_CONSTANT, value=0, p=1.0),
    ], p=1.0)
