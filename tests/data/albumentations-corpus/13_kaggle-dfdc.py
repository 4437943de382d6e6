# 13_kaggle-dfdc: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.HorizontalFlip(p=0.5),
        A.OneOf([
            A.IAAAdditiveGaussianNoise(p=0.5),
            A.GaussNoise(p=0.5),
        ], p=0.2),
        A.OneOf([
            A.MotionBlur(p=0.25),
            A.GaussianBlur(p=0.5),
            A.Blur(blur_limit=3, p=0.25),
        ], p=0.2),
        A.HueSaturationValue(p=0.2),
        A.OneOf([
            A.RandomBrightness(p=0.5),
            A.IAASharpen(p=0.5),
            A.IAAEmboss(p=0.5),
            A.RandomBrightnessContrast(p=0.5),
        ], p=0.6),
        A.ToSepia(p=0.1),
    ], p=0.5)
