#!/bin/bash
# Fails when a function of augment's own code uses 256- or 512-bit registers (ymm, zmm) and has no
# vzeroupper: it returns (or calls out) with the registers' upper halves dirty, and the SSE code
# that runs next (OpenCV's and libjpeg's are SSE) then runs several times slower on the processors
# measured (cv::resize after such a function: 0.30 ms became 0.96 ms). Compilers normally clear them
# on the way out; GCC 12 did not in one vector driver (kernels/engines/separable_cpu.cpp).
#
# usage: check_vzeroupper.sh BINARY_OR_OBJECT       (disassembled with objdump)
#        check_vzeroupper.sh --disassembly FILE     (objdump -d -C output already made)
# Prints one line per function at fault and exits 1; 0 when there is none; 2 on a usage error.
set -euo pipefail

if [ $# -eq 2 ] && [ "$1" = "--disassembly" ]; then
  listing="$2"
elif [ $# -eq 1 ]; then
  listing=$(mktemp)
  trap 'rm -f "$listing"' EXIT
  objdump -d --no-show-raw-insn -C "$1" > "$listing"
else
  echo "usage: check_vzeroupper.sh BINARY | --disassembly FILE" >&2
  exit 2
fi
[ -s "$listing" ] || { echo "check_vzeroupper: nothing to check in $*" >&2; exit 2; }

awk '
  function flush() {
    if (name != "" && wide > 0 && clear == 0 && name ~ /aug::/) { print "upper halves left dirty: " name; bad++ }
  }
  /^[0-9a-f]+ <.*>:$/ { flush(); name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name); wide = 0; clear = 0; functions++; next }
  /%[yz]mm/ { wide++ }
  /vzeroupper|vzeroall/ { clear++ }
  END { flush(); printf "%d functions, %d with upper halves left dirty\n", functions, bad; exit bad > 0 }
' "$listing"
