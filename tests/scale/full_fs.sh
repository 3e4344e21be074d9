#!/bin/sh
# A batch into a full file system (a 64 KiB tmpfs; skipped where mounting is
# not permitted): exit 1, every input accounted for (ok + failed = total,
# on stderr and in --summary-json), each failure saying why, no temporaries
# left, and every output that exists is complete.
. "$(dirname "$0")/common.sh"
mkdir "$tmp/full"
mount -t tmpfs -o size=64k gpuimg-test "$tmp/full" 2>/dev/null ||
    skip "cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)"
at_exit() { umount "$tmp/full"; }
cd "$tmp" || exit 1

# Twelve 64x64 noise images (about 12 KiB each, flipped they stay that
# size) and the samples: more than the 64 KiB there is.
sample_inputs in >/dev/null
rm in/bad.png
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do "$noise_png" 64 64 "$i" "in/noise$i.png"; done
total=17
single_runs in ref flip h

expect 1 flip h -r -o full/out --summary-json summary.json in
ok=$(count ok stderr) nfailed=$(count failed stderr)
check "stderr: $ok ok + $nfailed failed, want $total in all" [ $((ok + nfailed)) -eq "$total" ]
check "the file system never filled up" [ "$nfailed" -gt 0 ]
check "nothing was written" [ "$ok" -gt 0 ]
check "failures not saying why" \
    [ "$(grep -c 'No space left on device' stderr)" -eq "$nfailed" ]
check "summary.json: want $ok ok and $nfailed failed entries" \
    [ "$(grep -c '"status": "ok"' summary.json)/$(grep -c '"status": "failed"' summary.json)" \
        = "$ok/$nfailed" ]
check "temporaries left: $(temporaries full | head -n 3)" no_temporaries full
check "want $ok outputs, got $(files full/out | wc -l)" [ "$(files full/out | wc -l)" -eq "$ok" ]
for f in $(files full/out); do
    check "$f is incomplete or wrong" same_file "full/out/$f" "ref/$f"
done
finish
