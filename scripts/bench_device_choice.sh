#!/bin/bash
# Does the default device (auto) finish as fast as the better of --device cpu
# and --device cuda? Whole-process times, file to file, for the cases
# below, plus the figures the cost model (lib/engine/device_plan.c) is made of.
#
#   scripts/bench_device_choice.sh [OUTDIR]
#     OUTDIR   where the results go (default: a new temporary folder, printed):
#              table.md (medians and ratios), times.tsv (every run), verbose.log
#              (each run's -v line: stages, device and why), bench_cpu.txt,
#              bench_cuda.txt, startup.txt
#   By environment:
#     GPUIMG   the binary (default build/cmd/gpuimg)
#     PHOTOS   the photos (default ../shared/photos: *.png *.jpg)
#     REPS     runs of each case; the table shows the median (default 5)
#     OPS      of blur2 blur20 sobel transpose hist conv15 (default: all)
#     DEVICES  of auto cpu cuda (default: all three), and cpu2: a second
#              --device cpu run in each turn, an A/A control whose ratio to
#              cpu (the "cpu2 / cpu" column) is the machine's noise floor
#     BATCH_OPS  ops timed over 40 files (10 copies of each photo; default
#              "blur2 sobel"; "" for none)
#     PARTS=0  skips the benchmarks and start-up parts; TABLE=0 skips the
#              single-photo table
#   e.g. REPS=1 OPS=sobel BATCH_OPS= scripts/bench_device_choice.sh /tmp/r
#
# Each process writes the same format as its input (JPEG quality 90, PNG
# level 6), to a folder in /dev/shm when there is one. The ratio is
# auto / min(cpu, cuda); the target is 1.05. Needs bash 5 (EPOCHREALTIME),
# awk and, for the start-up parts, cc and the CUDA runtime.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gpuimg=${GPUIMG:-$root/build/cmd/gpuimg}
photos=${PHOTOS:-$root/../shared/photos}
reps=${REPS:-5}
ops=${OPS:-blur2 blur20 sobel transpose hist conv15}
devices=${DEVICES:-auto cpu cuda}
batch_ops=${BATCH_OPS-blur2 sobel}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
scratch=$(mktemp -d "$([ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/gi_choice.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# A 15x15 mask of ones, normalized: the issue's convolve.
mask=$scratch/mask15.txt
for _ in $(seq 15); do printf '1 %.0s' $(seq 15); echo; done >"$mask"

# The arguments of an operation, by name.
op_args() {
    case $1 in
        blur2) echo "blur --sigma 2" ;;
        blur20) echo "blur --sigma 20" ;;
        sobel) echo "sobel" ;;
        transpose) echo "transpose" ;;
        hist) echo "hist" ;;
        conv15) echo "convolve --normalize --kernel $mask" ;;
        *) echo "unknown op $1" >&2; exit 2 ;;
    esac
}

# Runs a command, its output going to $scratch/stdout, and prints its wall
# time in ms; returns its status.
time_ms() {
    local start=$EPOCHREALTIME rc=0
    "$@" >"$scratch/stdout" || rc=$?
    local end=$EPOCHREALTIME
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'
    return $rc
}

echo "machine: $(nproc) cores; $("$gpuimg" info --no-bandwidth 2>&1 | tr '\n' ';')" | tee "$out/machine.txt"

if [ "${PARTS:-1}" = 1 ]; then
    # CPU rates: every operation and channel count at a photo's size, 16
    # threads; and one thread at 1 MP, for the scaling.
    for sigma in 2 20; do
        "$gpuimg" bench --device cpu -j "$(nproc)" --size 3840x2400 --channels 1,2,3,4 \
            --op blur,sobel,transpose,hist,convolve --sigma $sigma -n 3 --warmup 1
        "$gpuimg" bench --device cpu -j 1 --size 1024x1024 --channels 1,3,4 \
            --op blur,sobel,transpose,hist,convolve --sigma $sigma -n 3 --warmup 1
    done >"$out/bench_cpu.txt" 2>&1 || echo "bench --device cpu failed" >>"$out/bench_cpu.txt"
    for sigma in 2 20; do
        "$gpuimg" bench --device cuda --size 3840x2400 --channels 1,2,3,4 \
            --op blur,sobel,transpose,hist,convolve --sigma $sigma
    done >"$out/bench_cuda.txt" 2>&1 || echo "bench --device cuda failed" >>"$out/bench_cuda.txt"
    {
        if cc -O2 -I/usr/local/cuda/include "$root/scripts/cuda_startup_parts.c" \
            -L/usr/local/cuda/lib64 -lcudart -o "$scratch/parts" 2>&1; then
            for i in 1 2 3; do
                echo "== run $i (whole process: $(time_ms "$scratch/parts") ms)"
                cat "$scratch/stdout"
            done
        fi
        # What module loading and the rest cost inside gpuimg: the start-up
        # stage of -v, eager against lazy loading, and info's own figure.
        one=$(ls "$photos"/*.jpg | head -1)
        for loading in LAZY EAGER; do
            for i in 1 2 3; do
                CUDA_MODULE_LOADING=$loading "$gpuimg" -v sobel --device cuda "$one" \
                    "$scratch/s.jpg" 2>&1 | grep -o 'startup [0-9.]*' | sed "s/^/$loading /"
            done
        done
        for i in 1 2 3; do "$gpuimg" info --no-bandwidth | grep start-up; done
        # The CPU-only path pays nothing for CUDA: a small image, default
        # against --device cpu, and with the GPU hidden.
        small=$root/samples/scene.png
        for device in auto cpu; do
            for i in $(seq "$reps"); do
                echo "small $device $(time_ms "$gpuimg" sobel --device $device "$small" "$scratch/x.png")"
                echo "small-nogpu $device $(CUDA_VISIBLE_DEVICES= time_ms "$gpuimg" sobel \
                    --device $device "$small" "$scratch/x.png")"
            done
        done
    } >"$out/startup.txt" 2>&1
fi

: >"$out/times.tsv"
: >"$out/verbose.log"
if [ "${TABLE:-1}" = 1 ]; then
    for photo in "$photos"/*.png "$photos"/*.jpg; do
        [ -f "$photo" ] || continue
        name=$(basename "$photo")
        for op in $ops; do
            ext=${name##*.}
            [ "$op" = hist ] && ext=txt
            read -ra args <<<"$(op_args "$op")"
            for rep in $(seq "$reps"); do
                for device in $devices; do
                    ms=$(time_ms "$gpuimg" -v "${args[@]}" --device "${device%2}" "$photo" \
                        "$scratch/out.$ext" 2>"$scratch/err") || ms="FAIL"
                    printf '%s\t%s\t%s\t%s\n' "$name" "$op" "$device" "$ms" >>"$out/times.tsv"
                    sed "s|^|$name $op $device: |" "$scratch/err" >>"$out/verbose.log"
                done
            done
        done
    done
fi

if [ -n "$batch_ops" ]; then
    mkdir -p "$scratch/in"
    for i in $(seq 10); do
        for photo in "$photos"/*.png "$photos"/*.jpg; do
            [ -f "$photo" ] && cp "$photo" "$scratch/in/${i}_$(basename "$photo")"
        done
    done
    for op in $batch_ops; do
        read -ra args <<<"$(op_args "$op")"
        for rep in $(seq "$reps"); do
            for device in $devices; do
                rm -rf "$scratch/bout"
                ms=$(time_ms "$gpuimg" -q "${args[@]}" --device "${device%2}" -o "$scratch/bout" \
                    "$scratch/in"/*) || ms="FAIL"
                printf '%s\t%s\t%s\t%s\n' "40 photos" "$op" "$device" "$ms" >>"$out/times.tsv"
            done
        done
    done
fi

# Medians, and auto against the better of the two.
awk -F'\t' '
    { key = $1 "\t" $2; n[key, $3]++; v[key, $3, n[key, $3]] = $4; if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    function median(key, d,    m, i, j, t, a) {
        m = n[key, d]; if (!m) return -1
        for (i = 1; i <= m; i++) { if (v[key, d, i] == "FAIL") return -2; a[i] = v[key, d, i] + 0 }
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    function cell(x) { return x == -1 ? "-" : x == -2 ? "FAIL" : sprintf("%.0f", x) }
    BEGIN { print "| file | op | default (auto) ms | --device cpu ms | --device cuda ms | auto / best | cpu2 / cpu |"
            print "| --- | --- | --- | --- | --- | --- | --- |" }
    END {
        for (i = 1; i <= k; i++) {
            key = order[i]; split(key, f, "\t")
            a = median(key, "auto"); c = median(key, "cpu"); g = median(key, "cuda"); c2 = median(key, "cpu2")
            best = c < 0 ? g : g < 0 ? c : (c < g ? c : g)
            ratio = a > 0 && best > 0 ? sprintf("%.2f%s", a / best, a / best > 1.05 ? " (over 1.05)" : "") : "-"
            control = c2 > 0 && c > 0 ? sprintf("%.2f", c2 / c) : "-"
            printf "| %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], cell(a), cell(c), cell(g), ratio, control
        }
    }' "$out/times.tsv" >"$out/table.md"
echo "medians of $reps, in $out:"
cat "$out/table.md"
