#!/bin/sh
# --skip-existing resumes a batch: a second run writes nothing (every file
# skipped, exit 0); after one output is deleted, a third run writes only
# that one, and it is the same bytes as before.
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
sample_inputs in >/dev/null
rm in/bad.png
mkdir in/sub
cp "$samples/scene.png" in/sub/deep.png
total=6

# inodes DIR: "inode path" of every file, to tell rewritten files (atomic
# saves rename a new inode into place) from untouched ones.
inodes() { (cd "$1" && find . -type f -exec ls -i {} + | LC_ALL=C sort -k 2); }

expect 0 blur -r -o out --skip-existing in
check "first run: want $total ok" [ "$(count ok stderr)" -eq "$total" ]
cp -R out first
inodes out >inodes.1

expect 0 blur -r -o out --skip-existing in
check "second run: want 0 ok, $total skipped" \
    [ "$(count ok stderr)/$(count skipped stderr)" = "0/$total" ]
inodes out >inodes.2
check "second run rewrote files" same_file inodes.1 inodes.2

rm out/sub/deep.png
expect 0 blur -r -o out --skip-existing in
check "third run: want 1 ok, $((total - 1)) skipped" \
    [ "$(count ok stderr)/$(count skipped stderr)" = "1/$((total - 1))" ]
check "third run: the outputs differ from the first run's" same_tree out first
inodes out | grep -v deep.png >inodes.3
grep -v deep.png inodes.1 >inodes.1-kept
check "third run rewrote files other than the deleted one" same_file inodes.1-kept inodes.3
finish
