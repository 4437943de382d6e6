# 31_Lane-detection-MobileNetV3: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.IAAAdditiveGaussianNoise(p=0.2),
        A.OneOf([
            A.CLAHE(p=1),
            A.RandomBrightness(p=1),
            A.RandomGamma(p=1),
        ], p=0.6),
        A.OneOf([
            A.IAASharpen(p=1),
            A.Blur(blur_limit=3, p=1),
            A.MotionBlur(blur_limit=3, p=1),
        ], p=0.6),
        A.OneOf([
            A.RandomContrast(p=1),
            A.HueSaturationValue(p=1),
        ], p=0.6),
    ], p=1.0)
