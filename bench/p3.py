#!/usr/bin/python3
"""Pipeline P3 (bench/README.md): augment against the same recipe written with torchvision.

P3 is configs/imagenet-train.json (random_resized_crop 224, flip, color_jitter 0.4/0.4/0.4/0.1,
rand_augment 2/9) over the 1080p corpus into JPEG q90. The anchor is
bench/anchors/torchvision_p3.py: the same transforms from torchvision 0.14 on PIL images, PIL
decoding and encoding, PROCS processes. Alternates the two, in one run, and prints the medians of
the pair ratios torchvision / augment:
  - wall: each command's whole wall time, start-up included (what a user waits for);
  - steady: the anchor's own time from its first image to its last (after Python, torch and the
    pool have started) against augment's whole wall time.
Also the same with the pipeline's shrink-on-load ("decode": {"shrink": true}), and checks that
both write the same files, all 224x224.

usage: bench/p3.py [--augment BUILD/apps/augment/augment] [--corpus DIR] [--threads 2] [--pairs 9]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from p1 import arguments, prepare, with_shrink  # noqa: E402


def main():
    a = arguments(__doc__, 9).parse_args()

    prepare(a.corpus)
    src = os.path.join(a.corpus, 'hd1080')
    work = tempfile.mkdtemp(prefix='augment-bench-')
    cfg = os.path.join(ROOT, 'configs', 'imagenet-train.json')
    shrink_cfg = with_shrink(cfg, work, True)
    T = str(a.threads)
    out_tv, out_aug = os.path.join(work, 'torchvision'), os.path.join(work, 'augment')

    def torchvision():
        shutil.rmtree(out_tv, ignore_errors=True)
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, os.path.join(HERE, 'anchors', 'torchvision_p3.py'), src, out_tv, T],
                           check=True, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        return wall, float(r.stdout.strip().splitlines()[-1].split()[-2])

    def ours(c):
        shutil.rmtree(out_aug, ignore_errors=True)
        t0 = time.perf_counter()
        subprocess.run([a.augment, 'run', '-c', c, '-i', src, '-o', out_aug, '--threads', T, '--format', 'jpg',
                        '--quality', '90', '--progress', 'never', '--device', 'cpu'],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - t0

    torchvision(); ours(cfg); ours(shrink_cfg)  # warm the page cache and the binaries
    wall, steady, wall_s, steady_s, t_tv, t_aug = [], [], [], [], [], []
    for _ in range(a.pairs):
        tw, ts = torchvision()
        o = ours(cfg)
        os_ = ours(shrink_cfg)
        wall.append(tw / o)
        steady.append(ts / o)
        wall_s.append(tw / os_)
        steady_s.append(ts / os_)
        t_tv.append(ts)
        t_aug.append(o)
    ours(cfg)

    sys.path.insert(0, '/usr/lib/python3/dist-packages')
    import cv2
    files = lambda d: sorted(os.path.relpath(os.path.join(p, n), d) for p, _, ns in os.walk(d) for n in ns)
    same_files = files(out_tv) == files(out_aug)
    sizes = {cv2.imread(os.path.join(d, f)).shape[:2] for d in (out_tv, out_aug) for f in files(d)}
    shutil.rmtree(work, ignore_errors=True)

    print(f'P3 on {src}: {len(files(src))} inputs; same output files: {same_files}; output sizes {sorted(sizes)}')
    print(f'threads/processes {a.threads}, {a.pairs} alternating pairs; torchvision steady median '
          f'{statistics.median(t_tv):.3f} s, augment median {statistics.median(t_aug):.3f} s')
    print(f'ratio torchvision / augment, wall: median {statistics.median(wall):.2f} '
          f'(min {min(wall):.2f}, max {max(wall):.2f})')
    print(f'ratio torchvision / augment, steady: median {statistics.median(steady):.2f} '
          f'(min {min(steady):.2f}, max {max(steady):.2f})')
    print(f'with shrink-on-load: wall median {statistics.median(wall_s):.2f}, '
          f'steady median {statistics.median(steady_s):.2f}')


if __name__ == '__main__':
    main()
