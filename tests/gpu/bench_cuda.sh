#!/bin/sh
# bench_cuda.sh GPUIMG [PAPER_TIMES]: `gpuimg bench --device cuda` times
# every operation (a row each, every time above 0), and paper_times --check
# holds the seed paper's kernels to float64. Skips (77) without a GPU.
gpuimg=$1
paper_times=${2:-}
"$gpuimg" info --no-bandwidth | grep -q '^cuda device 0:' || { echo "skip: no GPU"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
if ! "$gpuimg" bench --device cuda --size 67x45 --channels 3 -n 3 --warmup 1 \
        --op blur,sobel,transpose,hist,convolve >"$tmp/out" 2>"$tmp/err"; then
    echo "FAIL: gpuimg bench --device cuda: $(cat "$tmp/err")"
    failed=1
fi
rows=$(awk '$1 ~ /^(blur|sobel|transpose|hist|convolve)$/ && $5 > 0' "$tmp/out" | wc -l)
if [ "$rows" -ne 5 ]; then
    echo "FAIL: gpuimg bench --device cuda: want 5 rows with times above 0, got $rows:"
    cat "$tmp/out"
    failed=1
fi
if [ -n "$paper_times" ]; then
    "$paper_times" --check || failed=1
fi
exit $failed
