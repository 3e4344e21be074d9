#!/bin/sh
# The GNU parallel recipe (skipped without parallel): find ... |
# scripts/parallel_chunks.sh OUT blur --sigma 1 in chunks of 3 files, two
# at a time, writes what one unsharded batch writes, byte for byte, one
# summary per chunk, and scripts/merge_summaries.sh adds them up right.
. "$(dirname "$0")/common.sh"
# moreutils has a parallel of its own, with other options.
parallel --version 2>/dev/null | grep -q 'GNU parallel' || skip "GNU parallel is not installed"
cd "$tmp" || exit 1
bad=$(( $(mixed_inputs in/a 12) + $(mixed_inputs in/b/c 9) ))
total=21
# The outputs keep their base names: those of in/b/c get their own.
for f in in/b/c/*; do mv "$f" "in/b/c/c-${f##*/}"; done
find in -type f >list
# parallel keeps its state under $PARALLEL_HOME (default ~/.parallel).
export PARALLEL_HOME="$tmp/parallel-home"

gi blur --sigma 1 -o full --files-from list
check "unsharded: want $((total - bad)) ok, $bad failed" \
    [ "$(count ok stderr)/$(count failed stderr)" = "$((total - bad))/$bad" ]

GPUIMG=$gpuimg CHUNK=3 JOBS=2 sh "$scripts/parallel_chunks.sh" out blur --sigma 1 \
    <list >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "parallel_chunks.sh: exit $rc, want non-zero (bad files)" [ "$rc" -ne 0 ]
check "parallel_chunks.sh: stdout not empty" [ ! -s "$tmp/stdout" ]
check "parallel_chunks.sh: $(grep -c . stderr) stderr lines, want $bad (the failures)" \
    [ "$(grep -c . stderr)" -eq "$bad" ]
files out | grep -v '^\.summaries/' >images
check "parallel_chunks.sh: the outputs are not those of the unsharded run" \
    [ "$(cat images)" = "$(files full)" ]
for f in $(cat images); do check "out/$f differs from the unsharded run's" same_file "out/$f" "full/$f"; done
check "want 7 chunk summaries, got $(files out/.summaries | tr '\n' ' ')" \
    [ "$(files out/.summaries | wc -l)" -eq 7 ]

sh "$scripts/merge_summaries.sh" out/.summaries/*.json >merged 2>&1
merge_rc=$?
check "merge_summaries.sh: exit $merge_rc, want 1 (failures)" [ "$merge_rc" -eq 1 ]
want="$total files, ok $((total - bad)), failed $bad, skipped 0, not_started 0"
check "merge_summaries.sh: '$(head -n 1 merged)', want '$want'" [ "$(head -n 1 merged)" = "$want" ]
check "merge_summaries.sh: want $bad lines naming failed inputs" \
    [ "$(grep -c '^failed "in/' merged)" -eq "$bad" ]
finish
