# 39_deep-blueprint: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.Compose([
        A.RandomResizedCrop(height=512, width=512, p=1),
        A.Flip(p=0.5),
    ], additional_targets={'mip-image': 'image', 'segmentation': 'mask'}, p=1.0)
