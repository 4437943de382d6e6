#!/usr/bin/env python3
"""Writes the corpus JSON files (A.save's format) from the specs below.

Each spec restates one public training pipeline as the values A.save would
write: positional arguments already placed by the release's signature, cv2
constants as integers, tuples as lists, non-literals replaced by the value the
repository's config uses (see README.md). Parameters left at their defaults
are not written, except p, which A.save always writes.

Run: python3 make_corpus.py  (writes NN_name.json beside this file)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# p defaults of the classes used here (everything else defaults to 0.5)
P_ONE = {
    "Compose", "ReplayCompose", "SomeOf", "Resize", "RandomCrop", "CenterCrop",
    "RandomResizedCrop", "RandomSizedCrop", "RandomSizedBBoxSafeCrop",
    "PadIfNeeded", "LongestMaxSize", "SmallestMaxSize", "Normalize",
    "ToTensorV2", "ToTensor", "ToFloat", "FromFloat", "Lambda",
    "RandomCropFromBorders", "IsotropicResize", "Cut",
}

# module paths written by the 0.x releases (A.save wrote full names then)
OLD_MODULES = {
    "Compose": "albumentations.core.composition",
    "OneOf": "albumentations.core.composition",
    "ToTensor": "albumentations.pytorch.transforms",
    "ToTensorV2": "albumentations.pytorch.transforms",
}


def T(name, **params):
    return {"name": name, "params": params}


def OneOf(children, **params):
    return {"name": "OneOf", "params": params, "children": children}


def Compose(children, **params):
    return {"name": "Compose", "params": params, "children": children}


def full_name(name, era):
    if "." in name:
        return name
    if era != "0.x":
        return name
    if name in OLD_MODULES:
        return OLD_MODULES[name] + "." + name
    if name.startswith("IAA"):
        return "albumentations.imgaug.transforms." + name
    return "albumentations.augmentations.transforms." + name


def render(node, era):
    name = node["name"]
    short = name.rsplit(".", 1)[-1]
    out = {"__class_fullname__": full_name(name, era)}
    params = dict(node["params"])
    out["p"] = params.pop("p", 1.0 if short in P_ONE else 0.5)
    out.update(params)
    if "children" in node:
        out["transforms"] = [render(c, era) for c in node["children"]]
    return out


def pipeline(spec):
    era = spec["era"]
    root = {"name": spec.get("compose", "Compose"),
            "params": dict(spec.get("compose_params", {})),
            "children": spec["T"]}
    top = render(root, era)
    top["bbox_params"] = spec.get("bbox")
    if "keypoints" in spec:
        top["keypoint_params"] = spec["keypoints"]
    if "targets" in spec:
        top["additional_targets"] = spec["targets"]
    return {"__version__": spec["version"], "transform": top}


V0, V1, V2 = "0.5.2", "1.3.1", "2.0.8"

SPECS = []


def add(nn, short, **spec):
    spec["nn"], spec["short"] = nn, short
    SPECS.append(spec)


# ---------------------------------------------------------------- detection
add(1, "yolov5", era="1.x", version=V1,
    bbox={"format": "yolo", "label_fields": ["class_labels"]},
    T=[T("RandomResizedCrop", height=640, width=640, scale=[0.8, 1.0], ratio=[0.9, 1.11], p=0.0),
       T("Blur", p=0.01), T("MedianBlur", p=0.01), T("ToGray", p=0.01), T("CLAHE", p=0.01),
       T("RandomBrightnessContrast", p=0.0), T("RandomGamma", p=0.0),
       T("ImageCompression", quality_lower=75, p=0.0)])

add(2, "ultralytics", era="2.x", version=V2,
    T=[T("Blur", p=0.01), T("MedianBlur", p=0.01), T("ToGray", p=0.01), T("CLAHE", p=0.01),
       T("RandomBrightnessContrast", p=0.0), T("RandomGamma", p=0.0),
       T("ImageCompression", quality_range=[75, 100], p=0.0)])

add(3, "wheat-head-detection", era="1.x", version=V1,
    bbox={"format": "pascal_voc", "label_fields": ["class_labels"], "min_area": 20},
    T=[T("LongestMaxSize", max_size=1024, p=1),
       T("PadIfNeeded", min_height=1024, min_width=1024, p=1, border_mode=1, value=0),
       T("Normalize", mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
       T("ToTensorV2")])

add(4, "cnn_bakeoff2", era="1.x", version=V1,
    bbox={"format": "yolo"},
    T=[T("RandomCrop", height=512, width=512), T("RandomBrightnessContrast", p=0.3),
       T("HorizontalFlip", p=0.5)])

add(5, "BirdMOT", era="1.x", version=V1,
    bbox={"format": "coco", "min_area": 1024, "min_visibility": 0.1, "label_fields": ["class_labels"]},
    T=[T("RandomCrop", width=450, height=450), T("HorizontalFlip", p=0.5),
       T("RandomBrightnessContrast", p=0.2)])

add(6, "pytorch_deseg_module", era="1.x", version=V1,
    bbox={"format": "coco", "label_fields": ["category_ids"], "min_visibility": 0.2},
    T=[T("Transpose", p=0.5), T("VerticalFlip", p=0.5), T("HorizontalFlip", p=0.5),
       OneOf([T("CLAHE", p=1.0), T("RandomBrightnessContrast", brightness_limit=0.15, contrast_limit=0.15, p=1.0),
              T("RandomGamma", p=1.0), T("HueSaturationValue", p=1.0)], p=0.8),
       OneOf([T("Blur", blur_limit=4, p=1.0), T("MotionBlur", blur_limit=5, p=1.0), T("Sharpen", p=1.0)], p=0.75),
       T("Normalize", mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225], max_pixel_value=255.0, always_apply=True)])

add(7, "CLIPtheCenter", era="1.x", version=V1,
    bbox={"format": "coco", "min_area": 1600, "min_visibility": 0.1, "label_fields": ["class_labels"]},
    T=[T("RandomCrop", width=384, height=384)])

add(8, "PhantomSponges", era="1.x", version=V1,
    bbox={"format": "yolo", "min_visibility": 0.2, "label_fields": ["class_labels"]},
    T=[T("Resize", height=640, width=640),
       T("Normalize", mean=[0, 0, 0], std=[1, 1, 1], max_pixel_value=255),
       T("ToTensorV2")])

add(9, "sartorius", era="1.x", version=V1,
    bbox={"format": "pascal_voc", "label_fields": ["category_ids"]},
    T=[T("HorizontalFlip", p=0.5), T("VerticalFlip", p=0.5),
       T("ShiftScaleRotate", border_mode=0, p=0.7, shift_limit=0.2, scale_limit=0.4),
       T("Normalize", mean=[0.485], std=[0.229]), T("ToTensorV2")])

add(10, "effhandegonet", era="1.x", version=V1, compose="ReplayCompose",
    keypoints={"format": "xy", "remove_invisible": False},
    T=[OneOf([T("HorizontalFlip", always_apply=True, p=0.4),
              T("SafeRotate", always_apply=True, p=0.4, limit=[-45, 45], interpolation=0, border_mode=0,
                value=[0, 0, 0], mask_value=None),
              T("RandomCropFromBorders", always_apply=True, p=0.4, crop_left=0.2, crop_right=0.2,
                crop_top=0.2, crop_bottom=0.2),
              T("RandomSizedCrop", always_apply=True, p=0.5, min_max_height=[500, 720], height=1080,
                width=1920, w2h_ratio=1.0, interpolation=0)], p=0.8)])

add(11, "Industrial-6D-Pose", era="1.x", version=V1,
    T=[T("HorizontalFlip", p=0.5), T("RandomBrightnessContrast", p=0.3), T("Rotate", limit=10, p=0.3)])

# ----------------------------------------------------------- classification
add(12, "dfdc_deepfake_challenge", era="1.x", version=V1,
    T=[T("ImageCompression", quality_lower=60, quality_upper=100, p=0.5),
       T("GaussNoise", p=0.1), T("GaussianBlur", blur_limit=3, p=0.05), T("HorizontalFlip"),
       OneOf([T("training.transforms.albu.IsotropicResize", max_side=380, interpolation_down=3, interpolation_up=2),
              T("training.transforms.albu.IsotropicResize", max_side=380, interpolation_down=3, interpolation_up=1),
              T("training.transforms.albu.IsotropicResize", max_side=380, interpolation_down=1, interpolation_up=1)],
             p=1),
       T("PadIfNeeded", min_height=380, min_width=380, border_mode=0),
       OneOf([T("RandomBrightnessContrast"), T("FancyPCA"), T("HueSaturationValue")], p=0.7),
       T("ToGray", p=0.2),
       T("ShiftScaleRotate", shift_limit=0.1, scale_limit=0.2, rotate_limit=10, border_mode=0, p=0.5)])

add(13, "kaggle-dfdc", era="0.x", version=V0, compose_params={"p": 0.5},
    T=[T("HorizontalFlip"),
       OneOf([T("IAAAdditiveGaussianNoise"), T("GaussNoise")], p=0.2),
       OneOf([T("MotionBlur", p=0.25), T("GaussianBlur", p=0.5), T("Blur", blur_limit=3, p=0.25)], p=0.2),
       T("HueSaturationValue", p=0.2),
       OneOf([T("RandomBrightness"), T("IAASharpen"), T("IAAEmboss"), T("RandomBrightnessContrast")], p=0.6),
       T("ToSepia", p=0.1)])

add(14, "Bengali", era="0.x", version=V0,
    T=[T("ShiftScaleRotate", rotate_limit=15, p=0.5),
       OneOf([T("OpticalDistortion", p=1), T("GridDistortion", p=1)], p=0.2)])

add(15, "kgl-bengali", era="0.x", version=V0,
    T=[T("RandomCrop", height=96, width=96, p=0.2), T("HorizontalFlip", p=0.3),
       T("Resize", height=128, width=128, always_apply=True), T("ToTensor")])

add(16, "APTOS-2019", era="0.x", version=V0,
    T=[T("Resize", height=224, width=224), T("HorizontalFlip"), T("RandomBrightness"),
       T("ShiftScaleRotate", rotate_limit=15, scale_limit=0.10), T("JpegCompression", quality_lower=80),
       T("HueSaturationValue"), T("Normalize"), T("ToTensor")])

add(17, "sign-lang-detect", era="0.x", version=V0,
    T=[T("Rotate", limit=[-15, 15], always_apply=True), T("HorizontalFlip", p=0.5),
       OneOf([T("IAAAdditiveGaussianNoise"), T("GaussNoise")], p=0.2),
       OneOf([T("MotionBlur", p=0.2), T("MedianBlur", blur_limit=3, p=0.1), T("Blur", blur_limit=3, p=0.1)], p=0.2),
       T("ShiftScaleRotate", shift_limit=0.0625, scale_limit=0.2, rotate_limit=10, p=0.2),
       OneOf([T("OpticalDistortion", p=0.3), T("GridDistortion", p=0.1), T("IAAPiecewiseAffine", p=0.3)], p=0.2),
       OneOf([T("IAASharpen"), T("IAAEmboss"), T("RandomBrightnessContrast")], p=0.3),
       T("HueSaturationValue", p=0.3), T("ToFloat")])

add(18, "ms_ai_project", era="1.x", version=V1,
    T=[T("Resize", width=512, height=512), T("HorizontalFlip", p=0.5), T("VerticalFlip", p=0.5),
       T("RandomRotate90", p=0.5), T("Blur", p=0.3), T("CLAHE", p=0.3), T("ColorJitter", p=0.3),
       T("CoarseDropout", max_holes=12, max_height=20, max_width=20, p=0.3),
       T("Normalize", mean=[0.3199, 0.2240, 0.1609], std=[0.3020, 0.2183, 0.1741], max_pixel_value=255.0),
       T("ToTensorV2")])

add(19, "pytorch_utils", era="1.x", version=V1,
    T=[T("Normalize", mean=[0.49139968, 0.48215841, 0.44653091], std=[0.24703223, 0.24348513, 0.26158784]),
       T("HorizontalFlip"), T("ShiftScaleRotate"),
       T("CoarseDropout", max_holes=1, max_height=16, max_width=16, min_holes=1, min_height=16, min_width=16,
         fill_value=[0.49139968, 0.48215841, 0.44653091], mask_fill_value=None)])

add(20, "deeptrane", era="1.x", version=V1,
    T=[T("RandomResizedCrop", height=384, width=384, scale=[0.5, 1.0], ratio=[0.75, 1.333], interpolation=1, p=1.0),
       T("ShiftScaleRotate", shift_limit=0.05, scale_limit=0.1, rotate_limit=30, interpolation=1, border_mode=0,
         value=0, p=0.5),
       T("HorizontalFlip", p=0.5),
       OneOf([T("MotionBlur", p=0.2), T("MedianBlur", blur_limit=3, p=0.1), T("Blur", blur_limit=3, p=0.1)], p=0.4),
       OneOf([T("CLAHE", p=0.1, clip_limit=2), T("Sharpen", p=0.1), T("Emboss", p=0.1),
              T("RandomBrightnessContrast", p=0.3)], p=0.6),
       T("CoarseDropout", p=0.5, max_holes=8, max_height=32, max_width=32),
       T("ToTensorV2")])

add(21, "DeepLearning_MiniProjects", era="1.x", version=V1,
    T=[T("HorizontalFlip", p=0.5), T("ShiftScaleRotate", rotate_limit=[-15, -15], border_mode=1, p=0.5),
       T("RandomCrop", height=224, width=224, p=1.0), T("ToTensorV2", p=1.0)])

add(22, "nsu-diploma-wheat", era="1.x", version=V1,
    T=[T("HorizontalFlip", p=0.5),
       T("ShiftScaleRotate", shift_limit=0.0, scale_limit=[0.0, 0.1], rotate_limit=5, interpolation=1, p=0.75),
       T("ColorJitter", brightness=0.4, contrast=0.4, saturation=0.0, hue=0.0, always_apply=False, p=0.75),
       T("PadIfNeeded", min_height=512, min_width=512, border_mode=1, always_apply=False, p=1.0),
       T("Resize", height=300, width=300, interpolation=1, always_apply=False, p=1.0),
       T("Normalize", mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225], max_pixel_value=255.0,
         always_apply=False, p=1.0)])

add(23, "Knee_classification", era="1.x", version=V1,
    T=[T("Resize", height=224, width=224), T("HorizontalFlip", p=0.5),
       T("ShiftScaleRotate", shift_limit=0.05, scale_limit=0.1, rotate_limit=10, p=0.5, border_mode=0),
       T("RandomBrightnessContrast", brightness_limit=0.1, contrast_limit=0.1, p=0.3),
       T("Normalize", mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]), T("ToTensorV2")])

add(24, "BigBrat", era="1.x", version=V1,
    T=[OneOf([T("Rotate", limit=45, p=0.5), T("HorizontalFlip", p=0.5)], p=1),
       OneOf([T("RandomContrast", p=0.5), T("RandomGamma", p=0.5), T("RandomBrightnessContrast", p=0.5),
              T("RGBShift", r_shift_limit=25, g_shift_limit=25, b_shift_limit=25, p=0.5)], p=0.7)])

add(25, "Kaggle-seti", era="1.x", version=V1,
    T=[T("Resize", height=256, width=256), T("HorizontalFlip", p=0.5), T("VerticalFlip", p=0.5),
       T("Transpose"), T("ShiftScaleRotate"), T("RandomRotate90"), T("ToTensorV2", p=1.0)])

add(26, "SinoNomCharacterRetrieval", era="1.x", version=V1,
    T=[T("Resize", height=64, width=64),
       Compose([T("ShiftScaleRotate", shift_limit=[-0.1, 0.1], scale_limit=[-0.15, 0], rotate_limit=5, border_mode=0,
                  interpolation=3, value=[255, 255, 255], p=1),
                T("GridDistortion", distort_limit=0.1, border_mode=0, interpolation=3, value=[255, 255, 255], p=0.5)],
               p=0.5),
       T("InvertImg", p=0.3),
       T("CoarseDropout", max_holes=3, max_height=8, max_width=8, min_holes=1, min_height=8, min_width=8, p=0.5),
       T("GaussNoise", var_limit=100, mean=0, p=0.5),
       T("RandomBrightnessContrast", brightness_limit=0.05, contrast_limit=[-0.2, 0], brightness_by_max=True, p=0.2),
       T("ImageCompression", quality_lower=95, p=0.3),
       T("ToGray", always_apply=True),
       T("Normalize", mean=1.8843, std=1.2369)])

add(27, "sivl", era="1.x", version=V1, targets={"positive": "image", "negative": "image"},
    T=[T("Flip"), T("Transpose"), T("GaussNoise"),
       OneOf([T("MotionBlur", p=0.2), T("MedianBlur", blur_limit=3, p=0.1), T("Blur", blur_limit=3, p=0.1)], p=0.2),
       T("ShiftScaleRotate", shift_limit=0.0625, scale_limit=0.2, rotate_limit=45, p=0.2),
       OneOf([T("OpticalDistortion", p=0.3), T("GridDistortion", p=0.1), T("PiecewiseAffine", p=0.3)], p=0.2),
       OneOf([T("CLAHE", clip_limit=2), T("Sharpen"), T("Emboss"), T("RandomBrightnessContrast")], p=0.3),
       T("HueSaturationValue", p=0.3)])

# ------------------------------------------------------ OCR / retrieval
add(28, "LaTeX-OCR", era="1.x", version=V1,
    T=[Compose([T("ShiftScaleRotate", shift_limit=0, scale_limit=[-0.15, 0], rotate_limit=1, border_mode=0,
                  interpolation=3, value=[255, 255, 255], p=1),
                T("GridDistortion", distort_limit=0.1, border_mode=0, interpolation=3, value=[255, 255, 255], p=0.5)],
               p=0.15),
       T("RGBShift", r_shift_limit=15, g_shift_limit=15, b_shift_limit=15, p=0.3),
       T("GaussNoise", var_limit=10, p=0.2),
       T("RandomBrightnessContrast", brightness_limit=0.05, contrast_limit=[-0.2, 0], brightness_by_max=True, p=0.2),
       T("ImageCompression", quality_lower=95, p=0.3),
       T("ToGray", always_apply=True),
       T("Normalize", mean=[0.7931, 0.7931, 0.7931], std=[0.1738, 0.1738, 0.1738]),
       T("ToTensorV2")])

add(29, "table-extraction", era="1.x", version=V1,
    T=[T("ShiftScaleRotate", shift_limit=0, scale_limit=[0.0, 0.15], rotate_limit=1, border_mode=0, interpolation=3,
         value=[255, 255, 255], p=0.7),
       T("GridDistortion", distort_limit=0.1, border_mode=0, interpolation=3, value=[255, 255, 255], p=0.5),
       T("GaussNoise", var_limit=10, p=0.2),
       T("RandomBrightnessContrast", brightness_limit=0.05, contrast_limit=[-0.2, 0], brightness_by_max=True, p=0.2),
       T("ImageCompression", quality_lower=95, p=0.3),
       T("ToGray", always_apply=True), T("Normalize"), T("ToTensorV2")])

add(30, "Sample4Geo", era="1.x", version=V1,
    T=[T("ImageCompression", quality_lower=90, quality_upper=100, p=0.5),
       T("Resize", height=384, width=384, interpolation=5, p=1.0),
       T("ColorJitter", brightness=0.15, contrast=0.15, saturation=0.15, hue=0.15, always_apply=False, p=0.5),
       OneOf([T("AdvancedBlur", p=1.0), T("Sharpen", p=1.0)], p=0.3),
       OneOf([T("GridDropout", ratio=0.4, p=1.0),
              T("CoarseDropout", max_holes=25, max_height=76, max_width=76, min_holes=10, min_height=38,
                min_width=38, p=1.0)], p=0.3),
       T("Normalize", mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
       T("ToTensorV2")])

# ------------------------------------------------------------ segmentation
add(31, "Lane-detection-MobileNetV3", era="0.x", version=V0,
    T=[T("IAAAdditiveGaussianNoise", p=0.2),
       OneOf([T("CLAHE", p=1), T("RandomBrightness", p=1), T("RandomGamma", p=1)], p=0.6),
       OneOf([T("IAASharpen", p=1), T("Blur", blur_limit=3, p=1), T("MotionBlur", blur_limit=3, p=1)], p=0.6),
       OneOf([T("RandomContrast", p=1), T("HueSaturationValue", p=1)], p=0.6)])

add(32, "Time-Lapse-Microscopy-Toolkit", era="0.x", version=V0,
    T=[T("HorizontalFlip", p=0.5),
       T("Rotate", limit=90, interpolation=1, border_mode=4, value=None, mask_value=None, always_apply=True, p=0.5),
       T("ShiftScaleRotate", scale_limit=0.5, rotate_limit=0, shift_limit=0.1, p=1, border_mode=0),
       T("PadIfNeeded", min_height=320, min_width=320, always_apply=True, border_mode=0),
       T("RandomCrop", height=320, width=320, always_apply=True),
       T("IAAAdditiveGaussianNoise", p=0.2), T("IAAPerspective", p=0.5),
       OneOf([T("CLAHE", p=1), T("RandomBrightness", p=1), T("RandomGamma", p=1)], p=0.9),
       OneOf([T("IAASharpen", p=1), T("Blur", blur_limit=3, p=1), T("MotionBlur", blur_limit=3, p=1)], p=0.9),
       OneOf([T("RandomContrast", p=1), T("HueSaturationValue", p=1)], p=0.9)])

add(33, "Doctor-Cyclop-Hackathon", era="0.x", version=V0,
    T=[T("Resize", height=1024, width=1024), T("HorizontalFlip", p=0.5),
       T("RandomBrightness", limit=0.1, p=0.75),
       T("ShiftScaleRotate", shift_limit=0.2, scale_limit=0.2, rotate_limit=30, border_mode=0, p=0.75),
       T("Cutout", max_h_size=307, max_w_size=307, num_holes=1, p=0.75)])

add(34, "ink_code", era="1.x", version=V1,
    T=[T("Resize", height=224, width=224), T("HorizontalFlip", p=0.5), T("VerticalFlip", p=0.5),
       T("RandomBrightnessContrast", p=0.75), T("ShiftScaleRotate", p=0.75),
       OneOf([T("GaussNoise", var_limit=[10, 50]), T("GaussianBlur"), T("MotionBlur")], p=0.4),
       T("GridDistortion", num_steps=5, distort_limit=0.3, p=0.5),
       T("CoarseDropout", max_holes=1, max_width=67, max_height=67, mask_fill_value=0, p=0.5),
       T("Normalize", mean=[0, 0, 0, 0, 0, 0], std=[1, 1, 1, 1, 1, 1]),
       T("ToTensorV2", transpose_mask=True)])

add(35, "LPTN-marine", era="1.x", version=V1,
    T=[T("HorizontalFlip", p=0.5), T("VerticalFlip", p=0.5),
       T("ShiftScaleRotate", scale_limit=0.5, rotate_limit=0, shift_limit=0.1, p=0.5, border_mode=0),
       T("PadIfNeeded", min_height=384, min_width=512, always_apply=True, border_mode=0, value=0)])

add(36, "SIIM-ACR-Pneumothorax", era="1.x", version=V1,
    T=[T("Rotate", limit=10, p=1), T("GaussianBlur", blur_limit=[3, 5], p=1),
       T("Resize", height=128, width=128), T("ToTensorV2")])

add(37, "Medical_Segmentation_Benchmark", era="1.x", version=V1,
    T=[T("VerticalFlip", p=0.5), T("HorizontalFlip", p=0.5), T("RandomRotate90", p=0.5),
       OneOf([T("ElasticTransform", p=1, alpha=120, sigma=120 * 0.05, alpha_affine=120 * 0.03),
              T("GridDistortion", p=0.5)], p=0.5),
       T("RandomBrightnessContrast", p=0.8), T("RandomGamma", p=0.8), T("ShiftScaleRotate", p=0.5)])

add(38, "Deep_learning_Essentials", era="1.x", version=V1,
    T=[OneOf([T("RandomSizedCrop", min_max_height=[50, 101], height=224, width=224, p=0.5),
              T("PadIfNeeded", min_height=224, min_width=224, p=0.5)], p=1),
       T("VerticalFlip", p=0.5), T("RandomRotate90", p=0.5),
       OneOf([T("ElasticTransform", p=0.4, alpha=120, sigma=120 * 0.05, alpha_affine=120 * 0.03),
              T("GridDistortion", p=0.3),
              T("OpticalDistortion", p=0.4, distort_limit=2, shift_limit=0.5)], p=0.8),
       T("CLAHE", p=0.8), T("RandomBrightnessContrast", p=0.8),
       T("RGBShift", r_shift_limit=20, g_shift_limit=20, b_shift_limit=20, always_apply=False, p=0.9),
       T("RandomGamma", p=0.8)])

add(39, "deep-blueprint", era="1.x", version=V1,
    targets={"mip-image": "image", "segmentation": "mask"},
    T=[T("RandomResizedCrop", height=512, width=512, p=1), T("Flip", p=0.5)])

add(40, "FineTune-Script-SAM2.1", era="2.x", version=V2,
    T=[T("RandomBrightnessContrast", p=0.5), T("RandomShadow", p=0.3), T("RandomFog", p=0.2),
       T("HorizontalFlip", p=0.5),
       T("Affine", translate_percent=0.1, scale=[0.9, 1.1], rotate=[-15, 15], p=0.5)])

add(41, "data-augmentation-with-Albumentations", era="1.x", version=V1,
    T=[T("HorizontalFlip"), T("VerticalFlip"), T("Rotate"), T("GaussianBlur")])


def main():
    for s in SPECS:
        path = os.path.join(HERE, "%02d_%s.json" % (s["nn"], s["short"]))
        with open(path, "w") as f:
            json.dump(pipeline(s), f, indent=2)
            f.write("\n")
    print(len(SPECS), "pipelines written")


if __name__ == "__main__":
    main()
