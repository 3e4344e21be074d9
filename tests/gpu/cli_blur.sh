#!/bin/sh
# cli_blur.sh GPUIMG PHOTOS SAMPLES: `gpuimg blur --device cuda` writes the
# same files, byte for byte, as `--device cpu`, one image at a time and as
# a batch, over the bundled samples and the photos where they are. Skips
# (77) without a GPU.
gpuimg=$1
photos=$2
samples=$3
set -- "$samples"/*.png "$samples"/*.jpg "$photos"/*.png "$photos"/*.jpg "$photos"/*.jpeg
inputs=
for f; do [ -f "$f" ] && inputs="$inputs $f"; done
[ -n "$inputs" ] || { echo "FAIL: no PNG or JPEG in '$samples'"; exit 1; }
"$gpuimg" info --no-bandwidth | grep -q '^cuda device 0:' || { echo "skip: no GPU"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cpu" "$tmp/cuda" "$tmp/cpu-batch" "$tmp/cuda-batch" || exit 1
failed=0
for f in $inputs; do
    name=$(basename "$(dirname "$f")")-$(basename "$f")
    out=${name%.*}.png
    for device in cpu cuda; do
        "$gpuimg" blur --sigma 2 --device $device "$f" "$tmp/$device/$out" || {
            echo "FAIL: blur --device $device $name"; failed=1; }
    done
    cmp "$tmp/cpu/$out" "$tmp/cuda/$out" || { echo "FAIL: $name: cuda differs from cpu"; failed=1; }
done
# shellcheck disable=SC2086 # $inputs is a list of paths without spaces
"$gpuimg" blur --sigma 2 --device cpu -o "$tmp/cpu-batch" $inputs || failed=1
# shellcheck disable=SC2086
"$gpuimg" blur --sigma 2 --device cuda -o "$tmp/cuda-batch" $inputs || failed=1
for f in $inputs; do
    name=$(basename "$f")
    cmp "$tmp/cpu-batch/$name" "$tmp/cuda-batch/$name" || {
        echo "FAIL: batch $name: cuda differs from cpu"; failed=1; }
done
[ $failed = 0 ] && echo "cli blur: cuda equals cpu on $(echo "$inputs" | wc -w | tr -d ' ') images"
exit $failed
