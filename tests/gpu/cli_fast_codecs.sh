#!/bin/sh
# cli_fast_codecs.sh GPUIMG JPEGS PHOTOS ROBUST SAMPLES: `--codecs fast`.
#  1. The operation on nvJPEG's pixels: blur and sobel with --codecs fast
#     --device cuda write the same PNGs, byte for byte, as --device cpu on
#     the same nvJPEG-decoded pixels (--jpeg-decoder nvjpeg).
#     JPEG out too: the device path (--device cuda: decoded, computed and
#     encoded on the GPU) writes the same bytes as --device cpu, which
#     computes on the host between nvJPEG's decode and encode.
#  2. Same input, same output bytes: a batch of JPEGs to JPEG with -j 1 and
#     with -j 4 gives identical files, and so does each file alone (the
#     device path decodes a batch's files in groups, a lone file alone).
#  3. -v names the codecs: nvjpeg/nvjpeg for a JPEG to JPEG, stb/stb for a
#     CMYK JPEG (nvJPEG refuses it) to PNG.
#  4. Every file of the bad-input corpus (tests/robust/cases.txt, made by
#     make_corpus.py) ends as it does with the exact codecs: the same exit
#     status, a failure naming the file, nothing left behind on failure;
#     except the files of decoded_by_nvjpeg, whose entropy-coded data is
#     corrupt in a complete file: nvJPEG decodes them (gpuimg.h, FAST).
#     hist too: the same exit status, the failure naming the file.
#  5. hist --codecs fast (a JPEG the device path takes is decoded by nvJPEG
#     into device memory and counted there, only the counts coming back)
#     writes the same report, byte for byte, as --device cpu on the same
#     nvJPEG-decoded pixels (--jpeg-decoder nvjpeg): --stats, --bins, each
#     format, --auto-orient, and a step before it (pipe 'blur | hist').
#     -v says that a file was decoded and counted on the GPU, and on a GPU
#     with JPEG engines at least one input took that path.
# Parts 2-5 name --device cuda: under the default device, fast codecs take
# the GPU only for jobs whose JPEGs repay its start-up (gi_fast_codecs_pay,
# tests/lib/test_device_plan.c), which these few files do not; part 6 checks
# that they then get the exact codecs' bytes.
#  6. The default device: the batch of part 2 and one file alone with
#     --codecs fast write exact's bytes, and -v says why.
# Skips (77) without nvJPEG or a GPU.
gpuimg=$1 jpegs=$2 photos=$3 robust=$4 samples=$5
decoded_by_nvjpeg="jpeg-flip-scan.jpg"
"$gpuimg" info --no-bandwidth | grep -q '^jpeg decoders:.* nvjpeg' || {
    echo "skip: no nvJPEG in this build"; exit 77; }
"$gpuimg" info --no-bandwidth | grep -q '^cuda device 0:' || { echo "skip: no GPU"; exit 77; }
unset GPUIMG_DEVICE GPUIMG_MAX_PIXELS GPUIMG_JPEG_DECODER GPUIMG_CODECS

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

inputs=
for f in "$jpegs"/*.jpg "$photos"/*.jpg "$photos"/*.jpeg; do
    case $(basename "$f") in fail-*) continue ;; esac
    [ -f "$f" ] && inputs="$inputs $f"
done

# 1
# cpu_flags FORMAT: the host run to compare the device path with: for PNG
# out, nvJPEG's decode alone; for JPEG out, its encode too.
cpu_flags() { [ "$1" = png ] && echo "--jpeg-decoder nvjpeg" || echo "--codecs fast"; }
for op in "blur --sigma 2" "sobel"; do
    for fmt in png jpeg; do
        mkdir "$tmp/cpu" "$tmp/cuda" || exit 1
        # shellcheck disable=SC2086 # $op, $inputs and cpu_flags are word lists
        "$gpuimg" $op $(cpu_flags $fmt) --device cpu --format $fmt -o "$tmp/cpu" $inputs ||
            fail "$op --device cpu, $fmt out"
        # shellcheck disable=SC2086
        "$gpuimg" $op --codecs fast --device cuda --format $fmt -o "$tmp/cuda" $inputs ||
            fail "$op --codecs fast --device cuda, $fmt out"
        for f in "$tmp"/cpu/*; do
            cmp -s "$f" "$tmp/cuda/$(basename "$f")" ||
                fail "$op: $(basename "$f"): $fmt from the device path differs"
        done
        rm -rf "$tmp/cpu" "$tmp/cuda"
    done
done

# 2
for j in 1 4; do
    # shellcheck disable=SC2086
    "$gpuimg" blur --sigma 2 --codecs fast --device cuda -j $j -o "$tmp/j$j" $inputs ||
        fail "batch -j $j"
done
for f in "$tmp"/j1/*; do
    cmp -s "$f" "$tmp/j4/$(basename "$f")" || fail "$(basename "$f"): -j 1 and -j 4 differ"
done
for f in $inputs; do
    name=$(basename "$f")
    "$gpuimg" blur --sigma 2 --codecs fast --device cuda "$f" "$tmp/alone-$name" ||
        fail "$name alone"
    cmp -s "$tmp/alone-$name" "$tmp/j4/$name" || fail "$name: alone and in a batch differ"
done

# 3
one=$(echo $inputs | cut -d' ' -f1)
"$gpuimg" flip h -v --codecs fast --device cuda "$one" "$tmp/one.jpg" 2>&1 |
    grep -q 'codecs nvjpeg-[a-z]*/nvjpeg' ||
    fail "-v does not say nvjpeg-.../nvjpeg for $one"
if [ -f "$jpegs/fail-cmyk-333x101.jpg" ]; then
    "$gpuimg" flip h -v --codecs fast --device cuda "$jpegs/fail-cmyk-333x101.jpg" "$tmp/cmyk.png" 2>&1 |
        grep -Eq 'codecs (stb|gpuimg-jpeg)/stb' ||
        fail "-v does not name an exact decoder for the CMYK file"
fi

# 4
corpus=$tmp/corpus
if python3 "$robust/make_corpus.py" "$robust/cases.txt" "$samples" "$corpus" >/dev/null 2>&1; then
    n=0
    for f in "$corpus"/*; do
        case $f in *.skip | *.pam) continue ;; esac
        [ -f "$f" ] && [ -r "$f" ] || continue
        n=$((n + 1))
        for mode in exact fast; do
            mkdir "$tmp/$mode" || exit 1
            device=auto
            [ $mode = fast ] && device=cuda # the default device would take the exact codecs
            "$gpuimg" flip h --codecs $mode --device $device "$f" "$tmp/$mode/out.png" \
                2>"$tmp/$mode.err"
            echo $? >"$tmp/$mode.rc"
        done
        for mode in exact fast; do
            rm -f "$tmp/hist-$mode.txt"
            device=auto
            [ $mode = fast ] && device=cuda
            "$gpuimg" hist --codecs $mode --device $device "$f" "$tmp/hist-$mode.txt" \
                2>"$tmp/$mode.hist.err"
            echo $? >"$tmp/$mode.hist.rc"
        done
        name=$(basename "$f")
        case " $decoded_by_nvjpeg " in *" $name "*) rm -rf "$tmp/exact" "$tmp/fast"; continue ;; esac
        cmp -s "$tmp/exact.rc" "$tmp/fast.rc" ||
            fail "$name: exit $(cat "$tmp/fast.rc") with fast codecs, $(cat "$tmp/exact.rc") exact"
        cmp -s "$tmp/exact.hist.rc" "$tmp/fast.hist.rc" ||
            fail "$name: hist exits $(cat "$tmp/fast.hist.rc") with fast codecs," \
                "$(cat "$tmp/exact.hist.rc") exact"
        if [ "$(cat "$tmp/fast.rc")" != 0 ]; then
            grep -qF "$name" "$tmp/fast.err" || fail "$name: the failure does not name the file"
            [ -z "$(ls -A "$tmp/fast")" ] || fail "$name: left $(ls -A "$tmp/fast") behind"
        fi
        if [ "$(cat "$tmp/fast.hist.rc")" != 0 ]; then
            grep -qF "$name" "$tmp/fast.hist.err" ||
                fail "$name: hist's failure does not name the file"
            [ ! -e "$tmp/hist-fast.txt" ] || fail "$name: hist left its output behind"
        fi
        rm -rf "$tmp/exact" "$tmp/fast"
    done
    echo "robust corpus: $n files, the same outcome with fast codecs but $decoded_by_nvjpeg"
else
    echo "robust corpus: not made (python3?), part 4 skipped"
fi
# 5
on_gpu=0
for f in $inputs; do
    name=$(basename "$f")
    for opts in "--stats" "--bins 7 --format csv" "--stats --bins 16 --format json --auto-orient"; do
        # shellcheck disable=SC2086 # $opts is a word list
        "$gpuimg" hist $opts --jpeg-decoder nvjpeg --device cpu "$f" "$tmp/cpu.txt" ||
            fail "hist $opts --device cpu: $name"
        # shellcheck disable=SC2086
        "$gpuimg" hist -v $opts --codecs fast --device cuda "$f" "$tmp/fast.txt" 2>"$tmp/hist.err" ||
            fail "hist $opts --codecs fast: $name: $(cat "$tmp/hist.err")"
        cmp -s "$tmp/cpu.txt" "$tmp/fast.txt" ||
            fail "hist $opts --codecs fast: $name: not the CPU's counts of nvJPEG's pixels"
        grep -q 'decoded by nvjpeg-[a-z]* and counted on the GPU' "$tmp/hist.err" &&
            on_gpu=$((on_gpu + 1))
        rm -f "$tmp/cpu.txt" "$tmp/fast.txt"
    done
    "$gpuimg" pipe 'blur --sigma 2 | hist --stats' --jpeg-decoder nvjpeg --device cpu "$f" \
        "$tmp/cpu.txt" || fail "pipe 'blur | hist' --device cpu: $name"
    "$gpuimg" pipe 'blur --sigma 2 | hist --stats' --codecs fast --device cuda "$f" "$tmp/fast.txt" ||
        fail "pipe 'blur | hist' --codecs fast: $name"
    cmp -s "$tmp/cpu.txt" "$tmp/fast.txt" ||
        fail "pipe 'blur | hist' --codecs fast: $name: not the CPU's counts"
    rm -f "$tmp/cpu.txt" "$tmp/fast.txt"
done
# The device path needs JPEG engines: a batch's -v says whether they decoded.
# shellcheck disable=SC2086
if "$gpuimg" blur -v --sigma 2 --codecs fast --device cuda -o "$tmp/engines" $inputs 2>&1 |
    grep -q 'codecs nvjpeg-hardware'; then
    [ $on_gpu -gt 0 ] || fail "hist --codecs fast: no input was decoded and counted on the GPU"
fi
echo "hist --codecs fast: $on_gpu runs decoded and counted on the GPU"
# 6
# shellcheck disable=SC2086
"$gpuimg" blur --sigma 2 --codecs exact -o "$tmp/auto-exact" $inputs || fail "exact batch"
# shellcheck disable=SC2086
"$gpuimg" blur -v --sigma 2 --codecs fast -o "$tmp/auto-fast" $inputs 2>"$tmp/auto.err" ||
    fail "fast batch, default device"
for f in "$tmp"/auto-exact/*; do
    cmp -s "$f" "$tmp/auto-fast/$(basename "$f")" ||
        fail "$(basename "$f"): --codecs fast under the default device is not exact's"
done
grep -Eq 'codecs (gpuimg-jpeg|stb)/stb, exact codecs: [0-9]* JPEG file' "$tmp/auto.err" ||
    fail "-v does not say why the exact codecs took the batch: $(head -n 2 "$tmp/auto.err")"
[ $failed = 0 ] && echo "fast codecs: ok on $(echo $inputs | wc -w | tr -d ' ') JPEGs"
exit $failed
