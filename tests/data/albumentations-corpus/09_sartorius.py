# 09_sartorius: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.HorizontalFlip(p=0.5),
        A.VerticalFlip(p=0.5),
        A.ShiftScaleRotate(border_mode=cv2.BORDER_CONSTANT, shift_limit=0.2, scale_limit=0.4, p=0.7),
        A.Normalize(mean=(0.485,), std=(0.229,), p=1.0),
        A.ToTensorV2(p=1.0),
    ], bbox_params=A.BboxParams(format='pascal_voc', label_fields=('category_ids',)), p=1.0)
