#!/usr/bin/env bash
# Acceptance measurement for labels that move with the pixels (augment run --labels/--masks).
#
#   bench/labels-acceptance.sh [COUNT]     (default 50 photographs from bench/corpus/imagenet-like)
#
# Builds a detection dataset from corpus photographs (bench/labels_acceptance.cpp `make`: solid
# objects drawn on the photos, written as YOLO, COCO, VOC and an instance-mask folder), runs
# `augment run` on each format with bench/labels-acceptance.json (flip + rotate +
# random_resized_crop + channel_gain) and bench/labels-acceptance-geometry.json (the same without
# the colour stage), on --device cpu and --device cuda-emulated, checks that the two devices wrote
# identical files, scores every output (`score`) and writes the report to
# bench/results/<date>-labels-acceptance.md. Needs build/apps/augment/augment and
# build/bench/augment_bench_labels (cmake --build build --target augment augment_bench_labels).
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${1:-50}
A=${AUGMENT:-build/apps/augment/augment}
B=${BENCH_LABELS:-build/bench/augment_bench_labels}
WORK=${WORK:-$(mktemp -d /tmp/labels-acceptance.XXXXXX)}
REPORT=${REPORT:-bench/results/$(date -u +%F)-labels-acceptance.md}
D=$WORK/data
O=$WORK/out
THREADS=${THREADS:-2}
export AUGMENT_EMULATED_GPUS=${AUGMENT_EMULATED_GPUS:-1}

rm -rf "$D" "$O"
mkdir -p "$O"
"$B" make "$D" --count "$COUNT" --from bench/corpus/imagenet-like --seed 1 >"$WORK/make.log"

declare -A INPUT=([yolo]=$D/yolo/images [coco]=$D/coco/images [voc]=$D/voc/JPEGImages)
declare -A LABELS=([yolo]=yolo [coco]=coco=$D/coco/annotations.json [voc]=voc)
COMMANDS=()
for pipe in full geometry; do
  cfg=bench/labels-acceptance.json
  [ "$pipe" = geometry ] && cfg=bench/labels-acceptance-geometry.json
  for fmt in yolo coco voc; do
    for dev in cpu cuda-emulated; do
      out=$O/$pipe-$fmt-$dev
      cmd=("$A" run -c "$cfg" -i "${INPUT[$fmt]}" -o "$out" --labels "${LABELS[$fmt]}" --masks "$D/masks"
           --manifest "$out.jsonl" --device "$dev" --threads "$THREADS")
      COMMANDS+=("${cmd[*]}")
      "${cmd[@]}" 2>"$out.log"
    done
  done
done

# CPU vs emulated GPU: every output file (images, label files, masks, COCO JSON) and the manifest.
IDENT=()
for pipe in full geometry; do
  for fmt in yolo coco voc; do
    c=$O/$pipe-$fmt-cpu
    g=$O/$pipe-$fmt-cuda-emulated
    files=$(cd "$c" && find . -type f ! -path './.augment-labels/*' | sort)
    nfiles=$(echo "$files" | wc -l)
    differ=0
    while read -r f; do cmp -s "$c/$f" "$g/$f" || differ=$((differ + 1)); done <<<"$files"
    extra=$(diff <(cd "$c" && find . -type f ! -path './.augment-labels/*' | sort) \
                 <(cd "$g" && find . -type f ! -path './.augment-labels/*' | sort) | grep -c '^[<>]' || true)
    man=identical
    cmp -s "$c.jsonl" "$g.jsonl" || man="differ ($(diff "$c.jsonl" "$g.jsonl" | grep -c '^<') lines)"
    IDENT+=("| $pipe | $fmt | $nfiles | $differ | $extra | $man |")
  done
done

# Scores: the inputs (the measurement's floor: pixel rasterisation vs continuous label geometry),
# then every CPU output (the emulated outputs are byte-identical when the table above says 0).
score() { "$B" score "$@" --truth "$D/truth.json"; }
{
  score "$D/yolo/images" --format yolo --masks "$D/masks" --pixels | sed 's/^/input yolo /'
  score "$D/coco/images" --format coco --coco "$D/coco/annotations.json" --masks "$D/masks" --pixels | sed 's/^/input coco /'
  score "$D/voc/JPEGImages" --format voc --masks "$D/masks" --pixels | sed 's/^/input voc /'
  for pipe in full geometry; do
    px=""
    [ "$pipe" = geometry ] && px=--pixels
    for fmt in yolo coco voc; do
      for dev in cpu cuda-emulated; do
        out=$O/$pipe-$fmt-$dev
        score "$out" --format "$fmt" --manifest "$out.jsonl" $px | sed "s/^/$pipe-$dev $fmt /"
      done
    done
  done
} >"$WORK/scores.txt"

python3 - "$WORK/scores.txt" "$REPORT" "$COUNT" "$WORK" <<'PY' "${COMMANDS[@]}" -- "${IDENT[@]}"
import json, sys, platform, subprocess, datetime
scores_file, report, count, work = sys.argv[1:5]
rest = sys.argv[5:]
sep = rest.index("--")
commands, ident = rest[:sep], rest[sep + 1:]
rows = []
for line in open(scores_file):
    run, fmt, js = line.split(" ", 2)
    rows.append((run, fmt, json.loads(js)))
cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.strip()
ncpu = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
dirty = subprocess.run(["git", "status", "--porcelain", "lib"], capture_output=True, text=True).stdout.strip()
def s(d, key="mean", f="{:.4f}"):
    return f.format(d[key]) if d.get("n", 0) else "–"
out = []
w = out.append
w("# Labels acceptance: boxes, polygons, RLE, keypoints and masks through flip + rotate + random_resized_crop\n")
w(f"Date: {datetime.date.today().isoformat()} (run {datetime.datetime.now().strftime('%H:%M')} UTC). "
  f"Machine: {ncpu}-core {cpu} (shared), no GPU: `--device cuda-emulated` (AUGMENT_EMULATED_GPUS=1) stands for the GPU path. "
  f"Commit {rev}" + (" with uncommitted changes under lib/ by a concurrent session (the binary measured is build/apps/augment/augment as built then)" if dirty else "") + ".\n")
w("## What was measured\n")
w(f"* `augment_bench_labels make DATA --count {count} --from bench/corpus/imagenet-like --seed 1`: on each of {count} corpus "
  "photographs (every 8th or so, spread over the 10 classes), 3–6 non-overlapping solid objects in 6 distinct colours: filled "
  "rectangles (labelled as boxes) and filled 5–8 vertex polygons (convex or star-shaped non-convex; labelled as YOLO segment rows, "
  "COCO polygons, VOC boxes); on about half of the objects three 3×3 keypoint dots in three fixed colours (magenta, cyan, yellow); "
  "on every 4th image the first polygon is a COCO `iscrowd: 1` uncompressed RLE. The same objects are written as YOLO, COCO, VOC and "
  "an 8-bit instance mask per image (value k+1 = object k). PNG images, so the drawn colours survive. "
  "**Object k has class k** (YOLO class k, COCO category_id k+1, VOC name `objk`): an output label names its instance id in the "
  "mask, so labels and mask regions are matched by identity, not by best IoU. Keypoints exist only in COCO (no YOLO pose set).")
w("* Pipelines: `bench/labels-acceptance.json` (flip h/v p=0.5, rotate ±30° bilinear, random_resized_crop 384×384 scale [0.35, 1], "
  "channel_gain 0.7–1.3 per channel; labels block `{\"min_visibility\": 0.3}`) and `bench/labels-acceptance-geometry.json` "
  "(the same without channel_gain), each on YOLO, COCO and VOC, on `--device cpu` and `--device cuda-emulated`, with `--masks` "
  "the instance-mask folder.")
w("* `augment_bench_labels score OUT --format F --truth DATA/truth.json --manifest OUT.jsonl [--pixels]` per output folder:")
w("  * **box IoU**: each output label box vs the tight box of the output-mask pixels with its id (the mask moved by the tool's "
  "own pixel kernels, nearest sampling; the image is never looked at for this);")
w("  * **mask-in-box**: fraction of an object's output-mask pixels whose centre lies inside its output label box;")
w("  * **polygon IoU / RLE IoU**: the output polygon rasterised (pixel centres inside, cv::fillPoly) or the output RLE decoded, "
  "vs the object's output-mask pixels;")
w("  * with `--pixels` (geometry pipeline only: channel_gain would move the colours away from what is searched): **colour IoU**, "
  "the pixels within ±12 per channel of the object's drawn colour (searched in its mask box grown by 8 px) vs its mask pixels — "
  "whether the moved mask still sits on the moved object in the image; **colour box IoU**, the output label box vs the tight "
  "box of those colour pixels; **keypoint distance**, each dot found in the output image as the centroid of the object's "
  "mask pixels weighted by the projection of (pixel − object colour) onto (dot colour − object colour), clamped to [0, 1], "
  "weights < 0.25 ignored and pixels farther than 0.3·|dot − object colour| from that line ignored (the other dots), over the mask eroded by 1 px (edge pixels blend with the photograph) and within 3 px of the heaviest pixel, vs the output keypoint (COCO only);")
w("  * **kept / dropped**: from the manifest's `labels` entries; **unlabelled with mask pixels**: objects that still have "
  "mask pixels but no output label (dropped by min_visibility, partly visible); **kept without mask pixels**: labels whose "
  "object has no pixel in the output mask.")
w("* The **input** rows score the dataset itself: the floor of the method. A polygon's vertex box is up to one pixel per side "
  "larger than the box of the pixel centres it covers (sharp vertices cover no pixel centre), which costs small objects a few "
  "points of IoU before any stage runs; boxes start at 1.0.\n")
w("## CPU vs emulated GPU (byte comparison of every output file)\n")
w("| pipeline | format | files (images, labels, masks) | differing | only on one side | manifest |")
w("|---|---|---|---|---|---|")
for r in ident: w(r)
w("")
w("## Scores\n")
w("IoU columns: mean / min (n). Keypoint distances in px: mean / max (n found). Rows `*-cuda-emulated` score the emulated outputs.\n")
w("VOC labels a polygon object by its box only: a rotated box becomes the box of its four moved corners (box_method "
  "corners, as Albumentations' largest_box), which encloses the rotated object but is larger than it; the VOC rows' polygon "
  "and RLE IoU (≈0.72) measure that loss of information, not a fault. YOLO segment rows and COCO polygons/RLE keep the shape, "
  "and their boxes are re-derived from it. The full and geometry pipelines draw the same geometry (same seed, the colour stage "
  "is last), hence the same label numbers.\n")
w("| run | format | objects kept / dropped (manifest) | dropped by | box IoU | box IoU: boxes | box IoU: polygons | box IoU: RLE | mask-in-box | polygon IoU | RLE IoU | unlabelled with mask px | kept w/o mask px |")
w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
def mm(d):
    return f"{d['mean']:.4f} / {d['min']:.4f} ({d['n']})" if d.get("n", 0) else "–"
for run, fmt, d in rows:
    m = d["manifest"]
    by = ", ".join(f"{k} {v}" for k, v in m["dropped_by"].items() if v) or "–"
    kd = f"{m['kept']} / {m['dropped']}" if m["manifest_lines"] else f"{d['labelled_objects']} labelled"
    k = d["box_iou_by_kind"]
    w(f"| {run} | {fmt} | {kd} | {by} | {mm(d['box_iou'])} | {mm(k.get('box', {}))} | {mm(k.get('polygon', {}))} | "
      f"{mm(k.get('rle', {}))} | {mm(d['mask_in_box'])} | {mm(d['polygon_iou'])} | {mm(d['rle_iou'])} | "
      f"{d['unlabelled_with_mask_pixels']} | {d['kept_without_mask_pixels']} |")
w("\n### Pixel-based checks (no colour stage)\n")
w("| run | format | colour IoU (image colour vs mask) | colour box IoU (label box vs image colour box) | keypoint distance px | keypoints labelled / v=0 / dot not found |")
w("|---|---|---|---|---|---|")
for run, fmt, d in rows:
    if "colour_vs_mask_iou" not in d: continue
    kp = d["keypoint_distance_px"]
    kps = f"{kp['mean']:.3f} / {kp['max']:.3f} ({kp['n']})" if kp.get("n", 0) else "–"
    k = d["keypoints"]
    w(f"| {run} | {fmt} | {mm(d['colour_vs_mask_iou'])} | {mm(d['colour_box_iou'])} | {kps} | {k['labelled']} / {k['outside_v0']} / {k['dot_not_found']} |")
worst = [(run, fmt, x) for run, fmt, d in rows for x in d["worst"]]
if worst:
    w("\n### Objects with box IoU < 0.8\n")
    for run, fmt, x in worst[:30]: w(f"* {run} {fmt}: {x}")
w("\n## Commands\n")
w("```")
w(f"bench/labels-acceptance.sh {count}   # WORK={work}")
w(f"build/bench/augment_bench_labels make DATA --count {count} --from bench/corpus/imagenet-like --seed 1")
for c in commands: w(c.replace(work, "$WORK"))
w("build/bench/augment_bench_labels score OUT --format F --truth DATA/truth.json --manifest OUT.jsonl [--pixels]")
w("```")
open(report, "w").write("\n".join(out) + "\n")
print(report)
PY
echo "work: $WORK"
