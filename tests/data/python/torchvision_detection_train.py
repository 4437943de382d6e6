# Detection fine-tuning with torchvision.transforms.v2 (boxes travel with the images).
import torch
from torchvision.transforms import v2 as T

SIZE = (480, 640)  # (h, w)
FILL = {"image": 114}


def train_transforms():
    return T.Compose(
        [
            T.ToImage(),
            T.Resize(SIZE, antialias=True),
            T.RandomHorizontalFlip(p=0.5),
            T.RandomAffine(degrees=5, translate=(0.05, 0.05), scale=(0.9, 1.1), fill=114),
            T.ColorJitter(brightness=0.2, contrast=0.2, saturation=0.2, hue=0.02),
            T.RandomPerspective(0.2, p=0.3),
            T.GaussianBlur(5, sigma=(0.1, 1.5)),
            T.JPEG((70, 95)),
            T.SanitizeBoundingBoxes(),
            T.ToDtype(torch.float32, scale=True),
        ]
    )


# The tutorial's pipeline.
tutorial = T.Compose([
    T.ToImage(),
    T.RandomPhotometricDistort(p=1),
    T.RandomZoomOut(fill=FILL),
    T.RandomIoUCrop(),
    T.RandomHorizontalFlip(p=1),
    T.SanitizeBoundingBoxes(),
    T.ToDtype(torch.float32, scale=True),
])
