#!/bin/sh
# sanitize.sh LOGDIR TEST_BIN...: runs each gpu test binary (small cases
# only) under compute-sanitizer's memcheck, racecheck, initcheck and
# synccheck, the four tools at once, and prints each one's summary line.
# Fails when any tool reports an error or a test itself fails; skips (77)
# without a GPU or without compute-sanitizer.
logdir=$1
shift
command -v compute-sanitizer >/dev/null || { echo "skip: compute-sanitizer not found"; exit 77; }
export GPUIMG_TEST_SMALL=1
tools="memcheck racecheck initcheck synccheck"
failed=0
for test_bin in "$@"; do
    name=$(basename "$test_bin")
    for tool in $tools; do
        extra=
        [ $tool = memcheck ] && extra="--leak-check full"
        # shellcheck disable=SC2086 # $extra is empty or two words
        (compute-sanitizer --tool $tool $extra --error-exitcode 1 "$test_bin" \
            >"$logdir/sanitize-$name-$tool.log" 2>&1
         echo $? >"$logdir/sanitize-$name-$tool.rc") &
    done
    wait
    for tool in $tools; do
        log="$logdir/sanitize-$name-$tool.log"
        rc=$(cat "$logdir/sanitize-$name-$tool.rc")
        [ "$rc" = 77 ] && { echo "skip: no GPU"; exit 77; }
        summary=$(grep -E '^========= (ERROR|RACECHECK|LEAK) SUMMARY' "$log" | tr '\n' ' ')
        result=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log")
        echo "$name $tool: ${summary:-no summary line} | test: ${result:-no result} | exit $rc"
        [ "$rc" = 0 ] || { failed=1; echo "  see $log"; }
    done
done
exit $failed
