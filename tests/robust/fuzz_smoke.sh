#!/bin/sh
# fuzz_smoke.sh [SECONDS [BUILDDIR]]
#
# For each libFuzzer target (decode, jpeg_diff, pipeline, options, serve_request, tiff) in BUILDDIR
# (default build-fuzz, configured with -Dfuzz=enabled): replays
# tests/robust/regressions/TARGET/, then fuzzes for SECONDS (default 60;
# 0 = replay only) on one core, from the seeds make_seeds.py writes and the
# corpus kept in BUILDDIR/fuzz-corpus/TARGET. Exit 1 on any crash, 77 when
# the targets are not built. A crash input lands in
# BUILDDIR/fuzz-artifacts/TARGET/; minimize it and keep it:
#   BUILDDIR/tests/robust/fuzz_TARGET -minimize_crash=1 -max_total_time=60 \
#       -exact_artifact_path=tests/robust/regressions/TARGET/NAME CRASH
set -u
secs=${1:-60}
build=${2:-build-fuzz}
here=$(cd "$(dirname "$0")" && pwd)
targets="decode jpeg_diff pipeline options serve_request tiff"
for t in $targets; do
    [ -x "$build/tests/robust/fuzz_$t" ] || {
        echo "skip: $build/tests/robust/fuzz_$t not built (setup with -Dfuzz=enabled, CC=clang)"
        exit 77
    }
done
# shellcheck source=tests/robust/fuzz_common.sh
. "$here/fuzz_common.sh"
seeds=$(mktemp -d) || exit 1
trap 'rm -rf "$seeds"' EXIT
if [ "$secs" -gt 0 ]; then
    make_fuzz_seeds "$seeds" || exit 1
fi
failed=0
for t in $targets; do
    bin=$build/tests/robust/fuzz_$t
    log=$build/fuzz-$t.log
    # -runs=0: execute every input of the folder once, then stop.
    # shellcheck disable=SC2086 # $fuzz_limits is a list of options
    if ! "$bin" $fuzz_limits -runs=0 "$here/regressions/$t" >"$log" 2>&1; then
        echo "FAIL: $t: a regression input crashes; see $log"
        failed=1
        continue
    fi
    echo "$t: $(find "$here/regressions/$t" -type f | wc -l) regression inputs replayed"
    [ "$secs" -gt 0 ] || continue
    mkdir -p "$build/fuzz-corpus/$t" "$build/fuzz-artifacts/$t"
    # shellcheck disable=SC2086
    if "$bin" $fuzz_limits -max_total_time="$secs" -close_fd_mask=3 \
        -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t/" \
        "$build/fuzz-corpus/$t" "$seeds/$t" >"$log" 2>&1; then
        echo "$t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs in ${secs} s, no crash"
    else
        echo "FAIL: $t: crash; input in $build/fuzz-artifacts/$t/, log $log"
        grep -m 3 -E 'ERROR|runtime error|invariant' "$log" | sed 's/^/    /'
        failed=1
    fi
done
exit $failed
