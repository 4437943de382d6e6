#!/usr/bin/env python3
"""Writes NN_x.py beside each NN_x.json: the same pipeline as a training script would hold it
(`import albumentations as A`, keyword arguments, tuples, cv2 constants by name), for testing
`augment import albumentations train.py` on the pipelines of this corpus. These are restatements
written from the JSON, not the repositories' code (README.md says where that is).

Usage: python3 to_python.py
"""
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BORDER = {0: "cv2.BORDER_CONSTANT", 1: "cv2.BORDER_REPLICATE", 2: "cv2.BORDER_REFLECT", 3: "cv2.BORDER_WRAP",
          4: "cv2.BORDER_REFLECT_101"}
INTER = {0: "cv2.INTER_NEAREST", 1: "cv2.INTER_LINEAR", 2: "cv2.INTER_CUBIC", 3: "cv2.INTER_AREA",
         4: "cv2.INTER_LANCZOS4"}


def value(key, v):
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, int) and key in ("border_mode", "mode") and v in BORDER:
        return BORDER[v]
    if isinstance(v, int) and key.startswith("interpolation") and v in INTER:
        return INTER[v]
    if isinstance(v, list):
        inner = ", ".join(value("", e) for e in v)
        return "(" + inner + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, dict):
        return "{" + ", ".join(repr(k) + ": " + value(k, e) for k, e in v.items()) + "}"
    return repr(v)


def call(t, indent):
    full = t["__class_fullname__"]
    name = full.rsplit(".", 1)[-1]
    # Albumentations' own classes through the module alias; anything else by its own name.
    module = full.rsplit(".", 1)[0] if "." in full else "albumentations"
    prefix = "A." if module.startswith("albumentations") and "pytorch" not in module else ""
    args = []
    pad = " " * indent
    if "transforms" in t:
        inner = ",\n".join(pad + "    " + call(c, indent + 4) for c in t["transforms"])
        args.append("[\n" + inner + ",\n" + pad + "]")
    # p last, as people write it.
    for k, v in sorted(t.items(), key=lambda kv: kv[0] == "p"):
        if k in ("__class_fullname__", "transforms") or v is None:
            continue
        if k in ("bbox_params", "keypoint_params"):
            cls = "A.BboxParams" if k == "bbox_params" else "A.KeypointParams"
            args.append(k + "=" + cls + "(" + ", ".join(a + "=" + value(a, b) for a, b in v.items()) + ")")
            continue
        args.append(k + "=" + value(k, v))
    return prefix + name + "(" + ", ".join(args) + ")"


def main():
    for path in sorted(glob.glob(os.path.join(HERE, "[0-9][0-9]_*.json"))):
        saved = json.load(open(path))
        top = saved["transform"]
        others = sorted({t["__class_fullname__"] for t in walk(top) if not t["__class_fullname__"].startswith("albumentations")
                         and "." in t["__class_fullname__"]})
        lines = ["# " + os.path.basename(path)[:-5] + ": restated from the JSON beside it (README.md names the source).",
                 "import cv2", "import albumentations as A"]
        if any("pytorch" in t["__class_fullname__"] or t["__class_fullname__"] in ("ToTensorV2", "ToTensor")
               for t in walk(top)):
            lines.append("from albumentations.pytorch import ToTensorV2, ToTensor")
        for o in others:
            mod, cls = o.rsplit(".", 1)
            if not mod.startswith("albumentations"):
                lines.append("from " + mod + " import " + cls)
        lines += ["", "", "def get_train_transforms():", "    return " + call(top, 4), ""]
        with open(path[:-5] + ".py", "w") as f:
            f.write("\n".join(lines))


def walk(t):
    yield t
    for c in t.get("transforms", []):
        yield from walk(c)


if __name__ == "__main__":
    main()
