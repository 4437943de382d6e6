#!/usr/bin/python3
"""Pipeline P1 (bench/README.md) with `augment run` against the I/O floor and the codec floor.

Builds the real-photo corpus with bench/corpus.sh when it is missing, and the anchors
(bench/anchors/opencv_p1.cpp and codec_floor.cpp, compiled with g++ into the temporary folder, again
whenever a source is newer than its binary). Then alternates, with the same thread count, the codec
floor (`codec_floor`: libjpeg-turbo alone decodes every input and encodes P1's output-sized region),
the I/O floor (`opencv_p1 io`: the same through OpenCV's imread/imwrite) and `augment run -c
configs/bench-p1.json` on one set of the corpus (--set: imagenet-like or hd1080), and prints the
median ratios of the rounds; with --anchor-full it also times the hand-written OpenCV P1 (`opencv_p1
full`) in each round. Absolute times drift on shared machines; the ratios, measured in one run, are
the figures. Also measures augment's peak memory on 40 images and on the whole set, and checks the
outputs (count, short side 256).

usage: bench/p1.py [--augment BUILD/apps/augment/augment] [--corpus DIR] [--set imagenet-like]
                   [--threads 2] [--pairs 15] [--device cpu] [--device-jpeg] [--anchor-full] [--verify]
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


def anchor(name, flags):
    """bench/anchors/NAME.cpp compiled with g++ into the temporary folder when stale; its path."""
    src = os.path.join(HERE, 'anchors', name + '.cpp')
    binary = os.path.join(tempfile.gettempdir(), 'augment-bench-' + name)
    if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(src):
        sh(['g++', '-O2', '-std=c++17', '-pthread', src] + flags + ['-o', binary])
    return binary


def prepare(corpus):
    """Builds the corpus when it is missing and the OpenCV anchor when it is stale; its path."""
    if not os.path.isdir(os.path.join(corpus, 'imagenet-like')):
        sh([os.path.join(HERE, 'corpus.sh'), corpus])
    return anchor('opencv_p1', ['-I/usr/include/opencv4', '-lopencv_imgcodecs', '-lopencv_imgproc',
                                '-lopencv_core'])


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
    ap.add_argument('--set', default='imagenet-like', choices=['imagenet-like', 'hd1080'],
                    help='the corpus set P1 runs over')
    ap.add_argument('--device', default='cpu')
    ap.add_argument('--device-jpeg', action='store_true',
                    help='pass --device-jpeg (a GPU --device): JPEG pixel arithmetic on the device')
    ap.add_argument('--anchor-full', action='store_true', help='also time the hand-written OpenCV anchor')
    ap.add_argument('--verify', action='store_true',
                    help='also time `augment --verify-devices` with P1 against `augment run`, alternating')
    a = ap.parse_args()

    opencv_p1 = prepare(a.corpus)
    codec_floor = anchor('codec_floor', ['-ljpeg'])

    src = os.path.join(a.corpus, a.set)
    cfg = os.path.join(ROOT, 'configs', 'bench-p1.json')
    work = tempfile.mkdtemp(prefix='augment-bench-')
    out = os.path.join(work, 'out')
    T = str(a.threads)

    def floor():
        shutil.rmtree(out, ignore_errors=True)
        return timed([opencv_p1, 'io', src, out, T])

    def codec():
        shutil.rmtree(out, ignore_errors=True)
        return timed([codec_floor, src, out, T])

    def full():
        shutil.rmtree(out, ignore_errors=True)
        return timed([opencv_p1, 'full', src, out, T])

    def ours(inp=src):
        shutil.rmtree(out, ignore_errors=True)
        return timed([a.augment, 'run', '-c', cfg, '-i', inp, '-o', out, '--threads', T, '--format', 'jpg',
                      '--quality', '90', '--device', a.device, '--progress', 'never']
                     + (['--device-jpeg'] if a.device_jpeg else []))

    def verify():
        return timed([a.augment, '--verify-devices', '-c', cfg, '-i', src, '--threads', T])

    ours(); floor(); codec()  # warm the page cache and the binaries
    ratios, codec_ratios, floor_codec, full_ratios, verify_ratios = [], [], [], [], []
    t_floor, t_codec, t_ours = [], [], []
    for _ in range(a.pairs):
        c, _ = codec()
        f, _ = floor()
        o, _ = ours()
        t_codec.append(c)
        t_floor.append(f)
        t_ours.append(o)
        ratios.append(o / f)
        codec_ratios.append(o / c)
        floor_codec.append(f / c)
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
    mem_all = statistics.median(ours(src)[1] for _ in range(3))
    shutil.rmtree(work, ignore_errors=True)

    print(f'P1 on {src}: {len(files)} inputs, {len(outputs)} outputs, short sides {sorted(shorts)}')
    print(f'threads {a.threads}, device {a.device}{" --device-jpeg" if a.device_jpeg else ""}, '
          f'{a.pairs} alternating pairs')
    print(f'codec floor median {statistics.median(t_codec):.3f} s')
    print(f'I/O floor   median {statistics.median(t_floor):.3f} s')
    print(f'augment     median {statistics.median(t_ours):.3f} s')
    print(f'ratio augment / codec floor: median {statistics.median(codec_ratios):.3f} '
          f'(min {min(codec_ratios):.3f}, max {max(codec_ratios):.3f})')
    print(f'ratio augment / I/O floor: median {statistics.median(ratios):.3f} '
          f'(min {min(ratios):.3f}, max {max(ratios):.3f})')
    print(f'ratio I/O floor / codec floor: median {statistics.median(floor_codec):.3f}')
    if full_ratios:
        print(f'ratio OpenCV C++ anchor / I/O floor: median {statistics.median(full_ratios):.3f}')
    if verify_ratios:
        print(f'ratio augment --verify-devices / augment run: median {statistics.median(verify_ratios):.3f} '
              f'(min {min(verify_ratios):.3f}, max {max(verify_ratios):.3f})')
    print(f'peak memory: 40 images {mem40 / 1024:.1f} MiB, {len(files)} images {mem_all / 1024:.1f} MiB '
          f'({len(files)}/40 = {mem_all / mem40:.3f})')


if __name__ == '__main__':
    main()
