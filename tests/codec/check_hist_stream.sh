#!/bin/sh
# check_hist_stream.sh TEST_BIN WORKDIR SAMPLES
#
# Makes the JPEG variants (jpeg_variants.sh, from the samples) in WORKDIR
# and runs test_hist_stream over them and the samples. Without
# cjpeg/jpegtran/ImageMagick the samples alone.
set -u
bin=$1 work=$2 samples=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work/copies"
variants=
if sh "$here/jpeg_variants.sh" "$work/variants" "$samples/scene.png" "$samples/edge_line.png" \
    "$samples/scene.jpg" >"$work/variants.log" 2>&1; then
    variants=$work/variants
else
    echo "variants skipped: $(tail -1 "$work/variants.log")"
fi
exec "$bin" "$work/copies" "$samples" ${variants:+"$variants"}
