#!/bin/sh
# check_batch_alone.sh GPUIMG SAMPLES NAME PRECEDING
#
# A corpus case (cases.txt) ends the same alone and in a batch after the
# sample PRECEDING: the same exit status, the same error line, the same
# output bytes. A decoder must never give a file what the file before it
# left behind (a previous file's JPEG tables, palette entries).
set -u
gpuimg=$1 samples=$2 name=$3 preceding=$4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset GPUIMG_DEVICE GPUIMG_MAX_PIXELS GPUIMG_AUTO_ORIENT

command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
python3 "$here/make_corpus.py" "$here/cases.txt" "$samples" "$tmp/corpus" "$name" >/dev/null ||
    exit 1
input=$tmp/corpus/$name
mkdir "$tmp/alone" "$tmp/batch"
"$gpuimg" flip h "$input" "$tmp/alone/$name" 2>"$tmp/alone.err"
alone_rc=$?
"$gpuimg" flip h -o "$tmp/batch" "$samples/$preceding" "$input" 2>"$tmp/batch.err"
batch_rc=$?

fail() {
    echo "FAIL: $name after $preceding: $*"
    sed 's/^/    alone: /' "$tmp/alone.err"
    sed 's/^/    batch: /' "$tmp/batch.err"
    exit 1
}
[ "$alone_rc" = "$batch_rc" ] || fail "exit $alone_rc alone, $batch_rc in the batch"
[ -f "$tmp/batch/$preceding" ] || fail "$preceding not written"
if [ "$alone_rc" -eq 0 ]; then
    cmp -s "$tmp/alone/$name" "$tmp/batch/$name" || fail "other output bytes in the batch"
else
    grep -qxF -- "$(cat "$tmp/alone.err")" "$tmp/batch.err" || fail "another error in the batch"
    [ ! -e "$tmp/batch/$name" ] || fail "an output for the failed input"
fi
echo "ok: $name alone and after $preceding"
