#!/bin/sh
# cli.sh GPUIMG SAMPLES IMGCMP GROUP [PIXEL_POKE]
#
# Behaviour of the gpuimg command: exit codes (0 ok, 1 failure, 2 usage),
# help, standard input and output, batches, files, devices, hist output,
# border names, convolve masks, bench output, pipe, Netpbm files and streams,
# and compare (which needs PIXEL_POKE, tests/pixel_poke.c, to make images
# that differ). GROUP picks one function
# below; tests/meson.build makes one test per group. Every check is counted;
# the last line is "N passed, M failed".
set -u
gpuimg=$1 samples=$2 imgcmp=$3 group=$4 poke=${5:-}
case $gpuimg in /*) ;; *) gpuimg=$PWD/$gpuimg ;; esac
case $imgcmp in /*) ;; *) imgcmp=$PWD/$imgcmp ;; esac
case $samples in /*) ;; *) samples=$PWD/$samples ;; esac
case $poke in /* | '') ;; *) poke=$PWD/$poke ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# The device and the JPEG decoder must not depend on the caller's environment.
unset GPUIMG_DEVICE GPUIMG_AUTO_ORIENT GPUIMG_DEPTH
passed=0 failed=0
# The commands there must be; group_help runs every command --help lists.
commands="blur sobel transpose rotate flip convolve resize crop thumbnail convert pipe hist compare bench info help version"
scene=$samples/scene.png

# ---------------------------------------------------------------- helpers

# check MESSAGE COMMAND...: counts a check that passes when COMMAND succeeds.
check() {
    msg=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $msg" >&2
        [ -s "$tmp/err" ] && sed 's/^/    gpuimg stderr: /' "$tmp/err" | head -n 5 >&2
    fi
    return 0
}

# gi ARGS...: runs gpuimg with stdout in $tmp/out, stderr in $tmp/err, the
# exit status in $rc. Input redirections go on the call: gi ... <file.
gi() {
    "$gpuimg" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# expect STATUS ARGS...: runs gpuimg ARGS and checks the exit status.
expect() {
    want=$1
    shift
    gi "$@"
    check "gpuimg $*: exit $rc, want $want" [ "$rc" -eq "$want" ]
}

# expect_usage ARGS...: exit 2 with a message on stderr and nothing on stdout.
expect_usage() {
    expect 2 "$@"
    check "gpuimg $*: no message on stderr" [ -s "$tmp/err" ]
    check "gpuimg $*: usage error wrote to stdout" [ ! -s "$tmp/out" ]
}

has() { grep -q -- "$1" "$2"; }
has_i() { grep -qi -- "$1" "$2"; }
lacks_ere() { ! grep -Eq -- "$1" "$2"; }
same_image() { "$imgcmp" "$1" "$2" >/dev/null 2>&1; }
different_image() { "$imgcmp" "$1" "$2" >/dev/null 2>&1; [ $? -eq 1 ]; }
same_file() { cmp -s "$1" "$2"; }
is_png() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e47 ]; }
is_jpeg() { [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' \n')" = ffd8 ]; }
# entries DIR: how many names DIR holds, hidden ones included; listing DIR: them.
entries() { find "$1" -mindepth 1 -maxdepth 1 | wc -l | tr -d ' '; }
listing() { find "$1" -mindepth 1 -maxdepth 1 | sed 's|.*/||' | tr '\n' ' '; }
# listed_commands: the command names `gpuimg --help` lists under "Commands:".
listed_commands() { "$gpuimg" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'; }
has_cuda_device() { "$gpuimg" info --no-bandwidth 2>/dev/null | grep -q '^cuda device [0-9]'; }

# ---------------------------------------------------------------- groups

group_exit_codes() {
    expect 0 blur "$scene" "$tmp/ok.png"
    check "blur wrote a PNG" is_png "$tmp/ok.png"
    check "success is silent" [ ! -s "$tmp/err" ]
    expect_usage
    expect_usage blur
    expect_usage blur "$scene"
    expect_usage frobnicate "$scene" "$tmp/x.png"
    expect_usage blur --no-such-option "$scene" "$tmp/x.png"
    check "unknown option not named on stderr" has no-such-option "$tmp/err"
    expect_usage blur -Z "$scene" "$tmp/x.png"
    check "an unknown short option is not named" has "unknown option '-Z'" "$tmp/err"
    # named after the arguments too, where getopt has moved past them
    expect_usage crop 0 0 5 5 "$scene" "$tmp/x.png" --no-such-option
    check "an unknown option after the arguments is not named" \
        has "unknown option '--no-such-option'" "$tmp/err"
    expect_usage blur "$scene" "$tmp/x.png" -qZ
    check "an unknown option in a cluster is not named" has "unknown option '-Z'" "$tmp/err"
    # a negative number reads as an option: the message says how to pass one
    expect_usage crop -1 0 5 5 "$scene" "$tmp/x.png"
    check "crop -1: the message does not say to put '--' first" has "put '--' before" "$tmp/err"
    expect_usage crop -- -1 0 5 5 "$scene" "$tmp/x.png"
    check "crop -- -1: X not refused by its own check" has "x '-1': must be an integer from 0" "$tmp/err"
    expect_usage blur "$scene" "$tmp/x.png" --sigma
    for bad in "--sigma 0" "--sigma -1" "--sigma abc" "--sigma nan" "--radius -2" \
        "--radius 1025" "--radius 2.5" "--kernel median" "--quality 0" "--quality 101" \
        "--quality x" "--border-value 256" "--border-value -1" "--format gif" \
        "--device gpu" "--jobs x"; do
        # shellcheck disable=SC2086
        expect_usage blur $bad "$scene" "$tmp/x.png"
    done
    for bad in "sobel --scale -1" "sobel --threshold abc" "rotate 45" "rotate" "flip x" \
        "flip" "hist --bins 0" "hist --bins 65537" "hist --format xml"; do
        # shellcheck disable=SC2086
        expect_usage $bad "$scene" "$tmp/x.png"
    done
    # 257 bins parse (a 16-bit image takes up to 65536), but not for an 8-bit image
    expect 1 hist --bins 257 "$scene" "$tmp/x.txt"
    check "257 bins of an 8-bit image: not refused by name" has "must be 1..256 for an 8-bit image" "$tmp/err"
    expect_usage transpose "$scene" "$tmp/x.png" "$tmp/y.png"
    check "usage errors created an output" [ ! -e "$tmp/x.png" ]

    expect 1 blur "$tmp/nothere.png" "$tmp/x.png"
    check "missing input not named on stderr" has nothere.png "$tmp/err"
    printf 'this is not a PNG\n' >"$tmp/junk.png"
    expect 1 sobel "$tmp/junk.png" "$tmp/x.png"
    check "undecodable input not named on stderr" has junk.png "$tmp/err"
    check "a failure created an output" [ ! -e "$tmp/x.png" ]
}

group_help() {
    # Every command --help lists answers --help (like git's t0012), and the
    # list holds at least the known ones (so the loop cannot run empty).
    listed_commands >"$tmp/listed"
    for cmd in $commands; do
        check "no $cmd among the commands gpuimg --help lists" has "^$cmd\$" "$tmp/listed"
    done
    for cmd in $(listed_commands); do
        expect 0 "$cmd" --help
        check "$cmd --help: no usage on stdout" has_i usage "$tmp/out"
        check "$cmd --help: wrote to stderr" [ ! -s "$tmp/err" ]
        cp "$tmp/out" "$tmp/help1"
        expect 0 help "$cmd"
        check "help $cmd: no usage on stdout" has_i usage "$tmp/out"
        check "help $cmd differs from $cmd --help" same_file "$tmp/out" "$tmp/help1"
    done
    for form in --help -h help; do
        expect 0 "$form"
        for cmd in $commands; do
            check "gpuimg $form does not list $cmd" has "$cmd" "$tmp/out"
        done
    done
    expect_usage help frobnicate
    # design.md: the border names disagree between tools, so --help shows
    # what each one reads.
    for cmd in blur sobel convolve; do
        gi "$cmd" --help
        for pattern in '00|abcd|00' 'aa|abcd|dd' 'ba|abcd|dc' 'cb|abcd|cb' 'cd|abcd|ab'; do
            check "$cmd --help lacks the pattern $pattern" has "$pattern" "$tmp/out"
        done
    done
    for form in --version version; do
        expect 0 "$form"
        check "gpuimg $form: no version number" grep -Eq '[0-9]+\.[0-9]+\.[0-9]+' "$tmp/out"
    done
    expect 0 info
    check "info does not mention the cpu backend" has cpu "$tmp/out"
    # Like git: output that could not be written is a failure.
    for form in --help --version "blur --help"; do
        # shellcheck disable=SC2086
        "$gpuimg" $form >/dev/full 2>"$tmp/err"
        rc=$?
        check "gpuimg $form >/dev/full: exit $rc, want 1" [ "$rc" -eq 1 ]
        check "gpuimg $form >/dev/full: no message" [ -s "$tmp/err" ]
    done
}

group_stdio() {
    "$gpuimg" blur "$scene" "$tmp/ref.png"
    gi blur - "$tmp/a.png" <"$scene"
    check "blur - OUT <IN: exit $rc" [ "$rc" -eq 0 ]
    check "blur from stdin differs from blur of the file" same_image "$tmp/a.png" "$tmp/ref.png"
    gi blur "$scene" - --format png
    check "blur IN - --format png: exit $rc" [ "$rc" -eq 0 ]
    check "stdout is not a PNG" is_png "$tmp/out"
    check "blur to stdout differs from blur to a file" same_image "$tmp/out" "$tmp/ref.png"
    gi blur "$scene" - --format jpeg
    check "--format jpeg to stdout: exit $rc" [ "$rc" -eq 0 ]
    check "--format jpeg did not write a JPEG" is_jpeg "$tmp/out"
    expect_usage blur "$scene" -
    # A pipeline: flip from stdin to stdout, flip back: the input again.
    "$gpuimg" flip h - - --format png <"$scene" | "$gpuimg" flip h - "$tmp/back.png"
    check "flip h | flip h is not the input" same_image "$tmp/back.png" "$scene"
    "$gpuimg" blur "$scene" - --format png >/dev/full 2>"$tmp/err"
    rc=$?
    check "blur to /dev/full: exit $rc, want 1" [ "$rc" -eq 1 ]
    check "blur to /dev/full: no message" [ -s "$tmp/err" ]
    gi blur - "$tmp/empty.png" </dev/null
    check "empty stdin: exit $rc, want 1" [ "$rc" -eq 1 ]
    check "empty stdin: no message" [ -s "$tmp/err" ]
    check "empty stdin created an output" [ ! -e "$tmp/empty.png" ]
}

# magic FILE: the first two bytes ("P6", ...).
magic() { head -c 2 "$1"; }

group_pnm() {
    # Every channel count: gray (sobel --gray), gray+alpha, RGB, RGBA.
    "$gpuimg" sobel --gray "$scene" "$tmp/c1.png"
    cp "$samples/gray_alpha.png" "$tmp/c2.png"
    cp "$scene" "$tmp/c3.png"
    cp "$samples/alpha.png" "$tmp/c4.png"
    for ch in 1 2 3 4; do
        gi flip h "$tmp/c$ch.png" "$tmp/c$ch.pam"
        check "$ch channels to .pam: exit $rc" [ "$rc" -eq 0 ]
        check "$ch channels: .pam is not P7" [ "$(magic "$tmp/c$ch.pam")" = P7 ]
        gi flip h "$tmp/c$ch.pam" "$tmp/back$ch.png"
        check "$ch channels: PAM round trip differs" same_image "$tmp/back$ch.png" "$tmp/c$ch.png"
        gi flip h "$tmp/c$ch.png" "$tmp/c$ch.pnm"
        want=P6
        [ "$ch" -le 2 ] && want=P5
        check "$ch channels to .pnm: $(magic "$tmp/c$ch.pnm"), want $want" [ "$(magic "$tmp/c$ch.pnm")" = "$want" ]
    done
    for ext in pgm ppm pnm; do
        "$gpuimg" flip h "$tmp/c1.png" "$tmp/g.$ext" && "$gpuimg" flip h "$tmp/g.$ext" "$tmp/g.png"
        check ".$ext round trip of gray differs" same_image "$tmp/g.png" "$tmp/c1.png"
    done
    "$gpuimg" flip h "$tmp/c3.png" "$tmp/a.ppm" && "$gpuimg" flip h "$tmp/a.ppm" "$tmp/a.png"
    check ".ppm round trip of RGB differs" same_image "$tmp/a.png" "$tmp/c3.png"
    # Alpha is dropped by PNM as by JPEG: the colour channels stay.
    "$gpuimg" flip h "$tmp/c4.png" "$tmp/c4.ppm"
    "$gpuimg" flip h "$tmp/c4.png" - --format pnm >"$tmp/c4b.ppm"
    check "RGBA to .ppm and to --format pnm differ" same_file "$tmp/c4.ppm" "$tmp/c4b.ppm"
    "$gpuimg" flip h "$tmp/c4.ppm" "$tmp/c4-rgb.png"
    gi hist "$tmp/c4-rgb.png"
    check "RGBA to .ppm did not keep R, G and B alone" has '^value r g b$' "$tmp/out"
    for f in pnm ppm pgm pam; do
        gi flip h "$scene" - --format $f
        want=P6
        [ $f = pam ] && want=P7
        check "--format $f: $(magic "$tmp/out"), want $want" [ "$(magic "$tmp/out")" = "$want" ]
    done
    expect_usage flip h "$scene" - --format gif
    check "--format gif: the message does not list pam" has pam "$tmp/err"
    # --format is for names that cannot tell: a name whose extension says
    # another format is a usage error and writes nothing; a batch's outputs
    # take the format's extension instead.
    mkdir "$tmp/fmt"
    expect_usage flip h "$scene" "$tmp/fmt/x.png" --format pam
    check "--format pam out.png: the message does not name out" has x.png "$tmp/err"
    expect_usage flip h - "$tmp/fmt/x.png" --format pam <"$tmp/c4.ppm"
    check "--format contradicting a name wrote files: $(listing "$tmp/fmt")" \
        [ "$(entries "$tmp/fmt")" -eq 0 ]
    expect 0 flip h -o "$tmp/fmtb" --format pam "$scene"
    check "a --format pam batch: $(listing "$tmp/fmtb")" [ "$(magic "$tmp/fmtb/scene.pam")" = P7 ]
    expect 0 flip h "$scene" "$tmp/fmt/x" --format pam
    check "--format pam, a name with no extension: $(magic "$tmp/fmt/x")" \
        [ "$(magic "$tmp/fmt/x")" = P7 ]
    expect 0 flip h "$scene" "$tmp/fmt/x.png" --format png
    expect 0 flip h "$scene" "$tmp/fmt/x.pgm" --format ppm
    # maxval 1 and 65535, comments: P5 bytes written by hand; maxval 65535
    # is read at 16 bits, and --depth 8 makes it (v + 128) / 257.
    printf 'P5\n# two pixels\n2 1\n1\n\001\000' >"$tmp/m1.pgm"
    printf 'P5 2 1 # the maxval next\n65535\n\377\377\200\200' >"$tmp/m16.pgm"
    printf 'P2\n2 1\n255\n255 0\n' >"$tmp/m8.pgm"
    printf 'P2\n2 1\n255\n255 128\n' >"$tmp/m8b.pgm"
    "$gpuimg" flip h "$tmp/m1.pgm" "$tmp/m1.png" && "$gpuimg" flip h "$tmp/m8.pgm" "$tmp/m8.png"
    check "maxval 1 is not 255 0" same_image "$tmp/m1.png" "$tmp/m8.png"
    "$gpuimg" convert --depth 8 "$tmp/m16.pgm" "$tmp/m16.png" &&
        "$gpuimg" convert "$tmp/m8b.pgm" "$tmp/m8b.png"
    check "maxval 65535 is not 255 128" same_image "$tmp/m16.png" "$tmp/m8b.png"
    pnm_streams
}

# A stream on stdin: as many images out, the bytes of each image alone.
pnm_streams() {
    "$gpuimg" flip v "$scene" "$tmp/f2.ppm"
    "$gpuimg" rotate 90 "$scene" "$tmp/f3.ppm"
    "$gpuimg" flip h "$scene" "$tmp/f1.ppm"
    : >"$tmp/want.ppm"
    for i in 1 2 3; do
        "$gpuimg" blur --sigma 2 "$tmp/f$i.ppm" "$tmp/b$i.ppm"
        cat "$tmp/b$i.ppm" >>"$tmp/want.ppm"
    done
    cat "$tmp/f1.ppm" "$tmp/f2.ppm" "$tmp/f3.ppm" >"$tmp/stream.ppm"
    gi blur --sigma 2 - - --format ppm <"$tmp/stream.ppm"
    check "3-image stream: exit $rc" [ "$rc" -eq 0 ]
    check "3-image stream: not the images blurred one by one" same_file "$tmp/out" "$tmp/want.ppm"
    check "3-image stream: something on stderr" [ ! -s "$tmp/err" ]
    cat "$tmp/stream.ppm" | "$gpuimg" blur --sigma 2 - "$tmp/s.ppm"
    check "3-image stream to a file differs" same_file "$tmp/s.ppm" "$tmp/want.ppm"
    gi blur -v --sigma 2 - "$tmp/s.ppm" <"$tmp/stream.ppm"
    check "-v: not one line per image" [ "$(grep -c 'standard input: image [123] ->' "$tmp/err")" -eq 3 ]
    # gpuimg pipe reads a stream the same way.
    : >"$tmp/pipe-want.pgm"
    for i in 1 2 3; do
        "$gpuimg" pipe 'blur --sigma 2 | sobel --gray' "$tmp/f$i.ppm" - --format pnm >>"$tmp/pipe-want.pgm"
    done
    "$gpuimg" pipe 'blur --sigma 2 | sobel --gray' - - --format pnm <"$tmp/stream.ppm" >"$tmp/pipe.pgm"
    check "pipe on a stream: not the frames one by one" same_file "$tmp/pipe.pgm" "$tmp/pipe-want.pgm"
    # Mixed kinds and channel counts, as PAM.
    "$gpuimg" flip h "$samples/alpha.png" "$tmp/m1.pam"
    cat "$tmp/m1.pam" "$tmp/f1.ppm" "$tmp/m1.pam" | "$gpuimg" flip h - - --format pam >"$tmp/mixed.pam"
    "$gpuimg" flip h "$tmp/m1.pam" "$tmp/x1.pam" && "$gpuimg" flip h "$tmp/f1.ppm" "$tmp/x2.pam"
    cat "$tmp/x1.pam" "$tmp/x2.pam" "$tmp/x1.pam" >"$tmp/mixed-want.pam"
    check "a mixed PAM/PPM stream differs" same_file "$tmp/mixed.pam" "$tmp/mixed-want.pam"
    # Cut inside image 3: images 1 and 2 out, exit 1 naming image 3.
    size=$(wc -c <"$tmp/f3.ppm")
    { cat "$tmp/f1.ppm" "$tmp/f2.ppm"; head -c $((size - 100)) "$tmp/f3.ppm"; } >"$tmp/cut.ppm"
    gi blur --sigma 2 - - --format ppm <"$tmp/cut.ppm"
    check "cut stream: exit $rc, want 1" [ "$rc" -eq 1 ]
    check "cut stream: the message does not name image 3" has 'image 3: truncated' "$tmp/err"
    cat "$tmp/b1.ppm" "$tmp/b2.ppm" >"$tmp/want2.ppm"
    check "cut stream: not the first two images out" same_file "$tmp/out" "$tmp/want2.ppm"
    gi blur --sigma 2 - "$tmp/cut-out.ppm" <"$tmp/cut.ppm"
    check "cut stream to a file: exit $rc, want 1" [ "$rc" -eq 1 ]
    check "cut stream to a file: not the first two images" same_file "$tmp/cut-out.ppm" "$tmp/want2.ppm"
    # Cut inside image 1, or empty: exit 1 and no file.
    head -c 100 "$tmp/f1.ppm" >"$tmp/cut1.ppm"
    gi blur - "$tmp/none.ppm" <"$tmp/cut1.ppm"
    check "stream cut in image 1: exit $rc, want 1" [ "$rc" -eq 1 ]
    check "stream cut in image 1: message" has 'image 1: truncated' "$tmp/err"
    check "stream cut in image 1 left a file" [ -z "$(ls -A "$tmp" | grep none)" ]
    gi blur - - --format ppm </dev/null
    check "empty stream: exit $rc, want 1" [ "$rc" -eq 1 ]
    check "empty stream: message" has 'standard input: empty' "$tmp/err"
    check "empty stream: output" [ ! -s "$tmp/out" ]
    # Plain P3 frames and blanks between them.
    printf 'P3 1 1 255 10 20 30\n\nP3 1 1 255 40 50 60\n' | "$gpuimg" flip h - - --format ppm >"$tmp/plain.ppm"
    printf 'P6\n1 1\n255\n\012\024\036P6\n1 1\n255\n\050\062\074' >"$tmp/plain-want.ppm"
    check "a plain P3 stream differs" same_file "$tmp/plain.ppm" "$tmp/plain-want.ppm"
    # ffmpeg's image2pipe, both ways, when ffmpeg is here.
    if command -v ffmpeg >/dev/null 2>&1; then
        ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=5 -frames 4 -f image2pipe -vcodec ppm - |
            "$gpuimg" blur --sigma 2 - - --format ppm |
            ffmpeg -v error -f image2pipe -vcodec ppm -i - -f framecrc - >"$tmp/crc" 2>"$tmp/err"
        check "ffmpeg | gpuimg | ffmpeg: not 4 frames" [ "$(grep -c '^0, ' "$tmp/crc")" -eq 4 ]
    fi
}

group_batch() {
    mkdir "$tmp/in" "$tmp/out1" "$tmp/out2" "$tmp/out3"
    cp "$scene" "$samples/alpha.png" "$samples/gray_alpha.png" "$tmp/in/"
    printf 'not a PNG\n' >"$tmp/in/bad.png"
    for f in scene alpha; do "$gpuimg" blur --sigma 2 "$tmp/in/$f.png" "$tmp/$f.png"; done

    expect 1 blur --sigma 2 -o "$tmp/out1" "$tmp/in/scene.png" "$tmp/in/bad.png" "$tmp/in/alpha.png"
    check "batch: want one stderr line naming bad.png" [ "$(grep -c bad.png "$tmp/err")" -eq 1 ]
    check "batch: stderr names a file that worked" lacks_ere "scene.png|alpha.png" "$tmp/err"
    check "batch: output for bad.png" [ ! -e "$tmp/out1/bad.png" ]
    for f in scene alpha; do
        check "batch: $f.png missing or wrong after another file failed" \
            same_image "$tmp/out1/$f.png" "$tmp/$f.png"
    done
    check "batch: leftovers in the output directory: $(listing "$tmp/out1")" \
        [ "$(entries "$tmp/out1")" -eq 2 ]

    # two inputs with one output: the batch is refused before anything
    # runs, naming the later input, the input that writes the file and the
    # file; under --shard in every shard alike, though a.jpg (position 0)
    # and a.png (1) are in different shards of two
    mkdir -p "$tmp/clash"
    cp "$tmp/in/scene.png" "$tmp/clash/a.png"
    "$gpuimg" convert "$tmp/in/scene.png" "$tmp/clash/a.jpg"
    cp "$tmp/in/alpha.png" "$tmp/clash/b.png"
    for shard in "" --shard=0/2 --shard=1/2; do
        rm -rf "$tmp/clash/out"
        expect 1 flip h --format jpeg $shard -o "$tmp/clash/out" "$tmp/clash/a.png" \
            "$tmp/clash/a.jpg" "$tmp/clash/b.png"
        check "a clash of outputs ($shard): the input that writes the file, or the file, not named" \
            has "clash/a.png: .*clash/a.jpg writes the same output file, .*clash/out/a.jpg" "$tmp/err"
        check "a clash of outputs ($shard): want one line, got $(wc -l <"$tmp/err")" \
            [ "$(wc -l <"$tmp/err")" -eq 1 ]
        check "a clash of outputs ($shard): written $(listing "$tmp/clash/out")" \
            [ "$(entries "$tmp/clash/out")" -eq 0 ]
    done

    # Options after the files, --output-dir, several jobs: the same bytes.
    expect 0 blur --output-dir "$tmp/out2" "$tmp/in/scene.png" "$tmp/in/alpha.png" \
        "$tmp/in/gray_alpha.png" --sigma 2 -j 1
    expect 0 blur -o "$tmp/out3" --jobs 2 --sigma 2 "$tmp/in/scene.png" "$tmp/in/alpha.png" \
        "$tmp/in/gray_alpha.png"
    for f in scene alpha gray_alpha; do
        check "batch: -j 1 and -j 2 differ on $f.png" same_image "$tmp/out2/$f.png" "$tmp/out3/$f.png"
    done
    check "batch: wrong scene.png" same_image "$tmp/out2/scene.png" "$tmp/scene.png"

    # A batch may start CUDA under the default device (its cost model
    # decides), and a bridge lane computes on the CPU until it is up:
    # whichever took an image, its bytes must be --device cpu's (on a
    # machine without a GPU this checks that the bridge loses and repeats
    # nothing).
    if command -v python3 >/dev/null 2>&1; then
        mkdir "$tmp/big" "$tmp/big_auto" "$tmp/big_cpu"
        for i in 1 2 3 4 5 6; do
            python3 -c 'import os, struct, sys, zlib
w, h = 1100, 1000
raw = b"".join(b"\0" + os.urandom(w * 3) for _ in range(h))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))' "$tmp/big/$i.png"
        done
        expect 0 blur --sigma 2 -j 3 -o "$tmp/big_auto" "$tmp/big"/*.png
        expect 0 blur --sigma 2 -j 3 --device cpu -o "$tmp/big_cpu" "$tmp/big"/*.png
        for i in 1 2 3 4 5 6; do
            check "batch: the default device and --device cpu differ on 1.1 MP image $i" \
                same_file "$tmp/big_auto/$i.png" "$tmp/big_cpu/$i.png"
        done
    fi

    mkdir "$tmp/rot"
    expect 0 rotate 90 -o "$tmp/rot" "$tmp/in/scene.png" "$tmp/in/alpha.png"
    "$gpuimg" rotate 90 "$scene" "$tmp/r.png"
    check "batch rotate keeps the base name" same_image "$tmp/rot/scene.png" "$tmp/r.png"
}

group_files() {
    mkdir "$tmp/d"
    "$gpuimg" blur "$scene" "$tmp/ref.png"
    cp "$scene" "$tmp/d/a.png"
    expect 0 blur "$tmp/d/a.png" "$tmp/d/a.png"
    check "in-place blur differs from blur into another file" same_image "$tmp/d/a.png" "$tmp/ref.png"
    check "in-place blur left files behind" [ "$(entries "$tmp/d")" -eq 1 ]

    mkdir "$tmp/e"
    expect 1 blur "$tmp/nothere.png" "$tmp/e/x.png"
    check "missing input: message does not name the file" has nothere.png "$tmp/err"
    printf 'garbage' >"$tmp/junk.png"
    expect 1 blur "$tmp/junk.png" "$tmp/e/x.png"
    check "failures left files in the output directory" [ "$(entries "$tmp/e")" -eq 0 ]
    cp "$scene" "$tmp/e/keep.png"
    expect 1 blur "$tmp/junk.png" "$tmp/e/keep.png"
    check "a failed run changed the existing output" same_file "$tmp/e/keep.png" "$scene"
    expect 1 blur "$scene" "$tmp/no/such/dir/x.png"
    check "unwritable output: message does not name it" has x.png "$tmp/err"
    # The final rename fails when a directory has the output's name: the
    # temporary file written before must be gone.
    mkdir "$tmp/f" "$tmp/f/x.png"
    expect 1 blur "$scene" "$tmp/f/x.png"
    check "a failed write left files behind: $(listing "$tmp/f")" \
        [ "$(entries "$tmp/f")" -eq 1 ]

    # Overwriting keeps the replaced file's permission bits (as sed -i
    # does); a new file gets 0666 less the umask.
    cp "$scene" "$tmp/d/private.png"
    chmod 640 "$tmp/d/private.png"
    expect 0 blur "$tmp/d/private.png" "$tmp/d/private.png"
    check "overwriting changed the mode 640 to $(stat -c %a "$tmp/d/private.png")" \
        [ "$(stat -c %a "$tmp/d/private.png")" = 640 ]
    (umask 027 && "$gpuimg" blur "$scene" "$tmp/d/new.png")
    check "a new file's mode ignores the umask: $(stat -c %a "$tmp/d/new.png")" \
        [ "$(stat -c %a "$tmp/d/new.png")" = 640 ]
    rm -f "$tmp/d/private.png" "$tmp/d/new.png"

    # Output names up to NAME_MAX (255 bytes) work: the temporary name is
    # cut to fit, and nothing is left behind.
    mkdir "$tmp/long"
    long=$(printf '%0251d' 0).png
    expect 0 blur "$scene" "$tmp/long/$long"
    check "a 255-byte output name: $(listing "$tmp/long")" same_image "$tmp/long/$long" "$tmp/ref.png"
    mkdir "$tmp/long/in"
    cp "$scene" "$tmp/long/in/$long"
    expect 0 blur -o "$tmp/long/out" "$tmp/long/in/$long"
    check "a 255-byte name in a batch" same_image "$tmp/long/out/$long" "$tmp/ref.png"
    check "long names left files behind: $(listing "$tmp/long")" [ "$(entries "$tmp/long")" -eq 3 ]

    # Temporary files of a killed gpuimg (dead PID) are removed by the next
    # run writing there; a live process's, and names of another pattern, stay.
    mkdir "$tmp/stale"
    dead=$(sh -c 'echo $$')
    : >"$tmp/stale/.a.png.gpuimg-$dead-0.tmp"
    : >"$tmp/stale/.b.png.gpuimg-$$-0.tmp"
    : >"$tmp/stale/.c.png.gpuimg-$dead-0.tmp~"
    : >"$tmp/stale/c.png.gpuimg-$dead-0.tmp"
    expect 0 blur "$scene" "$tmp/stale/x.png"
    check "a dead writer's temporary file stayed" [ ! -e "$tmp/stale/.a.png.gpuimg-$dead-0.tmp" ]
    check "a live writer's temporary file was removed" [ -e "$tmp/stale/.b.png.gpuimg-$$-0.tmp" ]
    check "names of another pattern were removed: $(listing "$tmp/stale")" \
        [ -e "$tmp/stale/.c.png.gpuimg-$dead-0.tmp~" ] && [ -e "$tmp/stale/c.png.gpuimg-$dead-0.tmp" ]

    # Names with a newline or a terminal escape are quoted in messages as
    # GNU ls --quoting-style=shell-escape does: one line per failure, no
    # raw control byte on stderr, single files and batches alike.
    mkdir "$tmp/odd"
    nl_name=$(printf 'a\nb.png')
    esc_name=$(printf 'x\033[31mred.png')
    printf 'junk' >"$tmp/odd/$nl_name"
    printf 'junk' >"$tmp/odd/$esc_name"
    cd "$tmp/odd" || return
    expect 1 blur "$nl_name" "$tmp/odd-out.png"
    check "a name with a newline: not one line, quoted: $(cat "$tmp/err")" \
        [ "$(cat "$tmp/err")" = "gpuimg blur: 'a'\$'\\n''b.png': not a PNG, JPEG, PNM/PAM or TIFF file" ]
    expect 1 blur -o "$tmp/odd-dir" "$nl_name" "$esc_name"
    check "batch: a failure's message is not one line" [ "$(grep -c 'not a PNG' "$tmp/err")" -eq 2 ]
    check "batch: the escape name not quoted" grep -qF "'x'\$'\\033''[31mred.png'" "$tmp/err"
    check "batch: a raw control byte on stderr" lacks_ere "$(printf '\033')" "$tmp/err"
    expect 1 blur -o "$tmp/odd-dir" -r "$tmp/odd"
    check "-r: a failure's message is not one line" [ "$(grep -c 'not a PNG' "$tmp/err")" -eq 2 ]
    cd "$tmp" || return
    # an empty name is quoted too, as ls prints it
    expect 1 blur '' "$tmp/odd-out.png"
    check "an empty input name: not printed as ''" has "gpuimg blur: '': " "$tmp/err"

    # Options may come before, between and after the file names.
    expect 0 blur --sigma 2 --border wrap "$scene" "$tmp/o1.png"
    expect 0 blur "$scene" "$tmp/o2.png" --sigma 2 --border wrap
    expect 0 blur --sigma 2 "$scene" --border=wrap "$tmp/o3.png"
    check "options after the files act differently" same_image "$tmp/o1.png" "$tmp/o2.png"
    check "options between the files act differently" same_image "$tmp/o1.png" "$tmp/o3.png"
    check "--sigma 2 --border wrap had no effect" different_image "$tmp/o1.png" "$tmp/ref.png"
    expect 0 -q blur "$scene" "$tmp/q.png"
    expect 0 -v blur "$scene" "$tmp/v.png"
    expect 0 blur -q "$scene" "$tmp/q2.png"
    check "-q blur differs" same_image "$tmp/q.png" "$tmp/ref.png"

    expect 0 blur "$scene" "$tmp/j.jpg"
    check ".jpg output is not a JPEG" is_jpeg "$tmp/j.jpg"
    expect 0 blur --quality 10 "$scene" "$tmp/j10.jpg"
    expect 0 blur --quality 95 "$scene" "$tmp/j95.jpg"
    check "--quality 10 is not smaller than --quality 95" \
        [ "$(wc -c <"$tmp/j10.jpg")" -lt "$(wc -c <"$tmp/j95.jpg")" ]
    expect 0 transpose "$samples/scene.jpg" "$tmp/t.png"
    check "JPEG input transposed to PNG" is_png "$tmp/t.png"

    # A PNG damaged in its image data fails the chunk's CRC: refused,
    # named, and nothing written, to PNG and JPEG alike. The bit flipped
    # (of byte 477, inside the IDAT that starts at byte 33) is one stb
    # alone decodes without a word, to 8 wrong samples.
    mkdir "$tmp/crc"
    cp "$scene" "$tmp/crc/corrupt.png"
    byte=$(od -An -tu1 -j 477 -N1 "$scene" | tr -d ' ')
    # shellcheck disable=SC2059
    printf "$(printf '\\%03o' $((byte ^ 1)))" |
        dd of="$tmp/crc/corrupt.png" bs=1 seek=477 conv=notrunc 2>/dev/null
    check "the damaged copy is the sample" [ "$(cmp -l "$scene" "$tmp/crc/corrupt.png" | wc -l)" -eq 1 ]
    for out in out.png out.jpg; do
        expect 1 convert "$tmp/crc/corrupt.png" "$tmp/crc/$out"
        check "a damaged PNG to $out: not 'corrupt.png: corrupt PNG: chunk IDAT at byte 33 fails its CRC'" \
            has "corrupt.png: corrupt PNG: chunk IDAT at byte 33 fails its CRC" "$tmp/err"
        check "a damaged PNG to $out: a file written: $(listing "$tmp/crc")" [ ! -e "$tmp/crc/$out" ]
    done
    check "a damaged PNG left files behind: $(listing "$tmp/crc")" [ "$(entries "$tmp/crc")" -eq 1 ]
}

# --gpus and GPUIMG_GPUS: every malformed list refused by the same parser,
# naming its source; good lists run (on the CPU where no GPU is).
group_device_gpus() {
    for value in x -1 0,,1 1,1 64 3-1 0, ,0 1.5 0-; do
        expect_usage blur --gpus "$value" "$scene" "$tmp/x.png"
        check "--gpus '$value': no message naming --gpus" has "^gpuimg blur: --gpus '$value': " "$tmp/err"
        env_usage GPUIMG_GPUS "$value" --gpus blur "$scene" "$tmp/x.png"
    done
    check "a bad --gpus created an output" [ ! -e "$tmp/x.png" ]
    mkdir -p "$tmp/gpus-in"
    cp "$scene" "$tmp/gpus-in/a.png"
    cp "$samples/scene.jpg" "$tmp/gpus-in/b.jpg"
    cp "$samples/alpha.png" "$tmp/gpus-in/c.png"
    "$gpuimg" blur --device cpu -o "$tmp/gpus-cpu" "$tmp/gpus-in"/* 2>"$tmp/err"
    # without a GPU any list runs on the CPU; with one, indices must exist
    lists="all 0 0,1 0-3"
    has_cuda_device && lists="all 0"
    for value in $lists; do
        expect 0 blur --gpus "$value" -o "$tmp/gpus-$value" "$tmp/gpus-in"/*
        for f in a.png b.jpg c.png; do
            check "--gpus $value: $f differs from --device cpu" \
                same_file "$tmp/gpus-$value/$f" "$tmp/gpus-cpu/$f"
        done
    done
    expect 0 --gpus 0 blur "$scene" "$tmp/g0.png"
    check "--gpus 0 before the command differs" same_image "$tmp/g0.png" "$tmp/ref.png"
    GPUIMG_GPUS=0 "$gpuimg" blur "$scene" "$tmp/e.png" 2>"$tmp/err"
    check "GPUIMG_GPUS=0 differs from the default" same_image "$tmp/e.png" "$tmp/ref.png"
    expect 0 blur --device cpu --gpus 63 "$scene" "$tmp/f.png"
    if has_cuda_device; then
        expect 1 blur --device cuda --gpus 63 "$scene" "$tmp/x.png"
        check "--gpus 63: the message does not say how many GPUs are visible" \
            has "GPU 63: [0-9]* GPUs\? \(is\|are\) visible" "$tmp/err"
        check "--gpus 63 created an output" [ ! -e "$tmp/x.png" ]
    fi
}

group_device() {
    "$gpuimg" blur "$scene" "$tmp/ref.png"
    expect 0 --device cpu blur "$scene" "$tmp/a.png"
    expect 0 blur --device cpu "$scene" "$tmp/b.png"
    check "--device cpu differs from the default" same_image "$tmp/b.png" "$tmp/ref.png"
    GPUIMG_DEVICE=cpu "$gpuimg" blur "$scene" "$tmp/c.png" 2>"$tmp/err"
    check "GPUIMG_DEVICE=cpu failed" same_image "$tmp/c.png" "$tmp/ref.png"
    expect_usage blur --device bogus "$scene" "$tmp/x.png"
    # the environment's values are checked, the bad one named, nothing run
    for var in GPUIMG_DEVICE=gpu GPUIMG_MAX_PIXELS=lots GPUIMG_AUTO_ORIENT=yes \
               GPUIMG_CPU_ISA=sse9 GPUIMG_JPEG_ARITHMETIC=both GPUIMG_JPEG_ENTROPY=device \
               GPUIMG_TEST_FAIL_DEVICE_ALLOC=on GPUIMG_GPUS=first GPUIMG_TEST_FAIL_GPU=one \
               GPUIMG_TEST_SPLIT_SMALL=2; do
        env "$var" "$gpuimg" blur "$scene" "$tmp/x.png" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        check "$var: exit $rc, want 2" [ "$rc" -eq 2 ]
        check "$var: the message does not name it" has "${var%%=*} '${var#*=}'" "$tmp/err"
        check "$var: an output was written" [ ! -e "$tmp/x.png" ]
    done
    GPUIMG_DEVICE=CPU GPUIMG_AUTO_ORIENT=0 GPUIMG_CPU_ISA= "$gpuimg" blur "$scene" "$tmp/d.png" 2>"$tmp/err"
    check "GPUIMG_DEVICE=CPU, GPUIMG_AUTO_ORIENT=0, GPUIMG_CPU_ISA empty" same_image "$tmp/d.png" "$tmp/ref.png"
    expect 0 blur -j 1 "$scene" "$tmp/j1.png"
    expect 0 blur -j 3 "$scene" "$tmp/j3.png"
    check "-j 1 and -j 3 differ" same_image "$tmp/j1.png" "$tmp/j3.png"
    group_device_gpus
    if has_cuda_device; then
        expect 0 blur --device cuda "$scene" "$tmp/g.png"
        check "--device cuda differs from the CPU" same_image "$tmp/g.png" "$tmp/ref.png"
        return
    fi
    expect 1 blur --device cuda "$scene" "$tmp/x.png"
    check "--device cuda without a GPU: message does not say cuda/GPU" grep -Eqi 'cuda|gpu' "$tmp/err"
    check "--device cuda without a GPU created an output" [ ! -e "$tmp/x.png" ]
    GPUIMG_DEVICE=cuda "$gpuimg" blur "$scene" "$tmp/x.png" 2>"$tmp/err"
    rc=$?
    check "GPUIMG_DEVICE=cuda without a GPU: exit $rc, want 1" [ "$rc" -eq 1 ]
}

# hist_column_sums FILE N: every count column of a text histogram sums to N.
hist_column_sums() {
    awk -v n="$2" '
        /^#/ || $1 == "value" { next }
        { for (i = 2; i <= NF; i++) sum[i] += $i; cols = NF }
        END { if (cols < 2) exit 1
              for (i = 2; i <= cols; i++) if (sum[i] != n) exit 1 }' "$1"
}

# hist_values FILE BINS: one row per bin, value = (b * 256 + bins - 1) / bins.
hist_values() {
    awk -v bins="$2" '
        /^#/ || $1 == "value" { next }
        { if ($1 != int((rows * 256 + bins - 1) / bins)) exit 1; rows++ }
        END { exit rows != bins }' "$1"
}

# hist_stats_agree FILE: the --stats lines agree with the 256-bin counts.
hist_stats_agree() {
    awk '
        $1 == "#" && $2 ~ /^(min|max|mean|median|stddev):$/ {
            name = substr($2, 1, length($2) - 1)
            for (i = 3; i <= NF; i++) got[name, i - 1] = $i
            next
        }
        /^#/ || $1 == "value" { next }
        { for (c = 2; c <= NF; c++) count[$1, c] = $c; cols = NF }
        END {
            for (c = 2; c <= cols; c++) {
                n = 0; s = 0; min = -1
                for (v = 0; v < 256; v++) { k = count[v, c]; n += k; s += k * v
                    if (k > 0) { if (min < 0) min = v; max = v } }
                mean = s / n; q = 0
                for (v = 0; v < 256; v++) q += count[v, c] * (v - mean) ^ 2
                half = int((n + 1) / 2); acc = 0; median = -1
                for (v = 0; v < 256 && median < 0; v++) { acc += count[v, c]; if (acc >= half) median = v }
                if (got["min", c] != min || got["max", c] != max || got["median", c] != median) exit 1
                if ((got["mean", c] - mean) ^ 2 > 1e-6 || (got["stddev", c] - sqrt(q / n)) ^ 2 > 1e-6) exit 1
                if (got["mean", c] !~ /^[0-9]+\.[0-9][0-9][0-9]$/) exit 1
            }
        }' "$1"
}

group_hist() {
    cd "$samples" || return
    expect 0 hist scene.png
    cp "$tmp/out" "$tmp/h1"
    check "hist: first line" [ "$(sed -n 1p "$tmp/h1")" = "# gpuimg hist" ]
    check "hist: source line" has '^# source: scene.png$' "$tmp/h1"
    check "hist: size line" has '^# size: 64x48$' "$tmp/h1"
    check "hist: channels line" has '^# channels: r g b$' "$tmp/h1"
    check "hist: column header" has '^value r g b$' "$tmp/h1"
    check "hist: a column does not sum to 64*48" hist_column_sums "$tmp/h1" 3072
    check "hist: rows are not the 256 values" hist_values "$tmp/h1" 256
    expect 0 hist scene.png -
    check "hist IN - differs from hist IN" same_file "$tmp/out" "$tmp/h1"
    expect 0 hist scene.png "$tmp/h.txt"
    check "hist IN FILE differs from hist to stdout" same_file "$tmp/h.txt" "$tmp/h1"
    gi hist - <scene.png
    check "hist of stdin: source is not -" has '^# source: -$' "$tmp/out"

    for pair in edge_line.png:gray gray_alpha.png:"gray alpha" alpha.png:"r g b a"; do
        expect 0 hist "${pair%%:*}"
        check "hist ${pair%%:*}: channels line" has "^# channels: ${pair#*:}$" "$tmp/out"
    done
    for bins in 1 3 4 16 100 255; do
        expect 0 hist --bins "$bins" alpha.png
        check "hist --bins $bins: wrong value column" hist_values "$tmp/out" "$bins"
        check "hist --bins $bins: a column does not sum to 64*48" hist_column_sums "$tmp/out" 3072
    done
    for f in scene.png alpha.png edge_line.png; do
        expect 0 hist --stats "$f"
        check "hist --stats $f: stats lines disagree with the counts" hist_stats_agree "$tmp/out"
    done
    check "hist --stats: want the lines in the order min max mean median stddev" [ \
        "$(sed -nE 's/^# (min|max|mean|median|stddev): .*/\1/p' "$tmp/out" | tr '\n' ' ')" = \
        "min max mean median stddev " ]

    expect 0 hist --format csv --bins 8 scene.png
    check "csv: header line" [ "$(sed -n 1p "$tmp/out")" = "value,r,g,b" ]
    check "csv: want 8 rows of 4 fields" \
        [ "$(awk -F, 'NR > 1 && NF == 4' "$tmp/out" | wc -l)" -eq 8 ]
    check "csv: wrong values" [ "$(sed 1d "$tmp/out" | cut -d, -f1 | tr '\n' ' ')" = \
        "0 32 64 96 128 160 192 224 " ]
    expect 0 hist --format json --stats --bins 16 alpha.png
    if command -v python3 >/dev/null 2>&1; then
        check "json: structure or sums wrong" python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))
n = h["width"] * h["height"]
assert h["source"] == "alpha.png" and (h["width"], h["height"]) == (64, 48)
assert h["channels"] == ["r", "g", "b", "a"] and h["bins"] == 16
assert h["values"] == [(b * 256 + 15) // 16 for b in range(16)]
for c in h["channels"]:
    assert len(h["counts"][c]) == 16 and sum(h["counts"][c]) == n
    assert set(h["stats"][c]) == {"min", "max", "mean", "median", "stddev"}
' "$tmp/out"
    else
        check "json: no counts" has '"counts"' "$tmp/out"
    fi
    "$gpuimg" hist scene.png >/dev/full 2>"$tmp/err"
    rc=$?
    check "hist >/dev/full: exit $rc, want 1" [ "$rc" -eq 1 ]
    expect 1 hist nothere.png
    check "hist: missing file not named" has nothere.png "$tmp/err"
}

group_border() {
    for row in "zero constant" "replicate clamp nearest edge" "reflect symmetric" \
        "mirror reflect101" "wrap periodic tile"; do
        # shellcheck disable=SC2086 # split on purpose: canonical name, aliases
        set -- $row
        canonical=$1
        expect 0 blur --sigma 2 --border "$canonical" "$samples/edge_line.png" "$tmp/$canonical.png"
        for alias in "$@"; do
            expect 0 blur --sigma 2 --border "$alias" "$samples/edge_line.png" "$tmp/a.png"
            check "--border $alias differs from --border $canonical" \
                same_image "$tmp/a.png" "$tmp/$canonical.png"
            expect 0 sobel --border="$alias" "$samples/edge_line.png" "$tmp/s.png"
        done
    done
    expect 0 blur --sigma 2 "$samples/edge_line.png" "$tmp/default.png"
    check "the default border is not mirror" same_image "$tmp/default.png" "$tmp/mirror.png"
    for bad in bogus '' reflect-101 "mirror " mirror,wrap; do
        expect_usage blur --border "$bad" "$scene" "$tmp/x.png"
    done
    expect_usage sobel --border=bogus "$scene" "$tmp/x.png"
    check "unknown border not named on stderr" has bogus "$tmp/err"
    for v in 0 255; do expect 0 blur --border zero --border-value "$v" "$scene" "$tmp/v.png"; done
}

# expect_kernel_error ARGS...: a usage error whose message names --kernel.
expect_kernel_error() {
    expect_usage convolve "$@" "$scene" "$tmp/x.png"
    check "convolve $*: stderr does not name --kernel" has --kernel "$tmp/err"
}

group_convolve() {
    gauss='1 2 1; 2 4 2; 1 2 1'
    expect 0 convolve --kernel "$gauss" --normalize "$scene" "$tmp/text.png"
    check "convolve wrote a PNG" is_png "$tmp/text.png"
    check "convolve is silent" [ ! -s "$tmp/err" ]
    check "a 3x3 gaussian changed nothing" different_image "$tmp/text.png" "$scene"
    # The same mask as a file (one row per line, comments, blank lines,
    # CRLF), with commas, with newlines in the text, a trailing ';', the
    # weights already divided by their sum, or doubled: the same output.
    printf '# a 3x3 gaussian\r\n1 2 1  # top\r\n\r\n2 4 2\r\n1 2 1\r\n' >"$tmp/gauss.txt"
    nl_text=$(printf '1 2 1\n2 4 2\n1 2 1')
    for mask in "$tmp/gauss.txt" '1,2,1;2,4,2;1,2,1' "$nl_text" '1 2 1;2 4 2;1 2 1;' \
        '0.0625 0.125 0.0625; 0.125 0.25 0.125; 0.0625 0.125 0.0625' '2 4 2; 4 8 4; 2 4 2'; do
        normalize=-n
        case $mask in 0.0625*) normalize= ;; esac
        # shellcheck disable=SC2086 # $normalize is one word or none
        expect 0 convolve -k "$mask" $normalize "$scene" "$tmp/m.png"
        check "convolve -k '$mask' $normalize differs from --kernel '$gauss' --normalize" \
            same_image "$tmp/m.png" "$tmp/text.png"
    done
    # Identities, alpha included (every channel is filtered).
    for mask in 1 '0 0 0; 0 1 0; 0 0 0' '0 1 0' '0; 1; 0'; do
        for f in scene.png alpha.png gray_alpha.png; do
            expect 0 convolve --kernel "$mask" --border wrap "$samples/$f" "$tmp/id.png"
            check "convolve --kernel '$mask' changed $f" same_image "$tmp/id.png" "$samples/$f"
        done
    done
    # 16 bits: clamped to 0..65535, as the help says (it said 0..255)
    printf 'P5\n2 1\n65535\n\001\000\200\001' >"$tmp/g16.pgm"
    expect 0 convolve --kernel 2 "$tmp/g16.pgm" "$tmp/c16.pgm"
    printf 'P5\n2 1\n65535\n\002\000\377\377' >"$tmp/c16want.pgm"
    check "convolve --kernel 2 at 16 bits: not 2v clamped to 65535" \
        same_file "$tmp/c16.pgm" "$tmp/c16want.pgm"
    gi help convolve
    check "help convolve: no 16-bit range" has "0..65535 at 16 bits" "$tmp/out"
    expect 0 convolve --kernel '0 0 0 0 1' "$scene" "$tmp/shift.png"
    check "a mask off the centre did not move the image" different_image "$tmp/shift.png" "$scene"
    expect 0 convolve --kernel '1 0 -1' "$scene" "$tmp/row.png"
    expect 0 convolve --kernel '1; 0; -1' "$scene" "$tmp/column.png"
    check "a row mask and a column mask act the same" different_image "$tmp/row.png" "$tmp/column.png"
    mkdir "$tmp/batch"
    expect 0 convolve -o "$tmp/batch" --kernel "$gauss" --normalize "$scene" "$samples/alpha.png"
    check "batch convolve differs" same_image "$tmp/batch/scene.png" "$tmp/text.png"
    expect 0 convolve --normalize --kernel "$(seq -s ' ' 31)" "$scene" "$tmp/wide.png"
    expect 0 convolve --normalize --kernel "$(seq -s ';' 31)" "$scene" "$tmp/tall.png"

    expect_kernel_error
    check "no --kernel: message does not say it is required" has_i required "$tmp/err"
    expect_kernel_error --kernel '1 2 1; 2 4'
    expect_kernel_error --kernel '1 2; 3 4'
    expect_kernel_error --kernel '1 2 3 4'
    expect_kernel_error --kernel "$(seq -s ' ' 33)"
    expect_kernel_error --kernel "$(seq -s ';' 33)"
    for bad in '1 x 1' '1 2 1; 2 four 2; 1 2 1' nan 'inf 1 1' '' '# nothing but a comment' \
        1e400 5000000; do
        expect_kernel_error --kernel "$bad"
    done
    expect_kernel_error --kernel '1 0 -1' --normalize
    printf '1 2 1\n2 4\n1 2 1\n' >"$tmp/uneven.txt"
    expect_kernel_error --kernel "$tmp/uneven.txt"
    check "bad masks created an output" [ ! -e "$tmp/x.png" ]
    expect 0 convolve --kernel '1 0 -1' "$scene" "$tmp/zero-sum.png" # fine without --normalize
}

# bench_rows FILE: the table rows of `gpuimg bench` (op, border, size, ch, ...).
bench_rows() { grep -E '^(blur|sobel|transpose|hist|convolve) ' "$1"; }
# bench_pairs FILE: "op/channels" of every row, sorted, on one line.
bench_pairs() { bench_rows "$1" | awk '{ print $1 "/" $4 }' | sort | tr '\n' ' '; }

quick='--size 64x48 -n 2 --warmup 0' # small and quick: CI runs bench on the CPU
# expect_bench_error WORD ARGS...: `bench $quick ARGS` is a usage error whose
# message names WORD.
expect_bench_error() {
    word=$1
    shift
    # shellcheck disable=SC2086 # $quick: several words
    expect 2 bench $quick "$@"
    check "bench $*: stderr does not name '$word'" has "$word" "$tmp/err"
}

group_bench() {
    # shellcheck disable=SC2086 # $quick: several words
    expect 0 bench $quick
    check "bench: no table header" grep -Eq '^op +border +size +ch +ms ' "$tmp/out"
    check "bench: want 8 rows (blur sobel transpose hist x channels 1 4), got $(bench_rows "$tmp/out" | wc -l)" \
        [ "$(bench_rows "$tmp/out" | wc -l)" -eq 8 ]
    check "bench: rows are not op x channels" [ "$(bench_pairs "$tmp/out")" = \
        "blur/1 blur/4 hist/1 hist/4 sobel/1 sobel/4 transpose/1 transpose/4 " ]
    check "bench: a row is not 64x48" [ "$(bench_rows "$tmp/out" | awk '$3 != "64x48"' | wc -l)" -eq 0 ]
    check "bench: wrote to stderr" [ ! -s "$tmp/err" ]

    # shellcheck disable=SC2086
    expect 0 bench $quick --json
    if command -v python3 >/dev/null 2>&1; then
        check "bench --json: not valid JSON" python3 -m json.tool "$tmp/out" /dev/null
        check "bench --json: rows wrong" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
keys = {"op", "border", "width", "height", "channels", "ms", "gbytes_per_s",
        "percent_of_copy", "floor_ms"}
assert len(rows) == 8, len(rows)
assert sorted((r["op"], r["channels"]) for r in rows) == sorted(
    (op, ch) for op in ("blur", "sobel", "transpose", "hist") for ch in (1, 4))
for r in rows:
    assert keys <= set(r), keys - set(r)
    assert (r["width"], r["height"]) == (64, 48) and r["ms"] > 0 and r["floor_ms"] > 0
' "$tmp/out"
    else
        check "bench --json: no rows" has '"rows"' "$tmp/out"
    fi

    # shellcheck disable=SC2086
    expect 0 bench $quick --depth 16 --op blur,hist --channels 3 --json
    check "bench --depth 16: rows not 16-bit" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert [(r["op"], r["depth"]) for r in rows] == [("blur", 16), ("hist", 16)], rows
' "$tmp/out"
    # shellcheck disable=SC2086
    expect 0 bench $quick --border all --op blur --channels 3
    check "bench --border all --op blur --channels 3: want one row per border mode" [ \
        "$(bench_rows "$tmp/out" | awk '$1 == "blur" && $4 == 3 { print $2 }' | sort | tr '\n' ' ')" \
        = "mirror reflect replicate wrap zero " ]
    # shellcheck disable=SC2086
    expect 0 bench $quick --op convolve,sobel --border wrap --channels 2
    check "bench --op convolve,sobel --border wrap --channels 2: rows" [ \
        "$(bench_rows "$tmp/out" | awk '{ print $1, $2, $4 }' | tr '\n' ' ')" = \
        "convolve wrap 2 sobel wrap 2 " ]

    # 16-bit images: the same rows
    expect 0 bench $quick --depth 16 --op blur,sobel,transpose,hist,convolve --channels 3
    check "bench --depth 16: want 5 rows of 3 channels" [ \
        "$(bench_rows "$tmp/out" | awk '$4 == 3' | wc -l)" -eq 5 ]

    # Bad values: usage errors that name what is wrong.
    expect_bench_error depth --depth 12
    expect_bench_error frob --op frob
    expect_bench_error frob --op blur,frob
    expect_bench_error op --op ''
    expect_bench_error op --op ,
    # digits only, so a side past int does not wrap (sscanf read 4294967312 as 16)
    for size in 0x5 64x 64x48x 65537x1 axb 4294967312x16 " 64x64" +64x64; do
        expect_bench_error "$size" --size "$size"
    done
    for ch in 5 0 x 2x; do expect_bench_error "$ch" --channels "$ch"; done
    expect_bench_error channels --channels ''
    expect_bench_error bogus --border bogus
    expect_bench_error reps --reps 0
    expect_bench_error warmup --warmup -1
    expect_bench_error extra extra
    # A long list must work (or be refused as too long), never overrun a buffer.
    long=$(printf '1,%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19)1
    # shellcheck disable=SC2086
    gi bench $quick --op transpose --channels "$long"
    if [ "$rc" -eq 2 ]; then
        check "bench --channels $long: the usage error does not name --channels" \
            has channels "$tmp/err"
    else
        check "bench --channels $long: exit $rc, want 0 (or 2: too long)" [ "$rc" -eq 0 ]
        check "bench --channels $long: want 20 rows" [ "$(bench_rows "$tmp/out" | wc -l)" -eq 20 ]
    fi
}

group_pipe() {
    # every pair of these steps, through pipe and one command at a time
    # with PNG between, on an RGB and an RGBA sample
    set -- "blur --sigma 1.5" "sobel --gray" "sobel --scale 0.7 --border wrap" \
        "convolve --kernel '0 -1 0; -1 5 -1; 0 -1 0' --border zero --border-value 7" \
        "transpose" "rotate 90" "flip v" "blur --kernel box --radius 2 --border reflect"
    for img in "$scene" "$samples/alpha.png"; do
        for a in "$@"; do
            for b in "$@"; do
                eval "\"\$gpuimg\" $a \"\$img\" \"\$tmp/s1.png\"" &&
                    eval "\"\$gpuimg\" $b \"\$tmp/s1.png\" \"\$tmp/s2.png\""
                expect 0 pipe "$a | $b" "$img" "$tmp/p.png"
                check "pipe '$a | $b' on ${img##*/} differs from the steps one by one" \
                    same_image "$tmp/p.png" "$tmp/s2.png"
            done
        done
    done
    # three steps, a JPEG in and out, and a batch
    "$gpuimg" blur --sigma 2 "$samples/scene.jpg" "$tmp/t1.png"
    "$gpuimg" rotate 270 "$tmp/t1.png" "$tmp/t2.png"
    "$gpuimg" sobel --threshold 40 "$tmp/t2.png" "$tmp/t3.png"
    expect 0 pipe 'blur --sigma 2 | rotate 270 | sobel --threshold 40' "$samples/scene.jpg" "$tmp/t.png"
    check "three steps differ from one by one" same_image "$tmp/t.png" "$tmp/t3.png"
    expect 0 pipe 'blur | flip h' --quality 80 "$scene" "$tmp/t.jpg"
    check "pipe to .jpg is not a JPEG" is_jpeg "$tmp/t.jpg"
    mkdir -p "$tmp/in"
    cp "$scene" "$tmp/in/a.png"
    cp "$samples/alpha.png" "$tmp/in/b.png"
    expect 0 pipe 'sobel --gray | transpose' -q -o "$tmp/batch" "$tmp/in/a.png" "$tmp/in/b.png"
    expect 0 pipe 'sobel --gray | transpose' "$tmp/in/b.png" "$tmp/b1.png"
    check "a pipe batch differs from a single pipe" same_image "$tmp/batch/b.png" "$tmp/b1.png"
    # hist last: the histogram of the steps' result
    "$gpuimg" blur --sigma 2 "$scene" "$tmp/h1.png"
    "$gpuimg" hist --bins 16 "$tmp/h1.png" "$tmp/h1.txt"
    expect 0 pipe 'blur --sigma 2 | hist --bins 16' "$scene" "$tmp/h2.txt"
    check "pipe ending in hist counts other values" \
        cmp -s "$(sed 1,2d "$tmp/h1.txt" >"$tmp/h1b"; echo "$tmp/h1b")" \
        "$(sed 1,2d "$tmp/h2.txt" >"$tmp/h2b"; echo "$tmp/h2b")"
    # errors name the step and exit 2
    expect_usage pipe 'blur | sobel --scale x' "$scene" "$tmp/x.png"
    check "a bad value does not name its step" has "step 2 (sobel)" "$tmp/err"
    expect_usage pipe 'hist | blur' "$scene" "$tmp/x.png"
    check "hist before the last step is not refused by name" has "last step" "$tmp/err"
    expect_usage pipe 'blur | frobnicate' "$scene" "$tmp/x.png"
    expect_usage pipe 'blur |' "$scene" "$tmp/x.png"
    expect_usage pipe "blur --kernel 'box" "$scene" "$tmp/x.png"
    expect_usage pipe 'blur -o d' "$scene" "$tmp/x.png"
    check "a run option inside a step is not refused" has "outside the quotes" "$tmp/err"
    # every run option the step's parse takes (these were dropped in silence)
    for opt in "--depth 16" "--gpus 0" "--no-server"; do
        expect_usage pipe "blur | flip h $opt" "$scene" "$tmp/x.png"
        check "pipe 'flip h $opt': not refused as a run option" has "outside the quotes" "$tmp/err"
    done
    expect_usage pipe 'blur | sobel' --border zero "$scene" "$tmp/x.png"
    # a pipe ending in hist writes no image: the options of one are refused
    # (they were dropped in silence: --depth 8 counted 16-bit samples)
    for opt in "--depth 8" "--format png" "--quality 50" "--strip"; do
        eval "set -- $opt"
        expect_usage pipe 'flip h | hist' "$@" "$scene" "$tmp/x.txt"
        check "pipe 'flip h | hist' $opt: not refused" has "writes no image" "$tmp/err"
    done
    check "a refused hist pipe left an output" [ ! -e "$tmp/x.txt" ]
    expect_usage pipe 'blur' "$scene"
    check "a failed pipe left an output" [ ! -e "$tmp/x.png" ]
}

# ---------------------------------------------------------------- resize, crop, convert

# png_size FILE: "WxH" from a PNG's header.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }'; }

# sized ARGS... WANT: the PNG that gpuimg ARGS writes to $tmp/r.png is WANT.
sized() {
    want=$(eval echo "\${$#}")
    n=$(($# - 1))
    args=""
    i=0
    for a in "$@"; do
        i=$((i + 1))
        [ "$i" -le "$n" ] && args="$args '$a'"
    done
    eval "gi $args \"\$tmp/r.png\""
    check "gpuimg$args: exit $rc" [ "$rc" -eq 0 ]
    check "gpuimg$args: $(png_size "$tmp/r.png" 2>/dev/null), want $want" \
        [ "$(png_size "$tmp/r.png" 2>/dev/null)" = "$want" ]
}

group_resize() {
    # the sizes of gpuimg.h's rules, on the 64x48 scene
    sized resize --width 32 "$scene" 32x24
    sized resize --height 12 "$scene" 16x12
    sized resize --scale 0.5 "$scene" 32x24
    sized resize --scale 2.5 --filter cubic "$scene" 160x120
    sized resize --size 20x20 "$scene" 20x15
    sized resize --size 20 --fit cover "$scene" 27x20
    sized resize --size 7x9 --fit fill --filter nearest "$samples/alpha.png" 7x9
    for f in lanczos3 lanczos2 cubic linear area nearest; do
        sized resize --scale 0.3 --filter "$f" "$samples/gray_alpha.png" 19x14
    done
    # a white pixel at the start of a black 2000x1 row, to 1x1 by area:
    # 255 / 2000 = 0.1275 rounds to 0 (the rounding's whole remainder piled
    # on the first pixel's weight made it 6)
    { printf 'P5\n2000 1\n255\n\377'; head -c 1999 /dev/zero; } >"$tmp/row.pgm"
    expect 0 resize --width 1 --filter area "$tmp/row.pgm" "$tmp/row1.pgm"
    v=$(tail -c 1 "$tmp/row1.pgm" | od -An -tu1 | tr -d ' ')
    check "resize of 2000x1 by area to 1x1: $v, want 0" [ "$v" = 0 ]
    # a scale of 1 with any filter but area's footprint leaves the pixels
    expect 0 resize --scale 1 "$scene" "$tmp/same.png"
    check "resize --scale 1 changed the pixels" same_image "$tmp/same.png" "$scene"
    # a step of pipe and of a batch gives what the command gives
    expect 0 resize --size 30 --filter lanczos2 "$samples/alpha.png" "$tmp/a1.png"
    expect 0 pipe 'resize --size 30 --filter lanczos2' "$samples/alpha.png" "$tmp/a2.png"
    check "resize as a pipe step differs" same_image "$tmp/a1.png" "$tmp/a2.png"
    expect 0 resize --size 30 --filter lanczos2 -q -o "$tmp/rb" "$samples/alpha.png" "$scene"
    check "resize in a batch differs" same_image "$tmp/a1.png" "$tmp/rb/alpha.png"
    expect_usage resize "$scene" "$tmp/x.png"
    check "resize without a size does not say so" has "give --width" "$tmp/err"
    expect_usage resize --scale 2 --width 5 "$scene" "$tmp/x.png"
    # --size is both sides: with --width or --height it is refused, in either
    # order (one side went by the order, which Python's keywords do not have)
    expect_usage resize --size 10x5 --width 3 "$scene" "$tmp/x.png"
    check "--size with --width does not say so" has "give --size or --width/--height" "$tmp/err"
    expect_usage pipe 'resize --height 3 --size 10x5' "$scene" "$tmp/x.png"
    expect_usage resize --scale 0 "$scene" "$tmp/x.png"
    # a number is decimal, as an integer option reads it: strtod's
    # hexadecimal made --scale 0x10 a scale of 16
    expect_usage resize --scale 0x10 "$scene" "$tmp/x.png"
    check "resize --scale 0x10 does not say it is no number" has "'0x10': not a number" "$tmp/err"
    expect_usage pipe 'resize --scale 0X1p-1' "$scene" "$tmp/x.png"
    check "a refused --scale left an output" [ ! -e "$tmp/x.png" ]
    expect_usage resize --size 0x5 "$scene" "$tmp/x.png"
    expect_usage resize --size 5y5 "$scene" "$tmp/x.png"
    # --size is digits, x, digits: a side past int's range is refused, not
    # wrapped round to a small one (4294967306 = 2^32 + 10), in resize,
    # thumbnail and a pipe's step alike; signs and spaces are no sizes
    for s in 4294967306x20 20x4294967306 4294967306; do
        expect_usage resize --size "$s" "$scene" "$tmp/x.png"
        check "resize --size $s does not say the sides' range" has "sides are 1..65536" "$tmp/err"
        expect_usage thumbnail --size "$s" "$scene" "$tmp/x.png"
        expect_usage pipe "resize --size $s" "$scene" "$tmp/x.png"
    done
    check "a refused --size left an output" [ ! -e "$tmp/x.png" ]
    expect_usage resize --size ' 20x20' "$scene" "$tmp/x.png"
    expect_usage resize --size 20x+20 "$scene" "$tmp/x.png"
    expect_usage thumbnail --size '20x 20' "$scene" "$tmp/x.png"
    expect_usage resize --width 5 --filter bicubic "$scene" "$tmp/x.png"
    expect_usage resize --width 5 --fit stretch "$scene" "$tmp/x.png"
    # --fit says how a box is filled: without both sides it is refused,
    # not ignored (it was: --width 100 --fit cover gave 100x75)
    for sides in "--width 100" "--height 30" "--scale 0.5"; do
        for fit in cover fill inside; do
            # shellcheck disable=SC2086
            expect_usage resize $sides --fit "$fit" "$scene" "$tmp/x.png"
            check "resize $sides --fit $fit: the message does not say --fit needs both sides" \
                has "fit needs both sides: --width and --height, or --size WxH" "$tmp/err"
        done
    done
    # shellcheck disable=SC2086
    expect_usage pipe "resize --width 100 --fit cover" "$scene" "$tmp/x.png"
    check "a pipe's resize --fit with one side: not refused alike" \
        has "fit needs both sides" "$tmp/err"
    check "a refused --fit left an output" [ ! -e "$tmp/x.png" ]
    sized resize --width 20 --height 20 --fit cover "$scene" 27x20
    expect_usage resize --width 5 --border zero "$scene" "$tmp/x.png"
    # a result past --max-pixels (scene 64x48) is refused before it is
    # made, and so is an image between a pipe's steps; past the sides'
    # limit, a scale is refused rather than clamped
    expect 1 resize --scale 10 --max-pixels 300000 "$scene" "$tmp/big.png"
    check "a result past --max-pixels does not say so" has "640x480 image, more than 300000 pixels" "$tmp/err"
    check "a refused result left a file" [ ! -e "$tmp/big.png" ]
    expect 1 pipe 'resize --scale 10 | crop 0 0 8 8' --max-pixels 300000 "$scene" "$tmp/big.png"
    check "a pipe's large step does not say so" has "step 1 would make a 640x480 image" "$tmp/err"
    sized pipe 'resize --scale 10 | crop 0 0 8 8' --max-pixels 307200 "$scene" 8x8
    expect 1 resize --scale 2000 "$scene" "$tmp/big.png"
    check "a scale past the sides' limit does not say so" has "sides are at most 65536" "$tmp/err"

    # crop: a rectangle, its samples unchanged
    sized crop 10 5 20 30 "$scene" 20x30
    sized crop 50 40 100 100 "$scene" 14x8
    sized crop --gravity centre 10 10 "$scene" 10x10
    sized crop --gravity centre 100 10 "$scene" 64x10
    sized crop 3 4 0 0 "$scene" 61x44
    expect 0 pipe 'crop 10 5 20 30 | rotate 90' "$scene" "$tmp/c1.png"
    expect 0 crop 10 5 20 30 "$scene" "$tmp/c2.png"
    expect 0 rotate 90 "$tmp/c2.png" "$tmp/c3.png"
    check "crop as a pipe step differs" same_image "$tmp/c1.png" "$tmp/c3.png"
    expect 0 crop 0 0 0 0 "$samples/alpha.png" "$tmp/c4.png"
    check "the whole image's crop changed it" same_image "$tmp/c4.png" "$samples/alpha.png"
    expect 1 crop 64 0 5 5 "$scene" "$tmp/x.png"
    check "a crop outside the image does not say where it starts and where it may" \
        has "starts at 64,0, outside the 64x48 image: x must be below 64 and y below 48" "$tmp/err"
    # crop's numbers: each wrong count or value says what is wrong, then
    # both forms (too few numbers once read as "'IN' is not a whole number")
    while IFS='|' read -r words says <&3; do
        # shellcheck disable=SC2086
        expect_usage crop $words "$scene" "$tmp/x.png"
        check "crop $words: the message lacks \"$says\"" has "$says" "$tmp/err"
        check "crop $words: the two forms are not shown" \
            has "usage: gpuimg crop X Y W H IN OUT" "$tmp/err"
        check "crop $words: the two forms are not shown" \
            has "or: gpuimg crop --gravity centre W H IN OUT" "$tmp/err"
    done 3<<'EOF'
|expected 4 numbers, X Y W H, before the files; found none before '
1 2 3|expected 4 numbers, X Y W H, before the files; found 3 before '
1 2 3 4 5|expected 4 numbers, X Y W H, before the files; found 5
a b c d|found none before 'a'
10 x 20 30|found 1 before 'x'
-- -1 0 5 5|x '-1': must be an integer from 0 to 2147483647
-- 0 0 -5 5|width '-5': must be an integer from 0 to 2147483647
1.5 2 3 4|x '1.5': must be an integer from 0 to 2147483647
0 0 99999999999 5|width '99999999999': must be an integer from 0 to 2147483647
--gravity centre 5|with --gravity centre, expected 2 numbers, W H, before the files; found 1 before '
--gravity centre 1 2 3 4|with --gravity centre, expected 2 numbers, W H, before the files; found 4 (X and Y are for the form without --gravity)
--gravity centre 5 x|found 1 before 'x'
EOF
    expect_usage crop 1 2 3 4 "$scene"
    check "crop with numbers and one file: not asked for an input and an output" \
        has "expected an input and an output" "$tmp/err"
    expect_usage pipe "crop 1 2 3" "$scene" "$tmp/x.png"
    check "a pipe's crop of 3 numbers: not told so" has "found 3" "$tmp/err"
    expect_usage crop --gravity north 3 4 "$scene" "$tmp/x.png"
    check "--gravity north: not told the one it takes" has "expected centre" "$tmp/err"
    check "a refused crop left an output" [ ! -e "$tmp/x.png" ]

    # convert: the format of OUT's name, the pixels as they were
    expect 0 convert "$scene" "$tmp/v.jpg"
    check "convert to .jpg is not a JPEG" is_jpeg "$tmp/v.jpg"
    expect 0 convert --quality 40 "$scene" "$tmp/v40.jpg"
    check "convert --quality is not honoured" [ "$(wc -c <"$tmp/v40.jpg")" -lt "$(wc -c <"$tmp/v.jpg")" ]
    expect 0 convert "$samples/alpha.png" "$tmp/v.pam"
    expect 0 convert "$tmp/v.pam" "$tmp/v.png"
    check "PNG -> PAM -> PNG changed the pixels" same_image "$tmp/v.png" "$samples/alpha.png"
    expect 0 convert "$samples/scene.jpg" "$tmp/vj.png"
    expect 0 blur --radius 0 "$samples/scene.jpg" "$tmp/vb.png"
    check "convert of a JPEG differs from its decoded pixels" same_file "$tmp/vj.png" "$tmp/vb.png"
    # a batch with --format: each output named for what it holds
    expect 0 convert --format jpeg -q -o "$tmp/vb" "$scene" "$samples/alpha.png" "$tmp/v.pam"
    check "convert --format jpeg -o: $(listing "$tmp/vb")" \
        [ "$(listing "$tmp/vb" | tr ' ' '\n' | sort | tr '\n' ' ')" = "alpha.jpg scene.jpg v.jpg " ]
    check "convert --format jpeg -o wrote no JPEG" is_jpeg "$tmp/vb/alpha.jpg"
    expect_usage convert "$scene" "$tmp/x.unknown"
    expect_usage convert --width 5 "$scene" "$tmp/x.png"
    # -v names the device of a convert, which runs no operation: it said
    # 'on ?', and in a batch the device and times of the image before
    expect 0 convert -v "$scene" "$tmp/vv.png"
    check "convert -v: the device is '?'" lacks_ere ' on \?' "$tmp/err"
    check "convert -v: the copy not named" has "on cpu: a change of format alone" "$tmp/err"
    expect 0 convert -v -j 1 -o "$tmp/vv" "$samples/scene.jpg" "$samples/alpha.png"
    check "convert -v -o: alpha.png not named a copy" \
        has "alpha.png .* on cpu: a change of format alone" "$tmp/err"

    # thumbnail: the box, the crop, shrink-on-load, orientation, no metadata
    sized thumbnail --size 16 "$samples/scene.jpg" 16x12
    sized thumbnail --size 16 --crop centre "$samples/scene.jpg" 16x16
    sized thumbnail --size 20x10 "$samples/scene.jpg" 13x10
    sized thumbnail --size 100 "$samples/scene.jpg" 100x75
    # a PNG has no shrink-on-load: resize --size gives the same pixels
    expect 0 thumbnail --size 30 --crop centre "$scene" "$tmp/t1.png"
    expect 0 pipe 'resize --size 30 --fit cover | crop --gravity centre 30 30' "$scene" "$tmp/t2.png"
    check "thumbnail of a PNG differs from resize and crop" same_image "$tmp/t1.png" "$tmp/t2.png"
    # a JPEG is shrunk in the IDCT: near the full decode's resize, not equal
    expect 0 thumbnail --size 24 "$samples/scene.jpg" "$tmp/t3.png"
    expect 0 resize --size 24 "$samples/scene.jpg" "$tmp/t4.png"
    check "thumbnail of a JPEG did not shrink on load" different_image "$tmp/t3.png" "$tmp/t4.png"
    expect 0 compare -q --tolerance 40 "$tmp/t4.png" "$tmp/t3.png"
    # turned as a viewer shows it, and no metadata left
    mt tag "$samples/scene.jpg" "$tmp/o6.jpg" orientation=6 icc=3000 xmp=1
    sized thumbnail --size 16 "$tmp/o6.jpg" 12x16
    check "thumbnail kept the Exif" shows "$tmp/r.png" "exif none"
    check "thumbnail kept the XMP" shows "$tmp/r.png" "xmp none"
    check "thumbnail dropped the ICC profile" \
        shows "$tmp/r.png" "$(mt show "$tmp/o6.jpg" | grep '^icc ')"
    expect 0 thumbnail --size 16 --strip "$tmp/o6.jpg" "$tmp/r2.png"
    check "thumbnail --strip kept the ICC profile" shows "$tmp/r2.png" "icc none"
    expect 0 thumbnail --size 8 -q -o "$tmp/thumbs" "$samples/scene.jpg" "$scene"
    check "thumbnail -o: $(listing "$tmp/thumbs")" [ "$(entries "$tmp/thumbs")" -eq 2 ]
    expect_usage thumbnail "$samples/scene.jpg" "$tmp/x.png"
    expect_usage thumbnail --size 0 "$samples/scene.jpg" "$tmp/x.png"
    expect_usage thumbnail --size 16 --crop left "$samples/scene.jpg" "$tmp/x.png"
}

# ---------------------------------------------------------------- compare

group_compare() {
    # Pixels, not bytes: the same pixels written with other PNG settings.
    expect 0 compare "$scene" "$scene"
    check "equal: no 'result: equal'" has "^result: equal" "$tmp/out"
    check "equal: psnr not inf" has "^psnr: inf" "$tmp/out"
    check "equal: ssim not 1" has "^ssim: 1.0000000000" "$tmp/out"
    "$gpuimg" flip h "$scene" "$tmp/f1.png" && "$gpuimg" flip h --png-filter none --png-level 1 \
        "$tmp/f1.png" "$tmp/same.png"
    check "re-encoded copy has the same bytes; the test needs other bytes" \
        sh -c "! cmp -s '$scene' '$tmp/same.png'"
    expect 0 compare "$scene" "$tmp/same.png"
    expect 0 compare "$samples/scene.jpg" "$samples/scene.jpg"
    for img in alpha gray_alpha edge_line; do
        expect 0 compare "$samples/$img.png" "$samples/$img.png"
    done

    # Tolerance boundaries: a sample off by 5 differs at -t 4, not at -t 5.
    "$poke" "$scene" "$tmp/off1.png" 10 20 1 1
    "$poke" "$scene" "$tmp/off5.png" 10 20 0 5
    expect 1 compare "$scene" "$tmp/off1.png"
    check "one off: not 1 differing pixel" has "^different pixels: 1 " "$tmp/out"
    check "one off: max diff not 0 1 0" has "^max abs diff: 0 1 0$" "$tmp/out"
    check "one off: result not different" has "^result: different" "$tmp/out"
    expect 0 compare -t 1 "$scene" "$tmp/off1.png"
    expect 1 compare --tolerance 4 "$scene" "$tmp/off5.png"
    expect 0 compare --tolerance 5 "$scene" "$tmp/off5.png"
    # at 16 bits the tolerance is in 16-bit steps (5 * 257 = 1285), up to
    # 65535; at 8 bits more than 255 is refused, naming the depth
    expect 0 convert --depth 16 "$scene" "$tmp/s16.png"
    expect 0 convert --depth 16 "$tmp/off5.png" "$tmp/off5_16.png"
    expect 1 compare -q --tolerance 1284 "$tmp/s16.png" "$tmp/off5_16.png"
    expect 0 compare -q --tolerance 1285 "$tmp/s16.png" "$tmp/off5_16.png"
    expect 0 compare --tolerance 65535 "$tmp/s16.png" "$tmp/off5_16.png"
    check "16-bit compare: PSNR not on 65535" has "^psnr: 73\\.7968" "$tmp/out"
    expect 2 compare --tolerance 256 "$scene" "$tmp/off5.png"
    check "a tolerance past 8 bits does not say so" has "must be 0..255 for 8-bit images" "$tmp/err"
    check "a refused tolerance does not name the files" has "scene.png and " "$tmp/err"
    expect 1 compare -q "$tmp/s16.png" "$scene"

    # --max-different: 2 of 3072 pixels differ (0.0651%).
    "$poke" "$scene" "$tmp/two.png" 0 0 0 9 63 47 2 -9
    expect 1 compare -k 1 "$scene" "$tmp/two.png"
    expect 0 compare --max-different 2 "$scene" "$tmp/two.png"
    expect 1 compare --max-different 0.06% "$scene" "$tmp/two.png"
    expect 0 compare --max-different 0.07% "$scene" "$tmp/two.png"
    expect 0 compare -t 9 "$scene" "$tmp/two.png"

    # -q says nothing; JSON
    expect 1 compare -q "$scene" "$tmp/two.png"
    check "-q wrote to stdout" [ ! -s "$tmp/out" ]
    expect 1 compare --format json "$scene" "$tmp/two.png"
    check "json: no different_pixels 2" has '"different_pixels": 2,' "$tmp/out"
    check "json: no status" has '"status": "different"' "$tmp/out"
    expect 0 compare -f json "$scene" "$scene"
    check "json: psnr of equal images not null" has '"psnr": null' "$tmp/out"

    # Shapes: a transposed image, a gray one; one line, exit 1.
    "$gpuimg" transpose "$scene" "$tmp/t.png"
    "$gpuimg" sobel --gray "$scene" "$tmp/g.png"
    for other in t g; do
        expect 1 compare "$scene" "$tmp/$other.png"
        check "shape $other: not one line" [ "$(wc -l <"$tmp/out")" -eq 1 ]
        check "shape $other: no 'differ'" has "differ" "$tmp/out"
    done

    # With alpha, colour counts premultiplied: a transparent pixel's colour
    # does not count, unless --straight-alpha.
    if command -v python3 >/dev/null 2>&1; then
        for name in clear:200,100,50 dark:10,20,30; do
            python3 -c 'import struct, sys, zlib
r, g, b = map(int, sys.argv[2].split(","))
raw = bytes([0, r, g, b, 0, 1, 2, 3, 255, 100, 100, 100, 2])
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 3, 1, 8, 6, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))' \
                "$tmp/${name%%:*}.png" "${name#*:}"
        done
        expect 0 compare "$tmp/clear.png" "$tmp/dark.png"
        check "alpha 0, other colours: psnr not inf" has "^psnr: inf" "$tmp/out"
        expect 1 compare --straight-alpha "$tmp/clear.png" "$tmp/dark.png"
        check "--straight-alpha: not 1 differing pixel" has "^different pixels: 1 " "$tmp/out"
        check "--straight-alpha: max diff not 190 80 20 0" has "^max abs diff: 190 80 20 0$" "$tmp/out"
        # alpha 2: colours 100 and 101 are both 1 premultiplied (1 apart straight)
        "$poke" "$tmp/dark.png" "$tmp/half.png" 2 0 0 1
        expect 0 compare "$tmp/dark.png" "$tmp/half.png"
        expect 1 compare --straight-alpha "$tmp/dark.png" "$tmp/half.png"
    fi

    # Trouble is 2: a missing or undecodable file, usage errors.
    expect 2 compare "$scene" "$tmp/nothere.png"
    check "missing file not named" has nothere.png "$tmp/err"
    printf 'not a PNG\n' >"$tmp/junk.png"
    expect 2 compare "$tmp/junk.png" "$scene"
    # A report that cannot be written is trouble too, as for cmp and diff.
    for pair in "$scene $scene" "$scene $tmp/off1.png"; do
        # shellcheck disable=SC2086
        "$gpuimg" compare $pair >/dev/full 2>"$tmp/err"
        rc=$?
        check "compare $pair >/dev/full: exit $rc, want 2" [ "$rc" -eq 2 ]
        check "compare >/dev/full: no message naming compare" has "^gpuimg compare: standard output" "$tmp/err"
    done
    expect_usage compare "$scene"
    expect_usage compare --tolerance 65536 "$scene" "$scene"
    expect_usage compare --max-different many "$scene" "$scene"
    expect_usage compare --diff-dir "$tmp/d" "$scene" "$scene"
    expect_usage compare -r --diff "$tmp/d.png" "$tmp" "$tmp"

    # --diff: written for differing images, not for equal ones.
    expect 1 compare --diff "$tmp/diff.png" "$scene" "$tmp/off5.png"
    check "--diff wrote no PNG" is_png "$tmp/diff.png"
    expect 1 compare "$tmp/diff.png" "$scene"
    expect 0 compare --diff "$tmp/nodiff.png" "$scene" "$scene"
    check "--diff of equal images wrote a file" [ ! -e "$tmp/nodiff.png" ]

    # Trees: equal, different, missing, extra.
    mkdir -p "$tmp/e/sub" "$tmp/a/sub"
    cp "$scene" "$tmp/e/same.png"
    cp "$tmp/same.png" "$tmp/a/same.png"
    cp "$scene" "$tmp/e/sub/changed.png"
    cp "$tmp/off5.png" "$tmp/a/sub/changed.png"
    cp "$scene" "$tmp/e/gone.png"
    cp "$scene" "$tmp/a/new.png"
    expect 1 compare -r --diff-dir "$tmp/dd" "$tmp/e" "$tmp/a"
    check "tree: no line for sub/changed.png" has "^differ: sub/changed.png" "$tmp/out"
    check "tree: no line for gone.png" has "^missing: gone.png" "$tmp/out"
    check "tree: no line for new.png" has "^extra: new.png" "$tmp/out"
    check "tree: a line for same.png" lacks_ere "same.png" "$tmp/out"
    check "tree: wrong summary" has "^4 pairs: 1 equal, 1 different, 1 missing, 1 extra, 0 errors" "$tmp/out"
    check "tree: no mirrored diff picture" is_png "$tmp/dd/sub/changed.png"
    check "tree: diff picture for an equal pair" [ ! -e "$tmp/dd/same.png" ]
    cp "$tmp/out" "$tmp/tree1"
    expect 1 compare -r -j 2 "$tmp/e" "$tmp/a"
    check "tree: -j 2 reports otherwise" same_file "$tmp/out" "$tmp/tree1"
    expect 1 compare -r -f json "$tmp/e" "$tmp/a"
    check "tree json: no summary" has '"summary": {"equal": 1' "$tmp/out"
    expect 0 compare -r "$tmp/e/sub" "$tmp/e/sub"
    expect 1 compare -r -q "$tmp/e" "$tmp/a"
    check "tree -q wrote to stdout" [ ! -s "$tmp/out" ]
    cp "$tmp/junk.png" "$tmp/e/sub/junk.png"
    cp "$tmp/junk.png" "$tmp/a/sub/junk.png"
    expect 2 compare -r "$tmp/e" "$tmp/a"
    check "tree: no error line for junk.png" has "^error: sub/junk.png" "$tmp/out"
    expect 2 compare -r "$tmp/e" "$tmp/nothere"
}

# env_usage VAR VALUE OPTION ARGS...: gpuimg ARGS with VAR=VALUE exits 2
# with the message of OPTION VALUE, naming VAR instead of the option.
env_usage() {
    var=$1 value=$2 option=$3
    shift 3
    env "$var=$value" "$gpuimg" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "$var=$value gpuimg $*: exit $rc, want 2" [ "$rc" -eq 2 ]
    sed "s/^gpuimg $1: $var '/gpuimg $1: $option '/" "$tmp/err" >"$tmp/env_err"
    if [ "$option" = - ]; then
        check "$var=$value: no message naming it" has "^gpuimg $1: $var '$value': " "$tmp/err"
    else
        "$gpuimg" "$1" "$option" "$value" "$scene" "$tmp/x.png" 2>"$tmp/opt_err"
        check "$var=$value: not the message of $option $value" same_file "$tmp/env_err" "$tmp/opt_err"
    fi
}

group_messages() {
    # Environment variables are checked as their options are.
    for value in -1 abc 0 99999999999999999999999 12Q; do
        env_usage GPUIMG_MAX_PIXELS "$value" --max-pixels blur "$scene" "$tmp/x.png"
    done
    env_usage GPUIMG_DEVICE gpu --device blur "$scene" "$tmp/x.png"
    env_usage GPUIMG_AUTO_ORIENT yes - flip h "$scene" "$tmp/x.png"
    env_usage GPUIMG_CPU_ISA sse - blur "$scene" "$tmp/x.png"
    env_usage GPUIMG_JPEG_ARITHMETIC device - blur "$scene" "$tmp/x.png"
    env_usage GPUIMG_JPEG_ENTROPY x - blur "$scene" "$tmp/x.png"
    check "a bad variable created an output" [ ! -e "$tmp/x.png" ]
    env GPUIMG_MAX_PIXELS=1K "$gpuimg" blur "$scene" "$tmp/x.png" 2>"$tmp/err"
    check "GPUIMG_MAX_PIXELS=1K: not the limit of 1024 pixels" has "over the 1024-pixel limit" "$tmp/err"
    check "an input over the pixel limit: the message does not name what sets it" \
        has "(--max-pixels, GPUIMG_MAX_PIXELS)" "$tmp/err"
    for ext in pgm tif; do
        "$gpuimg" convert "$scene" "$tmp/big.$ext" 2>/dev/null
        [ -e "$tmp/big.$ext" ] || continue # a build without libtiff refuses .tif
        env GPUIMG_MAX_PIXELS=1K "$gpuimg" blur "$tmp/big.$ext" "$tmp/x.png" 2>"$tmp/err"
        check "GPUIMG_MAX_PIXELS=1K, .$ext: not the limit and what sets it" \
            has "over the 1024-pixel limit (--max-pixels, GPUIMG_MAX_PIXELS)" "$tmp/err"
    done
    env GPUIMG_MAX_PIXELS= GPUIMG_DEVICE= "$gpuimg" blur "$scene" "$tmp/x.png" 2>"$tmp/err"
    check "empty variables are not as unset" [ ! -s "$tmp/err" ]

    # One prefix, the command's: "gpuimg blur: ...".
    expect_usage blur --sigma abc "$scene" "$tmp/x.png"
    check "--sigma abc: not 'gpuimg blur: ... not a number'" \
        has "^gpuimg blur: --sigma 'abc': not a number$" "$tmp/err"
    expect_usage blur --sigma 1e999 "$scene" "$tmp/x.png"
    check "--sigma 1e999: not 'not a finite number'" has "not a finite number" "$tmp/err"
    for bad in "compare --format xml $scene $scene" "compare -k many $scene $scene" \
        "hist --format xml $scene" "blur --kernel median $scene $tmp/x.png" \
        "convolve --kernel 1,2 $scene $tmp/x.png" "sobel --border x $scene $tmp/x.png"; do
        # shellcheck disable=SC2086
        expect_usage $bad
        check "$bad: not 'gpuimg ${bad%% *}: '" has "^gpuimg ${bad%% *}: " "$tmp/err"
    done

    # A directory without -r says what -r does; a batch where none was
    # written gives no rate; --summary-json joins -o DIR/ and the name once.
    mkdir "$tmp/photos" "$tmp/o"
    cp "$scene" "$tmp/photos/"
    expect 1 blur -o "$tmp/o" "$tmp/photos/"
    check "a directory without -r: no hint of -r" has "is a directory (-r takes the images under it)" "$tmp/err"
    check "a batch with 0 ok gives a rate" lacks_ere "images/s" "$tmp/err"
    expect 0 blur -o "$tmp/o/" --summary-json "$tmp/s.json" "$tmp/photos/scene.png"
    check "--summary-json: no output path" has "\"output\": \"$tmp/o/scene.png\"" "$tmp/s.json"
    check "a batch of 1 ok gives no rate" has "images/s" "$tmp/err"
    expect 0 blur -r -o "$tmp/o/" --summary-json "$tmp/s.json" "$tmp/photos/"
    check "--summary-json -r: a doubled slash" lacks_ere "//" "$tmp/s.json"

    # A JPEG whose scan data ends long before its frame: decoded, and -v
    # says so (as djpeg warns); a whole one says nothing of the kind.
    if command -v python3 >/dev/null 2>&1; then
        python3 "$(dirname "$0")/robust/make_corpus.py" "$(dirname "$0")/robust/cases.txt" \
            "$samples" "$tmp/corpus" jpeg-data-short.jpg jpeg-fill-in-scan.jpg >/dev/null
        expect 0 flip h -v "$tmp/corpus/jpeg-data-short.jpg" "$tmp/short.png"
        check "short JPEG data: -v does not say so" has "premature end of JPEG data" "$tmp/err"
        expect 0 flip h "$tmp/corpus/jpeg-data-short.jpg" "$tmp/short.png"
        check "short JPEG data: a message without -v" [ ! -s "$tmp/err" ]
        for whole in "$tmp/corpus/jpeg-fill-in-scan.jpg" "$samples/scene.jpg"; do
            expect 0 flip h -v "$whole" "$tmp/whole.png"
            check "$whole: -v says its data ends early" lacks_ere "premature" "$tmp/err"
        done
    fi

    # info names the trouble with the driver in words, not CUDA's enum.
    expect 0 info --no-bandwidth
    check "info prints a CUDA error name" lacks_ere "cudaError" "$tmp/out"
    # A process held to one core (taskset) counts that core alone.
    if command -v taskset >/dev/null 2>&1; then
        taskset -c "$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')" "$gpuimg" info --no-bandwidth \
            >"$tmp/out" 2>"$tmp/err"
        check "info under taskset -c N: 'cpu threads: 1'" grep -qx "cpu threads: 1" "$tmp/out"
    fi
}

# ---------------------------------------------------------------- metadata

# mt ARGS...: tests/metadata_tool.py, gpuimg's metadata read independently.
mt() {
    python3 "$(dirname "$0")/metadata_tool.py" "$@"
}

# shows FILE LINE: metadata_tool.py show FILE prints LINE.
shows() {
    mt show "$1" | grep -x "$2" >/dev/null
}

group_metadata() {
    command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
    jpg=$samples/scene.jpg
    # The 8 orientations, both Exif byte orders: by default pixels as stored
    # and the tag kept; --auto-orient (or the environment) turns the pixels
    # and writes 1; JPEG outputs keep the tag and swap sizes.
    for o in 1 2 3 4 5 6 7 8; do
        order=II
        [ $((o % 2)) -eq 0 ] && order=MM
        mt tag "$scene" "$tmp/o$o.png" orientation=$o order=$order
        mt tag "$jpg" "$tmp/o$o.jpg" orientation=$o order=$order
        gi blur --radius 0 "$tmp/o$o.png" "$tmp/kept.png"
        check "orientation $o: exit $rc" [ "$rc" -eq 0 ]
        check "orientation $o: tag not kept" shows "$tmp/kept.png" "orientation $o"
        check "orientation $o: pixels not as stored" mt shown "$tmp/kept.png" "$scene" 1
        gi blur --radius 0 --auto-orient "$tmp/o$o.png" "$tmp/auto.png"
        check "--auto-orient $o: not Orientation 1" shows "$tmp/auto.png" "orientation 1"
        check "--auto-orient $o: pixels not as a viewer shows them" \
            mt shown "$tmp/auto.png" "$scene" "$o"
        GPUIMG_AUTO_ORIENT=1 "$gpuimg" blur --radius 0 "$tmp/o$o.png" "$tmp/env.png"
        check "GPUIMG_AUTO_ORIENT=1, $o: pixels not turned" mt shown "$tmp/env.png" "$scene" "$o"
        gi blur "$tmp/o$o.jpg" "$tmp/kept.jpg"
        check "JPEG orientation $o: tag not kept" shows "$tmp/kept.jpg" "orientation $o"
        gi sobel --auto-orient "$tmp/o$o.jpg" "$tmp/auto.jpg"
        size=64x48
        [ "$o" -ge 5 ] && size=48x64
        check "JPEG --auto-orient $o: not Orientation 1" shows "$tmp/auto.jpg" "orientation 1"
        check "JPEG --auto-orient $o: not $size" shows "$tmp/auto.jpg" "size $size"
    done
    # transpose, rotate and flip act on what a viewer shows, and write 1.
    gi rotate 90 "$tmp/o6.png" "$tmp/rot.png"
    check "rotate 90 of an Orientation 6 photo: not turned twice" \
        mt shown "$tmp/rot.png" "$scene" 6 6
    check "rotate 90: not Orientation 1" shows "$tmp/rot.png" "orientation 1"
    gi flip h "$tmp/o3.png" "$tmp/flip.png"
    check "flip h of an Orientation 3 photo" mt shown "$tmp/flip.png" "$scene" 3 2
    gi transpose "$tmp/o8.png" "$tmp/tr.png"
    check "transpose of an Orientation 8 photo" mt shown "$tmp/tr.png" "$scene" 8 5
    # pipe: a transform anywhere in the chain orients first; the metadata
    # options are for the whole run, outside the quotes.
    gi pipe 'blur --radius 0 | rotate 90' "$tmp/o6.png" "$tmp/pipe.png"
    check "pipe 'blur | rotate 90' of an Orientation 6 photo" \
        mt shown "$tmp/pipe.png" "$scene" 6 6
    gi pipe 'blur --radius 0 | blur --radius 0' --auto-orient "$tmp/o8.png" "$tmp/pipe.png"
    check "pipe --auto-orient" mt shown "$tmp/pipe.png" "$scene" 8
    check "pipe --auto-orient: not Orientation 1" shows "$tmp/pipe.png" "orientation 1"
    expect_usage pipe 'blur --strip' "$tmp/o6.png" "$tmp/pipe.png"
    check "pipe 'blur --strip': not refused as a run option" has "outside the quotes" "$tmp/err"
    gi pipe 'rotate 180 | hist' "$tmp/o6.png"
    check "pipe 'rotate 180 | hist' of an Orientation 6 photo: not turned" \
        grep -q '^# size: 48x64' "$tmp/out"
    # compare: as stored unless --auto-orient.
    expect 0 compare "$tmp/o6.png" "$scene"
    expect 1 compare --auto-orient "$tmp/o6.png" "$scene"
    gi blur --radius 0 --auto-orient "$tmp/o6.png" "$tmp/upright6.png"
    expect 0 compare --auto-orient "$tmp/o6.png" "$tmp/upright6.png"
    expect 1 compare "$tmp/o6.png" "$tmp/upright6.png"
    # hist: as stored unless --auto-orient.
    gi hist "$tmp/o6.png"
    check "hist of an Orientation 6 photo: not as stored" grep -q '^# size: 64x48' "$tmp/out"
    gi hist --auto-orient "$tmp/o6.png"
    check "hist --auto-orient: not turned" grep -q '^# size: 48x64' "$tmp/out"

    # ICC (70000 bytes: two APP2 segments in JPEG) and XMP, byte for byte,
    # between the two containers; PNG's colour chunks; --strip leaves none.
    mt tag "$scene" "$tmp/icc.png" orientation=6 icc=70000 xmp=1
    mt tag "$jpg" "$tmp/icc.jpg" orientation=6 icc=70000 xmp=1
    mt show "$tmp/icc.png" | grep -E '^(icc|xmp) ' >"$tmp/want"
    check "the two inputs differ" [ "$(mt show "$tmp/icc.jpg" | grep -E '^(icc|xmp) ')" = \
        "$(cat "$tmp/want")" ]
    for in in icc.png icc.jpg; do
        for ext in png jpg; do
            gi blur "$tmp/$in" "$tmp/copy.$ext"
            mt show "$tmp/copy.$ext" | grep -E '^(icc|xmp) ' >"$tmp/got"
            check "$in -> .$ext: ICC or XMP bytes changed" cmp -s "$tmp/got" "$tmp/want"
            check "$in -> .$ext: Exif lost" shows "$tmp/copy.$ext" "orientation 6"
            gi blur --strip "$tmp/$in" "$tmp/strip.$ext"
            check "$in -> .$ext --strip: metadata left" [ "$(mt show "$tmp/strip.$ext" |
                grep -c ' none$')" -eq 6 ]
        done
    done
    mt tag "$scene" "$tmp/colour.png" colour=1
    gi flip v "$tmp/colour.png" "$tmp/colour-out.png"
    check "PNG sRGB, gAMA, cHRM not kept" shows "$tmp/colour-out.png" "colour sRGB gAMA cHRM"
    gi flip v --strip --auto-orient "$tmp/icc.png" "$tmp/strip-auto.png"
    check "--strip --auto-orient: not turned" mt shown "$tmp/strip-auto.png" "$scene" 6 4
    check "--strip --auto-orient: Exif left" shows "$tmp/strip-auto.png" "exif none"

    # Batch and standard input/output keep it too.
    mkdir "$tmp/batch"
    gi blur -q -o "$tmp/batch" "$tmp/icc.jpg" "$tmp/o5.png"
    check "batch: JPEG Exif lost" shows "$tmp/batch/icc.jpg" "orientation 6"
    check "batch: PNG Exif lost" shows "$tmp/batch/o5.png" "orientation 5"
    gi blur --auto-orient - - --format png <"$tmp/icc.jpg"
    check "stdin to stdout: ICC lost" [ "$(mt show "$tmp/out" | grep '^icc ')" = \
        "$(grep '^icc ' "$tmp/want")" ]
    check "stdin to stdout --auto-orient: not 48x64" shows "$tmp/out" "size 48x64"

    # Metadata that cannot be read is dropped, noted under -v, and the
    # image is still written: an IFD that points at itself.
    mt tag "$scene" "$tmp/loop.png" exif=49492a0008000000000008000000
    gi blur -v "$tmp/loop.png" "$tmp/loop-out.png"
    check "Exif IFD loop: exit $rc, want 0" [ "$rc" -eq 0 ]
    check "Exif IFD loop: -v does not say it was dropped" grep -q 'Exif dropped: its IFDs form a loop' "$tmp/err"
    check "Exif IFD loop: Exif written" shows "$tmp/loop-out.png" "exif none"
}

# ---------------------------------------------------------------- main

# ---------------------------------------------------------------- depth

png_depth() { od -An -tu1 -j24 -N1 "$1" | tr -d ' '; }

# A 16-bit output, or a clear refusal: never an 8-bit file.
sixteen_or_refused() {
    what=$1 out=$2
    if [ "$rc" -eq 0 ]; then
        case $out in
            *.png) check "$what: a $(png_depth "$out")-bit PNG" [ "$(png_depth "$out")" = 16 ] ;;
            *) check "$what: not maxval 65535" grep -q 65535 "$out" ;;
        esac
    else
        check "$what: exit $rc without 'not supported'" has "not supported" "$tmp/err"
    fi
}

group_depth() {
    # 2x1 RGB at 16 bits: 0xFF00 0x0001 0x8000 | 0xFFFF 0x1234 0x0000
    printf 'P6\n2 1\n65535\n\377\000\000\001\200\000\377\377\022\064\000\000' >"$tmp/rgb16.ppm"
    expect 0 convert "$tmp/rgb16.ppm" "$tmp/rgb16.png"
    check "16-bit PNM to PNG: a $(png_depth "$tmp/rgb16.png")-bit PNG" \
        [ "$(png_depth "$tmp/rgb16.png")" = 16 ]
    expect 0 convert "$tmp/rgb16.png" "$tmp/back.ppm"
    check "16-bit PPM -> PNG -> PPM: other bytes" same_file "$tmp/rgb16.ppm" "$tmp/back.ppm"
    expect 0 convert "$tmp/rgb16.png" "$tmp/rgb16.pam"
    check "16-bit PAM: no MAXVAL 65535" has "MAXVAL 65535" "$tmp/rgb16.pam"
    expect 0 convert "$tmp/rgb16.pam" "$tmp/back2.ppm"
    check "16-bit PAM -> PPM: other bytes" same_file "$tmp/rgb16.ppm" "$tmp/back2.ppm"
    # --depth 8: (v + 128) / 257, so 0xFF00 -> 254; --depth 16: v * 257
    expect 0 convert --depth 8 "$tmp/rgb16.ppm" "$tmp/rgb8.ppm"
    printf 'P6\n2 1\n255\n\376\000\200\377\022\000' >"$tmp/want8.ppm"
    check "--depth 8: not (v + 128) / 257" same_file "$tmp/rgb8.ppm" "$tmp/want8.ppm"
    expect 0 convert --depth 16 "$tmp/want8.ppm" "$tmp/wide.ppm"
    printf 'P6\n2 1\n65535\n\376\376\000\000\200\200\377\377\022\022\000\000' >"$tmp/want16.ppm"
    check "--depth 16: not v * 257" same_file "$tmp/wide.ppm" "$tmp/want16.ppm"
    expect 0 convert --depth keep "$tmp/want8.ppm" "$tmp/kept.ppm"
    check "--depth keep changed an 8-bit file" same_file "$tmp/kept.ppm" "$tmp/want8.ppm"
    GPUIMG_DEPTH=8 "$gpuimg" convert "$tmp/rgb16.ppm" "$tmp/env8.ppm" 2>"$tmp/err"
    check "GPUIMG_DEPTH=8 not applied" same_file "$tmp/env8.ppm" "$tmp/want8.ppm"
    expect_usage convert --depth 12 "$tmp/rgb16.ppm" "$tmp/x.png"
    # maxval 1000: (v * 65535 + 500) / 1000
    printf 'P5\n2 1\n1000\n\001\364\003\350' >"$tmp/m1000.pgm"
    expect 0 convert "$tmp/m1000.pgm" "$tmp/m1000out.pgm"
    printf 'P5\n2 1\n65535\n\200\000\377\377' >"$tmp/m1000want.pgm"
    check "maxval 1000 not scaled to 16 bits" same_file "$tmp/m1000out.pgm" "$tmp/m1000want.pgm"
    # JPEG holds 8 bits: refused, naming --depth 8, which then works
    expect 1 convert "$tmp/rgb16.png" "$tmp/x.jpg"
    check "16-bit to JPEG: no mention of --depth 8" has "--depth 8" "$tmp/err"
    check "16-bit to JPEG: a file left" [ ! -e "$tmp/x.jpg" ]
    expect 0 convert --depth 8 "$tmp/rgb16.png" "$tmp/x.jpg"
    check "--depth 8 to JPEG: not a JPEG" is_jpeg "$tmp/x.jpg"
    # --depth 16 to JPEG: refused too, also where the backend encodes the
    # JPEG itself from an 8-bit PNG or JPEG (which wrote 8 bits, exit 0)
    for src in "$scene" "$samples/scene.jpg"; do
        for cmd in convert "flip h"; do
            eval "set -- $cmd"
            expect 1 "$@" --depth 16 "$src" "$tmp/x16.jpg"
            check "$cmd --depth 16 $src to JPEG: not refused" has "not the 16 asked for" "$tmp/err"
            check "$cmd --depth 16 $src to JPEG: a file left" [ ! -e "$tmp/x16.jpg" ]
        done
    done
    GPUIMG_DEPTH=16 "$gpuimg" convert "$samples/scene.jpg" "$tmp/x16.jpg" 2>"$tmp/err"
    check "GPUIMG_DEPTH=16 to JPEG: not named" has "GPUIMG_DEPTH=16" "$tmp/err"
    check "GPUIMG_DEPTH=16 to JPEG: a file left" [ ! -e "$tmp/x16.jpg" ]
    # a batch and a stream keep the depth
    mkdir "$tmp/in" && cp "$tmp/rgb16.png" "$tmp/in/a.png"
    expect 0 convert -o "$tmp/outb" "$tmp/in/a.png"
    check "a batch: a $(png_depth "$tmp/outb/a.png")-bit PNG" [ "$(png_depth "$tmp/outb/a.png")" = 16 ]
    cat "$tmp/rgb16.ppm" "$tmp/rgb16.ppm" | "$gpuimg" convert - "$tmp/stream.pam" 2>"$tmp/err"
    check "a stream: not two 16-bit images" [ "$(grep -c 'MAXVAL 65535' "$tmp/stream.pam")" = 2 ]
    # -v names the depths read and written
    expect 0 convert -v --depth 8 "$tmp/rgb16.png" "$tmp/v.png"
    check "-v: no depths" has "16-bit -> 8-bit" "$tmp/err"
    # every command: a 16-bit output or "not supported", never 8 bits
    in=$tmp/rgb16.png
    for args in "blur" "sobel" "transpose" "rotate 90" "flip h" "convolve --kernel 1" \
        "resize --width 1" "crop 0 0 1 1" "thumbnail --size 1" "convert" "pipe flip\ h"; do
        eval "set -- $args"
        gi "$@" "$in" "$tmp/cmd.png"
        sixteen_or_refused "$args" "$tmp/cmd.png"
        rm -f "$tmp/cmd.png"
    done
    gi hist "$in" "$tmp/hist.txt"
    [ "$rc" -eq 0 ] || check "hist: exit $rc without 'not supported'" has "not supported" "$tmp/err"
    gi compare "$in" "$in"
    [ "$rc" -eq 0 ] || check "compare: exit $rc without 'not supported'" has "not supported" \
        "$tmp/err"
}

case $group in
    exit-codes) group_exit_codes ;;
    help) group_help ;;
    depth) group_depth ;;
    stdio) group_stdio ;;
    batch) group_batch ;;
    files) group_files ;;
    device) group_device ;;
    hist) group_hist ;;
    border) group_border ;;
    convolve) group_convolve ;;
    bench) group_bench ;;
    pipe) group_pipe ;;
    compare) group_compare ;;
    pnm) group_pnm ;;
    metadata) group_metadata ;;
    messages) group_messages ;;
    resize) group_resize ;;
    *) echo "cli.sh: unknown group '$group'" >&2; exit 2 ;;
esac
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
