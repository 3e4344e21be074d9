#!/bin/sh
# One full cycle on a machine with a GPU: build with CUDA, run the gpu suite
# and the four compute-sanitizer tools, the benchmark tables, the seed
# paper's table, the CLI end to end on the photos with its cold start, and
# (when their sources are given) the NPP, CUB, CuPy and PyTorch peers, all
# in one run so that ratios compare like with like.
#
#   scripts/gpu_report.sh [REPORT_DIR] [PHOTOS_DIR] [PEERS_DIR] [STB_DIR]
#     REPORT_DIR  logs (default ./gpu-report)
#     PHOTOS_DIR  photos for the end-to-end check (default ../shared/photos)
#     PEERS_DIR   npp_bench.cu, cub_hist.cu, peers_gpu.py (default ../shared/bench)
#     STB_DIR     a directory with stb_image.h when libstb-dev is absent
#   FULL=1 also runs every other suite on the CUDA build.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
report=${1:-$root/gpu-report}
photos=${2:-$root/../shared/photos}
peers=${3:-$root/../shared/bench}
stb=${4:-}
mkdir -p "$report"
cd "$root" || exit 1
PATH=/usr/local/cuda/bin:$PATH

step() { echo "== $*"; }
# Seconds between two `date +%s.%N` readings, in milliseconds (no bc needed).
ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }

step build
opts="-Dcuda=enabled"
[ -n "$stb" ] && opts="$opts -Dstb_includedir=$stb"
# shellcheck disable=SC2086
{ [ -f build-gpu/build.ninja ] || meson setup build-gpu $opts; } >"$report/setup.log" 2>&1 &&
    ninja -C build-gpu >"$report/build.log" 2>&1 || { tail -30 "$report/build.log"; exit 1; }
g=build-gpu/cmd/gpuimg
$g info | tee "$report/info.txt"

step "gpu suite"
meson test -C build-gpu --suite gpu --print-errorlogs >"$report/gpu-suite.log" 2>&1
grep -E "^(Ok|Fail|Skipped):" "$report/gpu-suite.log"
grep -h "passed, .* failed" build-gpu/meson-logs/testlog.txt | tail -3

step sanitizers
meson test -C build-gpu --suite gpu-sanitize --print-errorlogs >"$report/sanitize.log" 2>&1
grep -E "^(Ok|Fail):|SUMMARY" "$report/sanitize.log" build-gpu/meson-logs/testlog.txt | sort -u | tail -12

if [ -n "${FULL:-}" ]; then
    step "whole suite on the GPU build"
    meson test -C build-gpu >"$report/all-suites.log" 2>&1
    grep -E "^(Ok|Fail|Skipped):" "$report/all-suites.log"
fi

step "bench 8192x8192, 1 channel, every border"
$g bench --device cuda --size 8192x8192 --channels 1 --border all --op blur,sobel,convolve \
    | tee "$report/bench-1ch.txt"
$g bench --device cuda --size 8192x8192 --channels 1,2,3,4 --op transpose,hist | tee -a "$report/bench-1ch.txt"
step "bench RGBA 4096x4096"
$g bench --device cuda --size 4096x4096 --channels 4 --border all | tee "$report/bench-rgba.txt"
step "bench odd sizes and small images"
$g bench --device cuda --size 8191x8191 --channels 1,3 | tee "$report/bench-odd.txt"
$g bench --device cuda --size 256x256 --channels 1,4 | tee "$report/bench-small.txt"
$g bench --device cuda --size 8192x8192 --channels 1 --json >"$report/bench.json"

step "seed paper"
build-gpu/bench/paper_times | tee "$report/paper.txt"

if [ -d "$photos" ] && [ -z "${SKIP_PHOTOS:-}" ]; then
    step "CLI end to end on the photos"
    rm -rf "$report/cpu" "$report/cuda"
    start=$(date +%s.%N)
    $g blur --sigma 2 --device cuda -q -o "$report/cuda" "$photos"/*
    mid=$(date +%s.%N)
    $g blur --sigma 2 --device cpu -q -o "$report/cpu" "$photos"/*
    end=$(date +%s.%N)
    for f in "$report/cpu"/*; do cmp "$f" "$report/cuda/$(basename "$f")" && echo "same: $(basename "$f")"; done
    echo "blur batch of $(ls "$photos" | wc -l): cuda $(ms_between "$start" "$mid") ms, cpu $(ms_between "$mid" "$end") ms"
    step "cold start: one small image, auto (stays on the CPU) vs --device cuda"
    for dev in auto cuda; do
        s=$(date +%s.%N); $g blur --device $dev samples/scene.png "$report/small-$dev.png"; e=$(date +%s.%N)
        echo "$dev: $(ms_between "$s" "$e") ms"
    done
    one=$(ls "$photos"/*.jpg | head -1)
    s=$(date +%s.%N); $g blur --sigma 2 --device cuda -v "$one" "$report/one.jpg"; e=$(date +%s.%N)
    echo "one photo, cuda, whole process: $(ms_between "$s" "$e") ms"
fi

if [ -f "$peers/npp_bench.cu" ]; then
    step "peers: NPP"
    nvcc -O3 -arch=sm_90 "$peers/npp_bench.cu" -o "$report/npp_bench" -lnppif -lnppist -lnppidei \
        -lnppig -lnppial -lnppc >"$report/npp-build.log" 2>&1 && "$report/npp_bench" | tee "$report/npp.txt"
    step "peers: CUB"
    nvcc -O3 -arch=sm_90 "$peers/cub_hist.cu" -o "$report/cub_hist" >"$report/cub-build.log" 2>&1 &&
        "$report/cub_hist" | tee "$report/cub.txt"
    step "peers: CuPy and PyTorch"
    python3 "$peers/peers_gpu.py" 2>&1 | tee "$report/peers.txt"
fi
