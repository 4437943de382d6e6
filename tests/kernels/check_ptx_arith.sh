#!/bin/bash
# The PTX arithmetic gate: reads the kernels' PTX, function by function, for arithmetic that a GPU
# computes differently from the host.
#   - Approximations: an `.approx` or `.ftz` instruction (ex2.approx, rcp.approx, ... flush to
#     zero), or a call to a device math library routine (__nv_*, __internal_*), in a function that
#     stores 8- or 16-bit samples (st.global of u8/s8/b8/u16/s16/b16) or in any non-kernel
#     function. Those outputs must equal the host's to the bit; an approximation does not.
#   - Float-to-integer conversions (cvt.* from f16/f32/f64 to an integer type), listed per kernel.
#     The GPU saturates out-of-range values and maps NaN to 0 (or to the smallest value for a
#     64-bit result or a double source); x86 gives the "integer indefinite" value (the smallest
#     integer) for both. So each conversion must be of a value that cannot be out of range or NaN,
#     or go through a helper that gives the device's result on the host too:
#       cvt.rni.s64.f32 / cvt.rni.s64.f64 are rne() (kernels/core/common.hpp), which saturates on the
#       host as the device does; they are counted, and pass.
#     Every other kind needs an allowlist line naming the kernel, with the reason it is safe.
# usage: check_ptx_arith.sh --allowlist FILE (--ptx-list FILE | --ptx FILE)...
# Allowlist lines: `approx|f2i <text in the demangled function name>  <reason>`; `#` comments.
# Prints every kernel's conversions, one line per function at fault, and a summary; exit 1 when any
# is at fault, 0 otherwise, 2 on a usage error.
set -uo pipefail

allow="" files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --allowlist) allow=$2; shift 2 ;;
    --ptx-list) while read -r f; do [ -n "$f" ] && files+=("$f"); done <"$2"; shift 2 ;;
    --ptx) files+=("$2"); shift 2 ;;
    *) echo "check_ptx_arith: unknown option $1" >&2; exit 2 ;;
  esac
done
[ ${#files[@]} -gt 0 ] || { echo "check_ptx_arith: no PTX files" >&2; exit 2; }

demangle=cat
command -v c++filt >/dev/null && demangle=c++filt

table=$(mktemp)
trap 'rm -f "$table"' EXIT
# One line per function: file <tab> kind (entry|func) <tab> name <tab> narrow stores (0|1)
#   <tab> approximations <tab> conversions as "kind=count,kind=count"
for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "check_ptx_arith: $f: no such PTX file" >&2; exit 2; }
  awk -v file="$(basename "$f")" '
    function flush() {
      if (fn == "") return
      conv = ""
      for (k in cvt) conv = conv (conv == "" ? "" : ",") k "=" cvt[k]
      print file "\t" kind "\t" fn "\t" narrow "\t" approx "\t" conv
      delete cvt
    }
    /^[[:space:]]*(\.visible[[:space:]]+|\.weak[[:space:]]+)?\.(entry|func)[[:space:]]/ && !/;[[:space:]]*$/ {
      flush()
      kind = ($0 ~ /\.entry/) ? "entry" : "func"
      line = $0; sub(/\(.*/, "", line)
      if (kind == "func" && $0 ~ /\.func[[:space:]]*\(/) { line = $0; sub(/^[^)]*\)[[:space:]]*/, "", line); sub(/\(.*/, "", line) }
      n = split(line, w, /[[:space:]]+/); fn = w[n]
      narrow = 0; approx = 0
      next
    }
    fn == "" { next }
    /^[[:space:]]*(@!?%p[0-9]+[[:space:]]+)?st\.global(\.[a-z0-9]+)*\.(u8|s8|b8|u16|s16|b16)[[:space:]]/ { narrow = 1 }
    /\.approx|\.ftz/ { approx++ }
    /call(\.uni)?[[:space:]].*(__nv_|__internal_)/ { approx++ }
    {
      if (match($0, /cvt(\.(rni|rzi|rmi|rpi|sat))*\.[su](8|16|32|64)\.f(16|32|64)/)) cvt[substr($0, RSTART, RLENGTH)]++
    }
    END { flush() }' "$f" >>"$table"
done

# allowed KIND NAME: the allowlist names this function for KIND; prints the reason
allowed() {
  [ -n "$allow" ] || return 1
  local kind pattern reason
  while read -r kind pattern reason; do
    case "$kind" in ''|'#'*) continue ;; esac
    if [ "$kind" = "$1" ] && [[ "$2" == *"$pattern"* ]]; then
      echo "$reason"
      return 0
    fi
  done <"$allow"
  return 1
}

functions=0 converting=0 bad=0
while IFS=$'\t' read -r file kind name narrow approx conv; do
  functions=$((functions + 1))
  name=$(echo "$name" | $demangle | sed 's/(anonymous namespace):://g; s/(.*$//; s/^void //')
  if [ "$approx" -gt 0 ] && { [ "$narrow" = 1 ] || [ "$kind" = func ]; }; then
    if reason=$(allowed approx "$name"); then
      echo "$file: $approx approximate instructions or math library calls in $name: allowed ($reason)"
    else
      echo "$file: $approx approximate instructions or math library calls in a function with 8/16-bit output: $name"
      bad=$((bad + 1))
    fi
  fi
  [ -n "$conv" ] || continue
  converting=$((converting + 1))
  rest=""
  for c in ${conv//,/ }; do
    case "${c%%=*}" in cvt.rni.s64.f32|cvt.rni.s64.f64) ;; *) rest+="${rest:+, }$c" ;; esac
  done
  if [ -z "$rest" ]; then
    echo "$file: float-to-int ${conv//,/, } in $name: rne(), saturating on both sides"
  elif reason=$(allowed f2i "$name"); then
    echo "$file: float-to-int ${conv//,/, } in $name: allowed ($reason)"
  else
    echo "$file: float-to-int $rest in $name: not in the allowlist (the device saturates and maps NaN to 0 where x86 does not)"
    bad=$((bad + 1))
  fi
done <"$table"
echo "check_ptx_arith: $functions functions, $converting with float-to-int conversions, $bad at fault"
[ "$functions" -gt 0 ] && [ "$bad" = 0 ]
