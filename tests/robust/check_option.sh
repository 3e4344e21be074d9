#!/bin/sh
# check_option.sh GPUIMG INPUT OPTION ARGS...: runs `gpuimg ARGS INPUT OUT`
# and checks the usage error: exit 2, a message on stderr naming OPTION,
# nothing on stdout, no OUT. One line of options.txt.
set -u
gpuimg=$1 input=$2 option=$3
shift 3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset GPUIMG_DEVICE GPUIMG_MAX_PIXELS
"$gpuimg" "$@" "$input" "$tmp/out.png" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
args=$*
fail() {
    echo "FAIL: gpuimg $args: $1"
    sed 's/^/    stderr: /' "$tmp/stderr"
    exit 1
}
[ "$rc" -eq 2 ] || fail "exit $rc, want 2"
grep -qF -- "$option" "$tmp/stderr" || fail "the message does not name $option"
! grep -Eq 'Sanitizer|runtime error' "$tmp/stderr" || fail "a sanitizer report"
[ ! -s "$tmp/stdout" ] || fail "something on stdout"
left=$(cd "$tmp" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$left" = "./stderr ./stdout " ] || fail "left behind: $left"
echo "ok: gpuimg $args -> exit 2 naming $option"
