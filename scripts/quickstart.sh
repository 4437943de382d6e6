#!/bin/bash
# The README's first command: installs what is missing, builds augment and runs the default
# pipeline (configs/default.json) over samples/ into out/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target augment -j"$(nproc)"
build/apps/augment/augment run -c configs/default.json -i samples -o out --overwrite
