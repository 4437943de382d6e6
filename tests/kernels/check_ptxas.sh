#!/bin/bash
# The ptxas gate: assembles the kernels' PTX for sm_90 with `ptxas -v` and fails on
#   - a kernel with a stack frame (local memory) or register spills that the allowlist does not
#     name, with its reason;
#   - a kernel with more than 128 registers per thread that the allowlist does not name.
# usage: check_ptxas.sh --ptxas PTXAS --allowlist FILE (--ptx-list FILE | --ptx FILE)...
#        check_ptxas.sh --log FILE [--allowlist FILE]   (a `ptxas -v` log already written)
# Allowlist lines: `stack|registers <text in the kernel's demangled name>  <reason>`; `#` comments.
# Prints one line per kernel at fault and a summary; exit 1 when any, 0 otherwise.
set -uo pipefail

ptxas="" allow="" files=() given_log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --ptxas) ptxas=$2; shift 2 ;;
    --allowlist) allow=$2; shift 2 ;;
    --ptx-list) while read -r f; do [ -n "$f" ] && files+=("$f"); done <"$2"; shift 2 ;;
    --ptx) files+=("$2"); shift 2 ;;
    --log) given_log=$2; shift 2 ;;
    *) echo "check_ptxas: unknown option $1" >&2; exit 2 ;;
  esac
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ -n "$given_log" ]; then
  cat "$given_log" >"$log" || exit 2
else
  [ -x "$ptxas" ] || { echo "check_ptxas: no ptxas at '$ptxas'" >&2; exit 2; }
  [ ${#files[@]} -gt 0 ] || { echo "check_ptxas: no PTX files" >&2; exit 2; }
  for f in "${files[@]}"; do
    "$ptxas" -v --gpu-name sm_90 -O3 "$f" -o /dev/null >>"$log" 2>&1 ||
      { cat "$log" >&2; echo "check_ptxas: ptxas failed on $f" >&2; exit 2; }
  done
fi

demangle=cat
command -v c++filt >/dev/null && demangle=c++filt
# One line per kernel: name <tab> stack bytes <tab> spill bytes <tab> registers
awk '
  /Compiling entry function/ { if (name != "") print name "\t" stack "\t" spill "\t" regs
                               name = $0; sub(/.*entry function .\047?/, "", name); sub(/\047? for .*/, "", name)
                               stack = 0; spill = 0; regs = 0 }
  /bytes stack frame/ { stack = $1; spill = $5 + $9 }
  /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1) }
  END { if (name != "") print name "\t" stack "\t" spill "\t" regs }' "$log" |
  while IFS=$'\t' read -r name stack spill regs; do
    printf '%s\t%s\t%s\t%s\n' "$(echo "$name" | $demangle | sed 's/(anonymous namespace):://g')" "$stack" "$spill" "$regs"
  done >"$log.kernels"
trap 'rm -f "$log" "$log.kernels"' EXIT

# allowed KIND NAME: the allowlist names this kernel for KIND
allowed() {
  [ -n "$allow" ] || return 1
  local kind pattern
  while read -r kind pattern _; do
    case "$kind" in ''|'#'*) continue ;; esac
    [ "$kind" = "$1" ] && [[ "$2" == *"$pattern"* ]] && return 0
  done <"$allow"
  return 1
}

kernels=0 bad=0 framed=0
while IFS=$'\t' read -r name stack spill regs; do
  kernels=$((kernels + 1))
  if [ "$stack" != 0 ] || [ "$spill" != 0 ]; then
    framed=$((framed + 1))
    allowed stack "$name" || { echo "stack frame $stack bytes, spills $spill bytes, not in the allowlist: $name"; bad=$((bad + 1)); }
  fi
  if [ "$regs" -gt 128 ] && ! allowed registers "$name"; then
    echo "$regs registers per thread (over 128), not in the allowlist: $name"
    bad=$((bad + 1))
  fi
done <"$log.kernels"
echo "check_ptxas: $kernels kernels, $framed with a stack frame or spills, $bad at fault"
[ "$kernels" -gt 0 ] && [ "$bad" = 0 ]
