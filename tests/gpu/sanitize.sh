#!/bin/sh
# sanitize.sh GPU_VS_CPU [LOGDIR]: runs the gpu_vs_cpu test binary (small
# cases only) under compute-sanitizer's memcheck, racecheck, initcheck and
# synccheck, all four at once, and prints each tool's summary line. Fails
# when any tool reports an error or the test itself fails; skips (77)
# without a GPU or without compute-sanitizer.
test_bin=$1
logdir=${2:-${TMPDIR:-/tmp}}
command -v compute-sanitizer >/dev/null || { echo "skip: compute-sanitizer not found"; exit 77; }
export GPUIMG_TEST_SMALL=1
tools="memcheck racecheck initcheck synccheck"
for tool in $tools; do
    extra=
    [ $tool = memcheck ] && extra="--leak-check full"
    # shellcheck disable=SC2086 # $extra is empty or two words
    (compute-sanitizer --tool $tool $extra --error-exitcode 1 "$test_bin" \
        >"$logdir/sanitize-$tool.log" 2>&1
     echo $? >"$logdir/sanitize-$tool.rc") &
done
wait
failed=0
for tool in $tools; do
    log="$logdir/sanitize-$tool.log"
    rc=$(cat "$logdir/sanitize-$tool.rc")
    [ "$rc" = 77 ] && { echo "skip: no GPU"; exit 77; }
    summary=$(grep -E '^========= (ERROR|RACECHECK|LEAK) SUMMARY' "$log" | tr '\n' ' ')
    result=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log")
    echo "$tool: ${summary:-no summary line} | test: ${result:-no result} | exit $rc"
    [ "$rc" = 0 ] || { failed=1; echo "  see $log"; }
done
exit $failed
