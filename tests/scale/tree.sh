#!/bin/sh
# Batch inputs: -r mirrors the tree under -o, skipping hidden names and
# names that are not .png/.jpg/.jpeg; a directory without -r fails with a
# message; the paths of --files-from FILE and --files-from - (stdin) keep
# their base names, as arguments do. Every output is byte for byte the
# single-image result.
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

# --files-from FILE: outputs keep their base names, as files named on the
# command line do; blank lines and CRLF line ends tolerated.
printf 'in/scene.png\n\n./in/a/b/photo.JPEG\r\nin/a/gray_alpha.png\n' >list
expect 0 blur --sigma 2 --files-from list -o out-list
for f in scene.png a/b/photo.JPEG a/gray_alpha.png; do
    check "--files-from FILE: $(basename "$f") missing or wrong" \
        same_file "out-list/$(basename "$f")" "ref/$f"
done
check "--files-from FILE: outputs $(files out-list | tr '\n' ' ')" \
    [ "$(files out-list | tr '\n' ' ')" = "gray_alpha.png photo.JPEG scene.png " ]

# --files-from -: the list on standard input, with a command-line file
# beside it; all four keep their base names.
printf 'in/scene.png\nin/a/gray_alpha.png\nin/a/b/photo.JPEG\n' >stdin-list
expect 0 blur --sigma 2 --files-from - -o out-stdin in/a/b/edge_line.png <stdin-list
for f in scene.png a/gray_alpha.png a/b/photo.JPEG a/b/edge_line.png; do
    check "--files-from -: $(basename "$f") missing or wrong" \
        same_file "out-stdin/$(basename "$f")" "ref/$f"
done
check "--files-from -: outputs $(files out-stdin | tr '\n' ' ')" [ "$(files out-stdin | wc -l)" -eq 4 ]

# Two listed paths with one base name: as for arguments, the batch is
# refused before anything is written, naming the later input in sorted
# order, the first and the file.
printf 'in/gray_alpha.png\nin/a/gray_alpha.png\nin/scene.png\n' >same-list
expect 1 blur --sigma 2 --files-from same-list -o out-same
check "--files-from, one base name twice: the inputs or the file not named" \
    has 'in/gray_alpha.png: in/a/gray_alpha.png writes the same output file, out-same/gray_alpha.png' \
    stderr
check "--files-from, one base name twice: written $(files out-same | tr '\n' ' ')" \
    [ -z "$(files out-same)" ]

expect 1 blur --files-from no-such-list -o out-none
check "--files-from a missing file: not named" has no-such-list stderr
# -r drops nothing in silence: a file whose path is past PATH_MAX (4096
# bytes) and a symbolic link to nothing each fail, named, and are in
# --summary-json; the file beside them is written.
mkdir -p in-odd/deep
cp "$samples/scene.png" in-odd/top.png
ln -s nowhere.png in-odd/gone.png
(
    cd in-odd/deep || exit 1
    level=$(printf '%0200d' 0)
    i=0
    while [ "$i" -lt 21 ]; do
        mkdir "$level" && cd -P "$level" || exit 1
        i=$((i + 1))
    done
    cp "$samples/alpha.png" far.png
) || check "could not make a 4,200-byte path" false
expect 1 blur --sigma 2 -r -o out-odd --summary-json odd.json in-odd
check "-r, a long path and a dangling link: want 1 ok, 2 failed, got $(count ok stderr) ok, \
$(count failed stderr) failed" [ "$(count ok stderr)/$(count failed stderr)" = 1/2 ]
check "-r: the dangling link not named as such" has 'in-odd/gone.png: a symbolic link to nothing' stderr
check "-r: the file past PATH_MAX not named" has 'far.png: .*PATH_MAX' stderr
check "--summary-json: no failed entry for the dangling link" \
    grep -q '"input": "in-odd/gone.png", .*"status": "failed"' odd.json
check "--summary-json: no failed entry for the long path" \
    grep -q '/far.png", .*"status": "failed"' odd.json
check "-r: top.png missing or wrong" same_file out-odd/top.png ref/scene.png
finish
