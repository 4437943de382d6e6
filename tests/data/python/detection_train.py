# Object detection training (Pascal VOC boxes), Albumentations 2.x.
from albumentations import (
    Affine, BboxParams, Compose, HorizontalFlip, HueSaturationValue, ImageCompression,  # the transforms
    LongestMaxSize, OneOf, PadIfNeeded, RandomBrightnessContrast, ToGray,
)
from albumentations.pytorch import ToTensorV2
import cv2

INPUT_SIZE = 640
PAD_VALUE = (114, 114, 114)
H, W = INPUT_SIZE, INPUT_SIZE

box_params = BboxParams(
    "pascal_voc",
    label_fields=["class_labels"],
    min_area=16.0, min_visibility=0.3,
    min_width=2, min_height=2,
)

transforms = {
    "train": Compose(
        [
            LongestMaxSize(max_size=INPUT_SIZE, interpolation=cv2.INTER_LINEAR),
            PadIfNeeded(H, W, border_mode=cv2.BORDER_CONSTANT, fill=PAD_VALUE),
            Affine(scale=(0.75, 1.25), translate_percent=(-0.1, 0.1), rotate=(-10, 10),
                   shear={"x": (-5, 5), "y": (0, 0)}, border_mode=cv2.BORDER_CONSTANT, fill=114),
            HorizontalFlip(p=0.5),
            OneOf([HueSaturationValue(8, 40, 30), RandomBrightnessContrast(0.2, 0.2)], p=0.8),
            ToGray(p=0.01),
            ImageCompression(quality_range=(75, 100), p=0.3),
            ToTensorV2(),
        ],
        bbox_params=box_params,
    ),
    "val": Compose([LongestMaxSize(INPUT_SIZE), PadIfNeeded(H, W, border_mode=cv2.BORDER_CONSTANT)],
                   bbox_params=box_params),
}
