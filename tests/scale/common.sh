# Sourced by the scale tests:  . "$(dirname "$0")/common.sh"
# Their arguments begin GPUIMG IMGCMP NOISE_PNG SOURCE_ROOT (meson.build);
# what follows is in "$@" after this file shifted those four away.
# Every check is counted; `finish` prints "N passed, M failed" and exits.
# The helpers' own variables start with _ so as not to clobber the caller's.
# shellcheck disable=SC2034 # variables set here for the tests to use
set -u
[ $# -ge 4 ] || { echo "usage: $0 GPUIMG IMGCMP NOISE_PNG SOURCE_ROOT ..." >&2; exit 2; }
absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
gpuimg=$(absolute "$1") imgcmp=$(absolute "$2") noise_png=$(absolute "$3") root=$(absolute "$4")
shift 4
samples=$root/samples scripts=$root/scripts
# The device and the limits must not come from the caller's environment.
unset GPUIMG_DEVICE GPUIMG_MAX_PIXELS
tmp=$(mktemp -d) || exit 1
# A test with more to undo (a mount, daemons) redefines at_exit.
at_exit() { :; }
trap 'at_exit; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
passed=0 failed=0

# check MESSAGE COMMAND...: counts a check that passes when COMMAND succeeds.
check() {
    _msg=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $_msg" >&2
        [ -s "$tmp/stderr" ] && sed 's/^/    gpuimg stderr: /' "$tmp/stderr" | head -n 5 >&2
    fi
    return 0
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && exit 0
    exit 1
}

skip() {
    echo "SKIP: $*"
    exit 77
}

# gi ARGS...: runs gpuimg, stdout in $tmp/stdout, stderr in $tmp/stderr, status in $rc.
gi() {
    "$gpuimg" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
}

# expect STATUS ARGS...: runs gpuimg ARGS and checks the exit status.
expect() {
    _want=$1
    shift
    gi "$@"
    check "gpuimg $*: exit $rc, want $_want" [ "$rc" -eq "$_want" ]
}

# wait_until SECONDS COMMAND...: polls COMMAND (ten times a second where
# sleep takes fractions) until it succeeds; fails after SECONDS.
wait_until() {
    _ticks=$(($1 * 10)) _waited=0
    shift
    until "$@"; do
        [ "$_waited" -lt "$_ticks" ] || return 1
        if sleep 0.1 2>/dev/null; then _waited=$((_waited + 1)); else
            sleep 1
            _waited=$((_waited + 10))
        fi
    done
}

has() { grep -q -- "$1" "$2"; }
same_file() { cmp -s "$1" "$2"; }
same_image() { "$imgcmp" "$1" "$2" >/dev/null 2>&1; }

# files DIR: the paths of the regular files under DIR, relative, sorted,
# hidden ones (.summaries, temporaries) included.
files() { (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); }

# temporaries DIR: the gpuimg temporary files left under DIR, one a line.
temporaries() { find "$1" -name '*.gpuimg-*' -o -name '*.tmp'; }
no_temporaries() { [ -z "$(temporaries "$1")" ]; }

# count WORD FILE: N from the "N WORD" of the batch summary line in FILE
# ("3 ok, 1 failed, 2 skipped, ..."); 0 when the line has no such part.
count() {
    _line=$(grep -E '^gpuimg [a-z]+: [0-9]+ ok, [0-9]+ failed' "$2" | tail -n 1)
    _n=$(printf '%s\n' "$_line" | sed -n "s/.* \([0-9][0-9]*\) $1[,( ].*/\1/p")
    echo "${_n:-0}"
}

# sample_inputs DIR: the samples (four PNGs and a JPEG) plus bad.png, which
# is not an image; prints the names, one a line.
sample_inputs() {
    mkdir -p "$1"
    cp "$samples/scene.png" "$samples/alpha.png" "$samples/gray_alpha.png" \
        "$samples/edge_line.png" "$samples/scene.jpg" "$1/"
    printf 'not a PNG\n' >"$1/bad.png"
    (cd "$1" && ls)
}

# mixed_inputs DIR N: N inputs with distinct names, copies of the samples
# with every seventh corrupt and every eleventh truncated; prints how many
# of them are bad.
mixed_inputs() {
    mkdir -p "$1"
    _i=0 _bad=0
    while [ "$_i" -lt "$2" ]; do
        _name=$1/$(printf 'img%03d' "$_i")
        if [ $((_i % 7)) -eq 3 ]; then
            printf 'corrupt %d\n' "$_i" >"$_name.png"
            _bad=$((_bad + 1))
        elif [ $((_i % 11)) -eq 5 ]; then
            head -c 300 "$samples/scene.png" >"$_name.png"
            _bad=$((_bad + 1))
        else
            case $((_i % 4)) in
                0) cp "$samples/scene.png" "$_name.png" ;;
                1) cp "$samples/alpha.png" "$_name.png" ;;
                2) cp "$samples/gray_alpha.png" "$_name.png" ;;
                3) cp "$samples/scene.jpg" "$_name.jpg" ;;
            esac
        fi
        _i=$((_i + 1))
    done
    echo "$_bad"
}

# single_runs INDIR REFDIR ARGS...: the one-image result of every decodable
# file under INDIR, at the same relative path under REFDIR.
single_runs() {
    _in=$1 _ref=$2
    shift 2
    for _f in $(files "$_in"); do
        mkdir -p "$_ref/$(dirname "$_f")"
        "$gpuimg" "$@" "$_in/$_f" "$_ref/$_f" 2>/dev/null || rm -f "$_ref/$_f"
    done
}

# same_tree A B: the same relative file names holding the same bytes.
same_tree() {
    [ "$(files "$1")" = "$(files "$2")" ] || return 1
    for _f in $(files "$1"); do cmp -s "$1/$_f" "$2/$_f" || return 1; done
}
