#!/bin/sh
# A stream of PPM frames through `gpuimg blur` and through ffmpeg's gblur,
# the same stream, in turns, in one run: frames per second and the ratio.
#
#   scripts/bench_stream.sh [-r REPS] [FRAMES [SIZE [SIGMA]]]
#     FRAMES  default 300;  SIZE default 1920x1080;  SIGMA default 2
#     -r REPS repetitions of each tool, alternated, default 3; the table
#             shows the median and the best run, and the ratio of medians
#   Environment: GPUIMG (default build/cmd/gpuimg), GPUIMG_FLAGS (e.g.
#   "--device cuda"), FFMPEG (default ffmpeg), KEEP=1 keeps the temporary
#   folder (TMPDIR) and its stream.
#
# The stream is made once, before timing, by ffmpeg's testsrc2 (RGB, 30 fps)
# as `-f image2pipe -vcodec ppm`, and stored in a file, so neither tool
# waits for a producer. Each run reads it on stdin and writes its own PPM
# stream into a pipe to `wc -c`, which checks that FRAMES whole frames came
# out (a short run is marked FAIL and the exit status is 1):
#   gpuimg blur --sigma SIGMA - - --format ppm
#   ffmpeg -f image2pipe -vcodec ppm -i - -vf gblur=sigma=SIGMA \
#          -f image2pipe -vcodec ppm -
# ffmpeg's gblur is an IIR approximation of a Gaussian with its own border
# handling; gpuimg's blur is the exact 13-tap (sigma 2) kernel, so the pixels
# differ. Needs ffmpeg (Debian: apt-get install ffmpeg), awk, date +%N.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
reps=${REPS:-3}
while getopts r:h opt; do
    case $opt in
        r) reps=$OPTARG ;;
        h) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
frames=${1:-300} size=${2:-1920x1080} sigma=${3:-2}
gpuimg=${GPUIMG:-$root/build/cmd/gpuimg}
ffmpeg=${FFMPEG:-ffmpeg}
command -v "$ffmpeg" >/dev/null || { echo "bench_stream.sh: $ffmpeg not found" >&2; exit 2; }
[ -x "$gpuimg" ] || { echo "bench_stream.sh: $gpuimg not built" >&2; exit 2; }

tmp=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] && echo "temporary folder: $tmp" || trap 'rm -rf "$tmp"' EXIT
"$ffmpeg" -v error -f lavfi -i "testsrc2=size=$size:rate=30" -frames "$frames" \
    -f image2pipe -vcodec ppm - >"$tmp/in.ppm"
w=${size%x*} h=${size#*x}
frame_bytes=$(($(printf 'P6\n%s %s\n255\n' "$w" "$h" | wc -c) + w * h * 3))
[ "$(wc -c <"$tmp/in.ppm")" -eq $((frame_bytes * frames)) ] ||
    { echo "bench_stream.sh: ffmpeg's stream is not $frames frames of $frame_bytes bytes" >&2; exit 1; }

now() { date +%s.%N; }

# run TOOL: one timed pass; prints the seconds, or FAIL.
run() {
    start=$(now)
    case $1 in
    gpuimg)
        # shellcheck disable=SC2086 # GPUIMG_FLAGS is a list of words
        out=$("$gpuimg" blur --sigma "$sigma" ${GPUIMG_FLAGS:-} - - --format ppm <"$tmp/in.ppm" |
            wc -c) ;;
    ffmpeg)
        out=$("$ffmpeg" -v error -f image2pipe -vcodec ppm -i - -vf "gblur=sigma=$sigma" \
            -f image2pipe -vcodec ppm - <"$tmp/in.ppm" | wc -c) ;;
    esac
    end=$(now)
    if [ "$out" -eq $((frame_bytes * frames)) ]; then
        echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }'
    else
        echo FAIL
    fi
}

: >"$tmp/times"
i=0
while [ $i -lt "$reps" ]; do
    for tool in gpuimg ffmpeg; do
        echo "$tool $(run $tool)" >>"$tmp/times"
    done
    i=$((i + 1))
done

echo "# $frames frames of $size RGB PPM, blur sigma $sigma, $(nproc) cores, $reps runs each"
echo "# gpuimg: blur --sigma $sigma ${GPUIMG_FLAGS:-}- - --format ppm;" \
     "ffmpeg $("$ffmpeg" -version | awk 'NR == 1 { print $3 }'): -vf gblur=sigma=$sigma"
awk -v frames="$frames" '
    $2 == "FAIL" { failed[$1] = 1; next }
    { t[$1, n[$1]++] = $2 }
    function median(tool,   i, j, k, v, a) {
        k = n[tool]
        for (i = 0; i < k; i++) a[i] = t[tool, i]
        for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (a[j] < a[i]) { v = a[i]; a[i] = a[j]; a[j] = v }
        best[tool] = a[0]
        return k % 2 ? a[(k - 1) / 2] : (a[k / 2 - 1] + a[k / 2]) / 2
    }
    END {
        printf "%-8s %10s %10s %12s\n", "tool", "median s", "best s", "frames/s"
        bad = 0
        for (tool in failed) { printf "%-8s FAIL (wrong output size)\n", tool; bad = 1 }
        for (tool in n) { m[tool] = median(tool); printf "%-8s %10.2f %10.2f %12.1f\n", tool, m[tool], best[tool], frames / m[tool] }
        if (!bad && m["gpuimg"] > 0 && m["ffmpeg"] > 0)
            printf "gpuimg / ffmpeg frames per second: %.2fx\n", m["ffmpeg"] / m["gpuimg"]
        exit bad
    }' "$tmp/times"
