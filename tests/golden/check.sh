#!/bin/sh
# check.sh GPUIMG IMGCMP SAMPLES GOLDEN OUTFILE INPUT ARGS...
#
# One golden test: run the case into a temporary directory and compare with
# GOLDEN/OUTFILE: images by decoded pixels (imgcmp), text byte for byte.
set -u
gpuimg=$1 imgcmp=$2 samples=$3 golden=$4 out=$5
shift 5
here=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$golden/$out" ]; then
    echo "no golden file $golden/$out: add it with tests/golden/regen.sh" >&2
    exit 1
fi
if ! sh "$here/run_case.sh" "$gpuimg" "$samples" "$tmp/$out" "$@"; then
    echo "gpuimg failed on case $out (input and arguments: $*)" >&2
    exit 1
fi
case $out in
    *.png | *.jpg) exec "$imgcmp" "$golden/$out" "$tmp/$out" ;;
    *) exec diff -u "$golden/$out" "$tmp/$out" ;;
esac
