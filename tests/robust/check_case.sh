#!/bin/sh
# check_case.sh GPUIMG SAMPLES NAME EXPECT MAKER ARGS... [| RUN-OPTIONS...]
#
# One case of cases.txt (see there for EXPECT and RUN-OPTIONS): makes the
# input with make_corpus.py, runs `gpuimg flip h` on it into an empty
# folder, and checks the exit status, stderr (one line naming the input
# for a failure, nothing for a success, never a sanitizer report), what is
# left in the folder, and the pixels. Exit 77 when a tool the case needs is
# missing, or for 'unreadable' when running as root (root reads anything).
set -u
gpuimg=$1 samples=$2 name=$3 expect=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
unset GPUIMG_DEVICE GPUIMG_MAX_PIXELS GPUIMG_AUTO_ORIENT

command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
python3 "$here/make_corpus.py" "$here/cases.txt" "$samples" "$tmp/corpus" "$name" >/dev/null ||
    exit 1
input=$tmp/corpus/$name
if [ -e "$input.skip" ]; then
    echo "skip: $(cat "$input.skip")"
    exit 77
fi
if [ "$1" = unreadable ] && [ "$(id -u)" = 0 ]; then
    echo "skip: running as root, which can read a file with mode 000"
    exit 77
fi

# RUN-OPTIONS: VAR=VALUE to the environment, 'stdin', @size and @size-1
# (the input's byte count), 'convert' (gpuimg convert instead of flip h:
# the pixels unchanged), the rest to gpuimg.
while [ $# -gt 0 ] && [ "$1" != '|' ]; do shift; done
[ $# -gt 0 ] && shift
size=$(wc -c <"$input" 2>/dev/null || echo 0)
envs='' options='' stdin='' command='flip h' check=flipped
for word; do
    case $word in
    stdin) stdin=1 ;;
    convert) command=convert check=same ;;
    @size) options="$options $size" ;;
    @size-1) options="$options $((size - 1))" ;;
    -*) options="$options $word" ;;
    *=*) envs="$envs $word" ;;
    *) options="$options $word" ;;
    esac
done

mkdir "$tmp/out"
out=$tmp/out/out.png
# shellcheck disable=SC2086,SC2002 # lists of words; a pipe, so stdin is no regular file
if [ -n "$stdin" ]; then
    shown="standard input"
    cat "$input" | env $envs "$gpuimg" $command $options - "$out" 2>"$tmp/err"
else
    shown=$input
    env $envs "$gpuimg" $command $options "$input" "$out" 2>"$tmp/err"
fi
rc=$?

fail() {
    echo "FAIL: $name: $*"
    sed 's/^/    stderr: /' "$tmp/err" | head -n 20
    exit 1
}
grep -Eq 'Sanitizer|runtime error' "$tmp/err" && fail "sanitizer report"
if grep -q 'no TIFF support' "$tmp/err"; then
    echo "skip: this build has no TIFF support"
    exit 77
fi
case $expect in
fail=*)
    [ "$rc" -eq 1 ] || fail "exit $rc, want 1"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "want exactly one line on stderr"
    grep -qF -- "$shown" "$tmp/err" || fail "the message does not name '$shown'"
    grep -Eq -- "${expect#fail=}" "$tmp/err" || fail "the message does not match '${expect#fail=}'"
    # stb's reason must be about this file, not left over from trying the
    # other decoder (every corpus file is of the kind its name says).
    case $name in
    *.png) other='(Corrupt|Not a) JPEG|JPEG format' ;;
    *) other='(Corrupt|Not a) PNG|PNG not supported' ;;
    esac
    ! grep -Eq -- "$other" "$tmp/err" || fail "the reason names the other format"
    [ -z "$(ls -A "$tmp/out")" ] || fail "left behind: $(ls -A "$tmp/out")" ;;
ok | ok~* | size=*)
    [ "$rc" -eq 0 ] || fail "exit $rc, want 0"
    [ ! -s "$tmp/err" ] || fail "something on stderr"
    [ "$(ls -A "$tmp/out")" = out.png ] || fail "the folder holds: $(ls -A "$tmp/out")"
    case $expect in
    size=*) python3 "$here/pixels.py" shape "$out" "${expect#size=}" || fail "wrong shape" ;;
    *) tolerance=${expect#ok}
       tolerance=${tolerance#\~}
       python3 "$here/pixels.py" "$check" "$out" "$input.pam" "${tolerance:-0}" ||
           fail "wrong pixels" ;;
    esac ;;
*) fail "unknown expectation '$expect'" ;;
esac
echo "ok: $name ($expect)"
