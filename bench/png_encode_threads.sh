#!/bin/sh
# png_encode_threads.sh BEFORE AFTER IMAGE [RUNS]: one PNG's encode on 1
# and 2 threads, two gpuimg builds (BEFORE, AFTER: their cmd/gpuimg)
# alternated run by run (bench/results/2026-11-27-performance-log.md,
# "One PNG on several threads"):
#   1. the encode stage of `gpuimg transpose -v -j J IMAGE out.png`, J = 1
#      and 2 (for a lone image -j is also its encode threads)
#   2. `gpuimg blur --sigma 2 IMAGE out.png`, the whole process: wall and
#      CPU (user + sys) from /usr/bin/time
# RUNS (default 7) runs of each; prints median and best, and the bytes
# written. Outputs go to a fresh folder, removed at the end. On a machine
# shared with other work, a second thread helps only while a core is free:
# run it a few times and compare the rounds.
set -u
before=$1
after=$2
img=$3
runs=${4:-7}
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT

median() { sort -n "$1" | sed -n "$((($(wc -l <"$1") + 1) / 2))p"; }
best() { sort -n "$1" | head -1; }

for r in $(seq "$runs"); do
    for j in 1 2; do
        for which in before after; do
            eval bin=\$$which
            "$bin" transpose -v -j "$j" "$img" "$t/t-$which-$j.png" 2>&1 | tail -1 |
                sed -n 's/.*encode \([0-9.]*\).*/\1/p' >>"$t/encode-$which-$j"
        done
    done
    for which in before after; do
        eval bin=\$$which
        /usr/bin/time -f "%e %U %S" -o "$t/one" "$bin" blur --sigma 2 "$img" "$t/b-$which.png"
        cut -d' ' -f1 "$t/one" >>"$t/wall-$which"
        awk '{ print $2 + $3 }' "$t/one" >>"$t/cpu-$which"
    done
done
for j in 1 2; do
    for which in before after; do
        printf 'encode stage, -j %d, %-6s: median %s ms, best %s ms; %s bytes\n' "$j" "$which" \
            "$(median "$t/encode-$which-$j")" "$(best "$t/encode-$which-$j")" \
            "$(wc -c <"$t/t-$which-$j.png")"
    done
done
for which in before after; do
    printf 'blur --sigma 2, %-6s: wall median %s s, best %s s; CPU median %s s; %s bytes\n' \
        "$which" "$(median "$t/wall-$which")" "$(best "$t/wall-$which")" \
        "$(median "$t/cpu-$which")" "$(wc -c <"$t/b-$which.png")"
done
