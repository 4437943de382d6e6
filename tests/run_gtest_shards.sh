#!/bin/bash
# Runs every gtest program of a build whole, each split into SHARDS shards (GTEST_TOTAL_SHARDS,
# GTEST_SHARD_INDEX), JOBS processes at a time, from the program's folder as ctest would. ctest runs
# one process per test: under the sanitizers a test program takes 0.7 s to start and to check for
# leaks at exit, 2,000 times over; here a few dozen processes run the same tests.
# Prints the output of every shard that failed; exit status 1 when one did.
#
# usage: tests/run_gtest_shards.sh BUILD_DIR JOBS [SHARDS]
#   BUILD_DIR/gtest_programs.txt lists the programs (tests/CMakeLists.txt writes it); programs
#   not built (test_cuda without CUDA, say) are left out. SHARDS defaults to JOBS per program, at
#   least 4: the shards of the largest programs are what keeps every processor busy to the end.
set -euo pipefail
build=$1
jobs=$2
shards=${3:-$((jobs > 4 ? jobs : 4))}
list="$build/gtest_programs.txt"
[ -f "$list" ] || { echo "run_gtest_shards: $list not found (configure $build with AUGMENT_BUILD_TESTS=ON)" >&2; exit 2; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

work=()
while read -r program; do
  [ -n "$program" ] && [ -x "$program" ] || continue
  for ((i = 0; i < shards; ++i)); do work+=("$program $i"); done
done < "$list"
[ ${#work[@]} -gt 0 ] || { echo "run_gtest_shards: no test program built in $build" >&2; exit 2; }

export GTEST_TOTAL_SHARDS=$shards LOGS=$logs
start=$SECONDS
status=0
printf '%s\n' "${work[@]}" | xargs -P "$jobs" -L 1 bash -c '
  program=$0 index=$1
  log="$LOGS/$(basename "$program").$index.log"
  if (cd "$(dirname "$program")" && GTEST_SHARD_INDEX=$index "$program" --gtest_brief=1 >"$log" 2>&1); then
    echo "passed: $(basename "$program") shard $index of $GTEST_TOTAL_SHARDS ($(grep -m1 -o "[0-9]* tests\? from" "$log" | cut -d" " -f1) tests)"
  else
    echo "FAILED: $(basename "$program") shard $index of $GTEST_TOTAL_SHARDS:"
    cat "$log"
    exit 1
  fi' || status=1
echo "run_gtest_shards: ${#work[@]} shards in $((SECONDS - start)) s, $([ $status = 0 ] && echo "all passed" || echo "some FAILED")"
exit $status
