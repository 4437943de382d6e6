# 37_Medical_Segmentation_Benchmark: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.VerticalFlip(p=0.5),
        A.HorizontalFlip(p=0.5),
        A.RandomRotate90(p=0.5),
        A.OneOf([
            A.ElasticTransform(alpha=120, sigma=6.0, alpha_affine=3.5999999999999996, p=1),
            A.GridDistortion(p=0.5),
        ], p=0.5),
        A.RandomBrightnessContrast(p=0.8),
        A.RandomGamma(p=0.8),
        A.ShiftScaleRotate(p=0.5),
    ], p=1.0)
