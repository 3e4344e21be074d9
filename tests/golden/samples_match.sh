#!/bin/sh
# samples_match.sh MAKE_SAMPLES IMGCMP SAMPLES
#
# The committed samples must be exactly what make_samples writes, so anyone
# can trust samples/README.md's account of where they came from.
set -u
make_samples=$1 imgcmp=$2 samples=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$make_samples" "$tmp" >/dev/null || { echo "make_samples failed" >&2; exit 1; }
status=0
for f in "$tmp"/*; do
    name=${f##*/}
    if [ ! -f "$samples/$name" ]; then
        echo "samples/$name is missing (make_samples writes it)" >&2
        status=1
    elif ! "$imgcmp" "$samples/$name" "$f"; then
        echo "samples/$name differs from what make_samples writes now" >&2
        status=1
    fi
done
exit $status
