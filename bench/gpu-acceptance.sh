#!/bin/bash
# The GPU acceptance run: everything to check on a real GPU, in one command, with one results file.
#
#   bench/gpu-acceptance.sh pack [--dest DIR] [--build DIR] [--archive]
#       Here (a machine with the toolchain): configures and builds Release for sm_90
#       (-DCMAKE_CUDA_ARCHITECTURES=90, tests and benchmarks on) in its own build folder (default
#       build-gpu-acceptance/), then copies into DIR (default .devpack/) everything a machine that
#       has only an NVIDIA driver needs:
#         bin/      augment, augment_bench_stages, augment_bench_opencv_p1 (P1's I/O floor)
#         tests/    the gtest binaries that "run" runs (test_cuda, test_unit, test_stages; run directly,
#                   not through ctest). The archive stays under 50 MB, so that it travels to a machine
#                   that takes 64 MiB at a time.
#         lib/      the shared libraries all of those load (from ldd), except the C library's own
#                   (libc, libm, ld-linux, libpthread, libdl, librt) and the driver's libcuda
#         tools/compute-sanitizer/  when the build machine's CUDA toolkit has it
#         README.md configs/ samples/   (the tests read them: AUGMENT_TEST_SOURCE_DIR)
#         corpus/   imagenet-like (400 JPEGs) and hd1080/class00 (4 JPEGs), from bench/corpus.sh
#         gpu-acceptance.sh (this script), activate (sets PATH and LD_LIBRARY_PATH), PACK_INFO
#       With --archive also DIR.tar.xz (one file to copy).
#
#   DIR/gpu-acceptance.sh run [--out DIR] [--emulated] [--threads N] [--verify-images N] [--pairs N]
#                             [--repeats N] [--san-configs a,b,..] [--budget SECONDS] [--logs FILE.tar.gz]
#                             [--only 2,3,...] [--p1-repeat N] [--kernels-only]
#   bench/gpu-acceptance.sh run --emulated ...   (from the repository: uses .devpack/, or --pack DIR)
#       On the GPU machine (or here with --emulated: no GPU, the emulated devices) runs, in order:
#         1. the device inventory (augment devices; nvidia-smi when there is one);
#         2. the GPU tests, run as gtest binaries: test_cuda (all of it: the real-GPU tests), and the
#            GPU backend and kernel bodies on an emulated device (test_unit GpuBackend.*, StrictDevice.* and
#            Verify*, test_stages Stages/Parity.* and Parity.*); counts of passed, skipped, failed;
#         3. compute-sanitizer (memcheck, racecheck, initcheck, synccheck) over a short
#            `augment run --device cuda:N` on three samples (skipped in emulated mode: the kernels
#            run as host loops there, nothing for it to see);
#         4. augment verify-devices --devices all --dtypes u8,u16,f32 --device-jpeg over corpus images
#            for every pipeline in configs/: the CPU against every GPU, differing values per pipeline
#            and type, and the GPUs' JPEG decoding and encoding against libjpeg-turbo's;
#         5. P1 (bench/README.md) with --device cuda:N and with --device cpu against the I/O floor,
#            alternating in pairs: the median ratios;
#         6. per-stage kernel times (augment_bench_stages --device): ms, GB/s, % of device copy
#            bandwidth;
#         7. augment run --device cuda:all (cuda-emulated:all with --emulated) against --device cpu:
#            the outputs must be the same bytes.
#       and writes ONE Markdown file: OUT/<date>-gpu-acceptance-<gpu name>.md (OUT default .; the
#       gpu name is "emulated" with --emulated). Exit 1 when a check fails: a failed or (on a GPU)
#       not-run GPU test, a sanitizer error, an 8-bit value that differs between the CPU and a GPU,
#       any verify-devices comparison over its stage's tolerance, or outputs of the every-GPU run that
#       differ from the CPU's; 0 otherwise.
#       --budget S bounds the whole run: every command runs under timeout(1) with at most what is left
#       of S (a hung kernel costs its section, not the run), and a section that has under 20 s left is
#       skipped and marked so. --logs FILE keeps every command's log (tar.gz), also when the run is
#       stopped by SIGTERM. The sanitizer runs (4 tools x --san-configs, default
#       default,kornia-chain,perspective,elastic) run side by side, one process each.
#       --only runs those sections (1, the inventory, always runs). --p1-repeat N makes P1's input N
#       copies of its images (a run long enough that starting the process and the device is not the
#       figure). --kernels-only leaves the CPU columns out of section 6.
#       --emulated sets AUGMENT_EMULATED_GPUS=2 (more emulated devices, where augment supports it)
#       and uses small inputs so that it ends in a few minutes on two cores.
#       Needs bash, coreutils, awk and python3 (standard library, for the verify reports).
#
# The first run on a GPU machine:
#   bench/gpu-acceptance.sh pack --archive            # here
#   (copy .devpack.tar.xz there)  tar xf .devpack.tar.xz && .devpack/gpu-acceptance.sh run --out results/
set -uo pipefail

self=$(readlink -f "${BASH_SOURCE[0]}")
here=$(dirname "$self")

die() { echo "gpu-acceptance: $*" >&2; exit 2; }

# ---------------------------------------------------------------------------------------------- pack
# The ELF files' shared libraries (resolved paths), without the C library's own and the driver's.
needed_libs() {
  ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|libcuda|libnvidia-[a-z-]*)\.so(\.|$)|/ld-linux' || true
}

# OpenCV's imgcodecs links GDAL, GDCM, OpenEXR and OpenJPEG, and through them about a hundred more
# libraries (three quarters of the pack), for formats augment never hands it (it reads JPEG, PNG,
# BMP, TIFF and WebP). The pack replaces each of those with a stub of the same name that defines
# the symbols imgcodecs takes from it, each function returning 0 (imgcodecs calls a few of them
# when it registers its decoders), then drops every library that nothing needs any more. Loading
# still checks every symbol (imgcodecs is linked BIND_NOW).
slim_libs() {  # pack dir
  local dest=$1 codecs needed lib so c n kept
  codecs=$(ls "$dest"/lib/libopencv_imgcodecs.so.* 2>/dev/null | head -1)
  [ -n "$codecs" ] || return 0
  command -v gcc >/dev/null || { echo "gpu-acceptance pack: no gcc, libraries not slimmed"; return 0; }
  local work
  work=$(mktemp -d)
  nm -D --undefined-only "$codecs" | awk '{ print $NF }' | sed 's/@.*//' | sort -u >"$work/wanted"
  for needed in $(readelf -d "$codecs" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$needed" in
      libopencv_*|libjpeg.*|libpng*|libtiff.*|libwebp*|libz.*|libstdc++*|libgcc_s*|libm.*|libc.*) continue ;;
    esac
    lib=$dest/lib/$needed
    [ -f "$lib" ] || continue
    c=$work/$needed.c
    : >"$c"
    n=0
    # name, type of every symbol the library defines that imgcodecs takes from it
    nm -D --defined-only "$lib" | awk '{ print $NF, $(NF - 1) }' | sed 's/@[^ ]*//' | sort -u |
      join - "$work/wanted" | while read -r sym type; do
        n=$((n + 1))
        case "$type" in
          T|t|W|w|i) echo "long f$n(void) __asm__(\"$sym\"); long f$n(void) { return 0; }" ;;
          *) echo "char d$n[256] __asm__(\"$sym\");" ;;
        esac
      done >>"$c"
    gcc -shared -fPIC -O1 -o "$lib.stub" -Wl,-soname,"$needed" "$c" || { rm -f "$lib.stub"; continue; }
    mv "$lib.stub" "$lib"
  done
  rm -rf "$work"
  # Keep what the binaries still load, through the pack's own copies.
  kept=$(LD_LIBRARY_PATH="$dest/lib" ldd "$dest"/bin/* "$dest"/tests/* "$dest"/lib/libaugment_cvcodecs.so 2>/dev/null |
         awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u)
  for lib in "$dest"/lib/*; do
    case "$kept" in *"$lib"*) ;; *) [ "$(basename "$lib")" = libaugment_cvcodecs.so ] || rm -f "$lib" ;; esac
  done
}

pack() {
  local repo dest build archive=0
  repo=$(cd "$here/.." && pwd)
  dest="$repo/.devpack"
  build="$repo/build-gpu-acceptance"
  while [ $# -gt 0 ]; do
    case "$1" in
      --dest) dest=$(readlink -m "$2"); shift 2 ;;
      --build) build=$(readlink -m "$2"); shift 2 ;;
      --archive) archive=1; shift ;;
      *) die "pack: unknown option $1" ;;
    esac
  done
  [ -f "$repo/CMakeLists.txt" ] || die "pack runs from the repository (bench/gpu-acceptance.sh pack)"
  local nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
  [ -x "$nvcc" ] || nvcc=$(command -v nvcc) || die "pack needs nvcc (the CUDA toolkit) to build the CUDA backend"

  echo "gpu-acceptance pack: building Release for sm_90 in $build"
  mkdir -p "$build" || die "cannot create $build"
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DAUGMENT_BUILD_TESTS=ON >"$build/gpu-acceptance-configure.log" 2>&1 ||
    { cat "$build/gpu-acceptance-configure.log"; die "configure failed"; }
  cmake --build "$build" -j"${JOBS:-2}" || die "build failed"
  [ -x "$build/tests/test_cuda" ] || die "no test_cuda in $build: was the build configured with tests?"

  # The corpus: a subset travels.
  local corpus="$repo/bench/corpus"
  [ -d "$corpus/imagenet-like" ] && [ -d "$corpus/hd1080" ] || "$repo/bench/corpus.sh" "$corpus" || die "corpus failed"

  echo "gpu-acceptance pack: packing into $dest"
  rm -rf "$dest"
  mkdir -p "$dest"/{bin,tests,lib,corpus/hd1080/class00} || die "cannot create $dest"
  local b
  for b in apps/augment/augment bench/augment_bench_stages bench/augment_bench_opencv_p1; do
    cp "$build/$b" "$dest/bin/" || die "missing $build/$b"
  done
  for b in test_unit test_stages test_cuda; do cp "$build/tests/$b" "$dest/tests/" || die "missing $b"; done
  # OpenCV's codecs plugin, which augment loads on first use from the loader's path (lib/io/cv_codecs.hpp).
  cp "$build/lib/libaugment_cvcodecs.so" "$dest/lib/" || die "missing $build/lib/libaugment_cvcodecs.so"
  local libs
  libs=$(needed_libs "$dest"/bin/* "$dest"/tests/* "$dest/lib/libaugment_cvcodecs.so")
  for b in $libs; do cp -L "$b" "$dest/lib/"; done

  slim_libs "$dest"

  cp -r "$repo/README.md" "$repo/configs" "$repo/samples" "$dest/"
  cp -r "$corpus/imagenet-like" "$dest/corpus/"
  ls "$corpus/hd1080/class00" | sort | head -4 | while read -r f; do cp "$corpus/hd1080/class00/$f" "$dest/corpus/hd1080/class00/"; done

  # compute-sanitizer is part of the toolkit, not the driver: bring it when this machine has it.
  local san="" sandir=""
  san=$(command -v compute-sanitizer 2>/dev/null || true)
  [ -z "$san" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && san=/usr/local/cuda/bin/compute-sanitizer
  if [ -n "$san" ]; then
    sandir=$(dirname "$(readlink -f "$san")")
    mkdir -p "$dest/tools"
    cp -a "$sandir" "$dest/tools/compute-sanitizer"
  fi

  cp "$self" "$dest/gpu-acceptance.sh"
  cat >"$dest/activate" <<'EOF'
# source this file: the packed binaries and their libraries first
_pack=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$_pack/bin:$_pack/tests${PATH:+:$PATH}"
[ -d "$_pack/tools/compute-sanitizer" ] && export PATH="$PATH:$_pack/tools/compute-sanitizer"
export LD_LIBRARY_PATH="$_pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export AUGMENT_TEST_SOURCE_DIR="$_pack" AUGMENT_TEST_BINARY="$_pack/bin/augment"
unset _pack
EOF
  {
    echo "commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "packed: $(date -u '+%F %H:%M UTC') on $(hostname)"
    echo "build: Release, CMAKE_CUDA_ARCHITECTURES=90, $("$nvcc" --version | tail -1)"
    echo "compute-sanitizer: ${sandir:-not packed (none on the build machine)}"
  } >"$dest/PACK_INFO"

  # Check that the packed binaries find every library with the pack's path alone.
  local missing
  missing=$(LD_LIBRARY_PATH="$dest/lib" ldd "$dest"/bin/* "$dest"/tests/* | grep 'not found' | sort -u || true)
  [ -z "$missing" ] || die "libraries not found inside the pack: $missing"
  echo "gpu-acceptance pack: $(du -sh "$dest" | cut -f1) in $dest ($(ls "$dest/lib" | wc -l) libraries)"
  if [ "$archive" = 1 ]; then
    tar -C "$(dirname "$dest")" -I 'xz -T0' -cf "$dest.tar.xz" "$(basename "$dest")" || die "archive failed"
    echo "gpu-acceptance pack: $(du -sh "$dest.tar.xz" | cut -f1) in $dest.tar.xz"
  fi
}

# ----------------------------------------------------------------------------------------------- run
run() {
  local pack_dir="" out=. emulated=0 threads verify_images="" pairs="" repeats="" budget=0
  logs=""  # global, as tmp: the EXIT trap reads both after run() has returned
  local san_configs=default,kornia-chain,perspective,elastic only="" p1_repeat=1 kernels_only=0
  threads=$(nproc)
  while [ $# -gt 0 ]; do
    case "$1" in
      --out) out=$2; shift 2 ;;
      --emulated) emulated=1; shift ;;
      --pack) pack_dir=$(readlink -m "$2"); shift 2 ;;
      --threads) threads=$2; shift 2 ;;
      --verify-images) verify_images=$2; shift 2 ;;
      --pairs) pairs=$2; shift 2 ;;
      --repeats) repeats=$2; shift 2 ;;
      --san-configs) san_configs=$2; shift 2 ;;
      --budget) budget=$2; shift 2 ;;
      --only) only=$2; shift 2 ;;
      --p1-repeat) p1_repeat=$2; shift 2 ;;
      --kernels-only) kernels_only=1; shift ;;
      --logs) logs=$(readlink -m "$2"); shift 2 ;;
      *) die "run: unknown option $1" ;;
    esac
  done
  if [ -z "$pack_dir" ]; then
    if [ -f "$here/activate" ]; then pack_dir=$here; else pack_dir=$(cd "$here/.." && pwd)/.devpack; fi
  fi
  [ -f "$pack_dir/activate" ] || die "no pack at $pack_dir (bench/gpu-acceptance.sh pack makes one)"
  # shellcheck source=/dev/null
  source "$pack_dir/activate"
  local P=$pack_dir A=$pack_dir/bin/augment
  command -v python3 >/dev/null || die "run needs python3 (the verify reports are read with its json module)"
  mkdir -p "$out" || die "cannot create $out"

  # Emulated: AUGMENT_EMULATED_GPUS gives more than one emulated device where augment supports it;
  # "cuda-emulated" and "--devices all" work either way.
  local gpu gpu_name
  tmp=$(mktemp -d)  # global: the EXIT trap runs after run() has returned
  keep_logs() {
    [ -n "$logs" ] && [ -d "$tmp" ] &&
      tar -C "$tmp" -czf "$logs" --exclude='p1-*' --exclude='multi-*' --exclude='san-out-*' --exclude='samples' . 2>/dev/null
    rm -rf "$tmp"
  }
  trap keep_logs EXIT
  trap 'echo "gpu-acceptance: stopped by a signal" >&2; flush 2>/dev/null; exit 3' TERM INT
  if [ "$emulated" = 1 ]; then
    export AUGMENT_EMULATED_GPUS=2
    gpu=cuda-emulated
    gpu_name=emulated
    verify_images=${verify_images:-4}
    pairs=${pairs:-5}
  else
    "$A" devices --json >"$tmp/devices.json" 2>&1
    gpu=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"]; print("cuda:%d" % d[0]["index"] if d else "")' "$tmp/devices.json" 2>/dev/null)
    gpu_name=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"]; print(d[0]["name"] if d else "none")' "$tmp/devices.json" 2>/dev/null)
    verify_images=${verify_images:-100}
    pairs=${pairs:-15}
  fi
  local slug date file
  slug=$(echo "${gpu_name:-none}" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
  date=$(date -u +%F)
  file="$out/$date-gpu-acceptance-$slug.md"
  local body=$tmp/body.md sum=$tmp/summary.md failed=0 t0=$SECONDS
  # tmo CAP CMD...: CMD under timeout(1), at most CAP seconds and at most what is left of --budget.
  tmo() {
    local cap=$1 left
    shift
    if [ "$budget" -gt 0 ]; then
      left=$((budget - (SECONDS - t0) - 10))
      [ "$left" -lt "$cap" ] && cap=$left
      [ "$cap" -lt 1 ] && cap=1
    fi
    timeout -k 5 "$cap" "$@"
  }
  # wanted N: section N is to run (--only)
  wanted() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }
  # has_time SECTION: false (and the section is marked skipped) when under 20 s of --budget is left.
  has_time() {
    [ "$budget" -le 0 ] || [ $((budget - (SECONDS - t0))) -ge 20 ] && return 0
    text "Skipped: the --budget of $budget s was spent."
    result "$1" skipped "--budget spent"
    return 1
  }
  : >"$body"
  : >"$sum"
  result() {  # check, verdict (ok, FAIL, skipped, info), detail
    printf '| %s | %s | %s |\n' "$1" "$2" "$3" >>"$sum"
    [ "$2" = FAIL ] && failed=$((failed + 1))
    echo "gpu-acceptance: $1: $2 ($3)" >&2
  }
  # The file, written again at every section: a run stopped by a time limit still leaves what it did.
  flush() {
    {
      echo "# GPU acceptance: ${gpu_name}$([ "$emulated" = 1 ] && echo ' (no GPU: emulated devices)'), $date"
      echo
      echo "| | |"
      echo "|---|---|"
      echo "| result | $([ "$failed" = 0 ] && echo "**PASS**" || echo "**FAIL** ($failed checks)")$([ "${finished:-0}" = 1 ] || echo ' so far: the run did not finish') |"
      echo "| mode | $([ "$emulated" = 1 ] && echo "emulated (\`--emulated\`: $gpu, AUGMENT_EMULATED_GPUS=2)" || echo "GPU ($gpu)") |"
      echo "| machine | $(hostname), $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $threads threads used |"
      echo "| augment | $("$A" --version 2>&1 | paste -sd ';' - | sed 's/;/; /g') |"
      sed 's/^\([^:]*\): \(.*\)$/| \1 | \2 |/' "$P/PACK_INFO"
      echo "| time | $((SECONDS - t0)) s$([ "${finished:-0}" = 1 ] || echo ' (partial: still running, or stopped)') |"
      echo
      echo "| check | result | detail |"
      echo "|---|---|---|"
      cat "$sum"
      cat "$body"
    } >"$file"
  }
  section() { flush; printf '\n## %s\n\n' "$1" >>"$body"; }
  text() { printf '%s\n' "$@" >>"$body"; }
  block() { { echo '```'; cat; echo '```'; } >>"$body"; }  # stdin, as a code block
  # Inputs: a few samples for the sanitizer, the first images of the corpus for verify and P1.
  mkdir -p "$tmp/samples" "$tmp/p1-in"
  cp "$P/samples/astronaut.jpg" "$P/samples/coffee_rgba.png" "$P/samples/camera.png" "$tmp/samples/"
  local p1_in=$P/corpus/imagenet-like
  if [ "$emulated" = 1 ]; then  # the emulated kernels are host loops: 40 images, not 400
    (cd "$P/corpus/imagenet-like" && find . -name '*.jpg' | sort | head -40 |
      while read -r f; do mkdir -p "$tmp/p1-in/$(dirname "$f")"; cp "$f" "$tmp/p1-in/$f"; done)
    p1_in=$tmp/p1-in
  fi

  # 1. devices -------------------------------------------------------------------------------------
  section "1. Devices"
  {
    echo "\$ augment devices"
    "$A" devices 2>&1
    if command -v nvidia-smi >/dev/null; then
      echo
      echo "\$ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv"
      nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
    fi
  } | block
  if [ "$emulated" = 1 ]; then
    text "Emulated mode: no GPU is used. \`$gpu\` runs the GPU backend with the CUDA kernel bodies as host loops;" \
         "AUGMENT_EMULATED_GPUS=2 is set for the builds that offer more than one emulated device."
    result devices info "emulated: $gpu (no GPU)"
  elif [ -n "$gpu" ]; then
    result devices ok "$gpu: $gpu_name"
  else
    result devices FAIL "no usable GPU: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("why_none",""))' "$tmp/devices.json" 2>/dev/null)"
    gpu=cuda:0  # the checks below then fail and say why
  fi

  # 2. GPU tests -----------------------------------------------------------------------------------
  if wanted 2; then
  section "2. GPU tests"
  text "The gtest binaries run directly (AUGMENT_TEST_SOURCE_DIR and AUGMENT_TEST_BINARY point at the pack)." ""
  text "| binary | filter | passed | skipped | failed |" "|---|---|---|---|---|"
  local t_pass=0 t_skip=0 t_fail=0 cuda_pass=0 spec bin filter log n_pass n_skip n_fail rc
  # test_cuda: the real-GPU tests (skipped without one); the rest run the GPU backend and the
  # kernel bodies on an emulated device: the backend's resource handling, verify, and every stage's
  # declared cases against the CPU path.
  local specs=("test_cuda:*" "test_unit:GpuBackend.*:StrictDevice.*:Verify*" "test_stages:Stages/Parity.*:Parity.*")
  for spec in "${specs[@]}"; do  # side by side: only test_cuda uses the GPU
    bin=${spec%%:*}
    ( tmo 150 "$P/tests/$bin" --gtest_filter="${spec#*:}" --gtest_color=no >"$tmp/$bin.log" 2>&1; echo $? >"$tmp/$bin.rc" ) &
  done
  wait
  for spec in "${specs[@]}"; do
    bin=${spec%%:*}
    filter=${spec#*:}
    log=$tmp/$bin.log
    rc=$(cat "$tmp/$bin.rc")
    n_pass=$(awk '/^\[  PASSED  \] [0-9]+ test/ { print $4 }' "$log")
    n_skip=$(awk '/^\[  SKIPPED \] [0-9]+ test/ { print $4 }' "$log")
    n_fail=$(awk '/^\[  FAILED  \] [0-9]+ test/ { print $4 }' "$log")
    n_pass=${n_pass:-0} n_skip=${n_skip:-0} n_fail=${n_fail:-0}
    [ "$rc" = 124 ] && n_fail="timed out"
    [ "$rc" != 0 ] && [ "$n_fail" = 0 ] && n_fail="crashed (exit $rc)"
    text "| $bin | \`$filter\` | $n_pass | $n_skip | $n_fail |"
    t_pass=$((t_pass + n_pass))
    t_skip=$((t_skip + n_skip))
    [ "$rc" != 0 ] && t_fail=$((t_fail + 1))
    [ "$bin" = test_cuda ] && cuda_pass=$n_pass
    if grep -q '^\[  FAILED  \]\|^\[  SKIPPED \] [A-Z]' "$log"; then
      {
        echo "$bin:"
        grep -E '^\[  (FAILED|SKIPPED) \] [A-Za-z]' "$log" | sed -E 's/ \([0-9]+ ms\)$//' | sort -u | head -60
        # the reasons gtest printed for the skips, once each
        grep -B1 '^\[  SKIPPED \] [A-Za-z]' "$log" | grep -v '^\[\|^--' | sort | uniq -c | head -10
      } >>"$tmp/tests-detail.txt"
    fi
  done
  [ -f "$tmp/tests-detail.txt" ] && { text ""; block <"$tmp/tests-detail.txt"; }
  if [ "$t_fail" != 0 ]; then
    result "GPU tests" FAIL "$t_pass passed, $t_skip skipped, failures in $t_fail binaries"
  elif [ "$emulated" = 0 ] && [ "$cuda_pass" = 0 ]; then
    result "GPU tests" FAIL "$t_pass passed, $t_skip skipped: no real-GPU test ran"
  else
    result "GPU tests" ok "$t_pass passed, $t_skip skipped, 0 failed$([ "$emulated" = 1 ] && echo ' (test_cuda skips without a GPU)')"
  fi

  fi

  # 3. compute-sanitizer ---------------------------------------------------------------------------
  if wanted 3; then
  section "3. compute-sanitizer"
  local san="" tool cfg errs
  for c in "${COMPUTE_SANITIZER:-}" "$(command -v compute-sanitizer 2>/dev/null)" /usr/local/cuda/bin/compute-sanitizer \
           "$P/tools/compute-sanitizer/compute-sanitizer"; do
    [ -n "$c" ] && [ -x "$c" ] && { san=$c; break; }
  done
  if ! has_time compute-sanitizer; then :
  elif [ "$emulated" = 1 ]; then
    text "Skipped: emulated mode runs no CUDA kernel on a device (the kernel bodies are host loops), so there is" \
         "nothing for compute-sanitizer to check."
    result "compute-sanitizer" skipped "emulated mode: no device code runs"
  elif [ -z "$san" ]; then
    text "Not run: no compute-sanitizer (not in PATH, /usr/local/cuda/bin, the pack, or \$COMPUTE_SANITIZER)."
    result "compute-sanitizer" FAIL "not found"
  else
    text "\`$san\` over \`augment run -c CONFIG -i <3 samples> --device $gpu --copies 2 --threads 2\`" \
         "(astronaut.jpg, coffee_rgba.png, camera.png)." ""
    text "| tool | pipeline | exit | errors |" "|---|---|---|---|"
    local san_bad=0
    for tool in memcheck racecheck initcheck synccheck; do  # every run side by side
      for cfg in ${san_configs//,/ }; do
        ( tmo 120 "$san" --tool "$tool" --error-exitcode 99 --print-limit 20 "$A" run -c "$P/configs/$cfg.json" -i "$tmp/samples" \
            -o "$tmp/san-out-$tool-$cfg" --device "$gpu" --copies 2 --threads 2 --progress never >"$tmp/san-$tool-$cfg.log" 2>&1
          echo $? >"$tmp/san-$tool-$cfg.rc" ) &
      done
    done
    wait
    for tool in memcheck racecheck initcheck synccheck; do
      for cfg in ${san_configs//,/ }; do
        log=$tmp/san-$tool-$cfg.log
        rc=$(cat "$tmp/san-$tool-$cfg.rc")
        # memcheck, initcheck, synccheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: H hazards
        # displayed (N errors, W warnings)".
        errs=$(grep -o 'ERROR SUMMARY: [0-9]* error\|hazards displayed ([0-9]* error' "$log" | grep -o '[0-9]* error' |
               awk '{print $1}' | tail -1)
        # Exit 2 where every error augment printed is a stage refusing an input it does not take (the
        # gray sample in a colour-only pipeline): the run's own verdict, not the sanitizer's.
        if [ "$rc" = 2 ] && ! grep '^augment: error:' "$log" | grep -vq 'needs [0-9]'; then
          text "| $tool | $cfg | $rc (inputs the pipeline does not take) | ${errs:-?} |"
          rc=0
        else
          text "| $tool | $cfg | $rc | ${errs:-?} |"
        fi
        if [ "$rc" != 0 ] || [ "${errs:-1}" != 0 ]; then
          san_bad=$((san_bad + 1))
          { echo "$tool $cfg (exit $rc):"; grep -v '^$' "$log" | head -40; } >>"$tmp/san-detail.txt"
        fi
      done
    done
    [ -f "$tmp/san-detail.txt" ] && { text ""; block <"$tmp/san-detail.txt"; }
    if [ "$san_bad" = 0 ]; then result "compute-sanitizer" ok "memcheck, racecheck, initcheck, synccheck: 0 errors"
    else result "compute-sanitizer" FAIL "$san_bad tool runs reported errors or failed"; fi
  fi

  fi

  # 4. verify-devices ------------------------------------------------------------------------------
  if wanted 4; then
  section "4. verify-devices: the CPU against every GPU, every pipeline in configs/"
  text "\`augment verify-devices -c CONFIG -i corpus/imagenet-like --images $verify_images --devices all --dtypes u8,u16,f32 --device-jpeg\`" \
       "(seed 0). Differing values: the device comparisons (each stage from the CPU's input, and end to end)" \
       "that differ at all, summed over stages and images; u8 must be 0, and every comparison within its" \
       "stage's tolerance (exit 0); a pipeline with a stage that does not take some type (exit 2, e.g. an 8-bit-only" \
       "stage) is compared on the types it takes. JPEG codec (--device-jpeg): each GPU's decoding of the inputs" \
       "(values) and its encoding of the CPU's final images at q95 (file bytes) against libjpeg-turbo's," \
       "differing / compared; must be 0." ""
  text "| pipeline | devices | exit | u8 differing | u16 differing | f32 differing (max) | values compared | JPEG decode values | JPEG encode bytes |" "|---|---|---|---|---|---|---|---|---|"
  local verify_bad=0 verify_n=0 name require_gpu=""
  has_time verify-devices && {
  [ "$emulated" = 0 ] && require_gpu=--require-gpu  # on a GPU machine the emulated device is no substitute
  for cfg in "$P"/configs/*.json; do
    name=$(basename "$cfg" .json)
    "$A" validate "$cfg" >/dev/null 2>&1 || continue  # the schema, not a pipeline
    verify_n=$((verify_n + 1))
    (cd "$P" && tmo 120 "$A" verify-devices -c "configs/$name.json" -i corpus/imagenet-like --images "$verify_images" --seed 0 \
      --devices all --dtypes u8,u16,f32 --device-jpeg --threads "$threads" --report "$tmp/verify-$name.json" $require_gpu) \
      >"$tmp/verify-$name.txt" 2>"$tmp/verify-$name.err"
    rc=$?
    local row
    row=$(python3 - "$tmp/verify-$name.json" "$rc" "$tmp/verify-$name.txt" <<'PY'
import json, sys
# Exit 2 only because some image types are not taken by a stage of the pipeline (e.g. an 8-bit-only
# stage under --dtypes f32) is not a failure: those types are left out of the comparison.
errors = [l for l in open(sys.argv[3]) if l.startswith("error: ")]
not_taken = sys.argv[2] == "2" and errors and all("does not take" in l for l in errors)
exit_text = sys.argv[2] + (" (types it does not take left out)" if not_taken else "")
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"| ? | {sys.argv[2]} | no report | | | | | |"); print("BAD"); sys.exit()
diff = {"u8": 0, "u16": 0, "f32": 0}
maxf, values = 0.0, 0
codec = {"jpeg_decode": [0, 0], "jpeg_encode": [0, 0]}  # differing, compared
def comps(img):
    for s in img.get("stages", []):
        yield from s.get("comparisons", [])
    yield from img.get("end_to_end", [])
for img in r.get("images", []):
    t = img.get("dtype")
    for k in codec:
        for c in img.get(k, []):
            codec[k][0] += c["differing"]
            codec[k][1] += c["values"]
    for c in comps(img):
        if c.get("kind") != "devices":
            continue
        diff[t] = diff.get(t, 0) + c["differing"]
        values += c["values"]
        if t == "f32":
            maxf = max(maxf, c["max_abs"])
devices = ", ".join(d["name"] for d in r["devices"])
dec, enc = codec["jpeg_decode"], codec["jpeg_encode"]
print(f"| {devices} | {exit_text} | {diff['u8']} | {diff['u16']} | {diff['f32']} ({maxf:.3g}) | {values} | {dec[0]} / {dec[1]} | {enc[0]} / {enc[1]} |")
print("BAD" if diff["u8"] or dec[0] or enc[0] or (sys.argv[2] != "0" and not not_taken) else "OK")
PY
)
    text "| $name ${row%$'\n'*}"
    if [ "${row##*$'\n'}" != OK ]; then
      verify_bad=$((verify_bad + 1))
      { echo "$name (exit $rc):"; grep -v ' ok \| equal ' "$tmp/verify-$name.txt" | head -40; head -5 "$tmp/verify-$name.err"; } >>"$tmp/verify-detail.txt"
    fi
  done
  [ -f "$tmp/verify-detail.txt" ] && { text "" "Rows that are not \`ok\`/\`equal\`:"; block <"$tmp/verify-detail.txt"; }
  text "" "<details><summary>verify-devices tables</summary>" ""
  for cfg in "$P"/configs/*.json; do
    name=$(basename "$cfg" .json)
    [ -f "$tmp/verify-$name.txt" ] && block <"$tmp/verify-$name.txt"
  done
  text "" "</details>"
  if [ "$verify_n" = 0 ]; then result "verify-devices" FAIL "no pipeline was compared"
  elif [ "$verify_bad" = 0 ]; then result "verify-devices" ok "$verify_n pipelines x u8,u16,f32 x $verify_images images: 0 differing 8-bit values, all within tolerance; JPEG decoding and encoding identical"
  else result "verify-devices" FAIL "$verify_bad of $verify_n pipelines differ in 8-bit values or exceed a tolerance"; fi
  }

  fi

  # 5. P1 ------------------------------------------------------------------------------------------
  if wanted 5; then
  section "5. P1: $gpu and the CPU against the I/O floor"
  local n_in floor_bin=$P/bin/augment_bench_opencv_p1 r
  if [ "$p1_repeat" -gt 1 ]; then  # N copies of the input tree, one folder each
    for ((r = 0; r < p1_repeat; r++)); do mkdir -p "$tmp/p1-rep/r$r" && cp -r "$p1_in/." "$tmp/p1-rep/r$r/"; done
    p1_in=$tmp/p1-rep
  fi
  n_in=$(find "$p1_in" -name '*.jpg' | wc -l)
  text "P1 = \`configs/bench-p1.json --format jpg --quality 90\` on $n_in imagenet-like images, $threads threads;" \
       "the I/O floor is \`augment_bench_opencv_p1 io\` (bench/README.md). Each pair runs the floor, augment on the CPU" \
       "and augment on $gpu without and with \`--device-jpeg\` in turn ($pairs rounds after one warm-up round);" \
       "figures are medians of the per-round ratios.$([ "$p1_repeat" -gt 1 ] && echo " The inputs are $p1_repeat copies of the corpus's images.")" ""
  p1_one() {  # device [more run options] -> seconds
    rm -rf "$tmp/p1-out"
    local s e dev=$1
    shift
    # GPU busy %: nvidia-smi's utilization (the share of each 100 ms with a kernel running) while a
    # GPU run lasts, appended to busy-<options>.txt
    local sampler=""
    if [ "$emulated" = 0 ] && [ "$dev" != floor ] && [ "$dev" != cpu ] && command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 100 >>"$tmp/busy-${*:-plain}.txt" 2>/dev/null &
      sampler=$!
    fi
    s=$(date +%s.%N)
    if [ "$dev" = floor ]; then tmo 60 "$floor_bin" io "$p1_in" "$tmp/p1-out" "$threads" >/dev/null 2>&1 || return 1
    else tmo 60 "$A" run -c "$P/configs/bench-p1.json" -i "$p1_in" -o "$tmp/p1-out" --format jpg --quality 90 \
           --threads "$threads" --device "$dev" --progress never "$@" >/dev/null 2>>"$tmp/p1.err" || return 1
      [ "$(find "$tmp/p1-out" -type f | wc -l)" = "$n_in" ] || return 1
    fi
    e=$(date +%s.%N)
    [ -n "$sampler" ] && { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null; }
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f\n", e - s }'
  }
  local i f c g j p1_ok=1
  : >"$tmp/p1.tsv"
  has_time P1 || p1_ok=skip
  [ "$p1_ok" = 1 ] && { p1_one floor >/dev/null && p1_one cpu >/dev/null && p1_one "$gpu" >/dev/null && p1_one "$gpu" --device-jpeg >/dev/null || p1_ok=0; }
  for ((i = 0; i < pairs; i++)); do
    [ "$p1_ok" = 1 ] || break
    [ "$budget" -gt 0 ] && [ $((budget - (SECONDS - t0))) -lt 120 ] && break  # keep time for what follows
    f=$(p1_one floor) && c=$(p1_one cpu) && g=$(p1_one "$gpu") && j=$(p1_one "$gpu" --device-jpeg) || { p1_ok=0; break; }
    echo "$f $c $g $j" >>"$tmp/p1.tsv"
  done
  if [ "$p1_ok" = skip ]; then :
  elif [ "$p1_ok" = 1 ] && [ -s "$tmp/p1.tsv" ]; then
    local p1_table
    p1_table=$(awk -v gpu="$gpu" -v images="$n_in" '
      function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                          return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      { n++; f[n] = $1; c[n] = $2; g[n] = $3; j[n] = $4; cf[n] = $2 / $1; gf[n] = $3 / $1; gc[n] = $3 / $2; jf[n] = $4 / $1; jg[n] = $4 / $3 }
      END {
        printf "| figure | median |\n|---|---|\n"
        printf "| I/O floor | %.3f s |\n| augment --device cpu | %.3f s (%.0f images/s) |\n", median(f, n), median(c, n), images / median(c, n)
        printf "| augment --device %s | %.3f s (%.0f images/s) |\n", gpu, median(g, n), images / median(g, n)
        printf "| augment --device %s --device-jpeg | %.3f s (%.0f images/s) |\n", gpu, median(j, n), images / median(j, n)
        printf "| cpu / I/O floor | %.3f |\n| %s / I/O floor | %.3f |\n| %s / cpu | %.3f |\n", median(cf, n), gpu, median(gf, n), gpu, median(gc, n)
        printf "| %s --device-jpeg / I/O floor | %.3f |\n| %s --device-jpeg / %s | %.3f |\n", gpu, median(jf, n), gpu, gpu, median(jg, n)
      }' "$tmp/p1.tsv")
    text "$p1_table"
    # What a run pays before its first image: the process, the codecs and (on a GPU) the device's
    # context and modules. The median of 3 runs over one image, per device.
    local one_in=$tmp/p1-one d k st
    mkdir -p "$one_in" && cp "$(find "$p1_in" -name '*.jpg' | sort | head -1)" "$one_in/"
    text "" "| one image (the fixed cost of a run) | median of 3 |" "|---|---|"
    for d in cpu "$gpu"; do
      : >"$tmp/one-$d.txt"
      for k in 1 2 3; do
        rm -rf "$tmp/one-out"
        st=$(date +%s.%N)
        tmo 60 "$A" run -c "$P/configs/bench-p1.json" -i "$one_in" -o "$tmp/one-out" --format jpg --quality 90 \
          --device "$d" --progress never >/dev/null 2>>"$tmp/one.err" || echo "one image on $d failed" >>"$tmp/one.err"
        awk -v s="$st" -v e="$(date +%s.%N)" 'BEGIN { printf "%.4f\n", e - s }' >>"$tmp/one-$d.txt"
      done
      text "| augment --device $d | $(sort -n "$tmp/one-$d.txt" | sed -n 2p) s |"
    done
    local busy
    for busy in "$tmp"/busy-*.txt; do
      [ -s "$busy" ] || continue
      text "" "GPU busy during \`--device $gpu $(basename "$busy" .txt | sed 's/^busy-//; s/^plain$//')\`: $(awk '$1 ~ /^[0-9]+$/ { s += $1; n++ }
        END { if (n) printf "%.0f%% mean over %d samples of 100 ms", s / n, n; else print "no samples" }' "$busy")"
    done
    result "P1" info "$(echo "$p1_table" | awk -F' *[|] *' '$2 ~ / \/ / { printf "%s%s = %s", sep, $2, $3; sep = "; " }')"
  else
    text "P1 failed:" && tail -5 "$tmp/p1.err" 2>/dev/null | block
    result "P1" FAIL "a run failed or wrote the wrong number of outputs"
  fi

  fi

  # 6. stage kernels -------------------------------------------------------------------------------
  if wanted 6; then
  section "6. Per-stage kernel times on $gpu"
  local image=corpus/hd1080/class00/$(ls "$P/corpus/hd1080/class00" | sort | head -1)
  repeats=${repeats:-20}
  if [ "$emulated" = 1 ]; then  # host loops: few repeats; the figures are not a GPU's
    repeats=2
    text "Emulated: the \"kernel\" columns time the kernel bodies run as host loops; they say nothing about a GPU." ""
  fi
  text "\`augment_bench_stages --device $gpu --image $(basename "$image") --repeats $repeats\`: each stage's CPU path" \
       "(against decoding and against its OpenCV counterpart on one thread)," \
       "and its kernels with the input resident on the device (CUDA events), the bandwidth of reading the input and" \
       "writing the output once, and that as a share of the device's copy bandwidth." ""
  local no_cpu=()
  [ "$kernels_only" = 1 ] && no_cpu=(--no-cpu 1)
  if ! has_time "stage kernels"; then :
  elif (cd "$P" && tmo 300 bin/augment_bench_stages --device "$gpu" --image "$image" --repeats "$repeats" "${no_cpu[@]}") >"$tmp/stages.txt" 2>&1; then
    grep -v '^|' "$tmp/stages.txt" | block
    grep '^|' "$tmp/stages.txt" >>"$body"
    # The per-value stages again on the photograph repeated 4 x 4 (7680x4320): an image large enough
    # that a launch's fixed cost is not the figure.
    if [ "$emulated" = 0 ] && has_time "stage kernels 4x4"; then
      text "" "The per-value stages on the same photograph repeated 4 x 4 (\`--tile 4 --no-cpu 1\`):" ""
      (cd "$P" && tmo 120 bin/augment_bench_stages --device "$gpu" --image "$image" --repeats "$repeats" --tile 4 --no-cpu 1 \
        --stage invert,grayscale,sepia,channel_gain,planckian_jitter,gaussian_illumination,tone_curve,posterize,solarize,gamma,brightness_contrast,rgb_shift,hue_saturation_value,channel_shuffle,channel_dropout,multiplicative_noise,gaussian_noise,shot_noise,salt_and_pepper,pixel_dropout,snow) \
        >"$tmp/stages-4x4.txt" 2>&1
      grep -v '^|' "$tmp/stages-4x4.txt" | block
      grep '^|' "$tmp/stages-4x4.txt" >>"$body"
    fi
    result "stage kernels" info "$(grep -c '^| {' "$tmp/stages.txt") configurations timed; $(grep -o 'copy bandwidth.*' "$tmp/stages.txt" | head -1)"
  else
    block <"$tmp/stages.txt"
    result "stage kernels" FAIL "augment_bench_stages failed"
  fi

  fi

  # 7. every GPU in one run ------------------------------------------------------------------------
  if wanted 7; then
  local all_gpus=cuda:all
  [ "$emulated" = 1 ] && all_gpus=cuda-emulated:all
  section "7. Every GPU in one run: --device $all_gpus against --device cpu"
  text "\`augment run -c configs/default.json -i <the P1 inputs> --copies 2 --device $all_gpus\` and the same with" \
       "\`--device cpu\`: the outputs must be the same bytes; the summary's images per device." ""
  local multi_ok=1
  has_time "every GPU in one run" && {
  for dev in cpu "$all_gpus"; do
    tmo 90 "$A" run -c "$P/configs/default.json" -i "$p1_in" -o "$tmp/multi-$dev" --copies 2 --threads "$threads" \
      --device "$dev" --progress never >"$tmp/multi-$dev.txt" 2>&1 || multi_ok=0
  done
  block <"$tmp/multi-$all_gpus.txt"
  if [ "$multi_ok" = 1 ] && python3 - "$tmp/multi-cpu" "$tmp/multi-$all_gpus" >>"$body" <<'PY'
import filecmp, os, sys
a, b = sys.argv[1], sys.argv[2]
files = lambda d: sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)
fa, fb = files(a), files(b)
same = fa == fb and all(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False) for f in fa)
print(f"{len(fa)} outputs, {'identical' if same else 'DIFFERENT'}")
sys.exit(0 if same and fa else 1)
PY
  then result "every GPU in one run" ok "on $(sed -n 's/.* on \(.*\), seed.*/\1/p' "$tmp/multi-$all_gpus.txt"): outputs identical to --device cpu"
  else result "every GPU in one run" FAIL "a run failed or the outputs differ from --device cpu"; fi
  }

  fi

  finished=1
  flush
  echo "gpu-acceptance: wrote $file ($((SECONDS - t0)) s): $([ "$failed" = 0 ] && echo PASS || echo "FAIL, $failed checks")" >&2
  [ "$failed" = 0 ]
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) sed -n '2,/^set -uo/p' "$self" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
