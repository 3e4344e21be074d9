#!/bin/sh
# check_identity.sh GPUIMG IMGCMP INPUT ARGS...: `gpuimg ARGS INPUT OUT`
# must succeed silently and give INPUT's pixels back: the smallest
# parameters in range (radius 0, a sigma close to 0, a 1x1 mask of 1) are
# the identity.
set -u
gpuimg=$1 imgcmp=$2 input=$3
shift 3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset GPUIMG_DEVICE GPUIMG_MAX_PIXELS
"$gpuimg" "$@" "$input" "$tmp/out.png" 2>"$tmp/stderr"
rc=$?
if [ "$rc" -ne 0 ] || [ -s "$tmp/stderr" ]; then
    echo "FAIL: gpuimg $*: exit $rc"
    sed 's/^/    stderr: /' "$tmp/stderr"
    exit 1
fi
"$imgcmp" "$input" "$tmp/out.png" || { echo "FAIL: gpuimg $*: not the identity"; exit 1; }
echo "ok: gpuimg $* is the identity"
