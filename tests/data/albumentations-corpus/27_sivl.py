# 27_sivl: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.Flip(p=0.5),
        A.Transpose(p=0.5),
        A.GaussNoise(p=0.5),
        A.OneOf([
            A.MotionBlur(p=0.2),
            A.MedianBlur(blur_limit=3, p=0.1),
            A.Blur(blur_limit=3, p=0.1),
        ], p=0.2),
        A.ShiftScaleRotate(shift_limit=0.0625, scale_limit=0.2, rotate_limit=45, p=0.2),
        A.OneOf([
            A.OpticalDistortion(p=0.3),
            A.GridDistortion(p=0.1),
            A.PiecewiseAffine(p=0.3),
        ], p=0.2),
        A.OneOf([
            A.CLAHE(clip_limit=2, p=0.5),
            A.Sharpen(p=0.5),
            A.Emboss(p=0.5),
            A.RandomBrightnessContrast(p=0.5),
        ], p=0.3),
        A.HueSaturationValue(p=0.3),
    ], additional_targets={'positive': 'image', 'negative': 'image'}, p=1.0)
