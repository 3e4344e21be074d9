#!/bin/sh
# SIGINT during a batch (-j 1, sent once the first output exists): the
# images in flight finish, no more start, the summary says how many were
# not started and that the run was interrupted, the exit status is 130, and
# no temporary or partial output is left: every output there is is the
# single-image result. Two SIGINTs in a row: exit 130, nothing partial.
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1

# 400 names for one 192x192 noise image: a few seconds of work at -j 1,
# and one single-image result to compare every output with.
"$noise_png" 192 192 7 noise.png
"$gpuimg" blur noise.png ref.png
mkdir in
i=100
while [ "$i" -lt 500 ]; do
    ln -s ../noise.png "in/n$i.png"
    i=$((i + 1))
done
total=400

has_output() { [ -n "$(find "$1" -name 'n*.png' 2>/dev/null | head -n 1)" ]; }

# interrupt_batch OUT SIGNALS: starts the batch into OUT, sends SIGINT
# SIGNALS times once an output exists, and sets $rc to its exit status.
interrupt_batch() {
    "$gpuimg" blur -j 1 -r -o "$1" --summary-json "$1.json" in 2>"$tmp/stderr" &
    pid=$!
    wait_until 10 has_output "$1"
    k=0
    while [ "$k" -lt "$2" ]; do
        kill -INT "$pid"
        k=$((k + 1))
    done
    wait "$pid"
    rc=$?
}

# outputs_complete OUT: no temporaries, and every output decodes to ref.png.
outputs_complete() {
    check "$1: temporaries left: $(temporaries "$1" | head -n 3)" no_temporaries "$1"
    for f in $(files "$1"); do
        check "$1/$f is partial or wrong" same_image "$1/$f" ref.png
    done
}

interrupt_batch once 1
check "one SIGINT: exit $rc, want 130" [ "$rc" -eq 130 ]
check "one SIGINT: the summary does not say 'interrupted'" has interrupted "$tmp/stderr"
ok=$(count ok stderr) nfailed=$(count failed stderr) left=$(count "not started" stderr)
check "one SIGINT: the batch ended before the signal ($left not started)" [ "$left" -gt 0 ]
check "one SIGINT: $ok ok + $nfailed failed + $left not started, want $total" \
    [ $((ok + nfailed + left)) -eq "$total" ]
check "one SIGINT: $(files once | wc -l) outputs, want $ok" [ "$(files once | wc -l)" -eq "$ok" ]
outputs_complete once
check "once.json: want \"interrupted\": true" has '"interrupted": true,' once.json
check "once.json: want $left not_started entries" \
    [ "$(grep -c '"status": "not_started"' once.json)" -eq "$left" ]

# The second signal may come before or after the first image in flight
# finishes: either way nothing partial may stay.
interrupt_batch twice 2
check "two SIGINTs: exit $rc, want 130" [ "$rc" -eq 130 ]
outputs_complete twice
finish
