# 19_pytorch_utils: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.Normalize(mean=(0.49139968, 0.48215841, 0.44653091), std=(0.24703223, 0.24348513, 0.26158784), p=1.0),
        A.HorizontalFlip(p=0.5),
        A.ShiftScaleRotate(p=0.5),
        A.CoarseDropout(max_holes=1, max_height=16, max_width=16, min_holes=1, min_height=16, min_width=16, fill_value=(0.49139968, 0.48215841, 0.44653091), p=0.5),
    ], p=1.0)
