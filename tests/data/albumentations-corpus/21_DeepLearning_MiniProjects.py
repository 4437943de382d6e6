# 21_DeepLearning_MiniProjects: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A
from albumentations.pytorch import ToTensorV2, ToTensor


def get_train_transforms():
    return A.Compose([
        A.HorizontalFlip(p=0.5),
        A.ShiftScaleRotate(rotate_limit=(-15, -15), border_mode=cv2.BORDER_REPLICATE, p=0.5),
        A.RandomCrop(height=224, width=224, p=1.0),
        A.ToTensorV2(p=1.0),
    ], p=1.0)
