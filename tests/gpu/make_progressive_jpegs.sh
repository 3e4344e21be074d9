#!/bin/sh
# make_progressive_jpegs.sh OUTDIR PHOTO.jpg: writes into OUTDIR the
# progressive files (prog-*.jpg) on which the GPU's Huffman decoder is
# compared with the CPU's (jpeg_entropy_gpu), made from PHOTO scaled to
# 1/4 and 1/8 with libjpeg-turbo's djpeg, cjpeg and jpegtran: jpegtran
# -progressive; -scans scripts with one component a scan, spectral
# selection only, successive approximation only, many one-band scans, the
# DC alone first; cjpeg -progressive at 4:4:4, 4:2:2, 4:2:0, 4:4:0 and
# gray; restart intervals (-restart 1, -restart 1B). make_exact_jpegs.sh
# calls it with ../shared/photos/the-mouse.jpg.
set -eu
out=$1
photo=$2
for tool in djpeg cjpeg jpegtran; do
    command -v $tool >/dev/null 2>&1 || { echo "skip: $tool not installed"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
djpeg -scale 1/4 -pnm "$photo" >"$tmp/big.ppm"
djpeg -scale 1/8 -pnm "$photo" >"$tmp/small.ppm"
cjpeg -quality 85 "$tmp/big.ppm" >"$tmp/big.jpg"
cjpeg -quality 85 "$tmp/small.ppm" >"$tmp/small.jpg"
# one component a scan (non-interleaved DC too), successive approximation
cat >"$tmp/per-component.txt" <<'S'
0: 0-0, 0, 1;
1: 0-0, 0, 1;
2: 0-0, 0, 1;
0: 1-63, 0, 2;
1: 1-63, 0, 1;
2: 1-63, 0, 1;
0: 1-63, 2, 1;
0: 0-0, 1, 0;
1: 0-0, 1, 0;
2: 0-0, 1, 0;
0: 1-63, 1, 0;
1: 1-63, 1, 0;
2: 1-63, 1, 0;
S
# spectral selection only: no refinement scan
cat >"$tmp/spectral.txt" <<'S'
0 1 2: 0-0, 0, 0;
0: 1-2, 0, 0;
0: 3-9, 0, 0;
0: 10-63, 0, 0;
1: 1-63, 0, 0;
2: 1-10, 0, 0;
2: 11-63, 0, 0;
S
# successive approximation only: whole bands, refined bit by bit
cat >"$tmp/approximation.txt" <<'S'
0 1 2: 0-0, 0, 3;
0: 1-63, 0, 4;
1: 1-63, 0, 3;
2: 1-63, 0, 3;
0 1 2: 0-0, 3, 2;
0: 1-63, 4, 3;
0 1 2: 0-0, 2, 1;
0: 1-63, 3, 2;
1: 1-63, 3, 2;
2: 1-63, 3, 2;
0: 1-63, 2, 1;
0 1 2: 0-0, 1, 0;
0: 1-63, 1, 0;
1: 1-63, 2, 1;
2: 1-63, 2, 1;
1: 1-63, 1, 0;
2: 1-63, 1, 0;
S
# many one-band scans, each coefficient alone, after a DC scan alone
{
    echo "0 1 2: 0-0, 0, 0;"
    k=1
    while [ $k -le 63 ]; do
        echo "0: $k-$k, 0, 0;"
        k=$((k + 1))
    done
    echo "1: 1-63, 0, 0;"
    echo "2: 1-63, 0, 0;"
} >"$tmp/one-band.txt"
jpegtran -progressive "$tmp/big.jpg" >"$out/prog-jpegtran-big.jpg"
jpegtran -scans "$tmp/approximation.txt" "$tmp/big.jpg" >"$out/prog-approximation-big.jpg"
jpegtran -progressive "$tmp/small.jpg" >"$out/prog-jpegtran.jpg"
for s in per-component spectral approximation one-band; do
    jpegtran -scans "$tmp/$s.txt" "$tmp/small.jpg" >"$out/prog-$s.jpg"
done
for s in per-component spectral approximation; do
    jpegtran -scans "$tmp/$s.txt" -restart 1B "$tmp/small.jpg" >"$out/prog-$s-restart1B.jpg"
done
for s in 1x1 2x1 2x2 1x2; do
    cjpeg -progressive -sample $s "$tmp/small.ppm" >"$out/prog-sample$s.jpg"
done
cjpeg -progressive -grayscale "$tmp/small.ppm" >"$out/prog-gray.jpg"
cjpeg -progressive -restart 1 "$tmp/small.ppm" >"$out/prog-restart1.jpg"
cjpeg -progressive -restart 1B "$tmp/small.ppm" >"$out/prog-restart1B.jpg"
cjpeg -progressive -restart 1B -grayscale -quality 30 "$tmp/small.ppm" >"$out/prog-restart1B-gray-q30.jpg"
cjpeg -progressive -optimize -quality 97 -sample 1x1 "$tmp/big.ppm" >"$out/prog-444-q97-big.jpg"
