# 08_PhantomSponges: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.Resize(height=640, width=640, p=1.0),
        A.Normalize(mean=(0, 0, 0), std=(1, 1, 1), max_pixel_value=255, p=1.0),
        A.ToTensorV2(p=1.0),
    ], bbox_params=A.BboxParams(format='yolo', min_visibility=0.2, label_fields=('class_labels',)), p=1.0)
