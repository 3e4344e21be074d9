#!/bin/sh
# gpuimg pipe against the two-process shell pipe through PNG, whole
# commands, alternating, median of REPS (default 5), same output checked:
#   scripts/bench_pipe.sh [PHOTO...]   (default ../shared/photos/*.png *.jpg)
#   STEPS='blur --sigma 2 | sobel' GPUIMG=build/cmd/gpuimg REPS=5
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
g=${GPUIMG:-$root/build/cmd/gpuimg}
imgcmp=${IMGCMP:-$root/build/tests/imgcmp}
steps=${STEPS:-blur --sigma 2 | sobel}
reps=${REPS:-5}
first=${steps%%|*}
second=${steps#*|}
[ $# -gt 0 ] || set -- "$root"/../shared/photos/*.png "$root"/../shared/photos/*.jpg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ms() { s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "| file | pipe '$steps' ms | shell pipe through PNG ms | speed-up |"
echo "| --- | --- | --- | --- |"
for f in "$@"; do
    : >"$tmp/a"
    : >"$tmp/b"
    for _ in $(seq "$reps"); do
        ms "$g" pipe "$steps" "$f" "$tmp/pipe.png" >>"$tmp/a"
        ms sh -c "\"$g\" $first \"$f\" - --format png | \"$g\" $second - \"$tmp/shell.png\"" >>"$tmp/b"
    done
    "$imgcmp" "$tmp/pipe.png" "$tmp/shell.png" >/dev/null || { echo "$f: outputs differ" >&2; exit 1; }
    a=$(median <"$tmp/a")
    b=$(median <"$tmp/b")
    echo "| ${f##*/} | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx", b / a }') |"
done
