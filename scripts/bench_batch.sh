#!/bin/sh
# Folder throughput, file to file: gpuimg against vips under GNU parallel,
# over the same copies of the photos, side by side in one run.
#
#   scripts/bench_batch.sh [PHOTOS_DIR] [COPIES] [JOBS] [OP]
#     PHOTOS_DIR  default ../shared/photos    COPIES default 10 (4 photos -> 40 files)
#     JOBS        default nproc               OP     blur | sobel | transpose (default blur)
#
# Needs vips (libvips-tools) and GNU parallel (parallel) from Debian, and a
# built gpuimg in build/. The copies go to a temporary directory that is
# removed afterwards; nothing is written into the repository.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
photos=${1:-$root/../shared/photos}
copies=${2:-10}
jobs=${3:-$(nproc)}
op=${4:-blur}
gpuimg=$root/build/cmd/gpuimg
for tool in vips parallel "$gpuimg"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench_batch: $tool not found" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in" "$work/vips" "$work/gpuimg"
i=0
while [ "$i" -lt "$copies" ]; do
    for f in "$photos"/*.png "$photos"/*.jpg; do
        [ -f "$f" ] && cp "$f" "$work/in/$i-$(basename "$f")"
    done
    i=$((i + 1))
done
count=$(ls "$work/in" | wc -l)

case $op in
    blur) vips_op='gaussblur {} {OUT} 2'; gpuimg_op='blur --sigma 2' ;;
    sobel) vips_op='sobel {} {OUT}'; gpuimg_op='sobel' ;;
    transpose) vips_op='rot {} {OUT} d90'; gpuimg_op='transpose' ;;
    *) echo "bench_batch: unknown op $op" >&2; exit 2 ;;
esac

now() { date +%s.%N; }
t0=$(now)
ls "$work/in"/* | parallel -j "$jobs" "vips $(echo "$vips_op" | sed "s|{OUT}|$work/vips/{/}|")"
t1=$(now)
# shellcheck disable=SC2086
"$gpuimg" $gpuimg_op -q -j "$jobs" -o "$work/gpuimg" "$work/in"/*
t2=$(now)

awk -v n="$count" -v v="$(echo "$t1 - $t0" | bc)" -v g="$(echo "$t2 - $t1" | bc)" \
    -v op="$op" -v jobs="$jobs" 'BEGIN {
    printf "%s, %d files, %d jobs\n", op, n, jobs
    printf "  vips (parallel -j%d): %7.2f s  %6.2f images/s\n", jobs, v, n / v
    printf "  gpuimg (-j%d):        %7.2f s  %6.2f images/s\n", jobs, g, n / g
    printf "  gpuimg / vips throughput: %.2fx\n", v / g
}'
