#!/bin/sh
# bench/multi_gpu.sh [N] [WORKDIR]: one GPU against every GPU of the host.
#
# Makes N baseline JPEGs of 9 MP (3672x2448; default 400) with gpuimg's own
# writer, from the photos in ../shared/photos when they are there, else
# from the samples, then times `gpuimg blur --sigma 2` of the folder to
# JPEG with --gpus 0 and with --gpus all: a warm-up of each, then 3 runs of
# each, alternated; prints each run, the medians and their ratio.
#
# Environment: GPUIMG (default build/cmd/gpuimg), DEVICE (default auto),
# JOBS (gpuimg -j; default one per core). Run it from the source tree.
set -eu
gpuimg=${GPUIMG:-build/cmd/gpuimg}
n=${1:-400}
work=${2:-$(mktemp -d)}
device=${DEVICE:-auto}
jobs=${JOBS:+-j $JOBS}
[ -x "$gpuimg" ] || { echo "no gpuimg at $gpuimg (set GPUIMG)" >&2; exit 2; }
gpus=$("$gpuimg" info --no-bandwidth | grep -c '^cuda device [0-9]*:' || true)
[ "$gpus" -ge 1 ] || { echo "no GPU: nothing to compare" >&2; exit 2; }

# The inputs: distinct 9 MP bases, copied round-robin to N files.
mkdir -p "$work/base" "$work/in"
sources=$(ls ../shared/photos/*.jpg ../shared/photos/*.png shared/photos/*.jpg \
    shared/photos/*.png 2>/dev/null || true)
[ -n "$sources" ] || sources="samples/scene.jpg samples/scene.png samples/alpha.png"
b=0
for s in $sources; do
    "$gpuimg" resize --no-server -q --size 3672x2448 --fit fill "$s" "$work/base/$b.jpg"
    b=$((b + 1))
done
i=0
while [ "$i" -lt "$n" ]; do
    cp "$work/base/$((i % b)).jpg" "$work/in/$(printf 'img%05d.jpg' "$i")"
    i=$((i + 1))
done
echo "$n JPEGs of 3672x2448 from $b bases in $work/in; $gpus GPU(s); device $device"

# run LIST: seconds for one blur of the folder with --gpus LIST.
run() {
    rm -rf "$work/out"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # $jobs is an option and its value, or nothing
    "$gpuimg" blur --no-server -q --sigma 2 --device "$device" --gpus "$1" $jobs \
        -o "$work/out" "$work"/in/*.jpg
    end=$(date +%s.%N)
    echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

run 0 >/dev/null
run all >/dev/null
: >"$work/one.txt"
: >"$work/all.txt"
for r in 1 2 3; do
    t1=$(run 0)
    ta=$(run all)
    echo "run $r: --gpus 0 $t1 s, --gpus all $ta s"
    echo "$t1" >>"$work/one.txt"
    echo "$ta" >>"$work/all.txt"
done
m1=$(median <"$work/one.txt")
ma=$(median <"$work/all.txt")
echo "median: --gpus 0 $m1 s, --gpus all ($gpus GPUs) $ma s" \
    "($(echo "$n $m1" | awk '{ printf "%.1f", $1 / $2 }') and" \
    "$(echo "$n $ma" | awk '{ printf "%.1f", $1 / $2 }') images/s)"
echo "$m1 $ma" | awk '{ printf "speed-up: %.2fx\n", $1 / $2 }'
