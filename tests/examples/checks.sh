# Sourced by the example checks: a temporary folder removed at exit, and
# check MESSAGE COMMAND..., which counts a check that passes when COMMAND
# succeeds; finish prints "N passed, M failed" and sets the exit status.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {
    msg=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $msg" >&2; fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
