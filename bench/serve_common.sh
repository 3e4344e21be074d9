# shellcheck shell=sh
# Sourced by the bench scripts that start a server of their own.

# start_server GPUIMG SOCKET LOG [SERVE_OPTION...]: that build's `gpuimg
# serve` on SOCKET in the background, its pid in $server, its stderr in
# LOG; returns once the server answers, and exits the script when it has
# not within 30 s.
start_server() {
    start_gpuimg=$1
    start_socket=$2
    start_log=$3
    shift 3
    "$start_gpuimg" serve --socket "$start_socket" "$@" 2>"$start_log" &
    # shellcheck disable=SC2034 # the sourcing script stops it
    server=$!
    start_tries=0
    until GPUIMG_SERVER="$start_socket" "$start_gpuimg" info --no-bandwidth 2>/dev/null |
        grep -q "^server: $start_socket"; do
        start_tries=$((start_tries + 1))
        [ $start_tries -lt 600 ] || { echo "the server of $start_gpuimg did not start"; cat "$start_log"; exit 1; }
        sleep 0.05
    done
}
