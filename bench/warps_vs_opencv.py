#!/usr/bin/python3
"""The warp stages (rotate, affine, perspective) against OpenCV over a folder of photographs.

For every stage x interpolation (nearest, bilinear, bicubic) x border, runs `augment run` with a
manifest and PNG outputs on --device (default cuda-emulated: the kernel bodies, since the CPU backend
calls OpenCV itself for these warps; cuda:N on a GPU machine), then rebuilds every output with cv2.warpAffine / cv2.warpPerspective from
the matrix, size, interpolation, border and fill the manifest records, and counts the values that
differ. The inputs are first decoded once by augment into PNG (an identity pipeline), so both sides
read the same pixels. Needs Debian's python3-opencv (bench/corpus.sh installs it).

usage: bench/warps_vs_opencv.py [--augment BUILD/apps/augment/augment] [--input bench/corpus/imagenet-like]
                               [--device cuda-emulated]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

STAGES = {
    'rotate': {'angle': [-40, 40], 'expand': False},
    'affine': {'angle': [-20, 20], 'translate': [0.1, 0.1], 'scale': [0.8, 1.2], 'shear': [-8, 8, -4, 4]},
    'perspective': {'distortion_scale': 0.5},
}
INTERP = {'nearest': cv2.INTER_NEAREST, 'bilinear': cv2.INTER_LINEAR, 'bicubic': cv2.INTER_CUBIC}
BORDER = {'constant': cv2.BORDER_CONSTANT, 'replicate': cv2.BORDER_REPLICATE, 'reflect': cv2.BORDER_REFLECT,
          'reflect101': cv2.BORDER_REFLECT_101, 'wrap': cv2.BORDER_WRAP}


def run(augment, stage, src, out, manifest, device='cpu'):
    pipeline = {'version': 1, 'stages': [stage]}
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        json.dump(pipeline, f)
    try:
        subprocess.run([augment, 'run', '-c', f.name, '-i', src, '-o', out, '--format', 'png', '--overwrite',
                        '--device', device, '--progress', 'never'] + (['--manifest', manifest] if manifest else []),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        os.unlink(f.name)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--augment', default=os.path.join(ROOT, 'build', 'apps', 'augment', 'augment'))
    ap.add_argument('--input', default=os.path.join(ROOT, 'bench', 'corpus', 'imagenet-like'))
    ap.add_argument('--device', default='cuda-emulated')
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix='augment-warps-')
    decoded = os.path.join(work, 'decoded')
    run(a.augment, {'stage': 'pad', 'padding': 0}, a.input, decoded, None)

    total_values = total_diff = 0
    print('| stage | interpolation | border | images | values | differing |')
    print('|---|---|---|---|---|---|')
    for name, params in STAGES.items():
        for interp in INTERP:
            for border in BORDER:
                stage = dict(stage=name, p=1, interpolation=interp, border=border, fill=77, **params)
                out = os.path.join(work, 'out')
                manifest = os.path.join(work, 'manifest.jsonl')
                run(a.augment, stage, decoded, out, manifest, a.device)
                images = values = diff = 0
                with open(manifest) as m:
                    for line in m:
                        rec = json.loads(line)
                        p = rec['stages'][0]['params']
                        src = cv2.imread(os.path.join(decoded, rec['output']), cv2.IMREAD_UNCHANGED)
                        ours = cv2.imread(os.path.join(out, rec['output']), cv2.IMREAD_UNCHANGED)
                        mat = np.array(p['matrix'], dtype=np.float64).reshape(3, 3)
                        size = (p['width'], p['height'])
                        fill = (p['fill'][0],) * 4
                        if mat[2, 0] == 0 and mat[2, 1] == 0 and mat[2, 2] == 1:
                            ref = cv2.warpAffine(src, mat[:2], size, flags=INTERP[interp], borderMode=BORDER[border],
                                                 borderValue=fill)
                        else:
                            ref = cv2.warpPerspective(src, mat, size, flags=INTERP[interp],
                                                      borderMode=BORDER[border], borderValue=fill)
                        images += 1
                        values += ref.size
                        diff += int(np.count_nonzero(ref != ours)) if ref.shape == ours.shape else ref.size
                print(f'| {name} | {interp} | {border} | {images} | {values} | {diff} |')
                total_values += values
                total_diff += diff
    print(f'\ntotal on {a.device}: {total_diff} of {total_values} values differ')
    return 1 if total_diff else 0


if __name__ == '__main__':
    sys.exit(main())
