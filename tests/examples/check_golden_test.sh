#!/bin/sh
# check_golden_test.sh GOLDEN_TEST GPUIMG SAMPLES README
# The README's gi_compare example, examples/golden_test.c, answers as the
# README says: 0 for an equal image, 1 for a changed one, 2 for a missing
# file.
set -u
golden_test=$1 gpuimg=$2 samples=$3 readme=$4
. "$(dirname "$0")/checks.sh"
status() { "$golden_test" "$@" >/dev/null 2>&1; echo $?; }
check "README does not point to examples/golden_test.c" grep -q 'examples/golden_test\.c' "$readme"
"$gpuimg" blur "$samples/scene.png" "$tmp/blurred.png"
"$gpuimg" transpose "$samples/scene.png" "$tmp/t.png"
"$gpuimg" transpose "$tmp/t.png" "$tmp/same.png" --png-level 9
check "an equal image does not give 0" [ "$(status "$samples/scene.png" "$tmp/same.png")" = 0 ]
check "a blurred image does not give 1" [ "$(status "$samples/scene.png" "$tmp/blurred.png")" = 1 ]
check "a transposed image does not give 1" [ "$(status "$samples/scene.png" "$tmp/t.png")" = 1 ]
check "a missing file does not give 2" [ "$(status "$samples/scene.png" "$tmp/none.png")" = 2 ]
finish
