#!/usr/bin/python3
"""The colour stages against torchvision on corpus photographs, value by value.

usage: bench/torchvision_diff.py [--augment BIN] [--corpus DIR] [--images N] [--device D] [--out FILE]

For every case below (a stage with fixed parameters, p 1; color_jitter and random_erasing also
with random draws, replayed from the manifest), augment runs over N corpus photographs turned
into PNG (so that both sides start from the same pixels, 8-bit RGB), and torchvision's functional
op (torchvision.transforms.functional, Debian's python3-torchvision) runs on the same input with
the same parameters. Prints, per case, the values compared, how many differ, how many by exactly
1 and the largest difference, as a Markdown table (and into --out). The stages follow torchvision
0.15+ (transforms.v2); where 0.14's functional computes otherwise (autocontrast's scale, hue's
conversions, docs/arithmetic.md), the case is marked and run once more against the newer
formula written with torch's own operations. Exit 1 when any other case differs anywhere.
Needs /usr/bin/python3 with python3-torchvision and python3-opencv (apt-get install).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np
import torch
import torchvision
import torchvision.transforms.functional as F

torch.set_num_threads(1)

# (label, stage object without "p", torchvision op on a CHW uint8 tensor given the manifest params)
CASES = [
    ("invert", {"stage": "invert"}, lambda x, p: F.invert(x)),
    ("grayscale", {"stage": "grayscale"}, lambda x, p: F.rgb_to_grayscale(x, 3)),
    ("equalize", {"stage": "equalize"}, lambda x, p: F.equalize(x)),
    ("autocontrast (0.14 != v2)", {"stage": "autocontrast"}, lambda x, p: F.autocontrast(x)),
    ("autocontrast, v2's formula in torch", {"stage": "autocontrast"}, lambda x, p: autocontrast_v2(x)),
    ("posterize bits 2", {"stage": "posterize", "bits": 2}, lambda x, p: F.posterize(x, 2)),
    ("posterize bits 5", {"stage": "posterize", "bits": 5}, lambda x, p: F.posterize(x, 5)),
    ("solarize 128", {"stage": "solarize", "threshold": 128 / 255}, lambda x, p: F.solarize(x, 128)),
    ("gamma 0.5", {"stage": "gamma", "gamma": 0.5}, lambda x, p: F.adjust_gamma(x, 0.5)),
    ("gamma 2.2 gain 0.9", {"stage": "gamma", "gamma": 2.2, "gain": 0.9}, lambda x, p: F.adjust_gamma(x, 2.2, 0.9)),
    ("sharpness 0", {"stage": "sharpness", "factor": 0}, lambda x, p: F.adjust_sharpness(x, 0.0)),
    ("sharpness 2", {"stage": "sharpness", "factor": 2}, lambda x, p: F.adjust_sharpness(x, 2.0)),
    ("brightness 1.3", {"stage": "color_jitter", "brightness": [1.3, 1.3]},
     lambda x, p: F.adjust_brightness(x, p["brightness"])),
    ("contrast 0.6", {"stage": "color_jitter", "contrast": [0.6, 0.6]},
     lambda x, p: F.adjust_contrast(x, p["contrast"])),
    ("saturation 1.5", {"stage": "color_jitter", "saturation": [1.5, 1.5]},
     lambda x, p: F.adjust_saturation(x, p["saturation"])),
    ("hue 0.1 (0.14 != v2)", {"stage": "color_jitter", "hue": [0.1, 0.1]}, lambda x, p: F.adjust_hue(x, p["hue"])),
    ("hue -0.3 (0.14 != v2)", {"stage": "color_jitter", "hue": [-0.3, -0.3]}, lambda x, p: F.adjust_hue(x, p["hue"])),
    ("hue 0.1, v2's formula in torch", {"stage": "color_jitter", "hue": [0.1, 0.1]}, lambda x, p: hue_v2(x, p["hue"])),
    ("hue -0.3, v2's formula in torch", {"stage": "color_jitter", "hue": [-0.3, -0.3]},
     lambda x, p: hue_v2(x, p["hue"])),
    ("color_jitter 0.4/0.4/0.4/0.1 (0.14 != v2)", {"stage": "color_jitter", "brightness": 0.4, "contrast": 0.4,
                                      "saturation": 0.4, "hue": 0.1}, None),
    ("color_jitter 0.4/0.4/0.4/0.1, hue by v2's formula", {"stage": "color_jitter", "brightness": 0.4,
                                                          "contrast": 0.4, "saturation": 0.4, "hue": 0.1},
     lambda x, p: jitter(x, p, hue=hue_v2)),
    ("random_erasing", {"stage": "random_erasing"}, None),
]

JITTER = {"brightness": F.adjust_brightness, "contrast": F.adjust_contrast,
          "saturation": F.adjust_saturation, "hue": F.adjust_hue}


def autocontrast_v2(x):
    # torchvision 0.15+ divides by (hi - lo) / 255 where 0.14 multiplies by 255 / (hi - lo): the
    # stage follows the newer formula, written here with torch's own binary32 operations.
    f = x.float()
    lo, hi = f.amin(dim=(-2, -1), keepdim=True), f.amax(dim=(-2, -1), keepdim=True)
    same = hi == lo
    inv_scale = (hi - lo) * (1.0 / 255.0)
    lo[same], inv_scale[same] = 0.0, 1.0
    return ((f - lo) / inv_scale).clamp(0, 255).to(torch.uint8)


def hue_v2(x, hue):
    # torchvision 0.15+'s adjust_hue on uint8, with torch's binary32 operations: to [0, 1] by a
    # multiplication, HSV with h * (1/6) and t = (s f + (1 - s)) v, back by (255 + 1 - 0.001).
    # 0.14 divides by 255 and by 6, writes t = v (1 - s (1 - f)) and goes back by 255.
    f = x.float() * (1.0 / 255.0)
    r, g, b = f.unbind(0)
    maxc, minc = f.max(0).values, f.min(0).values
    eq = maxc == minc
    ones = torch.ones_like(maxc)
    s = (maxc - minc) / torch.where(eq, ones, maxc)
    div = torch.where(eq, ones, maxc - minc)
    rc, gc, bc = (maxc - r) / div, (maxc - g) / div, (maxc - b) / div
    is_r = maxc == r
    is_g = (maxc == g) & ~is_r
    is_b = ~(maxc == g) & ~is_r
    h = (bc - gc) * is_r + ((rc + 2.0) - bc) * is_g + ((gc + 4.0) - rc) * is_b
    h = torch.fmod(h * (1.0 / 6.0) + 1.0, 1.0)
    h = torch.remainder(h + hue, 1.0)
    h6 = h * 6.0
    i = torch.floor(h6)
    fr = h6 - i
    sxf = s * fr
    q = ((1.0 - sxf) * maxc).clamp(0, 1)
    t = ((sxf + (1.0 - s)) * maxc).clamp(0, 1)
    p = ((1.0 - s) * maxc).clamp(0, 1)
    v = maxc
    i = i.to(torch.int64) % 6
    pick = [torch.stack(c)[i, torch.arange(i.shape[0])[:, None], torch.arange(i.shape[1])]
            for c in ((v, q, p, p, t, v), (t, v, v, q, p, p), (p, p, t, v, v, q))]
    return (torch.stack(pick) * (255.0 + 1.0 - 0.001)).to(torch.uint8)


def jitter(x, p, hue=F.adjust_hue):
    for name in p["order"]:
        if p[name] is not None:
            x = (hue if name == "hue" else JITTER[name])(x, p[name])
    return x


def erase(x, p):
    v = torch.tensor(p["value"], dtype=torch.float32).round().to(torch.uint8).view(-1, 1, 1)
    for x0, y0, w, h in p["rects"]:  # the manifest's [x, y, width, height]
        x = F.erase(x, y0, x0, h, w, v)
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--augment", default="build/apps/augment/augment")
    ap.add_argument("--corpus", default="bench/corpus/imagenet-like")
    ap.add_argument("--images", type=int, default=100)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out")
    a = ap.parse_args()

    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.corpus) for f in fs if f.endswith(".jpg"))
    files = files[:a.images]
    if not files:
        sys.exit(f"no .jpg under {a.corpus} (bench/corpus.sh builds the corpus)")
    rows, bad = [], []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in")
        os.makedirs(src)
        inputs = {}
        for i, f in enumerate(files):
            rgb = cv2.cvtColor(cv2.imread(f, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
            name = f"img{i:04d}.png"
            cv2.imwrite(os.path.join(src, name), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
            inputs[name] = torch.from_numpy(np.ascontiguousarray(rgb.transpose(2, 0, 1)))
        for n, (label, stage, op) in enumerate(CASES):
            out = os.path.join(tmp, f"out{n}")
            cfg = os.path.join(tmp, f"c{n}.json")
            manifest = os.path.join(tmp, f"m{n}.jsonl")
            with open(cfg, "w") as fh:
                json.dump({"version": 1, "seed": 11, "stages": [dict(stage, p=1)]}, fh)
            subprocess.run([a.augment, "run", "-c", cfg, "-i", src, "-o", out, "--format", "png",
                            "--manifest", manifest, "--device", a.device, "--progress", "never"],
                           check=True, stdout=subprocess.DEVNULL)
            if op is None:
                op = jitter if stage["stage"] == "color_jitter" else erase
            values = differ = ones = worst = 0
            with open(manifest) as fh:
                for line in fh:
                    rec = json.loads(line)
                    params = rec["stages"][0]["params"]
                    ours = cv2.cvtColor(cv2.imread(os.path.join(out, rec["output"]), cv2.IMREAD_COLOR),
                                        cv2.COLOR_BGR2RGB).transpose(2, 0, 1).astype(np.int32)
                    theirs = op(inputs[rec["input"]].clone(), params).numpy().astype(np.int32)
                    d = np.abs(ours - theirs)
                    values += d.size
                    differ += int((d > 0).sum())
                    ones += int((d == 1).sum())
                    worst = max(worst, int(d.max()))
            rows.append((label, json.dumps(stage), values, differ, ones, worst))
            if differ and "(0.14 != v2)" not in label:
                bad.append(label)
    head = (f"torchvision {torchvision.__version__}, torch {torch.__version__}; {len(files)} photographs of "
            f"{a.corpus} as PNG, 8-bit RGB; augment --device {a.device}\n\n"
            "| case | stage | values | differing | of which by 1 | largest |\n|---|---|---|---|---|---|\n")
    table = head + "".join(f"| {l} | `{s}` | {v:,} | {d:,} | {o:,} | {w} |\n" for l, s, v, d, o, w in rows)
    print(table)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(table)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
