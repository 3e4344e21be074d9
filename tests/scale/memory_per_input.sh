#!/bin/sh
# What a batch keeps per input: the peak RSS of a batch of 10,000 tiny
# inputs is at most 600 bytes an input above that of 1,000 (README "A
# folder": about 350, an item's record of 184 bytes, its two paths and
# the sorting; it was 1,900 when each item held its texts). The
# inputs are links to one 1x1 PNG, so the images in flight weigh nothing
# and the growth is the per-input records alone. Arguments after the
# common four: PEAK_RSS (tests/scale/peak_rss.c). Needs python3 to make
# the links quickly.
. "$(dirname "$0")/common.sh"
peak_rss=$(absolute "$1")
cd "$tmp" || exit 1
command -v python3 >/dev/null || skip "no python3 to make the links"
"$noise_png" 1 1 1 tiny.png || exit 1

# peak_rss_kb N: the peak RSS of a transpose batch over N links to tiny.png.
peak_rss_kb() {
    python3 -c 'import os, sys
n = int(sys.argv[1])
os.mkdir(f"in{n}")
for i in range(n):
    os.symlink("../tiny.png", f"in{n}/{i:05d}.png")' "$1" || return
    "$peak_rss" "$gpuimg" transpose --device cpu -q -j 2 -o "out$1" -r "in$1"
}
small=$(peak_rss_kb 1000)
large=$(peak_rss_kb 10000)
echo "peak RSS: 1,000 inputs $small kB, 10,000 inputs $large kB"
check "a batch failed (1,000: $small, 10,000: $large)" [ "$small" != failed ] && [ "$large" != failed ]
check "the peak RSS grows by $(( (large - small) * 1024 / 9000 )) bytes an input, want at most 600" \
    [ $(( (large - small) * 1024 )) -le $((600 * 9000)) ]
finish
