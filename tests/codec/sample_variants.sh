#!/bin/sh
# sample_variants.sh WORKDIR SAMPLES
#
# Makes the JPEG variants of the samples (jpeg_variants.sh) in
# WORKDIR/variants and prints that folder; prints nothing, and the reason
# on stderr, where cjpeg/jpegtran/ImageMagick are missing. For the check
# scripts that run a test over the variants (check_jpeg_decode.sh,
# check_hist_stream.sh). WORKDIR must exist.
set -u
work=$1 samples=$2
here=$(cd "$(dirname "$0")" && pwd)
if sh "$here/jpeg_variants.sh" "$work/variants" "$samples/scene.png" "$samples/edge_line.png" \
    "$samples/scene.jpg" >"$work/variants.log" 2>&1; then
    echo "$work/variants"
else
    echo "variants skipped: $(tail -1 "$work/variants.log")" >&2
fi
