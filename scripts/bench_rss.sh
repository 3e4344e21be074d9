#!/bin/sh
# Peak resident memory of one gpuimg batch against the number of files: it must
# stay flat (and under 2 GB) whether the batch holds 100 files or 1,000.
#
#   scripts/bench_rss.sh [N...]          default: 100 1000
#   Environment: PHOTOS (default ../shared/photos), GPUIMG (default
#   build/cmd/gpuimg), GPUIMG_FLAGS (e.g. "--device cuda"), OP (default
#   "blur --sigma 2"), JOBS (gpuimg -j; default gpuimg's own), LINK=hard
#   (hard links instead of symlinks), KEEP=1 (keep the temporary folder).
#   e.g. PHOTOS=samples scripts/bench_rss.sh 20
#        GPUIMG_FLAGS="--device cuda" scripts/bench_rss.sh 100 1000
#
# For each N, the inputs are N links (cycling through the photos, names
# I-photo.ext so outputs keep the input's format) in a temporary folder (TMPDIR),
# never copies in the repository; gpuimg reads them with --files-from and
# writes N outputs there (about N x 1.2 MB for the four photos), removed after
# each N. Peak RSS comes from GNU time's %M (/usr/bin/time), else Python's
# getrusage(RUSAGE_CHILDREN) (never below Python's own ~15 MB: the child's
# size before exec counts), else polling VmHWM in /proc (may miss a last
# spike). A non-zero exit or a missing output marks the row FAIL (exit 1).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
photos=${PHOTOS:-$root/../shared/photos}
gpuimg=${GPUIMG:-$root/build/cmd/gpuimg}
gflags=${GPUIMG_FLAGS:-}
op=${OP:-blur --sigma 2}
[ $# -gt 0 ] || set -- 100 1000
for n in "$@"; do
    case $n in '' | *[!0-9]* | 0) echo "bench_rss: N must be a positive number: $n" >&2; exit 2 ;; esac
done
command -v "$gpuimg" >/dev/null 2>&1 || { echo "bench_rss: $gpuimg not found" >&2; exit 1; }

# RSS_METHOD=time|python|proc picks one (to test the fallbacks)
if [ "${RSS_METHOD:-time}" = time ] && [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
    how="GNU time %M"
elif [ "${RSS_METHOD:-python}" != proc ] && command -v python3 >/dev/null 2>&1; then
    how="python3 getrusage(RUSAGE_CHILDREN)"
else
    how="VmHWM polled from /proc every 20 ms"
fi

work=$(mktemp -d)
if [ "${KEEP:-0}" = 1 ]; then echo "bench_rss: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
ls "$photos" | grep -i -E '\.(png|jpe?g)$' >"$work/photos" || { echo "bench_rss: no .png/.jpg in $photos" >&2; exit 1; }
photos=$(cd "$photos" && pwd)

now() { date +%s.%N; }

# measure CMD...: runs it with stdout+stderr to $work/log; sets rc and rss_kb
measure() {
    rss_kb=0
    case $how in
        GNU*)
            if /usr/bin/time -f %M -o "$work/time" "$@" >"$work/log" 2>&1; then rc=0; else rc=$?; fi
            rss_kb=$(tail -n 1 "$work/time") ;;
        python3*)
            if python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as log:
    rc = subprocess.call(sys.argv[3:], stdout=log, stderr=subprocess.STDOUT)
with open(sys.argv[2], "w") as f:
    f.write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc if rc >= 0 else 128 - rc)' "$work/log" "$work/time" "$@"; then rc=0; else rc=$?; fi
            rss_kb=$(cat "$work/time") ;;
        *)
            "$@" >"$work/log" 2>&1 &
            pid=$!
            while kill -0 "$pid" 2>/dev/null; do
                v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
                [ -n "$v" ] && [ "$v" -gt "$rss_kb" ] && rss_kb=$v
                sleep 0.02
            done
            if wait "$pid"; then rc=0; else rc=$?; fi ;;
    esac
}

echo "bench_rss: $("$gpuimg" --version) ($gpuimg) $op${JOBS:+ -j $JOBS}${gflags:+ $gflags}"
echo "  inputs: $(wc -l <"$work/photos") photos in $photos, cycled; peak RSS by $how"
printf '%6s %9s %9s %13s  %s\n' N seconds files/s "peak RSS MB" outputs
: >"$work/results"
for n in "$@"; do
    rm -rf "$work/in" "$work/out"
    mkdir "$work/in" "$work/out"
    i=0
    while [ "$i" -lt "$n" ]; do
        while read -r p && [ "$i" -lt "$n" ]; do
            if [ "${LINK:-sym}" = hard ]; then ln "$photos/$p" "$work/in/$i-$p"
            else ln -s "$photos/$p" "$work/in/$i-$p"; fi
            echo "$i-$p"
            i=$((i + 1))
        done <"$work/photos"
    done >"$work/list"
    # bare names, run from in/: the outputs keep them under -o
    cd "$work/in"
    t0=$(now)
    # shellcheck disable=SC2086
    measure "$gpuimg" $op $gflags -q ${JOBS:+-j "$JOBS"} -o "$work/out" --files-from "$work/list"
    t1=$(now)
    cd "$work"
    made=0
    while read -r f; do
        [ -s "$work/out/$f" ] && made=$((made + 1))
    done <"$work/list"
    status="$made/$n"
    if [ "$rc" -ne 0 ] || [ "$made" -ne "$n" ]; then
        status="$status FAIL (exit $rc)"
        echo "bench_rss: N=$n: exit $rc, $made of $n outputs; last lines:" >&2
        tail -n 5 "$work/log" >&2
    fi
    awk -v n="$n" -v t0="$t0" -v t1="$t1" -v kb="$rss_kb" -v st="$status" \
        'BEGIN { printf "%6d %9.2f %9.2f %13.1f  %s\n", n, t1 - t0, n / (t1 - t0), kb / 1024, st }'
    echo "$n $rss_kb $status" >>"$work/results"
done
awk '{ kb[NR] = $2; n[NR] = $1 } / FAIL/ { failed = 1 }
     END { if (NR > 1) printf "peak RSS from N=%d to N=%d: %+.1f MB (%.2fx)\n", n[1], n[NR], (kb[NR] - kb[1]) / 1024, kb[NR] / (kb[1] ? kb[1] : 1)
           exit failed }' "$work/results"
