#!/bin/sh
# borders_differ.sh GPUIMG IMGCMP SAMPLES
#
# reflect (ba|abcd) and mirror (cb|abcd) read different pixels just outside
# the image. edge_line.png has a bright line in column 0, so its blurs must
# differ; equal outputs mean one mode is implemented as the other.
set -u
gpuimg=$1 imgcmp=$2 samples=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for mode in reflect mirror; do
    "$gpuimg" blur --sigma 2 --border "$mode" "$samples/edge_line.png" "$tmp/$mode.png" ||
        { echo "gpuimg blur --border $mode failed" >&2; exit 1; }
done
"$imgcmp" "$tmp/reflect.png" "$tmp/mirror.png"
case $? in
    1) exit 0 ;;
    0) echo "reflect and mirror blurs of edge_line.png are identical" >&2; exit 1 ;;
    *) exit 1 ;;
esac
