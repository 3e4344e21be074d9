#!/bin/sh
# cli_blur.sh GPUIMG PHOTOS: `gpuimg blur --device cuda` writes the same
# files, byte for byte, as `--device cpu`, one photo at a time and as a
# batch. Skips (77) when the photos or a GPU are missing.
gpuimg=$1
photos=$2
[ -d "$photos" ] || { echo "skip: no photos in '$photos'"; exit 77; }
set -- "$photos"/*.png "$photos"/*.jpg "$photos"/*.jpeg
inputs=
for f; do [ -f "$f" ] && inputs="$inputs $f"; done
[ -n "$inputs" ] || { echo "skip: no PNG or JPEG in '$photos'"; exit 77; }
"$gpuimg" info --no-bandwidth | grep -q '^cuda device 0:' || { echo "skip: no GPU"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cpu" "$tmp/cuda" "$tmp/cpu-batch" "$tmp/cuda-batch" || exit 1
failed=0
for f in $inputs; do
    name=$(basename "$f")
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
[ $failed = 0 ] && echo "cli blur: cuda equals cpu on$(echo $inputs | wc -w | tr -d ' ') photos"
exit $failed
