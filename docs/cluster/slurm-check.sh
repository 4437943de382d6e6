#!/bin/bash
# Runs the documented Slurm job array (docs/cluster/augment-array.sbatch) on a real, throwaway
# one-node Slurm cluster on this machine and checks that the union of its tasks' outputs is, file
# for file and byte for byte, the output of one run without shards.
#
# Usage (as root, on Debian 12 or another Debian-like system with apt-get):
#   docs/cluster/slurm-check.sh [--remove] [--max-running N] [AUGMENT_BINARY]
#
#   AUGMENT_BINARY  the augment to run (default: $AUGMENT, else build/apps/augment/augment in the
#                   repository)
#   --remove        remove the temporary folder at the end (by default it is kept and printed)
#   --max-running N let at most N tasks of the array run at once (sbatch --array=0-3%N; default:
#                   as many as the node's CPUs allow)
#
# Environment: IMAGES (how many images, default 24), CORPUS (the image folder, default
# bench/corpus/imagenet-like, else samples), PIPELINE (default configs/default.json),
# SLURM_TIMEOUT (seconds to wait for the array, default 600), SLURMCTLD_PORT and SLURMD_PORT
# (default 16817 and 16818, away from a system Slurm's 6817 and 6818).
#
# It installs slurm-wlm (slurmctld, slurmd, munge) with apt-get if missing; starts munged,
# slurmctld and slurmd with every file in a temporary folder (munge key and socket, slurm.conf,
# state, spool, logs); submits the documented script with its paths moved into that folder, as
# an array of 4 tasks of 1 CPU; waits for the tasks and checks each exited 0; runs the same
# pipeline once without shards; compares the two output folders (the manifests excepted); then
# removes task 1's outputs and manifest and resubmits that task alone (sbatch --array=1), which
# must take shard 1 again and restore them; and stops the daemons it started, whatever happens.
# It exits 0 only when the outputs are identical both times.
# Nothing outside the temporary folder is written, apart from the packages installed.

set -euo pipefail

die() { echo "slurm-check: error: $*" >&2; exit 1; }
say() { echo "slurm-check: $*"; }

remove=0
bin_arg=""
max_running=""
while (( $# > 0 )); do
  arg="$1"; shift
  case "$arg" in
    --remove) remove=1 ;;
    --max-running)
      (( $# > 0 )) && [[ "$1" =~ ^[1-9][0-9]*$ ]] || die "--max-running needs a positive whole number"
      max_running="$1"; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $arg (see --help)" ;;
    *) [[ -z "$bin_arg" ]] || die "one augment binary only, got $bin_arg and $arg"; bin_arg="$arg" ;;
  esac
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${bin_arg:-${AUGMENT:-$repo/build/apps/augment/augment}}"
[[ -x "$bin" ]] || die "no augment binary at $bin: build it, or pass its path"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
sbatch_doc="$repo/docs/cluster/augment-array.sbatch"
[[ -f "$sbatch_doc" ]] || die "missing $sbatch_doc"
pipeline="${PIPELINE:-$repo/configs/default.json}"
[[ -f "$pipeline" ]] || die "no pipeline at $pipeline"
nimages="${IMAGES:-24}"
[[ "$nimages" =~ ^[1-9][0-9]*$ ]] || die "IMAGES must be a positive whole number, got $nimages"
timeout="${SLURM_TIMEOUT:-600}"
ctld_port="${SLURMCTLD_PORT:-16817}"
slurmd_port="${SLURMD_PORT:-16818}"
tasks=4
[[ $EUID -eq 0 ]] || die "run as root: slurmd and munged run as root here, and apt-get may be needed"

# 1. The packages.
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
  say "installing slurm-wlm with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq slurm-wlm >/dev/null
fi
for cmd in slurmctld slurmd munged mungekey sbatch squeue sinfo scontrol scancel; do
  command -v "$cmd" >/dev/null || die "$cmd not found after installing slurm-wlm"
done

# 2. The cluster, in a temporary folder.
tmp="$(mktemp -d "${TMPDIR:-/tmp}/augment-slurm.XXXXXX")"
# The path goes into slurm.conf and, by sed, into the job script: keep it plain.
[[ "$tmp" =~ ^[A-Za-z0-9._/-]+$ ]] || die "temporary folder $tmp has characters this script does not quote"
chmod 0755 "$tmp"
mkdir -p "$tmp"/{munge,state,spool,log,jobs} "$tmp/shared/images"
chmod 0755 "$tmp/munge"  # munged wants its socket folder searchable by all, writable by root only

pids=()
jobid=""
cleanup() {
  local rc=$?
  set +e
  if [[ -n "$jobid" ]]; then scancel "$jobid" 2>/dev/null; fi
  # Stop in reverse order of starting: slurmd, slurmctld, munged.
  local i
  for (( i=${#pids[@]}-1; i>=0; i-- )); do
    kill "${pids[i]}" 2>/dev/null
  done
  for (( i=${#pids[@]}-1; i>=0; i-- )); do
    wait "${pids[i]}" 2>/dev/null
  done
  if [[ $remove -eq 1 ]]; then
    rm -rf "$tmp"
  else
    echo "slurm-check: files kept in $tmp (slurm.conf, log/, jobs/, shared/, single/)"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

node="$(hostname -s)"
[[ "$node" =~ ^[A-Za-z0-9-]+$ ]] || die "host name $node is not a plain Slurm node name"
cpus="$(nproc)"

mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1 \
  || dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$tmp/munge/munge.key"
socket="$tmp/munge/munge.socket.2"
munged -F --key-file="$tmp/munge/munge.key" --socket="$socket" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" \
  --log-file="$tmp/log/munged.log" >"$tmp/log/munged.out" 2>&1 &
pids+=($!)

for _ in $(seq 50); do [[ -S "$socket" ]] && break; sleep 0.2; done
[[ -S "$socket" ]] || { cat "$tmp/log/munged.out" "$tmp/log/munged.log" >&2 2>/dev/null; die "munged did not start"; }

export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# A one-node cluster for docs/cluster/slurm-check.sh; every path is in $tmp.
ClusterName=augment-check
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
PlugStackConfig=$tmp/plugstack.conf
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=500 State=UNKNOWN
PartitionName=check Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
: >"$tmp/plugstack.conf"

slurmctld -D -c -i -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)

state=""
for _ in $(seq 60); do
  state="$(sinfo -h -N -n "$node" -o '%t' 2>/dev/null || true)"
  [[ "$state" == idle ]] && break
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$tmp"/log/*.out "$tmp"/log/*.log >&2; die "a daemon exited (pid $pid)"; }
  done
  sleep 1
done
[[ "$state" == idle ]] || { tail -n 20 "$tmp"/log/slurm*.log >&2; die "node $node not idle after 60 s (state: ${state:-none})"; }
version="$(sinfo -V)"
say "cluster up: $version, node $node, $cpus CPUs, files in $tmp"

# The images: IMAGES of them, spread over the corpus, with their relative paths.
corpus="${CORPUS:-}"
if [[ -z "$corpus" ]]; then
  corpus="$repo/bench/corpus/imagenet-like"
  [[ -d "$corpus" ]] || corpus="$repo/samples"
fi
[[ -d "$corpus" ]] || die "no image folder at $corpus"
mapfile -t all < <(cd "$corpus" && find . -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | LC_ALL=C sort)
(( ${#all[@]} > 0 )) || die "no images under $corpus"
step=$(( (${#all[@]} + nimages - 1) / nimages ))
picked=0
for (( i=0; i<${#all[@]} && picked<nimages; i+=step )); do
  (cd "$corpus" && cp --parents "${all[i]}" "$tmp/shared/images/")
  picked=$((picked + 1))
done
cp "$pipeline" "$tmp/shared/pipeline.json"
say "$picked images from $corpus, pipeline $pipeline"

# 3. The documented array job, its /shared paths moved into $tmp/shared and its augment the one
# given. sbatch options on the command line override the script's: 4 tasks of 1 CPU.
job="$tmp/jobs/augment-array.sbatch"
sed -e "s|/shared/|$tmp/shared/|g" -e 's|^exec augment run |exec "${AUGMENT:?}" run |' \
  -e "s|--shards 8 |--shards $tasks |" "$sbatch_doc" >"$job"
for want in "--shard auto --shards $tasks --resume" '--copies 2 --seed 7' "-c $tmp/shared/pipeline.json" \
    "-i $tmp/shared/images" "-o $tmp/shared/augmented" \
    "--manifest \"$tmp/shared/augmented/manifest-\${SLURM_ARRAY_TASK_ID}.jsonl\"" \
    'exec "${AUGMENT:?}" run'; do
  grep -qF -- "$want" "$job" || die "$sbatch_doc has changed: the job script lacks '$want'"
done
export AUGMENT="$bin"
array="0-$((tasks - 1))${max_running:+%$max_running}"
jobid="$(sbatch --parsable --export=ALL --array="$array" --cpus-per-task=1 \
  --chdir="$tmp/jobs" --output="$tmp/log/augment-%A_%a.log" "$job")"
jobid="${jobid%%;*}"
say "submitted job array $jobid (--array=$array --cpus-per-task=1)"

start=$SECONDS
while [[ -n "$(squeue -h -j "$jobid" -o '%i' 2>/dev/null)" ]]; do
  (( SECONDS - start < timeout )) || { squeue -j "$jobid" >&2; die "job array $jobid not done after $timeout s"; }
  sleep 2
done
say "job array $jobid done in $((SECONDS - start)) s"

failed=0
shard_lines=()
for (( k=0; k<tasks; k++ )); do
  info="$(scontrol -o show job "${jobid}_$k" 2>/dev/null || true)"
  st="$(grep -o 'JobState=[A-Z_]*' <<<"$info" | head -n 1 || true)"
  ex="$(grep -o ' ExitCode=[0-9:]*' <<<"$info" | head -n 1 | tr -d ' ' || true)"
  log="$tmp/log/augment-${jobid}_$k.log"
  line="$(grep -o 'shard [0-9]* of [0-9]*, from .*' "$log" 2>/dev/null | head -n 1 || true)"
  shard_lines+=("task $k: ${line:-NO SHARD LINE}")
  if [[ "$st" != JobState=COMPLETED || "$ex" != ExitCode=0:0 ]] || [[ -z "$line" ]]; then
    echo "slurm-check: task $k: ${st:-no JobState} ${ex:-no ExitCode}; its log ($log):" >&2
    cat "$log" >&2 2>/dev/null || echo "  (no log)" >&2
    failed=1
  fi
done
(( failed == 0 )) || die "a task of job array $jobid failed"

# 4. The same pipeline once, without shards (and with every core).
"$bin" run -c "$tmp/shared/pipeline.json" -i "$tmp/shared/images" -o "$tmp/single" \
  --copies 2 --seed 7 --progress never >"$tmp/log/single.log" 2>&1 \
  || { cat "$tmp/log/single.log" >&2; die "the run without shards failed"; }

# 5. The comparison: the same files, with the same bytes (the array's manifests excepted).
list() { (cd "$1" && find . -type f ! -name 'manifest-*.jsonl' | LC_ALL=C sort); }
array_files="$(list "$tmp/shared/augmented")"
single_files="$(list "$tmp/single")"
n_array="$(grep -c . <<<"$array_files" || true)"
n_single="$(grep -c . <<<"$single_files" || true)"
per_task=()
for (( k=0; k<tasks; k++ )); do
  per_task+=("$(grep -c . "$tmp/shared/augmented/manifest-$k.jsonl" 2>/dev/null || echo 0)")
done

echo
echo "== augment --shard auto on a one-node Slurm cluster =="
echo "slurm:    $version ($(dpkg-query -W -f '${Version}' slurm-wlm 2>/dev/null || echo '?'))"
echo "augment:  $("$bin" --version | head -n 1) ($bin)"
echo "job:      sbatch --array=$array --cpus-per-task=1 $job (job $jobid)"
echo "inputs:   $picked images, --copies 2 --seed 7, pipeline $(basename "$pipeline")"
for l in "${shard_lines[@]}"; do echo "  $l"; done
echo "outputs:  array $n_array files (manifest lines per task: ${per_task[*]}), single run $n_single files"

identical=0
if (( n_single > 0 )) && [[ "$array_files" == "$single_files" ]] \
    && diff -r -x 'manifest-*.jsonl' "$tmp/single" "$tmp/shared/augmented" >"$tmp/log/diff.txt" 2>&1; then
  identical=1
fi
if (( identical )); then
  echo "result:   identical: $n_single files, byte for byte"
else
  echo "result:   DIFFERENT (see $tmp/log/diff.txt)"
  diff <(echo "$single_files") <(echo "$array_files") | head -n 20 || true
  head -n 20 "$tmp/log/diff.txt"
  exit 1
fi

# 6. A task resubmitted alone, as the job script says (sbatch --array=K): task 1's outputs and
# manifest removed, the task run again, which must take shard 1 again and make them again.
k=1
before="$(grep -c . "$tmp/shared/augmented/manifest-$k.jsonl")"
while read -r out; do rm -f "$tmp/shared/augmented/$out"; done \
  < <(grep -o '"output":"[^"]*"' "$tmp/shared/augmented/manifest-$k.jsonl" | cut -d'"' -f4)
rm -f "$tmp/shared/augmented/manifest-$k.jsonl"
again="$(sbatch --parsable --export=ALL --array="$k" --cpus-per-task=1 \
  --chdir="$tmp/jobs" --output="$tmp/log/again-%A_%a.log" "$job")"
again="${again%%;*}"
start=$SECONDS
while [[ -n "$(squeue -h -j "$again" -o '%i' 2>/dev/null)" ]]; do
  (( SECONDS - start < timeout )) || die "the resubmitted task $again is not done after $timeout s"
  sleep 2
done
line="$(grep -o 'shard [0-9]* of [0-9]*, from .*' "$tmp/log/again-${again}_$k.log" 2>/dev/null | head -n 1 || true)"
after="$(grep -c . "$tmp/shared/augmented/manifest-$k.jsonl" 2>/dev/null || echo 0)"
echo "again:    sbatch --array=$k: ${line:-NO SHARD LINE}; manifest-$k.jsonl $after lines (before: $before)"
if [[ "$line" == "shard $k of $tasks,"* ]] && (( after == before )) \
    && diff -r -x 'manifest-*.jsonl' "$tmp/single" "$tmp/shared/augmented" >"$tmp/log/diff-again.txt" 2>&1; then
  echo "result:   the resubmitted task took shard $k again; identical again"
  exit 0
fi
echo "result:   the resubmitted task did not restore shard $k (see $tmp/log/again-${again}_$k.log)"
exit 1
