# 33_Doctor-Cyclop-Hackathon: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.Resize(height=1024, width=1024, p=1.0),
        A.HorizontalFlip(p=0.5),
        A.RandomBrightness(limit=0.1, p=0.75),
        A.ShiftScaleRotate(shift_limit=0.2, scale_limit=0.2, rotate_limit=30, border_mode=cv2.BORDER_CONSTANT, p=0.75),
        A.Cutout(max_h_size=307, max_w_size=307, num_holes=1, p=0.75),
    ], p=1.0)
