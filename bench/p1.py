#!/usr/bin/python3
"""Pipeline P1 (bench/README.md) with `augment run` against the I/O floor.

Builds the real-photo corpus with bench/corpus.sh when it is missing, and the OpenCV anchors
(bench/anchors/opencv_p1.cpp, compiled with g++ into the temporary folder, again whenever the source
is newer than the binary). Then alternates the I/O floor (`opencv_p1 io`) and `augment run -c
configs/bench-p1.json` on imagenet-like with the same thread count, and prints the median ratio of
the pairs; with --anchor-full it also times the hand-written OpenCV P1 (`opencv_p1 full`) after each
pair. Absolute times drift on shared machines; the ratio, measured in one run, is the figure.
Also measures augment's peak memory on 40 and on 400 images, and checks the outputs (count, short
side 256).

usage: bench/p1.py [--augment BUILD/apps/augment/augment] [--corpus DIR] [--threads 2] [--pairs 15]
                   [--device cpu] [--device-jpeg] [--anchor-full] [--verify]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd):
    """Wall seconds and peak RSS (KiB) of a command, via GNU time."""
    with tempfile.NamedTemporaryFile('r') as f:
        t0 = time.perf_counter()
        subprocess.run(['/usr/bin/time', '-f', '%M', '-o', f.name] + cmd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        return wall, int(f.read().strip().splitlines()[-1])


def prepare(corpus):
    """Builds the corpus when it is missing and the OpenCV anchor when it is stale; its path."""
    if not os.path.isdir(os.path.join(corpus, 'imagenet-like')):
        sh([os.path.join(HERE, 'corpus.sh'), corpus])
    anchor_src = os.path.join(HERE, 'anchors', 'opencv_p1.cpp')
    anchor = os.path.join(tempfile.gettempdir(), 'augment-bench-opencv_p1')
    if not os.path.exists(anchor) or os.path.getmtime(anchor) < os.path.getmtime(anchor_src):
        sh(['g++', '-O2', '-std=c++17', '-pthread', anchor_src, '-I/usr/include/opencv4',
            '-lopencv_imgcodecs', '-lopencv_imgproc', '-lopencv_core', '-o', anchor])
    return anchor


def arguments(doc, pairs):
    """The options every bench/p*.py takes: --augment, --corpus, --threads, --pairs."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--augment', default=os.path.join(ROOT, 'build', 'apps', 'augment', 'augment'))
    ap.add_argument('--corpus', default=os.path.join(ROOT, 'bench', 'corpus'))
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--pairs', type=int, default=pairs)
    return ap


def with_shrink(config, work, shrink):
    """A copy of the pipeline file `config` in `work` with "decode": {"shrink": shrink}; its path."""
    doc = json.load(open(config))
    doc['decode'] = {'shrink': shrink}
    path = os.path.join(work, ('shrink-' if shrink else 'whole-') + os.path.basename(config))
    json.dump(doc, open(path, 'w'))
    return path


def main():
    ap = arguments(__doc__, 15)
    ap.add_argument('--device', default='cpu')
    ap.add_argument('--device-jpeg', action='store_true',
                    help='pass --device-jpeg (a GPU --device): JPEG pixel arithmetic on the device')
    ap.add_argument('--anchor-full', action='store_true', help='also time the hand-written OpenCV anchor')
    ap.add_argument('--verify', action='store_true',
                    help='also time `augment --verify-devices` with P1 against `augment run`, alternating')
    a = ap.parse_args()

    anchor = prepare(a.corpus)

    src = os.path.join(a.corpus, 'imagenet-like')
    cfg = os.path.join(ROOT, 'configs', 'bench-p1.json')
    work = tempfile.mkdtemp(prefix='augment-bench-')
    out = os.path.join(work, 'out')
    T = str(a.threads)

    def floor():
        shutil.rmtree(out, ignore_errors=True)
        return timed([anchor, 'io', src, out, T])

    def full():
        shutil.rmtree(out, ignore_errors=True)
        return timed([anchor, 'full', src, out, T])

    def ours(inp=src):
        shutil.rmtree(out, ignore_errors=True)
        return timed([a.augment, 'run', '-c', cfg, '-i', inp, '-o', out, '--threads', T, '--format', 'jpg',
                      '--quality', '90', '--device', a.device, '--progress', 'never']
                     + (['--device-jpeg'] if a.device_jpeg else []))

    def verify():
        return timed([a.augment, '--verify-devices', '-c', cfg, '-i', src, '--threads', T])

    ours(); floor()  # warm the page cache and the binaries
    ratios, full_ratios, verify_ratios, t_floor, t_ours = [], [], [], [], []
    for _ in range(a.pairs):
        f, _ = floor()
        o, _ = ours()
        t_floor.append(f)
        t_ours.append(o)
        ratios.append(o / f)
        if a.anchor_full:
            full_ratios.append(full()[0] / f)
        if a.verify:
            verify_ratios.append(verify()[0] / o)

    # Check the outputs of the last run.
    sys.path.insert(0, '/usr/lib/python3/dist-packages')
    import cv2
    outputs = [os.path.join(d, n) for d, _, ns in os.walk(out) for n in ns]
    shorts = {min(cv2.imread(p).shape[:2]) for p in outputs}

    # Peak memory: the first 40 inputs against all 400.
    forty = os.path.join(work, 'forty')
    files = sorted(os.path.join(d, n) for d, _, ns in os.walk(src) for n in ns)
    for p in files[:40]:
        dst = os.path.join(forty, os.path.relpath(p, src))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(p, dst)
    mem40 = statistics.median(ours(forty)[1] for _ in range(3))
    mem400 = statistics.median(ours(src)[1] for _ in range(3))
    shutil.rmtree(work, ignore_errors=True)

    print(f'P1 on {src}: {len(files)} inputs, {len(outputs)} outputs, short sides {sorted(shorts)}')
    print(f'threads {a.threads}, device {a.device}{" --device-jpeg" if a.device_jpeg else ""}, '
          f'{a.pairs} alternating pairs')
    print(f'I/O floor  median {statistics.median(t_floor):.3f} s')
    print(f'augment    median {statistics.median(t_ours):.3f} s')
    print(f'ratio augment / I/O floor: median {statistics.median(ratios):.3f} '
          f'(min {min(ratios):.3f}, max {max(ratios):.3f})')
    if full_ratios:
        print(f'ratio OpenCV C++ anchor / I/O floor: median {statistics.median(full_ratios):.3f}')
    if verify_ratios:
        print(f'ratio augment --verify-devices / augment run: median {statistics.median(verify_ratios):.3f} '
              f'(min {min(verify_ratios):.3f}, max {max(verify_ratios):.3f})')
    print(f'peak memory: 40 images {mem40 / 1024:.1f} MiB, 400 images {mem400 / 1024:.1f} MiB '
          f'(400/40 = {mem400 / mem40:.3f})')


if __name__ == '__main__':
    main()
