#!/usr/bin/env bash
# Stages that read other images against a one-image pipeline of the same output size: a 2x2 mosaic
# (four decodes per output: the image and three partners) against a resize to the same size (one
# decode), over the same inputs, run alternately. Reports peak RSS and time per output, and their
# ratios (mosaic / one-image).
#
#   bench/mix.sh [INPUT_DIR] [ROUNDS] [SIZE]    (defaults bench/corpus/imagenet-like, 3, 640;
#                                                 needs build/apps/augment/augment; AUGMENT overrides)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
input=${1:-$here/bench/corpus/imagenet-like}
rounds=${2:-3}
size=${3:-640}
augment=${AUGMENT:-$here/build/apps/augment/augment}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -d "$input" ] || { echo "no input folder $input (bench/corpus.sh makes the corpus)" >&2; exit 2; }

printf '{"version": 1, "seed": 1, "stages": [{"stage": "mosaic", "p": 1, "grid_yx": [2, 2], "cell_shape": [%d, %d], "target_size": [%d, %d], "center_range": [0, 1], "fit_mode": "contain", "fill": 114}]}\n' \
  "$size" "$size" "$size" "$size" >"$work/mosaic.json"
printf '{"version": 1, "seed": 1, "stages": [{"stage": "resize", "size": [%d, %d]}]}\n' "$size" "$size" >"$work/one.json"
outputs=$(find "$input" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | wc -l)

# One run: "seconds peak_kib".
measure() {
  rm -rf "$work/out"
  /usr/bin/time -f '%e %M' -o "$work/t.txt" "$augment" run -c "$work/$1.json" -i "$input" -o "$work/out" \
    --progress never >/dev/null 2>&1
  cat "$work/t.txt"
}

echo "inputs: $input ($outputs images), output ${size}x${size}, $(nproc) cores, $rounds rounds (alternating)"
printf '%-6s %-9s %12s %12s %14s\n' round pipeline seconds "ms/output" "peak MiB"
declare -a ratios_t ratios_m
for r in $(seq 1 "$rounds"); do
  read -r t1 m1 < <(measure one)
  read -r t2 m2 < <(measure mosaic)
  for row in "one $t1 $m1" "mosaic $t2 $m2"; do
    set -- $row
    awk -v r="$r" -v n="$1" -v t="$2" -v m="$3" -v o="$outputs" \
      'BEGIN { printf "%-6s %-9s %12.2f %12.2f %14.1f\n", r, n, t, 1000 * t / o, m / 1024 }'
  done
  ratios_t+=("$(awk -v a="$t2" -v b="$t1" 'BEGIN { printf "%.3f", a / b }')")
  ratios_m+=("$(awk -v a="$m2" -v b="$m1" 'BEGIN { printf "%.3f", a / b }')")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "time per output, mosaic / one-image: ${ratios_t[*]} (median $(median "${ratios_t[@]}"); bar 4.5)"
echo "peak RSS, mosaic / one-image:        ${ratios_m[*]} (median $(median "${ratios_m[@]}"); bar 2)"
