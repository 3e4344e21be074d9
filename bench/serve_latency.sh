#!/bin/sh
# serve_latency.sh [GPUIMG [PHOTOS [CALLS]]]: what `gpuimg serve` does to
# calls of one image each, against the same calls in their own process.
#
#   1. one `gpuimg OP IN OUT.jpg` (OP: blur --sigma 2 unless told), the
#      whole client process,
#      server up and not (GPUIMG_SERVER=off), alternated REPS times: medians
#   2. a shell loop of CALLS such calls over different files (the folder's
#      JPEGs in turn), server and not, alternated, two rounds each (none
#      when CALLS is 0)
#   3. `xargs -P PARALLEL` over the folder, one call per file, server and
#      not; and one batch call (-o) over the same files, server and not:
#      ROUNDS rounds (2), then the medians
#
# GPUIMG defaults to build/cmd/gpuimg, PHOTOS to ../shared/photos (its
# *.jpg; use 9 MP photos), CALLS to 200. Environment: REPS (21), PARALLEL
# (16), ROUNDS (2), SERVE_JOBS (the server's -j, default 4; 0: the
# server's own default, one per core), DEVICE (the server's and
# the clients' --device, default auto), OP (the command and its options,
# default "blur --sigma 2"; e.g. "thumbnail --size 256"). The server runs
# on a socket of its own in a fresh folder and is stopped at the end;
# outputs go to that folder.
set -u
gpuimg=${1:-build/cmd/gpuimg}
photos=${2:-../shared/photos}
calls=${3:-200}
reps=${REPS:-21}
rounds=${ROUNDS:-2}
parallel=${PARALLEL:-16}
device=${DEVICE:-auto}
op=${OP:-blur --sigma 2}
t=$(mktemp -d) || exit 1
chmod 700 "$t"
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$t"' EXIT
trap 'exit 1' INT TERM
ls "$photos"/*.jpg >"$t/inputs" 2>/dev/null || { echo "no *.jpg in $photos"; exit 2; }
count=$(wc -l <"$t/inputs")
first=$(head -n 1 "$t/inputs")

now_ns() { date +%s%N; }
ms_since() { echo "$1 $(now_ns)" | awk '{ printf "%.1f", ($2 - $1) / 1e6 }'; }
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# shellcheck source=bench/serve_common.sh
. "$(dirname "$0")/serve_common.sh"
if [ "${SERVE_JOBS:-4}" = 0 ]; then
    start_server "$gpuimg" "$t/sock" "$t/server.log" --device "$device"
else
    start_server "$gpuimg" "$t/sock" "$t/server.log" -j "${SERVE_JOBS:-4}" --device "$device"
fi
echo "machine: $(nproc) cores; $(GPUIMG_SERVER="$t/sock" "$gpuimg" info --no-bandwidth | grep -E '^(cuda device 0|cuda devices|server):' | tr '\n' ' ')"
echo "inputs: $count JPEGs in $photos; $op; device $device"

# one call: the whole client process
one() { # one on|off IN OUT
    one_start=$(now_ns)
    # shellcheck disable=SC2086 # $op is a command and its options
    GPUIMG_SERVER=$([ "$1" = on ] && echo "$t/sock" || echo off) "$gpuimg" $op \
        --device "$device" "$2" "$3" || echo "FAILED: $2" >&2
    ms_since "$one_start"
}
one on "$first" "$t/warm.jpg" >/dev/null # the server's first job pays its own first use
: >"$t/single-on"
: >"$t/single-off"
r=0
while [ $r -lt "$reps" ]; do
    one off "$first" "$t/single-off.jpg" >>"$t/single-off"
    echo >>"$t/single-off"
    one on "$first" "$t/single-on.jpg" >>"$t/single-on"
    echo >>"$t/single-on"
    r=$((r + 1))
done
cmp -s "$t/single-on.jpg" "$t/single-off.jpg" || echo "WARNING: outputs differ"
printf '1. one call (median of %d): in-process %s ms, server %s ms\n' "$reps" \
    "$(median "$t/single-off")" "$(median "$t/single-on")"

# a shell loop over different files
loop() { # loop on|off: CALLS calls, the inputs in turn
    mkdir -p "$t/loop-$1"
    loop_start=$(now_ns)
    n=0
    while [ $n -lt "$calls" ]; do
        while read -r f && [ $n -lt "$calls" ]; do
            one "$1" "$f" "$t/loop-$1/$n.jpg" >/dev/null
            n=$((n + 1))
        done <"$t/inputs"
    done
    ms_since "$loop_start"
}
for round in $([ "$calls" -gt 0 ] && echo 1 2); do
    off=$(loop off)
    on=$(loop on)
    printf '2. loop of %d calls, round %d: in-process %s ms (%.1f a call), server %s ms (%.1f a call): %.2fx\n' \
        "$calls" "$round" "$off" "$(echo "$off $calls" | awk '{ print $1 / $2 }')" "$on" \
        "$(echo "$on $calls" | awk '{ print $1 / $2 }')" "$(echo "$off $on" | awk '{ print $1 / $2 }')"
done

# xargs -P over the folder against one batch call
fan_out() { # fan_out on|off
    rm -rf "$t/x"
    mkdir "$t/x"
    fan_start=$(now_ns)
    # shellcheck disable=SC2016,SC2086
    GPUIMG_SERVER=$([ "$1" = on ] && echo "$t/sock" || echo off) xargs -P "$parallel" -I{} \
        sh -c '"$0" '"$op"' --device "$1" "$2" "$3/$(basename "$2")"' \
        "$gpuimg" "$device" {} "$t/x" <"$t/inputs"
    ms_since "$fan_start"
}
batch() { # batch on|off
    rm -rf "$t/b"
    batch_start=$(now_ns)
    # shellcheck disable=SC2046,SC2086
    GPUIMG_SERVER=$([ "$1" = on ] && echo "$t/sock" || echo off) "$gpuimg" $op -q \
        --device "$device" -o "$t/b" $(cat "$t/inputs")
    ms_since "$batch_start"
}
: >"$t/xoff"
: >"$t/xon"
: >"$t/boff"
: >"$t/bon"
round=1
while [ $round -le "$rounds" ]; do
    xoff=$(fan_out off)
    xon=$(fan_out on)
    boff=$(batch off)
    bon=$(batch on)
    printf '3. %d files, round %d: xargs -P %d in-process %s ms, server %s ms; one batch call in-process %s ms, server %s ms; xargs+server / batch throughput %.2f\n' \
        "$count" "$round" "$parallel" "$xoff" "$xon" "$boff" "$bon" \
        "$(echo "$xon $boff" | awk '{ print $2 / $1 }')"
    for k in xoff xon boff bon; do eval "echo \$$k" >>"$t/$k"; done
    round=$((round + 1))
done
printf '3. medians of %d: xargs -P %d in-process %s ms, server %s ms; one batch call in-process %s ms, server %s ms; xargs+server / batch throughput %.2f\n' \
    "$rounds" "$parallel" "$(median "$t/xoff")" "$(median "$t/xon")" "$(median "$t/boff")" \
    "$(median "$t/bon")" "$(echo "$(median "$t/xon") $(median "$t/boff")" | awk '{ print $2 / $1 }')"
"$gpuimg" serve --stop --socket "$t/sock"
wait "$server"
server=
