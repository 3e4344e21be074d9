#!/bin/sh
# jpeg_variants.sh OUTDIR IMAGE...
#
# Writes into OUTDIR JPEG files of every kind the exact decoder must read
# as stb does, made from each IMAGE (any format ImageMagick reads) with
# libjpeg-turbo's cjpeg and jpegtran: qualities 1-100 (low ones have 16-bit
# quantizers), optimized tables, progressive (default and a script with
# successive approximation, DC refinement and non-interleaved DC),
# sequential files of one scan per component, restart intervals (every
# MCU, every 3 MCUs, every row), every sampling cjpeg takes (1x1 2x1 1x2
# 2x2 4x1 1x4 3x1 3x2 4x2, chroma larger than luma), gray, RGB without
# colour transform, CMYK (ImageMagick: Adobe transform 0), and sizes from
# 1x1 up to 8193 wide and tall, and 1600x1200 ones with restart intervals. Files stb refuses (arithmetic coding) end
# in .stb.jpg. Exit 77 when cjpeg, jpegtran or ImageMagick is missing.
set -eu
out=$1
shift
for tool in cjpeg jpegtran; do
    command -v $tool >/dev/null 2>&1 || { echo "skip: $tool not installed"; exit 77; }
done
# ImageMagick's convert (some machines put a stand-in earlier on the PATH)
im=
for c in magick convert /usr/bin/convert; do
    if "$c" -version 2>/dev/null | grep -q ImageMagick; then
        im=$c
        break
    fi
done
[ -n "$im" ] || { echo "skip: ImageMagick not installed"; exit 77; }
mkdir -p "$out"
scans=$out/scans.txt
cat >"$scans" <<'EOF'
0: 0-0, 0, 2;
1: 0-0, 0, 1;
2: 0-0, 0, 0;
0: 1-5, 0, 3;
0: 0-0, 2, 1;
0: 6-63, 0, 2;
1: 1-63, 0, 0;
2: 1-63, 0, 1;
0: 1-5, 3, 2;
0: 1-63, 2, 1;
0: 0-0, 1, 0;
0: 1-63, 1, 0;
2: 1-63, 1, 0;
EOF
sequential=$out/sequential.txt
printf '0: 0-63, 0, 0;\n1: 0-63, 0, 0;\n2: 0-63, 0, 0;\n' >"$sequential"

n=0
for src in "$@"; do
    n=$((n + 1))
    ppm=$out/src$n.ppm
    "$im" "$src" -alpha off -resize '320x240>' "ppm:$ppm"
    b=$out/i$n
    for q in 1 5 10 25 50 75 90 95 100; do
        cjpeg -quality $q "$ppm" >"$b-q$q.jpg"
    done
    cjpeg -optimize "$ppm" >"$b-optimize.jpg"
    cjpeg -progressive "$ppm" >"$b-progressive.jpg"
    cjpeg -progressive -quality 100 "$ppm" >"$b-progressive-q100.jpg"
    cjpeg -progressive -quality 3 "$ppm" >"$b-progressive-q3.jpg"
    cjpeg -scans "$scans" "$ppm" >"$b-scans.jpg"
    cjpeg -scans "$scans" -restart 2B -sample 2x2 "$ppm" >"$b-scans-restart.jpg"
    cjpeg -scans "$sequential" "$ppm" >"$b-sequential-scans.jpg"
    cjpeg -scans "$sequential" -sample 2x1 "$ppm" >"$b-sequential-scans-2x1.jpg"
    for r in 1B 3B 1; do
        cjpeg -restart $r "$ppm" >"$b-restart$r.jpg"
        cjpeg -restart $r -progressive "$ppm" >"$b-restart$r-progressive.jpg"
        cjpeg -restart $r -grayscale "$ppm" >"$b-restart$r-gray.jpg"
    done
    for s in 1x1 2x1 1x2 2x2 4x1 1x4 3x1 3x2 4x2 1x1,2x2,1x1 2x1,1x2,1x1; do
        cjpeg -sample $s "$ppm" >"$b-sample$s.jpg"
        cjpeg -sample $s -progressive "$ppm" >"$b-sample$s-progressive.jpg"
        cjpeg -sample $s -restart 1B "$ppm" >"$b-sample$s-restart.jpg"
    done
    cjpeg -grayscale "$ppm" >"$b-gray.jpg"
    cjpeg -grayscale -progressive "$ppm" >"$b-gray-progressive.jpg"
    cjpeg -grayscale -sample 2x2 "$ppm" >"$b-gray-2x2.jpg"
    cjpeg -rgb "$ppm" >"$b-rgb.jpg"
    cjpeg -rgb -progressive "$ppm" >"$b-rgb-progressive.jpg"
    cjpeg -arithmetic "$ppm" >"$b-arithmetic.stb.jpg"
    cjpeg -arithmetic -progressive "$ppm" >"$b-arithmetic-progressive.stb.jpg"
    jpegtran -progressive "$b-q75.jpg" >"$b-jpegtran-progressive.jpg"
    jpegtran -optimize -restart 5B "$b-q75.jpg" >"$b-jpegtran-restart.jpg"
    "$im" "$ppm" -colorspace CMYK -quality 85 "$b-cmyk.jpg"
    "$im" "$ppm" -colorspace CMYK -interlace JPEG "$b-cmyk-progressive.jpg"
done

# Sizes, from the first image: 1x1, thin, primes, 8k wide and tall.
for size in 1x1 1x7 7x1 1x100 100x1 2x2 9x9 16x16 17x17 31x37 101x53 8193x5 5x8193; do
    ppm=$out/size$size.ppm
    "$im" "$out/src1.ppm" -resize "$size!" "ppm:$ppm"
    b=$out/size$size
    cjpeg "$ppm" >"$b.jpg"
    cjpeg -sample 1x1 -quality 97 "$ppm" >"$b-444.jpg"
    cjpeg -sample 4x2 "$ppm" >"$b-4x2.jpg"
    cjpeg -progressive "$ppm" >"$b-progressive.jpg"
    cjpeg -grayscale -restart 1B "$ppm" >"$b-gray.jpg"
    cjpeg -scans "$scans" "$ppm" >"$b-scans.jpg"
    rm -f "$ppm"
done
# Large enough for the entropy half to decode restart intervals on threads.
ppm=$out/large.ppm
"$im" "$out/src1.ppm" -resize '1600x1200!' "ppm:$ppm"
cjpeg -restart 1B "$ppm" >"$out/large-restart1B.jpg"
cjpeg -restart 2B -progressive "$ppm" >"$out/large-restart2B-progressive.jpg"
cjpeg -restart 1 -sample 1x1 -grayscale "$ppm" >"$out/large-restart1-gray.jpg"
cjpeg -restart 1 -scans "$scans" "$ppm" >"$out/large-restart1-scans.jpg"
rm -f "$out"/*.ppm "$scans" "$sequential"
