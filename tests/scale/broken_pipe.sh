#!/bin/sh
# Standard output closed early: `gpuimg blur IN - --format png | head -c 100`
# with an output much larger than a pipe buffer ends within seconds (no
# hang) and says nothing on stderr. With SIGPIPE ignored (as some
# supervisors start programs) it still ends quickly, and fails.
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
"$noise_png" 256 256 1 big.png # about 190 KiB of PNG, a blur of it too
limit=10

# blur_into_head SETUP [PREFIX...]: runs PREFIX sh -c 'SETUP; gpuimg blur
# big.png - --format png' | head -c 100 in the background, with gpuimg's
# pid in ./pid, its status in ./status and its stderr in ./stderr, and
# waits up to $limit seconds. Fails (and kills gpuimg) on a hang.
blur_into_head() {
    setup=$1
    shift
    rm -f pid status
    (
        "$@" sh -c "$setup
            echo \$\$ >pid; exec \"\$0\" blur big.png - --format png 2>stderr" "$gpuimg"
        echo $? >status
    ) | head -c 100 >head.out &
    wait_until "$limit" [ -s status ] && return 0
    kill "$(cat pid)" 2>/dev/null
    return 1
}

# The test's own SIGPIPE may be ignored by whoever started it, and sh
# cannot undo that; env --default-signal (coreutils 8.31) can.
default_pipe=
env --default-signal=PIPE true 2>/dev/null && default_pipe="env --default-signal=PIPE"
# shellcheck disable=SC2086 # the words of the command
check "blur | head -c 100: still running after $limit s" blur_into_head : $default_pipe
wait
check "blur | head -c 100: stderr says '$(head -c 200 stderr)'" [ ! -s stderr ]
check "blur | head -c 100: head got $(wc -c <head.out) bytes" [ "$(wc -c <head.out)" -eq 100 ]

check "SIGPIPE ignored: still running after $limit s" blur_into_head "trap '' PIPE"
wait
check "SIGPIPE ignored: exit $(cat status), want a failure" [ "$(cat status)" -ne 0 ]
finish
