#!/bin/sh
# check_serve.sh GPUIMG PROBE SAMPLES GROUP: gpuimg serve against running
# in-process (meson suite serve). Each group starts its own server on its
# own socket in a fresh directory and kills it on the way out.
#   same-bytes  every image command, single and batch, failing inputs too,
#               16-bit inputs and --depth, a TIFF of several pages (warned of):
#               the same output bytes, stderr lines and exit status
#   sigkill     the server killed (-9) during a batch: the client finishes
#               in-process, same outputs, no temporary file left
#   malformed   hostile peers refused; a client at the same time unaffected
#   concurrent  32 clients at once
#   cores       jobs running at once share the cores: a job started beside
#               a running one gets half of them, not a thread per core
#   stalled     no caller holds the others up: callers reading stalled pipes
#               run in their own process, a stopped client that reads nothing
#               loses its turn, a call that waits too long runs in its own
#   build       a server of another build is not used; the suites' own calls
#               never reach a server they did not start
#   stdio       standard output to a file runs on the server, to a pipe and
#               from standard input in the calling process, -v saying why
#   fd-leak     the server's descriptors after many requests as before
#   fallback    version mismatch, stale socket, full server, no server
#   lifecycle   --stop (returning once the server has stopped), SIGTERM
#               during a batch, --idle-exit, a client killed mid-batch, a
#               client of another user (as root), a socket directory open
#               to others or of another user refused
set -u
absolute() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
gpuimg=$(absolute "$1") probe=$(absolute "$2") samples=$(absolute "$3") group=$4
t=$(mktemp -d) || exit 1
chmod 700 "$t"
sock=$t/sock
server_pid=
turn_holder=
cleanup() {
    [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null
    [ -n "$turn_holder" ] && kill -9 "$turn_holder" 2>/dev/null # stopped or not
    rm -rf "$t"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# What the test harness gave (group build checks it), then this group's own
inherited_server=${GPUIMG_SERVER-unset}
export GPUIMG_SERVER="$sock"
fail() {
    echo "FAIL: $*"
    [ -f "$t/server.log" ] && sed 's/^/  server: /' "$t/server.log" | tail -20
    exit 1
}

# start_server [OPTIONS]: in the background, once it answers (the
# previous one stopped first).
start_server() {
    [ -z "$server_pid" ] || stop_server
    "$gpuimg" serve --socket "$sock" -v "$@" 2>>"$t/server.log" &
    server_pid=$!
    i=0
    while ! "$gpuimg" info --no-bandwidth 2>/dev/null | grep -q "^server: $sock"; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "the server did not start"
        sleep 0.05
    done
}
stop_server() {
    kill "$server_pid" 2>/dev/null && wait "$server_pid"
    status=$?
    server_pid=
    return $status
}
jobs_served() {
    grep -c ': [0-9]* ok, [0-9]* failed' "$t/server.log"
}

# A photo-sized input, so that a batch lasts long enough to be cut: a
# 1500x1000 PPM of varied bytes (gpuimg turns it into PNG).
big_input() {
    { printf 'P6\n1500 1000\n255\n'; head -c 4500000 /dev/urandom; } >"$t/big.ppm"
    "$gpuimg" --no-server flip h "$t/big.ppm" "$1" || fail "cannot make the big input"
}

# same CASE ARGS...: runs `gpuimg ARGS` in $t/served (through the server)
# and in $t/local (GPUIMG_SERVER=off); outputs are relative names, inputs
# absolute. Compares exit status, stderr and every output file.
case_no=0
prep=
same() {
    case_no=$((case_no + 1))
    name=$1
    shift
    before=$(jobs_served)
    rm -rf "$t/served" "$t/local"
    mkdir "$t/served" "$t/local"
    [ -z "$prep" ] || (cd "$t/served" && eval "$prep") && (cd "$t/local" && eval "$prep")
    (cd "$t/served" && "$gpuimg" "$@" >stdout 2>stderr; echo $? >status)
    (cd "$t/local" && GPUIMG_SERVER=off "$gpuimg" "$@" >stdout 2>stderr; echo $? >status)
    # The batch summary's rates are times: the words around them must
    # match. A batch's lines come as its images end, in either run's own
    # order: compared sorted.
    for d in served local; do
        sed -E 's/[0-9.]+ s, [0-9.]+ images\/s, [0-9.]+ MP\/s/T/' "$t/$d/stderr" | sort >"$t/$d/stderr.t"
        mv "$t/$d/stderr.t" "$t/$d/stderr"
    done
    diff -r "$t/served" "$t/local" >"$t/diff" ||
        { cat "$t/diff" | head -20; fail "$name: the server's run differs from the in-process one"; }
    [ "$(jobs_served)" -gt "$before" ] || fail "$name: the server did not run it"
    echo "ok $case_no $name (exit $(cat "$t/local/status"))"
}

group_same_bytes() {
    start_server
    s=$samples
    for img in scene.png scene.jpg alpha.png gray_alpha.png edge_line.png; do
        same "blur $img" blur --sigma 2 "$s/$img" out.png
    done
    same "blur to jpeg" blur --sigma 1.5 --quality 80 "$s/scene.jpg" out.jpg
    same "blur box to pnm" blur --kernel box --radius 3 "$s/scene.png" out.pnm
    same "sobel" sobel "$s/scene.png" out.png
    same "sobel threshold" sobel --threshold 40 --border zero "$s/scene.jpg" out.png
    same "transpose" transpose "$s/alpha.png" out.png
    same "rotate" rotate 90 "$s/scene.jpg" out.jpg
    same "flip" flip v "$s/gray_alpha.png" out.pam
    same "convolve" convolve --kernel '1 2 1; 2 4 2; 1 2 1' "$s/scene.png" out.png
    same "pipe" pipe 'blur --sigma 2 | sobel | rotate 270' "$s/scene.jpg" out.png
    same "resize" resize --size 40x20 --filter cubic "$s/alpha.png" out.png
    same "crop" crop --gravity centre 20 10 "$s/scene.jpg" out.jpg
    same "crop outside" crop 70 0 5 5 "$s/scene.png" out.png
    same "convert" convert --quality 70 "$s/scene.png" out.jpg
    printf 'P6\n2 1\n65535\n\377\000\000\001\200\000\377\377\022\064\000\000' >"$t/rgb16.ppm"
    same "16 bits kept" convert "$t/rgb16.ppm" out.png
    same "16 bits to 8 (--depth travels)" convert --depth 8 "$t/rgb16.ppm" out.pam
    # a TIFF of 3 pages: its warning (only the first is read) comes back
    if python3 - "$(dirname "$0")/../robust" "$t/pages.tif" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tinytiff
page = {'width': 4, 'height': 3, 'channels': 1, 'bits': 8, 'samples': list(range(12))}
open(sys.argv[2], 'wb').write(tinytiff.encode([page, page, page]))
PY
    then
        same "a TIFF of 3 pages (its warning)" convert "$t/pages.tif" out.png
    else
        fail "cannot write a TIFF of 3 pages (python3 and tests/robust/tinytiff.py)"
    fi
    same "resize batch" resize --scale 0.5 -o outdir "$s/scene.png" "$s/alpha.png"
    same "thumbnail" thumbnail --size 16 --crop centre -o outdir "$s/scene.jpg" "$s/alpha.png"
    same "to standard output" blur --sigma 2 --format png "$s/scene.jpg" -
    same "pam to standard output" flip h --format pam "$s/alpha.png" -
    # a closed pipe on standard output: the client dies of SIGPIPE, silent
    # (an output of 4.5 MB, far over what a pipe holds)
    big_input "$t/big.png"
    for server in "$sock" off; do
        (GPUIMG_SERVER=$server "$gpuimg" flip h --format pnm "$t/big.ppm" - 2>"$t/pipe.err"
            echo $? >"$t/pipe.status") | head -c 1 >/dev/null
        [ "$(cat "$t/pipe.status")" = 141 ] && [ ! -s "$t/pipe.err" ] ||
            fail "closed pipe ($server): exit $(cat "$t/pipe.status"), $(cat "$t/pipe.err")"
    done
    echo "ok closed pipe on standard output (exit 141, nothing on stderr)"
    same "auto-orient strip" blur --auto-orient --strip "$s/scene.jpg" out.jpg
    same "batch" blur --sigma 3 -o outdir "$s/scene.png" "$s/scene.jpg" "$s/alpha.png" \
        "$s/gray_alpha.png" "$s/edge_line.png"
    same "batch -r" sobel -r -o tree "$s"
    mkdir -p "$t/in/sub"
    cp "$s/scene.png" "$t/in/sub/a.png"
    printf 'not an image' >"$t/in/bad.png"
    same "batch with failures" blur -o outdir "$t/in/sub/a.png" "$t/in/bad.png" \
        "$t/in/missing.png" "$t/in"
    same "missing input" blur "$t/in/missing.png" out.png
    same "not an image" sobel "$t/in/bad.png" out.png
    same "directory as input" blur "$t/in" out.png
    same "limit" blur --max-pixels 100 "$s/scene.png" out.png
    prep='mkdir prev && cp "$s/scene.png" prev/'
    same "skip-existing" blur --skip-existing -o prev "$s/scene.png" "$s/alpha.png"
    prep=
    echo "$(jobs_served) jobs served"
}

group_sigkill() {
    big_input "$t/big.png"
    mkdir "$t/in" "$t/ref"
    for i in 01 02 03 04 05 06 07 08 09 10 11 12; do cp "$t/big.png" "$t/in/$i.png"; done
    GPUIMG_SERVER=off "$gpuimg" blur --sigma 8 -o "$t/ref" "$t/in"/*.png || fail "reference batch"
    start_server -j 1
    "$gpuimg" -v blur --sigma 8 -o "$t/out" "$t/in"/*.png 2>"$t/client.err" &
    client=$!
    # Kill the server once it has started writing (a job line is not
    # needed: the first output or temporary file is enough).
    i=0
    while [ -z "$(ls -A "$t/out" 2>/dev/null)" ]; do
        i=$((i + 1))
        [ $i -lt 400 ] || fail "the batch never began"
        sleep 0.02
    done
    kill -9 "$server_pid"
    server_pid=
    wait "$client" || { cat "$t/client.err"; fail "client exit $? after the server died"; }
    diff -r "$t/ref" "$t/out" || fail "outputs differ after the server died"
    leftovers=$(find "$t/out" -name '*.tmp' | wc -l)
    [ "$leftovers" -eq 0 ] || fail "$leftovers temporary files left"
    grep -q 'in this process: the server was lost midway' "$t/client.err" ||
        { cat "$t/client.err"; fail "the server was not lost midway"; }
    grep -q '^gpuimg blur: 12 ok, 0 failed' "$t/client.err" || fail "the summary line"
    echo "ok: the client finished the batch in-process after SIGKILL, no temporary files"
}

group_malformed() {
    start_server
    "$gpuimg" blur --sigma 2 "$samples/scene.png" "$t/ref.png" --no-server
    for mode in junk version bad-index truncated huge many-fds; do
        "$probe" "$mode" "$sock" || fail "probe $mode"
        # a well-formed client between hostile ones, and while one holds on
        "$probe" hold "$sock" 2 &
        holder=$!
        "$gpuimg" blur --sigma 2 "$samples/scene.png" "$t/out.png" || fail "client after $mode"
        cmp "$t/ref.png" "$t/out.png" || fail "output after $mode"
        wait "$holder"
        echo "ok: $mode refused, the next client served"
    done
    kill -0 "$server_pid" || fail "the server died"
    grep -q 'refused: malformed job' "$t/server.log" || fail "no refusal logged"
}

group_concurrent() {
    # however loaded the machine, all 32 take their turns on the server
    start_server -j 2 --max-wait 600
    "$gpuimg" --no-server pipe 'blur --sigma 2 | sobel' "$samples/scene.jpg" "$t/ref.png"
    before=$(jobs_served)
    pids=
    for i in $(seq 1 32); do
        "$gpuimg" pipe 'blur --sigma 2 | sobel' "$samples/scene.jpg" "$t/out$i.png" &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p" || fail "a client failed"; done
    for i in $(seq 1 32); do cmp "$t/ref.png" "$t/out$i.png" || fail "client $i's output"; done
    served=$(($(jobs_served) - before))
    [ "$served" -eq 32 ] || fail "the server ran $served of 32"
    echo "ok: 32 concurrent clients, all served, all outputs right"
}

# logged N PATTERN: waits (5 s at most) for N lines of the server's log
# to match: it logs a job after its answer, which may reach the client first.
logged() {
    i=0
    until [ "$(grep -c "$2" "$t/server.log")" -ge "$1" ]; do
        i=$((i + 1))
        [ $i -lt 100 ] || return 1
        sleep 0.05
    done
}

# hold_turn MODE: a job that holds its turn on the server: the probe's,
# whose results it reads slowly (trickle: for 60 s, however slow the
# machine) or not at all (stall: the server's sends wait until they time
# out). Sets $turn_holder, once the server runs it.
hold_turn() {
    "$probe" "$1" "$sock" 60 >"$t/stall.out" &
    turn_holder=$!
    i=0
    until grep -q accepted "$t/stall.out" &&
        "$gpuimg" info --no-bandwidth 2>/dev/null | grep -q 'running 1,'; do
        i=$((i + 1))
        [ $i -lt 200 ] || fail "the held job did not start"
        sleep 0.05
    done
}

# A job holds its turn while a second job runs beside it: the second gets
# half the cores, the first (alone when it started) all of them; the
# second gives the bytes of an in-process run. The share is read from the
# server's log: no timing.
group_cores() {
    start_server -j 2
    # the cores as the server counts them (gi_cpu_threads_default: the
    # process's mask, bounded by a CPU quota), which nproc does not bound
    cores=$("$gpuimg" info --no-bandwidth | sed -n "s/^cpu threads: //p")
    [ -n "$cores" ] || fail "gpuimg info printed no cpu threads"
    half=$((cores / 2 > 1 ? cores / 2 : 1))
    "$gpuimg" --no-server blur --sigma 2 "$samples/scene.jpg" "$t/ref.jpg" || fail "in-process"
    hold_turn trickle
    "$gpuimg" -v blur --sigma 2 "$samples/scene.jpg" "$t/beside.jpg" 2>"$t/beside.err" ||
        fail "the job beside the held one"
    grep -q 'ran by the server' "$t/beside.err" || fail "the job beside ran in its own process"
    logged 1 "failed ([0-9.]* ms, $half of $cores cores)" ||
        fail "the job beside the held one did not get $half of $cores cores"
    kill "$turn_holder"
    wait "$turn_holder" 2>/dev/null
    turn_holder=
    logged 1 'failed, client gone (' || fail "the held job was not logged"
    [ "$(grep -c "failed, client gone ([0-9.]* ms, $cores of $cores cores)" "$t/server.log")" \
        -eq 1 ] || fail "the held job did not get every core"
    cmp "$t/ref.jpg" "$t/beside.jpg" || fail "the job beside: other bytes"
    echo "ok: a job beside a running one got $half of $cores cores, the same bytes"
}

# Callers whose inputs are pipes that stall (FIFOs written only once the
# third caller is done, so that no timing decides) take none of the
# server's two turns: a third caller's tiny job runs on the server at
# once. Before, each stalled reader held a turn and the third waited as
# long as the pipes did.
group_stalled() {
    start_server -j 2
    s=$samples
    "$gpuimg" --no-server blur --sigma 1 "$s/edge_line.png" "$t/ref-tiny.png" || fail "reference"
    "$gpuimg" --no-server blur --sigma 1 "$s/scene.png" "$t/ref.png" || fail "reference"
    mkfifo "$t/pipe1.png" "$t/pipe2.png" || fail "mkfifo"
    exec 3<>"$t/pipe1.png" 4<>"$t/pipe2.png" # writers, kept open: the readers wait for bytes
    "$gpuimg" -v blur --sigma 1 "$t/pipe1.png" "$t/out1.png" 3>&- 4>&- 2>"$t/err1" &
    reader1=$!
    "$gpuimg" -v blur --sigma 1 "$t/pipe2.png" "$t/out2.png" 3>&- 4>&- 2>"$t/err2" &
    reader2=$!
    sleep 0.5 # time for the readers to reach the server, as they did before
    timeout 30 "$gpuimg" -v blur --sigma 1 "$s/edge_line.png" "$t/tiny.png" 3>&- 4>&- \
        2>"$t/tiny.err" || fail "the third caller did not finish within 30 s (exit $?)"
    grep -q 'ran by the server' "$t/tiny.err" || { cat "$t/tiny.err"; fail "third caller"; }
    cmp "$t/ref-tiny.png" "$t/tiny.png" || fail "the third caller's output"
    cat "$s/scene.png" >&3
    cat "$s/scene.png" >&4
    exec 3>&- 4>&-
    wait "$reader1" || fail "reader 1 failed"
    wait "$reader2" || fail "reader 2 failed"
    for n in 1 2; do
        cmp "$t/ref.png" "$t/out$n.png" || fail "reader $n's output"
        grep -q "in this process: $t/pipe$n.png is a pipe, read here" "$t/err$n" ||
            { cat "$t/err$n"; fail "reader $n: -v does not say why it ran in-process"; }
    done
    echo "ok: callers on stalled pipes ran in their own processes, a third one was served at once"

    # A stopped client whose results fill the socket holds the only turn:
    # its sends time out, its job stops, and the next client is served.
    start_server -j 1 --max-wait 60
    hold_turn stall
    kill -STOP "$turn_holder"
    timeout 30 "$gpuimg" -v blur --sigma 1 "$s/edge_line.png" "$t/tiny2.png" 2>"$t/tiny2.err" ||
        fail "a client behind a stopped one did not finish within 30 s (exit $?)"
    grep -q 'ran by the server' "$t/tiny2.err" ||
        { cat "$t/tiny2.err"; fail "after a stopped client"; }
    cmp "$t/ref-tiny.png" "$t/tiny2.png" || fail "the output after a stopped client"
    grep -q 'takes no answer (not reading): its job stopped' "$t/server.log" ||
        fail "the server did not log the stopped client"
    kill -CONT "$turn_holder"
    kill "$turn_holder"
    wait "$turn_holder" 2>/dev/null
    turn_holder=
    echo "ok: a stopped client lost its turn, the next one was served"

    # A call that waits longer than --max-wait for its turn runs in its own
    # process, and -v says so.
    start_server -j 1 --max-wait 0.5
    hold_turn trickle
    timeout 30 "$gpuimg" -v blur --sigma 1 "$s/edge_line.png" "$t/tiny3.png" 2>"$t/tiny3.err" ||
        fail "a waiting client did not finish within 30 s (exit $?)"
    grep -q 'in this process: the server refused: busy: no turn within 0.5 s' "$t/tiny3.err" ||
        { cat "$t/tiny3.err"; fail "a waiting client: -v does not say why it ran in-process"; }
    cmp "$t/ref-tiny.png" "$t/tiny3.png" || fail "the waiting client's output"
    kill "$turn_holder"
    wait "$turn_holder" 2>/dev/null
    turn_holder=
    echo "ok: a call that waited past --max-wait ran in its own process"
}

# The server's build is another when its library is another file: a copy
# of this build's, loaded first. Its calls run in the calling process.
group_build() {
    start_server
    "$probe" other-build "$sock" || fail "a job of another build not refused as such"
    grep -q 'refused: another build of gpuimg' "$t/server.log" || fail "other build: server log"
    stop_server
    lib=$(ldd "$gpuimg" | sed -n 's/.*libgpuimg\.so[^ ]* => \([^ ]*\) .*/\1/p')
    [ -f "$lib" ] || fail "libgpuimg not found by ldd"
    mkdir "$t/other"
    cp "$lib" "$t/other/$(basename "$lib")"
    LD_LIBRARY_PATH="$t/other" start_server
    "$gpuimg" --no-server blur "$samples/scene.png" "$t/ref.png"
    before=$(jobs_served)
    "$gpuimg" -v blur "$samples/scene.png" "$t/a.png" 2>"$t/err" || fail "other build: exit"
    grep -q "in this process: the server refused: another build of gpuimg: the server runs $t/other/" \
        "$t/err" || { cat "$t/err"; fail "other build: -v note"; }
    cmp "$t/ref.png" "$t/a.png" || fail "other build: output"
    [ "$(jobs_served)" -eq "$before" ] || fail "other build: the server ran the call"
    stop_server
    echo "ok: a server of another build was not used"
    # the same library reached by another path (the program's runpath, not
    # LD_LIBRARY_PATH, or a symbolic link) is the same build
    env -u LD_LIBRARY_PATH "$gpuimg" serve --socket "$sock" -v 2>>"$t/server.log" &
    server_pid=$!
    i=0
    until "$gpuimg" info --no-bandwidth 2>/dev/null | grep -q "^server: $sock"; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "the server did not start"
        sleep 0.05
    done
    LD_LIBRARY_PATH=$(dirname "$lib") "$gpuimg" -v blur "$samples/scene.png" "$t/c.png" \
        2>"$t/err" || fail "same build: exit"
    grep -q 'ran by the server' "$t/err" || { cat "$t/err"; fail "same build, other path: not served"; }
    stop_server
    echo "ok: the same build by another path was served"
    # A server on the default socket (XDG_RUNTIME_DIR a folder of this
    # test's): the environment the test harness gives every test keeps
    # their calls off it.
    mkdir -m 700 "$t/run"
    XDG_RUNTIME_DIR="$t/run" GPUIMG_SERVER= "$gpuimg" serve -v 2>>"$t/server.log" &
    server_pid=$!
    i=0
    until [ -S "$t/run/gpuimg/socket" ]; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "the server on the default socket did not start"
        sleep 0.05
    done
    before=$(jobs_served)
    if [ "$inherited_server" = unset ]; then
        env -u GPUIMG_SERVER XDG_RUNTIME_DIR="$t/run" "$gpuimg" -v blur "$samples/scene.png" \
            "$t/b.png" 2>"$t/err"
    else
        GPUIMG_SERVER="$inherited_server" XDG_RUNTIME_DIR="$t/run" "$gpuimg" -v blur \
            "$samples/scene.png" "$t/b.png" 2>"$t/err"
    fi
    [ "$(jobs_served)" -eq "$before" ] && grep -q 'in this process' "$t/err" ||
        { cat "$t/err"; fail "a test's call reached a server it did not start"; }
    echo "ok: the tests' environment keeps their calls off the default socket's server"
}

# Standard output that is a file is written by the server; a pipe, and
# standard input, are the calling process's, and -v says so.
group_stdio() {
    start_server
    s=$samples
    "$gpuimg" --no-server blur --format png "$s/scene.png" - >"$t/ref.png"
    "$gpuimg" -v blur --format png "$s/scene.png" - >"$t/file.png" 2>"$t/err" || fail "to a file"
    grep -q 'ran by the server' "$t/err" || { cat "$t/err"; fail "to a file: not served"; }
    cmp "$t/ref.png" "$t/file.png" || fail "to a file: output"
    "$gpuimg" -v blur --format png "$s/scene.png" - 2>"$t/err" | cat >"$t/pipe.png"
    grep -q 'in this process: standard output is a pipe, written here' "$t/err" ||
        { cat "$t/err"; fail "to a pipe: -v note"; }
    cmp "$t/ref.png" "$t/pipe.png" || fail "to a pipe: output"
    "$gpuimg" -v blur --format png - "$t/stdin.png" <"$s/scene.png" 2>"$t/err" ||
        fail "from standard input"
    grep -q 'in this process: standard input is read here' "$t/err" ||
        { cat "$t/err"; fail "from standard input: -v note"; }
    cmp "$t/ref.png" "$t/stdin.png" || fail "from standard input: output"
    echo "ok: standard output to a file served, to a pipe and from standard input in-process"
}

count_fds() {
    ls "/proc/$server_pid/fd" | wc -l
}

group_fd_leak() {
    start_server
    n=${GPUIMG_SERVE_LEAK_REQUESTS:-300}
    "$gpuimg" blur "$samples/alpha.png" "$t/o.png" || fail "first request"
    before=$(count_fds)
    i=0
    while [ $i -lt "$n" ]; do
        "$gpuimg" blur "$samples/alpha.png" "$t/o.png" || fail "request $i"
        "$gpuimg" sobel "$t/missing.png" "$t/o.png" 2>/dev/null
        i=$((i + 2))
    done
    "$probe" bad-index "$sock" || fail "probe"
    "$gpuimg" blur -o "$t/batch" "$samples/scene.png" "$samples/alpha.png" || fail "batch"
    sleep 0.3
    after=$(count_fds)
    [ "$after" -le "$before" ] || fail "descriptors: $before before $n requests, $after after"
    echo "ok: $before descriptors before $n requests, $after after"
}

group_fallback() {
    GPUIMG_SERVER=off "$gpuimg" blur "$samples/scene.png" "$t/ref.png"
    # no server
    "$gpuimg" -v blur "$samples/scene.png" "$t/a.png" 2>"$t/err" || fail "no server: exit"
    grep -q 'in this process: no server' "$t/err" || fail "no server: -v note"
    cmp "$t/ref.png" "$t/a.png" || fail "no server: output"
    # a protocol of another version
    "$probe" fake-server "$sock" >"$t/fake.out" &
    fake=$!
    i=0
    while ! grep -q ready "$t/fake.out"; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "fake server"
        sleep 0.05
    done
    "$gpuimg" -v blur "$samples/scene.png" "$t/b.png" 2>"$t/err" || fail "version: exit"
    grep -q 'protocol 99' "$t/err" || { cat "$t/err"; fail "version: -v note"; }
    cmp "$t/ref.png" "$t/b.png" || fail "version: output"
    wait "$fake"
    rm -f "$sock"
    echo "ok: version mismatch ran in-process"
    # a stale socket (its server killed), then a server that replaces it
    start_server
    kill -9 "$server_pid"
    wait "$server_pid" 2>/dev/null
    server_pid=
    [ -S "$sock" ] || fail "stale: no socket left behind"
    "$gpuimg" -v blur "$samples/scene.png" "$t/c.png" 2>"$t/err" || fail "stale: exit"
    grep -q 'in this process' "$t/err" || fail "stale: -v note"
    cmp "$t/ref.png" "$t/c.png" || fail "stale: output"
    start_server --max-clients 1
    echo "ok: stale socket ran in-process, and a new server replaced it"
    # a full server
    "$probe" hold "$sock" 3 &
    holder=$!
    sleep 0.3
    "$gpuimg" -v blur "$samples/scene.png" "$t/d.png" 2>"$t/err" || fail "full: exit"
    grep -q 'refused' "$t/err" || { cat "$t/err"; fail "full: -v note"; }
    cmp "$t/ref.png" "$t/d.png" || fail "full: output"
    wait "$holder"
    echo "ok: a full server ran in-process"
    # a second server on the same socket is refused
    "$gpuimg" serve --socket "$sock" 2>"$t/err" && fail "a second server started"
    grep -q 'answers there already' "$t/err" || fail "second server: message"
    echo "ok: a second server refused"
}

group_lifecycle() {
    # --stop during a batch returns once the server has finished it and
    # stopped: at that moment its socket is gone, every output is in place
    # and its log says it stopped.
    big_input "$t/big.png"
    mkdir "$t/in"
    for i in 1 2 3 4 5 6; do cp "$t/big.png" "$t/in/$i.png"; done
    start_server -j 1
    "$gpuimg" blur --sigma 6 -o "$t/stop" "$t/in"/*.png 2>"$t/client.err" &
    client=$!
    i=0
    until [ -n "$(ls "$t/stop" 2>/dev/null | grep -v '\.tmp$')" ]; do
        i=$((i + 1))
        [ $i -lt 1000 ] || fail "--stop: no first output in 10 s"
        sleep 0.01
    done
    "$gpuimg" serve --stop --socket "$sock" || fail "--stop"
    [ ! -e "$sock" ] || fail "--stop returned with the socket still there"
    grep -q 'stopped after' "$t/server.log" || fail "--stop returned before the server stopped"
    [ "$(ls "$t/stop" | grep -vc '\.tmp$')" -eq 6 ] || fail "--stop returned before the batch ended"
    wait "$server_pid" || fail "server exit after --stop"
    server_pid=
    wait "$client" || fail "the client of a stopped server"
    echo "ok: --stop returned once the server had stopped"
    "$gpuimg" serve --socket "$sock" --idle-exit 0.5 2>/dev/null &
    server_pid=$!
    sleep 2
    kill -0 "$server_pid" 2>/dev/null && fail "--idle-exit: still running"
    server_pid=
    echo "ok: --idle-exit"
    # SIGTERM during a batch: the batch completes on the server
    start_server -j 1
    "$gpuimg" blur --sigma 6 -o "$t/out" "$t/in"/*.png 2>"$t/client.err" &
    client=$!
    sleep 0.3
    kill "$server_pid"
    wait "$client" || fail "client after SIGTERM"
    wait "$server_pid" || fail "server exit after SIGTERM"
    server_pid=
    [ "$(ls "$t/out" | wc -l)" -eq 6 ] || fail "SIGTERM: outputs missing"
    echo "ok: SIGTERM let the batch finish"
    # a client killed mid-batch (once its first output is in place, with
    # eleven to go, however fast the machine): the server goes on and
    # leaves no temporary file
    for i in 7 8 9 10 11 12; do cp "$t/big.png" "$t/in/$i.png"; done
    start_server -j 1
    "$gpuimg" blur --sigma 6 -o "$t/out2" "$t/in"/*.png 2>/dev/null &
    client=$!
    i=0
    until [ -n "$(ls "$t/out2" 2>/dev/null | grep -v '\.tmp$')" ]; do
        i=$((i + 1))
        [ $i -lt 1000 ] || fail "killed client: no first output in 10 s"
        sleep 0.01
    done
    kill -9 "$client"
    wait "$client" 2>/dev/null
    # its job ends once the images in flight do (30 s at most, for slow
    # builds): its log line says the client went
    i=0
    until grep -q 'client gone' "$t/server.log"; do
        i=$((i + 1))
        [ $i -lt 600 ] || fail "the server did not see the client go"
        sleep 0.05
    done
    "$gpuimg" blur "$samples/alpha.png" "$t/after.png" || fail "client after a killed one"
    [ "$(find "$t/out2" -name '*.tmp' | wc -l)" -eq 0 ] || fail "temporary files left"
    echo "ok: a killed client's job abandoned, no temporary files"
    # a client of another user: refused by its credentials (as root, which
    # can open the way to the socket for user nobody)
    if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        start_server
        chmod 711 "$t"
        chmod 666 "$sock"
        # the probe's own verdict does not matter: the server's log says
        setpriv --reuid=65534 --regid=65534 --clear-groups "$probe" junk "$sock" >/dev/null 2>&1
        chmod 700 "$t"
        grep -q 'refused: not our user' "$t/server.log" || fail "another user's client served"
        stop_server
        echo "ok: a client of another user refused"
    else
        echo "skip: a client of another user (needs root and setpriv)"
    fi
    # a socket directory others may enter
    mkdir "$t/open"
    chmod 755 "$t/open"
    "$gpuimg" serve --socket "$t/open/sock" 2>"$t/err" && fail "served from an open directory"
    grep -q 'closed to group and others' "$t/err" || fail "open directory: message"
    echo "ok: a socket directory open to others refused"
    # a socket directory of another user (made first by them in /tmp, say):
    # said plainly, with no advice to change what is not ours
    if [ "$(id -u)" = 0 ]; then
        mkdir -m 700 "$t/theirs"
        chown 65534 "$t/theirs"
        theirs=$t/theirs
    else
        theirs=/ # root's
    fi
    "$gpuimg" serve --socket "$theirs/sock" 2>"$t/err" && fail "served from another user's directory"
    grep -q 'belongs to another user' "$t/err" && ! grep -q chmod "$t/err" ||
        { cat "$t/err"; fail "another user's directory: message"; }
    echo "ok: a socket directory of another user refused, saying so"
}

case $group in
same-bytes) group_same_bytes ;;
sigkill) group_sigkill ;;
malformed) group_malformed ;;
concurrent) group_concurrent ;;
cores) group_cores ;;
stalled) group_stalled ;;
build) group_build ;;
stdio) group_stdio ;;
fd-leak) group_fd_leak ;;
fallback) group_fallback ;;
lifecycle) group_lifecycle ;;
*) echo "no group $group"; exit 2 ;;
esac
# The last server exits as asked; whatever a sanitizer saw in any server
# fails the group.
[ -z "$server_pid" ] || stop_server || fail "the server's exit status"
! grep -E -A20 'Sanitizer|runtime error' "$t/server.log" 2>/dev/null || fail "a sanitizer report"
