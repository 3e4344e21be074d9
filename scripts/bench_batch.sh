#!/bin/sh
# Folder throughput, file to file: gpuimg against vips under GNU parallel, over
# the same copies of the photos, alternating the two tools in one run.
#
#   scripts/bench_batch.sh [-r REPS] [PHOTOS_DIR [COPIES [JOBS [OP...]]]]
#     PHOTOS_DIR  default ../shared/photos (its *.png *.jpg *.jpeg)
#     COPIES      default 10 (4 photos -> 40 files; copies keep .png/.jpg)
#     JOBS        default nproc: parallel -j JOBS vips ...  against  gpuimg -j JOBS
#     OP          blur (sigma 2) sobel transpose rotate90 flip; default: blur sobel transpose
#     -r REPS     repetitions of each op and tool, default 3; the table shows the
#                 median and the best, images/s and the ratio from the median
#   The same settings by environment: PHOTOS COPIES JOBS OPS="blur sobel" REPS,
#   and GPUIMG (default build/cmd/gpuimg), GPUIMG_FLAGS (e.g. "--device cuda"),
#   GPUIMG_JOBS (gpuimg's -j, default JOBS), VIPS (default vips), PARALLEL_BIN
#   (default parallel; PARALLEL is GNU parallel's own options variable; if it
#   does not run, xargs -P stands in and the table says so), KEEP=1 keeps the
#   temporary folder.
#   e.g. COPIES=1 REPS=1 scripts/bench_batch.sh samples
#        GPUIMG_FLAGS="--device cuda" JOBS=16 scripts/bench_batch.sh
#
# vips runs as the issue states it: `parallel -jJOBS vips gaussblur {} out/{/} 2`
# (sobel: `vips sobel`; transpose: `vips rot d90`, as vips has no transpose),
# output format = input format, each tool at its own default JPEG quality
# (vips 75, gpuimg 90). Every repetition starts from an empty output folder and
# is checked: a non-zero exit or a missing or empty output marks the row FAIL
# (exit status 1), so a failing tool cannot look fast. Needs vips
# (libvips-tools) and GNU parallel (parallel) from Debian, awk, date +%N. The
# copies go to a temporary folder (TMPDIR) that is removed afterwards.
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
photos=${1:-${PHOTOS:-$root/../shared/photos}}
copies=${2:-${COPIES:-10}}
jobs=${3:-${JOBS:-$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)}}
[ $# -gt 3 ] && { shift 3; ops=$*; } || ops=${OPS:-blur sobel transpose}
gpuimg=${GPUIMG:-$root/build/cmd/gpuimg}
gflags=${GPUIMG_FLAGS:-}
gjobs=${GPUIMG_JOBS:-$jobs}
vips=${VIPS:-vips}
par=${PARALLEL_BIN:-parallel}
case $reps$copies$jobs$gjobs in *[!0-9]*) echo "bench_batch: REPS, COPIES, JOBS, GPUIMG_JOBS must be numbers" >&2; exit 2 ;; esac
if [ "$reps" -lt 1 ] || [ "$copies" -lt 1 ] || [ "$jobs" -lt 1 ] || [ "$gjobs" -lt 1 ]; then
    echo "bench_batch: REPS, COPIES, JOBS, GPUIMG_JOBS must be >= 1" >&2; exit 2
fi

for tool in "$vips" "$gpuimg" awk; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench_batch: $tool not found" >&2; exit 1; }
done
"$vips" --vips-version >/dev/null 2>&1 || { echo "bench_batch: $vips does not run" >&2; exit 1; }
if "$par" --version 2>/dev/null | grep -q 'GNU parallel'; then
    runner="GNU parallel -j$jobs"
else
    runner="xargs -P$jobs (no working GNU parallel)"; par=
fi
for op in $ops; do
    case $op in blur|sobel|transpose|rotate90|flip) ;; *) echo "bench_batch: unknown op $op" >&2; exit 2 ;; esac
done

work=$(mktemp -d)
if [ "${KEEP:-0}" = 1 ]; then echo "bench_batch: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/in"
i=0
while [ "$i" -lt "$copies" ]; do
    for f in "$photos"/*.png "$photos"/*.jpg "$photos"/*.jpeg; do
        [ -f "$f" ] && cp "$f" "$work/in/$i-$(basename "$f")"
    done
    i=$((i + 1))
done
count=$(ls "$work/in" | wc -l)
[ "$count" -gt 0 ] || { echo "bench_batch: no .png/.jpg/.jpeg in $photos" >&2; exit 1; }

now() { date +%s.%N; }

# run_vips OP OUT: every input through vips, JOBS at a time
run_vips() {
    case $1 in
        blur) set -- "$2" gaussblur 2 ;;
        sobel) set -- "$2" sobel ;;
        transpose|rotate90) set -- "$2" rot d90 ;;
        flip) set -- "$2" flip horizontal ;;
    esac
    o=$1 vop=$2
    shift 2
    if [ -n "$par" ]; then
        ls "$work/in" | sed "s|^|$work/in/|" |
            "$par" --will-cite -j "$jobs" "$vips" "$vop" {} "$o/{/}" "$@"
    else
        (cd "$work/in" && ls | xargs -P "$jobs" -I{} "$vips" "$vop" {} "$o/{}" "$@")
    fi
}

# run_gpuimg OP OUT: one gpuimg process over every input
run_gpuimg() {
    case $1 in
        blur) set -- "$2" blur --sigma 2 ;;
        sobel) set -- "$2" sobel ;;
        transpose) set -- "$2" transpose ;;
        rotate90) set -- "$2" rotate 90 ;;
        flip) set -- "$2" flip h ;;
    esac
    o=$1
    shift
    # shellcheck disable=SC2086
    "$gpuimg" "$@" $gflags -q -j "$gjobs" -o "$o" "$work/in"/*
}

# one OP TOOL REP: time one run, check its outputs, append a line to results
one() {
    rm -rf "$work/out"
    mkdir "$work/out"
    t0=$(now)
    if "run_$2" "$1" "$work/out" >"$work/log" 2>&1; then rc=0; else rc=$?; fi
    t1=$(now)
    made=0
    for f in "$work/in"/*; do
        [ -s "$work/out/${f##*/}" ] && made=$((made + 1))
    done
    echo "$1 $2 $3 $t0 $t1 $rc $made" >>"$work/results"
    if [ "$rc" -ne 0 ] || [ "$made" -ne "$count" ]; then
        echo "bench_batch: $1 $2 run $3: exit $rc, $made of $count outputs; last lines:" >&2
        tail -n 5 "$work/log" >&2
    fi
}

echo "bench_batch: $count files ($((count / copies)) photos x $copies), $reps reps, $(uname -m), nproc $(nproc 2>/dev/null || echo ?)"
echo "  vips:   $("$vips" --vips-version) ($(command -v "$vips")) via $runner"
echo "  gpuimg: $("$gpuimg" --version) ($gpuimg) -j $gjobs${gflags:+ $gflags}"
: >"$work/results"
r=1
while [ "$r" -le "$reps" ]; do
    for op in $ops; do
        # alternate which tool goes first, so neither always gets the warm cache
        if [ $((r % 2)) -eq 1 ]; then one "$op" vips "$r"; one "$op" gpuimg "$r"
        else one "$op" gpuimg "$r"; one "$op" vips "$r"; fi
    done
    r=$((r + 1))
done

awk -v n="$count" -v ops="$ops" '
    { key = $1 " " $2; t = $5 - $4; k[key]++; s[key, k[key]] = t
      if ($6 != 0 || $7 != n) bad[key] = "FAIL (exit " $6 ", " $7 "/" n " outputs)" }
    function median(key,   m, i, j, a, x) {
        m = k[key]
        for (i = 1; i <= m; i++) a[i] = s[key, i]
        for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
        best[key] = a[1]
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
        printf "%-10s %-7s %9s %9s %9s %12s\n", "op", "tool", "median s", "best s", "images/s", "gpuimg/vips"
        nops = split(ops, o, " ")
        for (i = 1; i <= nops; i++) {
            v = o[i] " vips"; g = o[i] " gpuimg"
            mv = median(v); mg = median(g)
            bv = (v in bad) ? bad[v] : ""
            bg = (g in bad) ? bad[g] : ""
            ratio = (bv != "" || bg != "") ? "-" : sprintf("%.2fx", mv / mg)
            printf "%-10s %-7s %9.3f %9.3f %9.2f %12s\n", o[i], "vips", mv, best[v], n / mv, bv
            printf "%-10s %-7s %9.3f %9.3f %9.2f %12s\n", o[i], "gpuimg", mg, best[g], n / mg, bg != "" ? bg : ratio
            if (bv != "" || bg != "") failed = 1
        }
        exit failed
    }' "$work/results"
