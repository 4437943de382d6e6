# 17_sign-lang-detect: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.Rotate(limit=(-15, 15), always_apply=True, p=0.5),
        A.HorizontalFlip(p=0.5),
        A.OneOf([
            A.IAAAdditiveGaussianNoise(p=0.5),
            A.GaussNoise(p=0.5),
        ], p=0.2),
        A.OneOf([
            A.MotionBlur(p=0.2),
            A.MedianBlur(blur_limit=3, p=0.1),
            A.Blur(blur_limit=3, p=0.1),
        ], p=0.2),
        A.ShiftScaleRotate(shift_limit=0.0625, scale_limit=0.2, rotate_limit=10, p=0.2),
        A.OneOf([
            A.OpticalDistortion(p=0.3),
            A.GridDistortion(p=0.1),
            A.IAAPiecewiseAffine(p=0.3),
        ], p=0.2),
        A.OneOf([
            A.IAASharpen(p=0.5),
            A.IAAEmboss(p=0.5),
            A.RandomBrightnessContrast(p=0.5),
        ], p=0.3),
        A.HueSaturationValue(p=0.3),
        A.ToFloat(p=1.0),
    ], p=1.0)
