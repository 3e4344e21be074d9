#!/bin/sh
# check_folder_blur.sh FOLDER_BLUR GPUIMG IMGCMP SAMPLES README
# The README's batch example: README.md links examples/folder_blur.c, and it
# blurs a folder exactly as `gpuimg blur --sigma 2 -o` does, failing
# (exit 1, naming the file) on a bad input while writing the others.
set -u
folder_blur=$1 gpuimg=$2 imgcmp=$3 samples=$4 readme=$5 source=$6
. "$(dirname "$0")/checks.sh"
check "README does not link examples/folder_blur.c" grep -q '(examples/folder_blur.c)' "$readme"
mkdir "$tmp/in" "$tmp/out" "$tmp/want"
cp "$samples/scene.png" "$samples/alpha.png" "$samples/scene.jpg" "$tmp/in/"
"$folder_blur" "$tmp/in" "$tmp/out" >"$tmp/log" 2>&1
check "folder_blur failed on good inputs: $(cat "$tmp/log")" [ $? -eq 0 ]
"$gpuimg" blur --sigma 2 -q -o "$tmp/want" "$tmp/in"/*
for f in scene.png alpha.png scene.jpg; do
    check "$f differs from gpuimg blur -o" "$imgcmp" "$tmp/out/$f" "$tmp/want/$f"
done
printf 'not an image' >"$tmp/in/bad.png"
"$folder_blur" "$tmp/in" "$tmp/out" >"$tmp/log" 2>&1
check "a bad input did not fail the run" [ $? -eq 1 ]
check "the failure does not name bad.png" grep -q "bad.png" "$tmp/log"
finish
