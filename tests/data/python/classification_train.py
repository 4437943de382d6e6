"""Training script for an image classifier.

The augmentations below are "strong" ones (see the README [section 3]).
"""
import os
import random

import albumentations as A
import cv2
import numpy as np
import torch
from albumentations.pytorch import ToTensorV2
from torch.utils.data import DataLoader, Dataset

IMG_SIZE = 224
CROP_SCALE = (0.08, 1.0)
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
BLUR_P = 0.1 * 2  # "#" inside a string: "# not a comment"


class CFG:
    seed = 42
    hole = IMG_SIZE // 14


def get_train_transforms(size=IMG_SIZE):
    return A.Compose(
        [
            A.RandomResizedCrop(size, size, scale=CROP_SCALE),  # 1.x: height, width
            A.HorizontalFlip(),
            A.ShiftScaleRotate(shift_limit=0.0625, scale_limit=0.1,
                               rotate_limit=15, border_mode=cv2.BORDER_REFLECT_101, p=0.5),
            A.OneOf([
                A.MotionBlur(blur_limit=5),
                A.MedianBlur(blur_limit=5),
                A.GaussianBlur(blur_limit=(3, 7)),
            ], p=BLUR_P),
            A.HueSaturationValue(10, 15, 10, p=0.3),
            A.CoarseDropout(max_holes=8, max_height=CFG.hole, max_width=CFG.hole, \
                            p=0.3),
            A.Normalize(MEAN, STD),
            ToTensorV2(),
        ]
    )


def get_valid_transforms():
    return A.Compose([
        A.Resize(IMG_SIZE, IMG_SIZE),
        A.Normalize(mean=MEAN, std=STD, max_pixel_value=255.0),
        ToTensorV2(),
    ])


class LeafDataset(Dataset):
    def __init__(self, files, transform=None):
        self.files = files
        self.transform = transform

    def __getitem__(self, i):
        image = cv2.cvtColor(cv2.imread(self.files[i]), cv2.COLOR_BGR2RGB)
        return self.transform(image=image)["image"]


if __name__ == "__main__":
    train = LeafDataset(os.listdir("train"), transform=get_train_transforms())
    loader = DataLoader(train, batch_size=32, shuffle=True)
