#!/usr/bin/python3
"""Pipeline P2 (bench/README.md): shrink-on-load against the full-decode I/O floor.

P2 is the 1080p corpus -> resize short side 256 (bilinear) -> JPEG q90, with the pipeline's
`"decode": {"shrink": true}` (configs/bench-p2.json). Alternates, in one run, the I/O floor
(`opencv_p1 io`: every input decoded at full size, an output-sized region encoded) and `augment run`
with the shrink, and prints the median ratio of the pairs; it also times the same pipeline without
the shrink after each pair. Then measures how far the shrunk outputs are from the full-decode ones:
both runs again with PNG outputs (no second lossy step), the PSNR of each image pair, over all of
them. Also checks every output is 256 on its short side and the peak memory on 4 and 40 images.

usage: bench/p2.py [--augment BUILD/apps/augment/augment] [--corpus DIR] [--threads 2] [--pairs 21]
"""
import math
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from p1 import arguments, prepare, timed, with_shrink  # noqa: E402


def main():
    a = arguments(__doc__, 21).parse_args()

    anchor = prepare(a.corpus)
    src = os.path.join(a.corpus, 'hd1080')
    work = tempfile.mkdtemp(prefix='augment-bench-')
    shrink_cfg = os.path.join(ROOT, 'configs', 'bench-p2.json')
    full_cfg = with_shrink(shrink_cfg, work, False)
    out = os.path.join(work, 'out')
    T = str(a.threads)

    def floor():
        shutil.rmtree(out, ignore_errors=True)
        return timed([anchor, 'io', src, out, T])

    def ours(cfg, inp=src, dst=out, fmt='jpg'):
        shutil.rmtree(dst, ignore_errors=True)
        return timed([a.augment, 'run', '-c', cfg, '-i', inp, '-o', dst, '--threads', T, '--format', fmt,
                      '--quality', '90', '--progress', 'never', '--device', 'cpu'])

    ours(shrink_cfg); ours(full_cfg); floor()  # warm the page cache and the binaries
    shrink_ratios, full_ratios = [], []
    for _ in range(a.pairs):
        f, _ = floor()
        shrink_ratios.append(ours(shrink_cfg)[0] / f)
        full_ratios.append(ours(full_cfg)[0] / f)

    sys.path.insert(0, '/usr/lib/python3/dist-packages')
    import cv2
    import numpy as np
    outputs = sorted(os.path.relpath(os.path.join(d, n), out) for d, _, ns in os.walk(out) for n in ns)
    shorts = {min(cv2.imread(os.path.join(out, p)).shape[:2]) for p in outputs}

    # PSNR of the shrunk outputs against the full-decode ones, both written lossless.
    a_dir, b_dir = os.path.join(work, 'shrink'), os.path.join(work, 'full')
    ours(shrink_cfg, dst=a_dir, fmt='png')
    ours(full_cfg, dst=b_dir, fmt='png')
    # Both also against an area-filtered reference (cv::resize INTER_AREA of the full decode): a
    # bilinear resize by 4x aliases on fine detail, which is where the two differ most.
    def psnr(x, y):
        mse = float(np.mean((x - y) ** 2))
        return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)

    psnrs, area_shrink, area_full, worst_max = [], [], [], 0
    for p in outputs:
        x = cv2.imread(os.path.join(a_dir, os.path.splitext(p)[0] + '.png')).astype(np.float64)
        y = cv2.imread(os.path.join(b_dir, os.path.splitext(p)[0] + '.png')).astype(np.float64)
        assert x.shape == y.shape, p
        ref = cv2.resize(cv2.imread(os.path.join(src, p)), (x.shape[1], x.shape[0]),
                         interpolation=cv2.INTER_AREA).astype(np.float64)
        psnrs.append(psnr(x, y))
        area_shrink.append(psnr(x, ref))
        area_full.append(psnr(y, ref))
        worst_max = max(worst_max, int(np.max(np.abs(x - y))))

    # Peak memory: 4 inputs against all 40.
    few = os.path.join(work, 'few')
    files = sorted(os.path.join(d, n) for d, _, ns in os.walk(src) for n in ns)
    for p in files[:4]:
        dst = os.path.join(few, os.path.relpath(p, src))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(p, dst)
    mem4 = statistics.median(ours(shrink_cfg, few)[1] for _ in range(3))
    mem40 = statistics.median(ours(shrink_cfg)[1] for _ in range(3))
    shutil.rmtree(work, ignore_errors=True)

    print(f'P2 on {src}: {len(files)} inputs, {len(outputs)} outputs, short sides {sorted(shorts)}')
    print(f'threads {a.threads}, {a.pairs} alternating triples (floor, shrink, full decode)')
    print(f'ratio augment with shrink / full-decode I/O floor: median {statistics.median(shrink_ratios):.3f} '
          f'(min {min(shrink_ratios):.3f}, max {max(shrink_ratios):.3f})')
    print(f'ratio augment without shrink / full-decode I/O floor: median {statistics.median(full_ratios):.3f}')
    print(f'PSNR shrink vs full decode over {len(psnrs)} images (PNG outputs): mean {statistics.mean(psnrs):.2f} dB, '
          f'min {min(psnrs):.2f} dB, median {statistics.median(psnrs):.2f} dB; largest difference {worst_max}')
    print(f'PSNR against INTER_AREA of the full decode: shrink mean {statistics.mean(area_shrink):.2f} dB '
          f'(min {min(area_shrink):.2f}), full decode mean {statistics.mean(area_full):.2f} dB '
          f'(min {min(area_full):.2f})')
    print(f'peak memory: 4 images {mem4 / 1024:.1f} MiB, 40 images {mem40 / 1024:.1f} MiB (40/4 = {mem40 / mem4:.3f})')


if __name__ == '__main__':
    main()
