#!/bin/sh
# Concurrency: 200 inputs, good and bad mixed, with -j 8 and with -j 1:
# exit 1 both times, byte-identical outputs, the same counts and the same
# failure lines (in any order), and no temporaries left.
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
total=200
bad=$(mixed_inputs in $total)

for jobs in 1 8; do
    expect 1 blur --sigma 1.5 -j "$jobs" -r -o "out$jobs" in
    check "-j $jobs: want $((total - bad)) ok, $bad failed" \
        [ "$(count ok stderr)/$(count failed stderr)" = "$((total - bad))/$bad" ]
    grep -v ' ok, ' stderr | LC_ALL=C sort >"failures$jobs"
    check "-j $jobs: want one line per failed file" [ "$(wc -l <"failures$jobs")" -eq "$bad" ]
    check "-j $jobs: temporaries left: $(temporaries "out$jobs" | head -n 3)" no_temporaries "out$jobs"
done
check "-j 8 and -j 1 wrote different outputs" same_tree out1 out8
check "-j 8 and -j 1 report different failures" same_file failures1 failures8
check "the outputs are not one per good input" [ "$(files out1 | wc -l)" -eq $((total - bad)) ]
# Sample the outputs against single-image runs (all 200 would double the time).
for f in img000.png img001.png img002.png img007.jpg; do
    "$gpuimg" blur --sigma 1.5 "in/$f" "single-$f"
    check "-j 8: $f differs from its single-image run" same_file "out8/$f" "single-$f"
done
finish
