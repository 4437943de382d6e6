#!/bin/bash
# check_forms_tested.sh PTX_FORMS KERNELS_PTX_LIST TEST_FILE: every instruction form the build's
# kernels use (as ptx_forms lists them) is executed by the interpreter and appears in the
# per-instruction tests (TEST_FILE). Names each form that does not; exit 1 then.
set -uo pipefail
forms=$("$1" --list "$2") || { echo "$forms" | grep -v $'^[0-9]*\t'; exit 1; }
missing=0
while IFS=$'\t' read -r count form; do
  [ -n "$form" ] || continue
  if ! grep -qF -- "$form " "$3" && ! grep -qF -- "$form\"" "$3"; then
    echo "no per-instruction test for $form (used $count times by the kernels)"
    missing=$((missing + 1))
  fi
done < <(echo "$forms" | grep $'^[0-9]*\t')
echo "$(echo "$forms" | grep -c $'^[0-9]*\t') forms used by the kernels, $missing without a test"
[ "$missing" = 0 ]
