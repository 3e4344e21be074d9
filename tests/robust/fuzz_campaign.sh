#!/bin/sh
# fuzz_campaign.sh SECONDS [BUILDDIR [TARGET...]]
#
# A long fuzzing campaign: every target (default decode jpeg_diff pipeline options) of
# BUILDDIR (default build-fuzz, configured with -Dfuzz=enabled) runs for
# SECONDS of wall time, all at once, at low priority (nice 19) so that the
# machine stays usable. Unlike fuzz_smoke.sh, a crash does not stop a target:
# libFuzzer's fork mode keeps going and leaves each crash input in
# BUILDDIR/fuzz-artifacts/TARGET/. The corpus grows in BUILDDIR/fuzz-corpus/
# and carries over to the next campaign or smoke run.
#
# At the end, one line per target: executions, wall and CPU time (user +
# system, the children included), and the crash, timeout and out-of-memory
# inputs found. Logs: BUILDDIR/campaign-TARGET.log. Needs /usr/bin/time.
set -u
[ $# -ge 1 ] || { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
secs=$1
build=${2:-build-fuzz}
shift $(($# < 2 ? $# : 2))
targets=${*:-decode jpeg_diff pipeline options serve_request}
here=$(cd "$(dirname "$0")" && pwd)
command -v /usr/bin/time >/dev/null || { echo "fuzz_campaign: /usr/bin/time is missing (Debian: time)" >&2; exit 1; }
for t in $targets; do
    [ -x "$build/tests/robust/fuzz_$t" ] || { echo "fuzz_campaign: $build/tests/robust/fuzz_$t not built" >&2; exit 1; }
done

# shellcheck source=tests/robust/fuzz_common.sh
. "$here/fuzz_common.sh"
seeds=$(mktemp -d) || exit 1
trap 'rm -rf "$seeds"' EXIT
make_fuzz_seeds "$seeds" || exit 1
for t in $targets; do
    mkdir -p "$build/fuzz-corpus/$t" "$build/fuzz-artifacts/$t"
    # shellcheck disable=SC2086 # $fuzz_limits is a list of options
    nice -n 19 /usr/bin/time -f "cpu_seconds %U %S wall_seconds %e" \
        "$build/tests/robust/fuzz_$t" $fuzz_limits -fork=1 -ignore_crashes=1 \
        -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$secs" \
        -artifact_prefix="$build/fuzz-artifacts/$t/" \
        "$build/fuzz-corpus/$t" "$seeds/$t" >"$build/campaign-$t.log" 2>&1 &
done
wait

for t in $targets; do
    log=$build/campaign-$t.log
    # Fork mode prints "#EXECS: cov: ... oom/timeout/crash: O/T/C time: S ..."
    last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -n 1)
    execs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    found=$(printf '%s\n' "$last" | sed -n 's|.*oom/timeout/crash: *\([0-9/]*\).*|\1|p')
    cpu=$(awk '/^cpu_seconds/ { printf "%.0f", $2 + $3 }' "$log")
    wall=$(awk '/^cpu_seconds/ { printf "%.0f", $5 }' "$log")
    echo "$t: ${execs:-?} executions, ${wall:-?} s wall, ${cpu:-?} s CPU," \
        "oom/timeout/crash ${found:-?}, $(ls "$build/fuzz-artifacts/$t" | wc -l) artifact files"
done
