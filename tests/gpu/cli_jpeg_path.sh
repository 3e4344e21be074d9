#!/bin/sh
# cli_jpeg_path.sh GPUIMG JPEGS PHOTOS: the exact JPEG decoder on the GPU
# from the command line. A JPEG that the decoder's entropy half takes goes
# to a CUDA lane as its coefficients, and the lane reconstructs its pixels
# on the device before the steps:
#  1. blur, sobel, transpose and thumbnail (shrink-on-load: the reduced
#     IDCT on the device) --device cuda -o DIR write the same files,
#     byte for byte, as --device cpu, over every kind of JPEGS (baseline,
#     progressive, every sampling, gray, RGB, CMYK, restart intervals,
#     sizes from 1x1 to 8193 wide and tall; make_exact_jpegs.sh) and the
#     photos where present; JPEG out, and PNG out for blur;
#  2. -v says 'codecs gpuimg-jpeg-cuda-huffman/' (its Huffman codes and
#     its arithmetic half decoded on the GPU) or 'codecs gpuimg-jpeg-cuda/'
#     (its arithmetic half: a progressive file whose AC refinement scans
#     are left to the CPU, GI_JPEG_REFINE_MAX_SUBSEQS) for every file;
#  3. one file at a time (the batch's in-turn path) likewise, sobel and
#     thumbnail, each naming
#     the path it takes (baseline and progressive files on the first, a
#     large jpegtran -progressive file on the second); a file the
#     entropy half leaves to stb (*.stb.jpg: arithmetic coding, which stb
#     refuses too) fails on both devices with the same message;
#  4. the default device writes the same bytes too;
#  5. a folder's thumbnails stay on the CPU under the default device (the
#     plan sees the shrunk size), with --device cpu's bytes; where the
#     folder outlasts CUDA's start on the cores, GPU lanes beside the
#     CPU's take some files whole, with the same bytes, and a GPU that
#     fails hands its files back to the CPU's lanes.
# Skips (77) without a GPU.
gpuimg=$1
jpegs=$2
photos=$3
"$gpuimg" info --no-bandwidth | grep -q '^cuda device 0:' || { echo "skip: no GPU"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

inputs=$(ls "$jpegs"/*.jpg | grep -v '\.stb\.jpg$')
for f in "$photos"/*.jpg "$photos"/*.jpeg; do [ -f "$f" ] && inputs="$inputs $f"; done
count=$(echo $inputs | wc -w | tr -d ' ')

# Compares DIR_A and DIR_B file by file for every input (-o keeps the
# input's name; with --format, its extension is the format's: $4). $3:
# what is compared.
same_outputs() {
    for f in $inputs; do
        name=$(basename "$f")
        [ -n "${4:-}" ] && name="${name%.*}.$4"
        cmp -s "$1/$name" "$2/$name" || fail "$3: $name differs"
    done
}

run() { # NAME OP... : one batch per device into $tmp/NAME-DEVICE, -v kept
    name=$1
    shift
    for device in cpu cuda auto; do
        mkdir -p "$tmp/$name-$device"
        # shellcheck disable=SC2086 # $inputs is a list of paths without spaces
        "$gpuimg" "$@" -v --device $device -o "$tmp/$name-$device" $inputs \
            >"$tmp/$name-$device.log" 2>&1 || fail "$name --device $device (see below)"
    done
}

check_v() { # LOG: every file's line says its decode ran on the GPU
    for f in $inputs; do
        grep -F "$f -> " "$1" | grep -qE 'codecs gpuimg-jpeg-cuda(-huffman)?/' ||
            fail "$1: $f: -v does not say 'codecs gpuimg-jpeg-cuda(-huffman)/'"
    done
}

run blur blur --sigma 2
run sobel sobel
run transpose transpose
run blur-png blur --sigma 2 --format png
# shrink-on-load: the reduced IDCT on the device (1/8 of most files, 1/2
# or 1/4 of the narrow ones, full size of the smallest)
run thumb thumbnail --size 32
run thumb-crop thumbnail --size 48x20 --crop centre
for op in blur sobel transpose blur-png thumb thumb-crop; do
    ext=
    [ $op = blur-png ] && ext=png
    same_outputs "$tmp/$op-cpu" "$tmp/$op-cuda" "$op --device cuda against cpu" $ext
    same_outputs "$tmp/$op-cpu" "$tmp/$op-auto" "$op default device against cpu" $ext
    check_v "$tmp/$op-cuda.log"
done

# One file at a time: the in-turn path.
mkdir -p "$tmp/one-cpu" "$tmp/one-cuda"
for f in $jpegs/i1-q75.jpg $jpegs/i1-progressive.jpg $jpegs/i1-sample4x2.jpg \
    $jpegs/i1-gray-progressive.jpg $jpegs/size1x1.jpg $jpegs/size8193x5-4x2.jpg \
    $jpegs/i1-restart1B-progressive.jpg $jpegs/i1-cmyk.jpg $jpegs/prog-jpegtran-big.jpg; do
    name=$(basename "$f")
    codec=gpuimg-jpeg-cuda-huffman
    [ "$name" = prog-jpegtran-big.jpg ] && codec=gpuimg-jpeg-cuda
    "$gpuimg" sobel --device cpu "$f" "$tmp/one-cpu/$name" || fail "sobel --device cpu $name"
    "$gpuimg" sobel -v --device cuda "$f" "$tmp/one-cuda/$name" >"$tmp/one.log" 2>&1 ||
        fail "sobel --device cuda $name"
    cmp -s "$tmp/one-cpu/$name" "$tmp/one-cuda/$name" || fail "one file: $name differs"
    grep -qF "codecs $codec/" "$tmp/one.log" ||
        fail "one file: $name: -v does not say 'codecs $codec/'"
    "$gpuimg" thumbnail --size 100 --device cpu "$f" "$tmp/one-cpu/th-$name" ||
        fail "thumbnail --device cpu $name"
    "$gpuimg" thumbnail --size 100 -v --device cuda "$f" "$tmp/one-cuda/th-$name" \
        >"$tmp/one.log" 2>&1 || fail "thumbnail --device cuda $name"
    cmp -s "$tmp/one-cpu/th-$name" "$tmp/one-cuda/th-$name" || fail "one thumbnail: $name differs"
    grep -qF "codecs $codec/" "$tmp/one.log" ||
        fail "one thumbnail: $name: -v does not say 'codecs $codec/'"
done
arith=$jpegs/i1-arithmetic.stb.jpg
for device in cpu cuda; do
    "$gpuimg" sobel --device $device "$arith" "$tmp/arith.jpg" >"$tmp/arith-$device.txt" 2>&1 &&
        fail "$arith: decoded on $device"
done
cmp -s "$tmp/arith-cpu.txt" "$tmp/arith-cuda.txt" || fail "$arith: the messages differ"

# 5. Thumbnails: the default device plans a folder from the shrunk size,
# so a folder's small resizes stay on the CPU, with its bytes (planned at
# the files' size, 400 photos went to CUDA, whose start cost twice their
# time). One 9 MP JPEG, linked 400 times. On 16 cores the folder is too
# short for GPUs beside the cores (their start and exit outlast it); on 2
# it is long enough, and they take some files whole, with the same bytes.
mkdir -p "$tmp/big"
"$gpuimg" resize --device cpu -q --size 3672x2448 --fit fill "$jpegs/prog-jpegtran-big.jpg" \
    "$tmp/big.jpg" || fail "resize to 9 MP"
i=0
while [ $i -lt 400 ]; do ln "$tmp/big.jpg" "$tmp/big/$i.jpg" || fail "ln"; i=$((i + 1)); done
"$gpuimg" thumbnail --size 256 --device cpu "$tmp/big.jpg" "$tmp/th-cpu.jpg" || fail "thumbnail --device cpu"
"$gpuimg" thumbnail --size 256 -j 16 -v -o "$tmp/th" "$tmp"/big/*.jpg >"$tmp/thumb.log" 2>&1 ||
    fail "thumbnail of a folder"
grep -q " on gpu " "$tmp/thumb.log" && fail "thumbnails went to the GPU: $(grep -m1 ' on gpu ' "$tmp/thumb.log")"
"$gpuimg" thumbnail --size 256 -j 2 -v -o "$tmp/th2" "$tmp"/big/*.jpg >"$tmp/thumb2.log" 2>&1 ||
    fail "thumbnail of a folder, 2 codec workers"
grep -q " on gpu [0-9]*: a lane beside the CPU's" "$tmp/thumb2.log" ||
    fail "2 codec workers: no GPU lane beside the CPU's took a file"
grep -q " on cpu" "$tmp/thumb2.log" || fail "2 codec workers: the CPU's lanes took no file"
# A GPU beside the cores that fails hands its files back to the CPU's lanes.
GPUIMG_TEST_FAIL_GPU=0 "$gpuimg" thumbnail --size 256 -j 2 -q -o "$tmp/th3" "$tmp"/big/*.jpg \
    >"$tmp/thumb3.log" 2>&1 || fail "2 codec workers, the GPU failing: $(tail -1 "$tmp/thumb3.log")"
i=0
while [ $i -lt 400 ]; do
    cmp -s "$tmp/th-cpu.jpg" "$tmp/th/$i.jpg" || fail "thumbnail $i.jpg differs from --device cpu's"
    cmp -s "$tmp/th-cpu.jpg" "$tmp/th2/$i.jpg" || fail "2 codec workers: $i.jpg differs from --device cpu's"
    cmp -s "$tmp/th-cpu.jpg" "$tmp/th3/$i.jpg" || fail "the GPU failing: $i.jpg differs from --device cpu's"
    i=$((i + 1))
done

if [ $failed != 0 ]; then
    for log in "$tmp"/*.log; do echo "== $log"; tail -5 "$log"; done
    exit 1
fi
echo "cli jpeg path: cuda and the default equal cpu on $count JPEGs, 4 batches; -v names the path"
