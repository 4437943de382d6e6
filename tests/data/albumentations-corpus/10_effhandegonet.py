# 10_effhandegonet: restated from the JSON beside it (README.md names the source).
import cv2
import albumentations as A


def get_train_transforms():
    return A.ReplayCompose([
        A.OneOf([
            A.HorizontalFlip(always_apply=True, p=0.4),
            A.SafeRotate(always_apply=True, limit=(-45, 45), interpolation=cv2.INTER_NEAREST, border_mode=cv2.BORDER_CONSTANT, value=(0, 0, 0), p=0.4),
            A.RandomCropFromBorders(always_apply=True, crop_left=0.2, crop_right=0.2, crop_top=0.2, crop_bottom=0.2, p=0.4),
            A.RandomSizedCrop(always_apply=True, min_max_height=(500, 720), height=1080, width=1920, w2h_ratio=1.0, interpolation=cv2.INTER_NEAREST, p=0.5),
        ], p=0.8),
    ], keypoint_params=A.KeypointParams(format='xy', remove_invisible=False), p=1.0)
