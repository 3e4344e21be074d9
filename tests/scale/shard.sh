#!/bin/sh
# --shard K/N: for N = 1..5 the N shards, each into its own directory,
# write every output of the unsharded run exactly once, byte for byte, and
# their ok and failed counts add up to the unsharded ones. Malformed or out
# of range K/N (digits only; past int's range too) is a usage error (exit 2).
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
# Inputs from -r and from --files-from, mixed in the sorted list.
bad=$(( $(mixed_inputs in/top 17) + $(mixed_inputs in/sub 6) ))
total=23
# --files-from outputs keep their base names: the listed ones get their own.
for f in in/sub/*; do mv "$f" "in/sub/sub-${f##*/}"; done
files in/sub | sed 's|^|in/sub/|' >sub-list

gi blur -r -o full --files-from sub-list in/top
check "unsharded: want $((total - bad)) ok, $bad failed" \
    [ "$(count ok stderr)/$(count failed stderr)" = "$((total - bad))/$bad" ]

for n in 1 2 3 4 5; do
    k=0 got_ok=0 got_failed=0
    : >written
    : >differ
    while [ "$k" -lt "$n" ]; do
        "$gpuimg" blur -r -o "shard$k" --shard "$k/$n" --files-from sub-list in/top \
            2>"$tmp/stderr"
        got_ok=$((got_ok + $(count ok "$tmp/stderr")))
        got_failed=$((got_failed + $(count failed "$tmp/stderr")))
        files "shard$k" >>written
        for f in $(files "shard$k"); do cmp -s "shard$k/$f" "full/$f" || echo "$f" >>differ; done
        rm -rf "shard$k"
        k=$((k + 1))
    done
    check "$n shards: written twice: $(LC_ALL=C sort written | uniq -d | tr '\n' ' ')" \
        [ -z "$(LC_ALL=C sort written | uniq -d)" ]
    check "$n shards: the outputs differ from the unsharded run's" \
        [ "$(LC_ALL=C sort written)" = "$(files full)" ]
    check "$n shards: outputs differing in bytes: $(tr '\n' ' ' <differ)" \
        [ ! -s differ ]
    check "$n shards: $got_ok ok and $got_failed failed, want $((total - bad)) and $bad" \
        [ "$got_ok/$got_failed" = "$((total - bad))/$bad" ]
done

# 4294967296 = 2^32: read with sscanf's %d it wrapped to shard 0 of 2
for shard in 5/5 -1/2 1/0 x 0/ /2 0/2x 0/2/3 "0 2" "" 4294967296/2 0/4294967298 " 0/2" 0/+2; do
    expect 2 blur -o bad-shard --shard "$shard" in/top/img000.png
    check "--shard '$shard': the message does not name --shard" has shard "$tmp/stderr"
done
check "a refused --shard wrote files" [ ! -e bad-shard ]
expect 2 blur --shard 0/2 in/top/img000.png single.png
check "--shard without -o wrote a file" [ ! -e single.png ]
finish
