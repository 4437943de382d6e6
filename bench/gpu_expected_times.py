#!/usr/bin/env python3
"""Expected kernel times per stage on another GPU, from a gpu-acceptance report's measured ones.

Reads the per-stage kernel table of a bench/gpu-acceptance.sh report (section "Per-stage kernel
times", the 1080p image) and prints, per stage configuration, a Markdown row with:
  - the bytes one read of the input and one write of the output move;
  - the roofline: those bytes at the target GPU's memory bandwidth (no launch, no compute);
  - the measured kernel time on the report's GPU;
  - the expected time on the target: the measured time, with its memory-bound part (at most the
    time of a device copy of the same bytes, measured in the same run) scaled by the ratio of the
    two GPUs' memory bandwidths. Compute and launch latency are taken as equal (H100 SXM and H200
    have the same SMs and clocks); only memory differs.

usage: bench/gpu_expected_times.py REPORT [--measured-bw 4.8] [--target-bw 3.35] [--target H100]
Bandwidths in TB/s (data sheets: H200 4.8, H100 SXM 3.35). A measured run on the target replaces
the estimate: run bench/gpu-acceptance.sh there instead.
"""
import argparse
import json
import re
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report")
    ap.add_argument("--measured-bw", type=float, default=4.8)
    ap.add_argument("--target-bw", type=float, default=3.35)
    ap.add_argument("--target", default="H100")
    a = ap.parse_args()

    text = open(a.report, encoding="utf-8").read().splitlines()
    section = False
    image = None
    rows = []
    for line in text:
        if line.startswith("## ") and "Per-stage kernel times" in line:
            section = True
            continue
        if not section:
            continue
        m = re.match(r"image .*: (\d+)x(\d+)x(\d+) u8", line)
        if m:
            if image is not None:
                break  # the next image (the large one): this table is the first image's only
            image = tuple(int(v) for v in m.groups())
            continue
        if line.startswith("| {") and image:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            config, output, kernel_ms, copy_ms = cells[0], cells[1], cells[6], cells[9]
            try:
                kernel, copy = float(kernel_ms), float(copy_ms)
            except ValueError:
                continue
            ow, oh = (int(v) for v in output.split("x"))
            rows.append((json.loads(config), ow, oh, kernel, copy))
    if not rows:
        sys.exit(f"{a.report}: no per-stage kernel table found")

    w, h, c = image
    ratio = a.measured_bw / a.target_bw
    print(f"| stage | output | MB moved | {a.target} roofline µs | measured µs | expected {a.target} µs | expected / roofline |")
    print("|---|---|---|---|---|---|---|")
    for config, ow, oh, kernel, copy in rows:
        moved = (w * h + ow * oh) * c
        roofline = moved / (a.target_bw * 1e12) * 1e6
        k_us, copy_us = kernel * 1e3, copy * 1e3
        expected = k_us + (ratio - 1) * min(k_us, copy_us)
        stage = config.pop("stage")
        label = stage + (" " + json.dumps(config, separators=(",", ":")) if config else "")
        print(f"| `{label}` | {ow}x{oh} | {moved / 1e6:.1f} | {roofline:.1f} | {k_us:.0f} | {expected:.0f} | {expected / roofline:.0f}x |")


if __name__ == "__main__":
    main()
