#!/bin/bash
# Builds the benchmark corpus from real photographs that Debian 12 ships in four packages
# (opencv-doc's example data, python3-skimage's data, mate-backgrounds, ukui-wallpapers):
#   DIR/imagenet-like/classNN/imgNNNNN.jpg  400 crops, widths 380-520, aspect 4:3, 3:4, 1:1 or 3:2, JPEG q90
#   DIR/hd1080/classNN/imgNNNNN.jpg          40 crops, 1920x1080, JPEG q92
# Ten class folders each (image i goes to class i mod 10). Deterministic: a fixed seed, so the same
# packages give the same bytes on every machine.
# usage: bench/corpus.sh [DIR]   (default bench/corpus; does nothing when DIR already holds both sets)
# Needs Debian's python3-opencv (installed with apt-get when missing: as root, or with sudo); the
# photo packages are only downloaded and unpacked into a temporary folder, never installed.
set -euo pipefail
out=${1:-$(dirname "$0")/corpus}
if [ -d "$out/imagenet-like" ] && [ -d "$out/hd1080" ]; then echo "corpus: already at $out"; exit 0; fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
if ! /usr/bin/python3 -c 'import cv2' 2>/dev/null; then
  echo "corpus: installing python3-opencv"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-opencv >/dev/null 2>&1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
debs=(opencv-doc python3-skimage mate-backgrounds ukui-wallpapers)
# apt-get download needs no root, only the package lists: fetch those once if it fails.
if ! (cd "$work" && apt-get download -qq "${debs[@]}" 2>/dev/null); then
  $sudo apt-get update -qq
  (cd "$work" && apt-get download -qq "${debs[@]}" 2>/dev/null)
fi
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done

mkdir -p "$out"
# OpenCV's PNG reader warns about some files' colour profiles; those lines are noise.
/usr/bin/python3 - "$work/root" "$out" <<'PY' 2>&1 | { grep -v -e libpng -e 'Premature end' || true; }
import glob, os, random, sys
import cv2

root, out = sys.argv[1], sys.argv[2]

def is_photo(path):
    """A source photograph: an image under one of the packages' photo folders, short side at least
    300, and textured (variance of the Laplacian of its grey version at least 30)."""
    rel = os.path.relpath(path, root)
    if os.path.splitext(path)[1].lower() not in ('.jpg', '.jpeg', '.png'):
        return None
    if 'examples/data' not in rel and 'skimage/data' not in rel and 'backgrounds' not in rel:
        return None
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None or min(img.shape[:2]) < 300:
        return None
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    return img if cv2.Laplacian(grey, cv2.CV_64F).var() >= 30 else None

sources = []  # in sorted path order: the draws below index into it
for path in sorted(glob.glob(os.path.join(root, '**', '*'), recursive=True)):
    img = is_photo(path)
    if img is not None:
        sources.append(img)
print(f'corpus: {len(sources)} source photographs', file=sys.stderr)

rng = random.Random(20261121)  # one stream for both sets, in this order: the seed fixes every byte

def make_set(name, count, min_w, max_w, aspects, quality):
    for i in range(count):
        img = sources[rng.randrange(len(sources))]
        w = rng.randint(min_w, max_w)
        # a single aspect is taken as is: rng.choice would draw from the stream even for one
        h = int(w / (rng.choice(aspects) if len(aspects) > 1 else aspects[0]))
        src_h, src_w = img.shape[:2]
        scale = max(w / src_w, h / src_h)
        if scale > 1:  # too small for the crop: enlarge (bicubic) just past the crop size
            img = cv2.resize(img, (int(src_w * scale) + 1, int(src_h * scale) + 1),
                             interpolation=cv2.INTER_CUBIC)
        x = rng.randint(0, img.shape[1] - w)
        y = rng.randint(0, img.shape[0] - h)
        folder = os.path.join(out, name, 'class%02d' % (i % 10))
        os.makedirs(folder, exist_ok=True)
        cv2.imwrite(os.path.join(folder, 'img%05d.jpg' % i), img[y:y + h, x:x + w],
                    [cv2.IMWRITE_JPEG_QUALITY, quality])

make_set('imagenet-like', 400, 380, 520, [4 / 3, 3 / 4, 1.0, 1.5], 90)
make_set('hd1080', 40, 1920, 1920, [16 / 9], 92)
PY
echo "corpus: $(find "$out" -name '*.jpg' | wc -l) images in $out"
