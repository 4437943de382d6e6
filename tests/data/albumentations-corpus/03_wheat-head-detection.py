# 03_wheat-head-detection: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.LongestMaxSize(max_size=1024, p=1),
        A.PadIfNeeded(min_height=1024, min_width=1024, border_mode=cv2.BORDER_REPLICATE, value=0, p=1),
        A.Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225), p=1.0),
        A.ToTensorV2(p=1.0),
    ], bbox_params=A.BboxParams(format='pascal_voc', label_fields=('class_labels',), min_area=20), p=1.0)
