# ImageNet-style classification training with torchvision (v1 transforms).
import torch
import torchvision
from torchvision import datasets, transforms
from torchvision.transforms import InterpolationMode

crop_size = 224
resize_size = 256
mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_transforms(train: bool, hflip_prob=0.5, auto_augment_policy=None):
    if train:
        return transforms.Compose([
            transforms.RandomResizedCrop(crop_size, interpolation=InterpolationMode.BICUBIC),
            transforms.RandomHorizontalFlip(hflip_prob),
            transforms.RandomApply([transforms.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),
            transforms.RandomGrayscale(p=0.2),
            transforms.RandomChoice([transforms.RandomRotation(15), transforms.RandomAffine(0, translate=(0.1, 0.1))]),
            transforms.TrivialAugmentWide(interpolation=InterpolationMode.BILINEAR),
            transforms.ToTensor(),
            transforms.Normalize(mean, std),
            transforms.RandomErasing(p=0.25, value="random"),
        ])
    return transforms.Compose([
        transforms.Resize(resize_size, interpolation=InterpolationMode.BILINEAR),
        transforms.CenterCrop(crop_size),
        transforms.PILToTensor(),
        transforms.ConvertImageDtype(torch.float),
        transforms.Normalize(mean=mean, std=std),
    ])


train_set = datasets.ImageFolder("data/train", transform=build_transforms(True))
