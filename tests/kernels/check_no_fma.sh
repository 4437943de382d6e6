#!/bin/bash
# Fails when the generated kernel code contains a fused multiply-add in floating point.
#
# The kernels are compiled with --fmad=false so that every product and sum is rounded on its own,
# as on the host (-ffp-contract=off): CPU and GPU then compute the same bits. An FMA can still come
# from an explicit fma()/fmaf() call or from a device math library routine (expf, sinf, ...), whose
# implementations use FMA by construction. This check looks at what was generated:
#   PTX:  fma.rn.f32 / fma.rn.f64 (and the other rounding and .ftz/.sat forms), and mad.f32/mad.f64
#         (the contractible form --fmad=true produces), per .entry / .func;
#   SASS: FFMA / DFMA (and their variants, e.g. FFMA.FTZ, DFMA.RM) per function, when a
#         cuobjdump is given (the CUDA toolkit's; it reads the cubins of every architecture inside
#         the static library).
# It prints one line per function that has any, with the count and the demangled name, and exits 1;
# exit 0 when there is none, 2 on a usage error or when there is nothing to check.
#
# usage: check_no_fma.sh [--ptx-list FILE] [--ptx FILE.ptx]... [--sass LIB_OR_OBJECT --cuobjdump PATH]
#                       [--allow REGEX]...
#   --ptx-list FILE  a file naming one PTX file per line (what CMake generates for the PTX target)
#   --allow REGEX    functions (demangled names matching REGEX) whose FMAs are written out on
#                    purpose, as explicit fma() calls the host makes too (an exactly rounded fma is
#                    the same on both): listed as allowed, not counted. The caller says why.
set -euo pipefail

ptx=()
allow=()
sass=""
cuobjdump=""
while [ $# -gt 0 ]; do
  case "$1" in
    --ptx) ptx+=("$2"); shift 2 ;;
    --ptx-list) while IFS= read -r f; do [ -n "$f" ] && ptx+=("$f"); done <"$2"; shift 2 ;;
    --sass) sass="$2"; shift 2 ;;
    --cuobjdump) cuobjdump="$2"; shift 2 ;;
    --allow) allow+=("$2"); shift 2 ;;
    *) echo "check_no_fma.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ ${#ptx[@]} -eq 0 ] && [ -z "$sass" ]; then
  echo "check_no_fma.sh: nothing to check (give --ptx, --ptx-list or --sass)" >&2
  exit 2
fi

demangle() { if command -v c++filt >/dev/null; then c++filt; else cat; fi; }
allowed() {
  local re
  for re in ${allow[@]+"${allow[@]}"}; do [[ "$1" =~ $re ]] && return 0; done
  return 1
}

found=0
checked=0

# PTX: a function starts at a line holding ".entry NAME" or ".func ... NAME(" and its body follows;
# count the matching instructions under the function they belong to.
for f in "${ptx[@]}"; do
  [ -f "$f" ] || { echo "check_no_fma.sh: $f: no such PTX file" >&2; exit 2; }
  checked=$((checked + 1))
  hits=$(awk '
    /^[[:space:]]*(\.visible[[:space:]]+|\.weak[[:space:]]+)?\.(entry|func)[[:space:]]/ {
      line = $0
      sub(/\(.*/, "", line)            # parameters, and the return value of a .func
      n = split(line, w, /[[:space:]]+/)
      fn = w[n]
    }
    /^[[:space:]]*(@!?%p[0-9]+[[:space:]]+)?(fma\.(rn|rz|rm|rp)(\.ftz)?(\.sat)?\.f(32|64)|mad(\.ftz)?(\.sat)?\.f(32|64))[[:space:]]/ {
      count[fn]++
    }
    END { for (k in count) print count[k], k }' "$f")
  lines=""
  while read -r n name; do
    [ -n "$n" ] || continue
    name=$(echo "$name" | demangle)
    if allowed "$name"; then
      lines+="PTX  $(basename "$f"): $n x fma in $name (allowed: written out on purpose)"$'\n'
    else
      found=$((found + n))
      lines+="PTX  $(basename "$f"): $n x fma in $name"$'\n'
    fi
  done <<<"$hits"
  [ -z "$lines" ] || printf '%s' "$lines" | sort -k6
done

# SASS, from every cubin in the library: "Function : NAME" starts a function.
if [ -n "$sass" ]; then
  if [ -z "$cuobjdump" ] || [ ! -x "$cuobjdump" ]; then
    echo "check_no_fma.sh: --sass needs --cuobjdump PATH" >&2
    exit 2
  fi
  checked=$((checked + 1))
  hits=$("$cuobjdump" -sass "$sass" | awk '
    /Function :/ { fn = $NF }
    /arch = / { arch = $NF }
    /[[:space:]](FFMA|DFMA)[[:space:].0-9]/ { count[arch " " fn]++ }
    END { for (k in count) print count[k], k }')
  lines=""
  while read -r n arch name; do
    [ -n "$n" ] || continue
    name=$(echo "$name" | demangle)
    if allowed "$name"; then
      lines+="SASS $arch: $n x FFMA/DFMA in $name (allowed: written out on purpose)"$'\n'
    else
      found=$((found + n))
      lines+="SASS $arch: $n x FFMA/DFMA in $name"$'\n'
    fi
  done <<<"$hits"
  [ -z "$lines" ] || printf '%s' "$lines" | sort -k7
fi

if [ "$found" -gt 0 ]; then
  echo "check_no_fma.sh: $found fused multiply-adds in the kernels (see above); they must be exact: --fmad=false, no fma() or device math library calls in CPU/GPU-compared arithmetic"
  exit 1
fi
echo "check_no_fma.sh: no floating-point FMA in $checked checked item(s) (${#ptx[@]} PTX file(s)${sass:+, SASS of $(basename "$sass")})"
