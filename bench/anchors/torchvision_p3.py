#!/usr/bin/python3
"""Pipeline P3 written with torchvision, as its users write it: the anchor bench/p3.py runs against.

P3 is configs/imagenet-train.json: RandomResizedCrop(224, scale=(0.08, 1.0), bilinear),
RandomHorizontalFlip(), ColorJitter(0.4, 0.4, 0.4, 0.1), RandAugment(num_ops=2, magnitude=9), on
PIL images (decoded with PIL, converted to RGB), saved as JPEG quality 90 at the input's relative
path under OUT_DIR; PROCS worker processes (multiprocessing.Pool, files handed out in chunks).

usage: torchvision_p3.py IN_DIR OUT_DIR PROCS
Prints, on its last line, the seconds from the first image handed out to the last one written
(the time after Python, torch and the pool have started).
"""
import multiprocessing
import os
import sys
import time

import torch
from PIL import Image
from torchvision import transforms

RECIPE = transforms.Compose([
    transforms.RandomResizedCrop(224, scale=(0.08, 1.0), interpolation=transforms.InterpolationMode.BILINEAR),
    transforms.RandomHorizontalFlip(),
    transforms.ColorJitter(0.4, 0.4, 0.4, 0.1),
    transforms.RandAugment(num_ops=2, magnitude=9),
])


def init(seed):
    torch.set_num_threads(1)
    torch.manual_seed(seed + os.getpid())


def ready(_):
    return os.getpid()


def one(job):
    src, dst = job
    with Image.open(src) as im:
        out = RECIPE(im.convert('RGB'))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    out.save(dst, quality=90)
    return out.size


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, dst, procs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    jobs = sorted((os.path.join(d, n), os.path.join(dst, os.path.relpath(os.path.join(d, n), src)))
                  for d, _, names in os.walk(src) for n in names)
    with multiprocessing.Pool(procs, initializer=init, initargs=(0,)) as pool:
        pool.map(ready, range(procs))  # the workers are up before the clock starts
        t0 = time.perf_counter()
        sizes = pool.map(one, jobs, chunksize=4)
        elapsed = time.perf_counter() - t0
    if any(s != (224, 224) for s in sizes):
        sys.exit('torchvision_p3: an output is not 224x224')
    print(f'{len(sizes)} images in {elapsed:.3f} s')


if __name__ == '__main__':
    main()
