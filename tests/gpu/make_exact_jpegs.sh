#!/bin/sh
# make_exact_jpegs.sh [OUTDIR]: writes the JPEGs of jpegs-exact/ (default
# OUTDIR: beside this script), the files on which the exact decoder's GPU
# path is compared with the CPU's (cli_jpeg_path.sh, jpeg_path_gpu) and the
# CPU backend's path from coefficients with the plain decode
# (tests/lib/test_jpeg_route): tests/codec/jpeg_variants.sh's kinds made
# from samples/scene.png (qualities, optimized, progressive with
# successive approximation, sequential multi-scan, restart intervals,
# every sampling, gray, RGB, CMYK, arithmetic (.stb.jpg: left to stb),
# sizes from 1x1 to 8193 wide and tall), less its largest file; and the
# progressive files of make_progressive_jpegs.sh (prog-*.jpg), made from
# ../shared/photos/the-mouse.jpg. Kept in the repository because the GPU
# machines lack cjpeg and ImageMagick.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/jpegs-exact}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$here/../codec/jpeg_variants.sh" "$tmp" "$here/../../samples/scene.png"
rm -f "$tmp/large-restart2B-progressive.jpg" "$tmp/large-restart1B.jpg"
mkdir -p "$out"
cp "$tmp"/*.jpg "$out"/
sh "$here/make_progressive_jpegs.sh" "$out" "$here/../../../shared/photos/the-mouse.jpg"
