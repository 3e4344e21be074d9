#!/bin/sh
# check_golden_test.sh GOLDEN_TEST GPUIMG SAMPLES README SOURCE
# The README's gi_compare example is examples/golden_test.c, and it answers
# 0 for an equal image, 1 for a changed one, 2 for a missing file.
set -u
golden_test=$1 gpuimg=$2 samples=$3 readme=$4 source=$5
. "$(dirname "$0")/checks.sh"
status() { "$golden_test" "$@" >/dev/null 2>&1; echo $?; }
sed -n '/^```c golden_test.c$/,/^```$/p' "$readme" | sed '1d;$d' >"$tmp/readme.c"
check "README's example is not examples/golden_test.c" cmp -s "$tmp/readme.c" "$source"
"$gpuimg" blur "$samples/scene.png" "$tmp/blurred.png"
"$gpuimg" transpose "$samples/scene.png" "$tmp/t.png"
"$gpuimg" transpose "$tmp/t.png" "$tmp/same.png" --png-level 9
check "an equal image does not give 0" [ "$(status "$samples/scene.png" "$tmp/same.png")" = 0 ]
check "a blurred image does not give 1" [ "$(status "$samples/scene.png" "$tmp/blurred.png")" = 1 ]
check "a transposed image does not give 1" [ "$(status "$samples/scene.png" "$tmp/t.png")" = 1 ]
check "a missing file does not give 2" [ "$(status "$samples/scene.png" "$tmp/none.png")" = 2 ]
finish
