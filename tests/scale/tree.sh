#!/bin/sh
# Batch inputs: -r mirrors the tree under -o, skipping hidden names and
# names that are not .png/.jpg/.jpeg; a directory without -r fails with a
# message; --files-from FILE and --files-from - (stdin) mirror the listed
# paths. Every output is byte for byte the single-image result.
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1

# in/ holds images at three depths, one bad file, hidden files and
# directories, and names that are not images (one with PNG bytes).
sample_inputs in >/dev/null
mkdir -p in/a/b in/.cache
cp "$samples/gray_alpha.png" in/a/
cp "$samples/edge_line.png" in/a/b/
cp "$samples/scene.jpg" in/a/b/photo.JPEG
cp "$samples/scene.png" in/.hidden.png
cp "$samples/scene.png" in/.cache/scene.png
cp "$samples/alpha.png" in/a/.x.jpg
cp "$samples/scene.png" in/notes.txt
printf 'read me\n' >in/a/b/README
good="alpha.png edge_line.png gray_alpha.png scene.jpg scene.png a/gray_alpha.png
a/b/edge_line.png a/b/photo.JPEG"
for f in $good; do
    mkdir -p "ref/$(dirname "$f")"
    "$gpuimg" blur --sigma 2 "in/$f" "ref/$f"
done

expect 1 blur --sigma 2 -r -o out in
check "-r: outputs $(files out | tr '\n' ' '), want those of ref/" same_tree out ref
check "-r: bad.png not named on stderr" has in/bad.png stderr
check "-r: stderr names files other than bad.png" \
    [ "$(grep -c '^gpuimg blur: in/' stderr)" -eq 1 ]
check "-r: want 8 ok, 1 failed" [ "$(count ok stderr)/$(count failed stderr)" = 8/1 ]

# A directory without -r is one failed input, named, and writes nothing.
expect 1 blur -o out-flat in in/scene.png
check "directory without -r: no message naming it" has 'in: .*directory' stderr
check "directory without -r: outputs $(files out-flat | tr '\n' ' ')" \
    [ "$(files out-flat)" = scene.png ]

# --files-from FILE: paths mirrored under -o (./ dropped); blank lines and
# CRLF line ends tolerated.
printf 'in/scene.png\n\n./in/a/b/photo.JPEG\r\nin/a/gray_alpha.png\n' >list
expect 0 blur --sigma 2 --files-from list -o out-list
for f in scene.png a/b/photo.JPEG a/gray_alpha.png; do
    check "--files-from FILE: in/$f missing or wrong" same_file "out-list/in/$f" "ref/$f"
done
check "--files-from FILE: outputs $(files out-list | tr '\n' ' ')" \
    [ "$(files out-list | wc -l)" -eq 3 ]

# --files-from -: the whole good list on standard input, with a command-line
# file beside it (kept under its base name).
for f in $good; do echo "in/$f"; done >stdin-list
expect 0 blur --sigma 2 --files-from - -o out-stdin in/a/b/edge_line.png <stdin-list
check "--files-from -: in/ differs from ref/" same_tree out-stdin/in ref
check "--files-from -: the command-line file missing or wrong" \
    same_file out-stdin/edge_line.png ref/a/b/edge_line.png
check "--files-from -: stray outputs" [ "$(files out-stdin | wc -l)" -eq 9 ]

expect 1 blur --files-from no-such-list -o out-none
check "--files-from a missing file: not named" has no-such-list stderr
finish
