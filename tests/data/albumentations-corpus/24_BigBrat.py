# 24_BigBrat: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.OneOf([
            A.Rotate(limit=45, p=0.5),
            A.HorizontalFlip(p=0.5),
        ], p=1),
        A.OneOf([
            A.RandomContrast(p=0.5),
            A.RandomGamma(p=0.5),
            A.RandomBrightnessContrast(p=0.5),
            A.RGBShift(r_shift_limit=25, g_shift_limit=25, b_shift_limit=25, p=0.5),
        ], p=0.7),
    ], p=1.0)
