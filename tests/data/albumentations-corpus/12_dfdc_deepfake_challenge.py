# 12_dfdc_deepfake_challenge: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from training.transforms.albu import IsotropicResize


def get_train_transforms():
    return A.Compose([
        A.ImageCompression(quality_lower=60, quality_upper=100, p=0.5),
        A.GaussNoise(p=0.1),
        A.GaussianBlur(blur_limit=3, p=0.05),
        A.HorizontalFlip(p=0.5),
        A.OneOf([
            IsotropicResize(max_side=380, interpolation_down=cv2.INTER_AREA, interpolation_up=cv2.INTER_CUBIC, p=1.0),
            IsotropicResize(max_side=380, interpolation_down=cv2.INTER_AREA, interpolation_up=cv2.INTER_LINEAR, p=1.0),
            IsotropicResize(max_side=380, interpolation_down=cv2.INTER_LINEAR, interpolation_up=cv2.INTER_LINEAR, p=1.0),
        ], p=1),
        A.PadIfNeeded(min_height=380, min_width=380, border_mode=cv2.BORDER_CONSTANT, p=1.0),
        A.OneOf([
            A.RandomBrightnessContrast(p=0.5),
            A.FancyPCA(p=0.5),
            A.HueSaturationValue(p=0.5),
        ], p=0.7),
        A.ToGray(p=0.2),
        A.ShiftScaleRotate(shift_limit=0.1, scale_limit=0.2, rotate_limit=10, border_mode=cv2.BORDER_CONSTANT, p=0.5),
    ], p=1.0)
