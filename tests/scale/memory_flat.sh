#!/bin/sh
# Memory stays flat: the batch engine's queues bound the images in flight,
# so the peak RSS of a batch of 100 inputs is that of a batch of 20 (within
# 25% plus 16 MB of allocator noise; a leak of one image per file would add
# 190 MB). The inputs are links to one 0.8 MP noise PNG. Also: -v names every stage's time for each file and in total,
# and --summary-json carries them per file. Needs python3 for getrusage.
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
command -v python3 >/dev/null || skip "no python3 to measure the peak RSS"
"$noise_png" 1000 800 7 noise.png || exit 1

# peak_rss_kb N: the peak RSS of a transpose batch over N links.
peak_rss_kb() {
    rm -rf "in$1" "out$1"
    mkdir "in$1"
    _i=0
    while [ "$_i" -lt "$1" ]; do
        ln -s "$tmp/noise.png" "in$1/$_i.png"
        _i=$((_i + 1))
    done
    python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stderr=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else "failed")' \
        "$gpuimg" transpose --device cpu --png-level 1 -j 2 -q -o "out$1" -r "in$1"
}
small=$(peak_rss_kb 20)
large=$(peak_rss_kb 100)
echo "peak RSS: 20 files $small kB, 100 files $large kB"
check "a batch failed (20 files: $small, 100 files: $large)" \
    [ "$small" != failed ] && [ "$large" != failed ]
check "peak RSS grows with the file count: $small kB for 20 files, $large kB for 100" \
    [ "$large" -le $((small * 5 / 4 + 16384)) ]

mkdir one
cp "$samples/scene.png" one/
expect 0 blur -v --device cpu -r -o vout --summary-json v.json one
for stage in decode upload kernel download encode; do
    check "-v: no '$stage' time for the file" has "one/scene.png -> vout/scene.png (.* $stage " stderr
    check "-v: no '$stage' total" has "time by stage, summed over images:.* $stage " stderr
    check "--summary-json: no $stage time" has "\"$stage\": [0-9]" v.json
done
finish
