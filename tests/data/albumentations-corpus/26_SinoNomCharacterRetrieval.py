# 26_SinoNomCharacterRetrieval: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.Resize(height=64, width=64, p=1.0),
        A.Compose([
            A.ShiftScaleRotate(shift_limit=(-0.1, 0.1), scale_limit=(-0.15, 0), rotate_limit=5, border_mode=cv2.BORDER_CONSTANT, interpolation=cv2.INTER_AREA, value=(255, 255, 255), p=1),
            A.GridDistortion(distort_limit=0.1, border_mode=cv2.BORDER_CONSTANT, interpolation=cv2.INTER_AREA, value=(255, 255, 255), p=0.5),
        ], p=0.5),
        A.InvertImg(p=0.3),
        A.CoarseDropout(max_holes=3, max_height=8, max_width=8, min_holes=1, min_height=8, min_width=8, p=0.5),
        A.GaussNoise(var_limit=100, mean=0, p=0.5),
        A.RandomBrightnessContrast(brightness_limit=0.05, contrast_limit=(-0.2, 0), brightness_by_max=True, p=0.2),
        A.ImageCompression(quality_lower=95, p=0.3),
        A.ToGray(always_apply=True, p=0.5),
        A.Normalize(mean=1.8843, std=1.2369, p=1.0),
    ], p=1.0)
