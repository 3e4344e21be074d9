#!/bin/sh
# fetch_nvjpeg.sh [DIR]: puts nvJPEG's header and library in DIR (default
# .nvjpeg, git-ignored) as DIR/include/nvjpeg.h and DIR/lib/libnvjpeg.so,
# the layout -Dnvjpeg_dir expects, from PyPI's nvidia-nvjpeg wheel (the
# CUDA 13 one). For machines whose CUDA toolkit lacks nvJPEG, CI among them:
# there it lets the nvJPEG path compile and link, so a change that breaks it
# fails CI even without a GPU. Needs python3 with pip and the network, once.
#
# The wheel is pinned to nvJPEG 13.0, the API of the CUDA 13.0 toolkit we
# build with (nvcc 13.0): a newer header could let code compile here that
# the toolkit's nvJPEG on a GPU machine does not offer.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-.nvjpeg}
wheel_version='13.0.*'

if [ -f "$dir/include/nvjpeg.h" ] && [ -e "$dir/lib/libnvjpeg.so" ]; then
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" \
    "nvidia-nvjpeg==$wheel_version"
python3 -m zipfile -e "$tmp"/nvidia_nvjpeg-*.whl "$tmp/wheel"
mkdir -p "$dir/include" "$dir/lib"
cp "$tmp/wheel/nvidia/cu13/include/nvjpeg.h" "$dir/include/"
cp "$tmp/wheel/nvidia/cu13/lib/libnvjpeg.so.13" "$dir/lib/"
# The wheel has the versioned name alone; the linker looks for libnvjpeg.so.
ln -sf libnvjpeg.so.13 "$dir/lib/libnvjpeg.so"
echo "fetch_nvjpeg: nvJPEG $(sed -n 's/^#define NVJPEG_VER_\(MAJOR\|MINOR\|PATCH\) *//p' \
    "$dir/include/nvjpeg.h" | paste -sd.) in $dir"
