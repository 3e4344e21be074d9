#!/bin/sh
# Installs what gpuimg needs on Debian 12 (when missing), then configures and
# builds it in ./build. The CUDA backend is built when nvcc is found (on
# PATH or in /usr/local/cuda/bin); without it, the CPU backend alone.
set -eu
cd "$(dirname "$0")/.."

# libtiff-dev: TIFF files (optional at build time: without it they are
# refused). python3-dev, numpy and pytest: the Python package (python/) and its tests
# (meson test --suite python); without them the C build goes on alone.
packages="meson ninja-build gcc pkg-config libstb-dev libdeflate-dev libtiff-dev python3-dev python3-numpy python3-pytest"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing$missing"
    # Another apt (unattended-upgrades, a second shell) may hold the dpkg
    # lock: wait up to 10 minutes for it rather than fail at once.
    wait_lock="-o DPkg::Lock::Timeout=600"
    $sudo apt-get $wait_lock update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get $wait_lock install -y -qq $missing >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    PATH="/usr/local/cuda/bin:$PATH"
    export PATH
fi

[ -f build/build.ninja ] || meson setup build -Dcuda=auto "$@"
meson compile -C build
