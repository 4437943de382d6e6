# 06_pytorch_deseg_module: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.Transpose(p=0.5),
        A.VerticalFlip(p=0.5),
        A.HorizontalFlip(p=0.5),
        A.OneOf([
            A.CLAHE(p=1.0),
            A.RandomBrightnessContrast(brightness_limit=0.15, contrast_limit=0.15, p=1.0),
            A.RandomGamma(p=1.0),
            A.HueSaturationValue(p=1.0),
        ], p=0.8),
        A.OneOf([
            A.Blur(blur_limit=4, p=1.0),
            A.MotionBlur(blur_limit=5, p=1.0),
            A.Sharpen(p=1.0),
        ], p=0.75),
        A.Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225), max_pixel_value=255.0, always_apply=True, p=1.0),
    ], bbox_params=A.BboxParams(format='coco', label_fields=('category_ids',), min_visibility=0.2), p=1.0)
