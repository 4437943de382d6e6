#!/usr/bin/env bash
# Peak memory of `augment tile` on one large JPEG, against the size of its decoded pixels: the image
# is held whole once, so the peak should be about one decoded image plus the tiles in flight.
#
#   bench/tile-memory.sh [SIDE] [TILE]      (defaults 20000 and 1024; needs build/apps/augment/augment)
set -euo pipefail
side=${1:-20000}
tile=${2:-1024}
here=$(cd "$(dirname "$0")/.." && pwd)
augment=${AUGMENT:-$here/build/apps/augment/augment}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The input: a sample photograph enlarged to SIDE x SIDE and written as a JPEG by augment itself.
mkdir -p "$work/in" "$work/big"
cp "$here/samples/chelsea.png" "$work/in/big.png"
printf '{"version": 1, "stages": [{"stage": "resize", "size": [%d, %d]}]}\n' "$side" "$side" >"$work/up.json"
"$augment" run -c "$work/up.json" -i "$work/in" -o "$work/big" --format jpg --quality 90 --progress never >/dev/null
file_mb=$(du -m "$work/big/big.jpg" | cut -f1)

/usr/bin/time -v "$augment" tile -i "$work/big" -o "$work/tiles" --size "$tile" --overlap 0.1 --format jpg \
  2>"$work/time.txt" >"$work/out.txt"
cat "$work/out.txt"
peak_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
decoded_mb=$(( side * side * 3 / 1048576 ))
echo "input: ${side}x${side} JPEG, ${file_mb} MiB; decoded RGB ${decoded_mb} MiB"
echo "tiles: ${tile}x${tile}, $(ls "$work/tiles" | grep -c '\.jpg$') written; wall ${wall}"
awk -v p="$peak_kb" -v d="$decoded_mb" 'BEGIN { printf "peak RSS: %.0f MiB = %.2fx the decoded image\n", p / 1024, p / 1024 / d }'
