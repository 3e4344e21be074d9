#!/bin/sh
# served_ab.sh GPUIMG_A GPUIMG_B PHOTO...: one call through `gpuimg serve`,
# the server of build A against the server of build B, photo by photo.
#
# For each ROUND (default 2) and each build in turn, a server of that build
# starts on a socket of its own (in a fresh folder), and each photo gets a
# warm-up call, then CALLS (default 9) timed calls of `gpuimg OP PHOTO OUT`
# (OP: "blur --sigma 2" unless told), the whole client process; then one
# more with -v, whose decode stage is printed. Prints the median ms of the
# timed calls per round, build and photo. The outputs of A and B must be
# the same bytes (a line says where they differ). Environment: OP, CALLS,
# ROUNDS, DEVICE (the servers' and clients' --device, default auto).
set -u
[ $# -ge 3 ] || { echo "usage: served_ab.sh GPUIMG_A GPUIMG_B PHOTO..." >&2; exit 2; }
a=$1
b=$2
shift 2
op=${OP:-blur --sigma 2}
calls=${CALLS:-9}
rounds=${ROUNDS:-2}
device=${DEVICE:-auto}
t=$(mktemp -d) || exit 1
chmod 700 "$t"
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$t"' EXIT
trap 'exit 1' INT TERM

now_ns() { date +%s%N; }

# shellcheck source=bench/serve_common.sh
. "$(dirname "$0")/serve_common.sh"

stop() {
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    server=
}

call() { # call GPUIMG IN OUT [-v]
    # shellcheck disable=SC2086 # $op is a command and its options
    GPUIMG_SERVER="$t/sock" "$1" ${4:-} $op --device "$device" "$2" "$3"
}

r=1
while [ $r -le "$rounds" ]; do
    for tag in A B; do
        g=$a
        [ $tag = B ] && g=$b
        start_server "$g" "$t/sock" "$t/server.log" --device "$device"
        for photo in "$@"; do
            out="$t/$tag-$(basename "$photo")"
            call "$g" "$photo" "$out" || { echo "FAILED: $g $op $photo"; exit 1; }
            : >"$t/ms"
            i=0
            while [ $i -lt "$calls" ]; do
                s=$(now_ns)
                call "$g" "$photo" "$out" || exit 1
                echo "$s $(now_ns)" | awk '{ printf "%.1f\n", ($2 - $1) / 1e6 }' >>"$t/ms"
                i=$((i + 1))
            done
            med=$(sort -n "$t/ms" | awk '{ v[NR] = $1 } END { printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
            stage=$(call "$g" "$photo" "$t/v.jpg" -v 2>&1 | grep -o "decode [0-9.]*" | head -n 1)
            printf 'round %d %s %s: median %s ms of %d calls (%s ms)\n' "$r" "$tag" \
                "$(basename "$photo")" "$med" "$calls" "$stage"
        done
        stop
    done
    r=$((r + 1))
done
for photo in "$@"; do
    cmp -s "$t/A-$(basename "$photo")" "$t/B-$(basename "$photo")" ||
        echo "WARNING: A and B wrote other bytes for $photo"
done
