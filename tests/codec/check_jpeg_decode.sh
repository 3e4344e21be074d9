#!/bin/sh
# check_jpeg_decode.sh TEST_BIN WORKDIR SAMPLES PHOTOS ROBUST_DIR
#
# Makes the JPEG variants (jpeg_variants.sh, from the samples) and the
# bad-input corpus (ROBUST_DIR/make_corpus.py) in WORKDIR, then runs
# test_jpeg_decode: strictly on the samples, the variants and the photos
# (where present), leniently on the corpus and the decode regressions.
# Without cjpeg/jpegtran/ImageMagick the variants are skipped, not failed.
set -u
bin=$1 work=$2 samples=$3 photos=$4 robust=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
variants=$(sh "$here/sample_variants.sh" "$work" "$samples")
corpus=
if python3 "$robust/make_corpus.py" "$robust/cases.txt" "$samples" "$work/corpus" >/dev/null 2>&1; then
    corpus=$work/corpus
fi
exec "$bin" -s "$samples" ${variants:+"$variants"} "$photos" -a ${corpus:+"$corpus"} \
    "$robust/regressions/decode"
