#!/usr/bin/env bash
# An ImageNet-sized folder: N small JPEG inputs spread over F class folders (generated here, not
# committed: hard links to a few 64x48 JPEGs that augment itself writes from samples/, so that the
# per-input costs of augment (listing, planning, hand-offs, the manifest, memory) dominate rather
# than pixels). Reports, each for one `augment run` of a flip pipeline with 2 threads:
#   - time to the first output file and total time of a full run, and its peak memory;
#   - the same on N/10 inputs: memory growth per input = (peak(N) - peak(N/10)) / (0.9 N);
#   - `--resume` over the complete output folder (nothing left to make);
#   - `--shard 0/8`: its time and peak memory (it lists the whole tree, plans only its eighth).
#
#   bench/many-inputs.sh [N] [F]      (defaults 200000 and 1000, N a multiple of 10 F; needs
#                                      build/apps/augment/augment)
set -euo pipefail
n=${1:-200000}
folders=${2:-1000}
here=$(cd "$(dirname "$0")/.." && pwd)
augment=${AUGMENT:-$here/build/apps/augment/augment}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A few distinct small JPEGs, written by augment from the samples.
mkdir -p "$work/seed"
printf '{"version": 1, "stages": [{"stage": "resize", "size": [64, 48]}]}\n' >"$work/small.json"
"$augment" run -c "$work/small.json" -i "$here/samples" -o "$work/seed" --format jpg --quality 90 \
  --progress never >/dev/null
mapfile -t seeds < <(find "$work/seed" -name '*.jpg' | sort)

# COUNT inputs in F folders of COUNT/F each: hard links (one inode per seed), named as ImageNet's
# are; the first folder is made link by link, the others are linked copies of it.
make_tree() {  # DIR COUNT
  local dir=$1 per=$(($2 / folders)) i f
  mkdir -p "$dir/n00000000"
  for ((i = 0; i < per; ++i)); do
    ln "${seeds[$((i % ${#seeds[@]}))]}" "$dir/n00000000/$(printf 'img_%08d.jpg' "$i")"
  done
  for ((f = 1; f < folders; ++f)); do cp -al "$dir/n00000000" "$dir/$(printf 'n%08d' "$f")"; done
}
make_tree "$work/in" "$n"
make_tree "$work/in10" $((n / 10))
printf '{"version": 1, "stages": [{"stage": "flip", "direction": "horizontal"}]}\n' >"$work/flip.json"

now() { date +%s.%N; }
run() {  # NAME INPUT OUTPUT [options]: wall seconds and peak KiB into $NAME.wall, $NAME.kb
  local name=$1 in=$2 out=$3
  shift 3
  local t0
  t0=$(now)
  /usr/bin/time -f %M -o "$work/$name.kb" "$augment" run -c "$work/flip.json" -i "$in" -o "$out" --threads 2 \
    --progress never "$@" >/dev/null 2>"$work/$name.log"
  echo "$(now) - $t0" | bc >"$work/$name.wall"
}

# The full run, watched for its first output.
t0=$(now)
run full "$work/in" "$work/out" &
pid=$!
first=""
while kill -0 "$pid" 2>/dev/null; do
  if [ -z "$first" ] && [ -n "$(find "$work/out" -name '*.jpg' -print -quit 2>/dev/null)" ]; then
    first=$(echo "$(now) - $t0" | bc)
  fi
  sleep 0.05
done
wait "$pid"
outputs=$(find "$work/out" -name '*.jpg' | wc -l)
run tenth "$work/in10" "$work/out10"
run resume "$work/in" "$work/out" --resume
run shard "$work/in" "$work/out-shard" --shard 0/8

kb() { cat "$work/$1.kb"; }
echo "inputs: $n in $folders folders ($outputs outputs written)"
printf 'full run: first output after %.2f s, total %.1f s, peak %.1f MiB\n' "${first:-0}" "$(cat "$work/full.wall")" \
  "$(echo "$(kb full) / 1024" | bc -l)"
printf '%d inputs: total %.1f s, peak %.1f MiB\n' $((n / 10)) "$(cat "$work/tenth.wall")" \
  "$(echo "$(kb tenth) / 1024" | bc -l)"
printf 'memory growth per input: %.0f bytes\n' "$(echo "($(kb full) - $(kb tenth)) * 1024 / ($n - $n / 10)" | bc -l)"
printf -- '--resume over the complete output: %.2f s, peak %.1f MiB\n' "$(cat "$work/resume.wall")" \
  "$(echo "$(kb resume) / 1024" | bc -l)"
printf -- '--shard 0/8: %.1f s, peak %.1f MiB, %d outputs\n' "$(cat "$work/shard.wall")" \
  "$(echo "$(kb shard) / 1024" | bc -l)" "$(find "$work/out-shard" -name '*.jpg' | wc -l)"
