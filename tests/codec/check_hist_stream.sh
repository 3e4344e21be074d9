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
variants=$(sh "$here/sample_variants.sh" "$work" "$samples")
exec "$bin" "$work/copies" "$samples" ${variants:+"$variants"}
