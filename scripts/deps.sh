#!/bin/bash
# Installs the Debian 12 packages augment builds with, when any is missing (uses sudo when not root).
# CUDA is not a Debian package: the build uses nvcc when it finds one (/usr/local/cuda/bin) and
# builds without the CUDA backend otherwise.
# `scripts/deps.sh --fuzz` also installs clang and its runtime libraries (libclang-rt-14-dev holds
# libFuzzer and clang's sanitizer runtimes) for the ASan build and its fuzz targets
# (.ci/asan-build, docs/testing.md). GCC's own ASan/UBSan/TSan runtimes (the TSan build) come with g++.
set -euo pipefail
packages=(
  g++ cmake make pkg-config
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev
  libjpeg62-turbo-dev libpng-dev
  libcli11-dev nlohmann-json3-dev libspdlog-dev libgtest-dev libyaml-cpp-dev
)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "augment: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
