#!/bin/sh
# Golden-image comparison speed, two measures:
#   1. a tree of N golden 1 MP PNGs against a copy of itself:
#        gpuimg compare -r -j JOBS  against  parallel -j JOBS compare -metric AE
#      (ImageMagick), alternating the two tools, REPS times each;
#   2. one 9 MP pair (PHOTO against a copy with other PNG settings, equal
#      pixels; against a copy with one sample off by one; against a blurred
#      copy, which differs in most rows): gpuimg
#      compare against the time of decoding the two files (gpuimg hist of
#      each, whose histogram costs a few ms: the decode is the time).
#
#   scripts/bench_compare.sh [PHOTOS_DIR [N [JOBS]]]
#     PHOTOS_DIR  default ../shared/photos; the 1 MP goldens are 1024x1024 tiles
#                 cut from its PNGs and JPEGs, repeated to make N files
#     N           default 200      JOBS  default nproc
#   Environment: GPUIMG (default build/cmd/gpuimg; build/tests/pixel_poke is
#   used too), GPUIMG_BEFORE (another gpuimg, e.g. a build of an older
#   commit, timed in the same turns: before/after figures of one run),
#   GPUIMG_FLAGS (default
#   "--device cpu"), REPS (default 3), PHOTO (default PHOTOS_DIR/warty-final-ubuntu.png),
#   KEEP=1 keeps the temporary folder. Needs ImageMagick (compare, convert),
#   GNU parallel, GNU time (/usr/bin/time) and bc from Debian. Prints the
#   median and best wall time of each, and for the tree the median CPU time
#   (user + system): steadier than wall time on a shared machine.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
photos=${1:-$root/../shared/photos}
count=${2:-200}
jobs=${3:-$(nproc)}
gpuimg=${GPUIMG:-$root/build/cmd/gpuimg}
before=${GPUIMG_BEFORE:-}
flags=${GPUIMG_FLAGS:---device cpu}
reps=${REPS:-3}
photo=${PHOTO:-$photos/warty-final-ubuntu.png}
for tool in compare convert parallel; do
    command -v $tool >/dev/null || { echo "bench_compare: $tool not found" >&2; exit 2; }
done
tmp=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT

# stats T...: "median best" of the times
stats() { printf '%s\n' "$@" | sort -g | awk '{ t[NR] = $1 } END { printf "%.3f %.3f", t[int((NR + 1) / 2)], t[1] }'; }
# timed VAR CMD...: runs CMD (exit 0 or 1 both count as ran), appends its wall
# time to VAR and its CPU time (user + system, children included) to VAR_cpu
timed() {
    var=$1
    shift
    rc=0
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >/dev/null 2>&1 || rc=$?
    [ $rc -le 1 ] || { echo "bench_compare: '$*' failed ($rc)" >&2; exit 1; }
    set -- $(tail -n 1 "$tmp/time")
    eval "$var=\"\${$var:-} $1\""
    eval "${var}_cpu=\"\${${var}_cpu:-} $(echo "$2 + $3" | bc)\""
}

# ---- 1. the tree
mkdir -p "$tmp/tiles" "$tmp/expected" "$tmp/actual"
for p in "$photos"/*.png "$photos"/*.jpg; do
    convert "$p" -alpha off -crop 1024x1024 +repage "$tmp/tiles/$(basename "${p%.*}")-%02d.png" 2>/dev/null
done
# only whole tiles
tiles=$(for t in "$tmp"/tiles/*.png; do
    [ "$(identify -format '%wx%h' "$t" 2>/dev/null)" != 1024x1024 ] || echo "$t"; done)
i=0
while [ $i -lt "$count" ]; do
    for t in $tiles; do
        [ $i -lt "$count" ] || break
        sub=$tmp/expected/d$((i % 10))
        mkdir -p "$sub" "$tmp/actual/d$((i % 10))"
        cp "$t" "$sub/golden$i.png"
        cp "$t" "$tmp/actual/d$((i % 10))/golden$i.png"
        i=$((i + 1))
    done
done
find "$tmp/expected" -name '*.png' | sed "s|^$tmp/expected/||" >"$tmp/list"
im=
gi=
bf=
r=0
while [ $r -lt "$reps" ]; do
    # shellcheck disable=SC2086
    timed gi "$gpuimg" compare $flags -q -r -j "$jobs" "$tmp/expected" "$tmp/actual"
    timed im sh -c "cd '$tmp' && parallel -j $jobs compare -metric AE expected/{} actual/{} null: <list"
    # shellcheck disable=SC2086
    [ -z "$before" ] || timed bf "$before" compare $flags -q -r -j "$jobs" "$tmp/expected" "$tmp/actual"
    r=$((r + 1))
done
# shellcheck disable=SC2086
set -- $(stats $gi)
gi_med=$1 gi_best=$2
# shellcheck disable=SC2086
set -- $(stats $im)
im_med=$1 im_best=$2
# shellcheck disable=SC2086
gi_cpu=$(stats $gi_cpu | cut -d' ' -f1)
# shellcheck disable=SC2086
im_cpu=$(stats $im_cpu | cut -d' ' -f1)
echo "tree of $count 1 MP PNGs against itself, $jobs jobs, $reps runs (wall median / best s; CPU median s):"
echo "  gpuimg compare -r -j $jobs $flags   $gi_med / $gi_best; CPU $gi_cpu"
echo "  parallel -j $jobs compare -metric AE   $im_med / $im_best; CPU $im_cpu"
echo "  speed-up (medians): wall $(echo "scale=1; $im_med / $gi_med" | bc)x, CPU $(echo "scale=1; $im_cpu / $gi_cpu" | bc)x"
if [ -n "$before" ]; then
    # shellcheck disable=SC2086
    set -- $(stats $bf)
    # shellcheck disable=SC2086
    bf_cpu=$(stats $bf_cpu | cut -d' ' -f1)
    echo "  before: $before   $1 / $2; CPU $bf_cpu; speed-up wall $(echo "scale=1; $im_med / $1" | bc)x, CPU $(echo "scale=1; $im_cpu / $bf_cpu" | bc)x"
fi

# ---- 2. one 9 MP pair
"$gpuimg" flip h --device cpu "$photo" "$tmp/f.png"
"$gpuimg" flip h --device cpu --png-filter none --png-level 1 "$tmp/f.png" "$tmp/same.png"
"$gpuimg" blur --device cpu "$photo" "$tmp/blurred.png"
"$root/build/tests/pixel_poke" "$tmp/same.png" "$tmp/one-off.png" 100 100 0 1
echo "one pair, $(identify -format '%wx%h' "$photo" 2>/dev/null) ($photo), $reps runs (median / best s):"
# pair_times GPUIMG OTHER: the medians "decode-both compare" of that gpuimg
pair_times() {
    dec=
    cmp=
    r=0
    while [ $r -lt "$reps" ]; do
        timed dec sh -c "'$1' hist --device cpu '$photo' /dev/null && '$1' hist --device cpu '$tmp/$2.png' /dev/null"
        # shellcheck disable=SC2086
        timed cmp "$1" compare $flags -q "$photo" "$tmp/$2.png"
        r=$((r + 1))
    done
    # shellcheck disable=SC2086
    echo "$(stats $dec | cut -d' ' -f1) $(stats $cmp)"
}
for other in same one-off blurred; do
    # shellcheck disable=SC2046
    set -- $(pair_times "$gpuimg" $other)
    echo "  vs $other: decode both $1 / -, compare $2 / $3, ratio $(echo "scale=2; $2 / $1" | bc)x"
    [ -z "$before" ] && continue
    # shellcheck disable=SC2046
    set -- $(pair_times "$before" $other)
    echo "    before: decode both $1 / -, compare $2 / $3, ratio $(echo "scale=2; $2 / $1" | bc)x"
done
