# 38_Deep_learning_Essentials: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.OneOf([
            A.RandomSizedCrop(min_max_height=(50, 101), height=224, width=224, p=0.5),
            A.PadIfNeeded(min_height=224, min_width=224, p=0.5),
        ], p=1),
        A.VerticalFlip(p=0.5),
        A.RandomRotate90(p=0.5),
        A.OneOf([
            A.ElasticTransform(alpha=120, sigma=6.0, alpha_affine=3.5999999999999996, p=0.4),
            A.GridDistortion(p=0.3),
            A.OpticalDistortion(distort_limit=2, shift_limit=0.5, p=0.4),
        ], p=0.8),
        A.CLAHE(p=0.8),
        A.RandomBrightnessContrast(p=0.8),
        A.RGBShift(r_shift_limit=20, g_shift_limit=20, b_shift_limit=20, always_apply=False, p=0.9),
        A.RandomGamma(p=0.8),
    ], p=1.0)
