#!/bin/sh
# check_tiff_cli.sh GPUIMG IMGCMP SAMPLES: TIFF through the gpuimg command.
# PNG -> TIFF -> PNG gives the same pixels (every sample, .tif and .tiff,
# --format tiff to standard output and back from standard input); a blur
# of a TIFF equals the blur of its PNG; what gpuimg writes is deflate with
# the horizontal predictor and reads back (tinytiff.py) to the same
# samples, and with --tiff-compression none is uncompressed with those
# samples; a 16-bit TIFF is converted at 16 bits or refused, never cut to
# 8; a multi-page file is warned of on stderr, once, naming it and its
# pages (not under -q); a palette TIFF, with or without
# its colour map, is refused naming the file; the Orientation tag turns
# the pixels under --auto-orient, rotate and thumbnail, and is kept in a
# TIFF written without --auto-orient (a JPEG's Exif Orientation too) and
# in a PNG's or JPEG's Exif; a strip cut short fails saying so. Exit 77 in a build without TIFF
# support.
set -u
gpuimg=$1 imgcmp=$2 samples=$3
here=$(cd "$(dirname "$0")" && pwd)
tiny="$here/../robust/tinytiff.py"
mt="$here/../metadata_tool.py"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset GPUIMG_DEVICE GPUIMG_MAX_PIXELS
failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}

if ! "$gpuimg" convert "$samples/scene.png" "$tmp/probe.tif" 2>"$tmp/err"; then
    if grep -q 'no TIFF support' "$tmp/err"; then
        echo "skip: this build has no TIFF support"
        exit 77
    fi
    fail "convert to TIFF: $(cat "$tmp/err")"
fi
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }

for s in scene alpha gray_alpha edge_line; do
    "$gpuimg" convert "$samples/$s.png" "$tmp/$s.tif" &&
        "$gpuimg" convert "$tmp/$s.tif" "$tmp/$s.png" &&
        "$imgcmp" "$samples/$s.png" "$tmp/$s.png" ||
        fail "$s: PNG -> TIFF -> PNG changed the pixels"
    "$gpuimg" convert "$samples/$s.png" "$tmp/$s.tiff" && cmp -s "$tmp/$s.tif" "$tmp/$s.tiff" ||
        fail "$s: .tiff differs from .tif"
    # what was written: deflate, predictor 2, the PNG's samples
    python3 - "$tiny" "$tmp/$s.tif" <<'PY' || fail "$s: the TIFF written is not deflate with the predictor"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import tinytiff
w, h, ch, bits, samples, comp, predictor = tinytiff.read(open(sys.argv[2], 'rb').read())
sys.exit(0 if comp == 8 and predictor == 2 and bits == 8 and len(samples) == w * h * ch else 1)
PY
done

# uncompressed: the deflate file's samples, no compression, no predictor
"$gpuimg" convert --tiff-compression none "$samples/alpha.png" "$tmp/plain.tif" ||
    fail "--tiff-compression none"
python3 - "$tiny" "$tmp/alpha.tif" "$tmp/plain.tif" <<'PY' || fail "--tiff-compression none: not the samples uncompressed"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import tinytiff
a = tinytiff.read(open(sys.argv[2], 'rb').read())
b = tinytiff.read(open(sys.argv[3], 'rb').read())
sys.exit(0 if a[:5] == b[:5] and b[5] == 1 and b[6] in (None, 1) else 1)
PY
"$gpuimg" convert --tiff-compression lzw "$samples/alpha.png" "$tmp/lzw.tif" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--tiff-compression" "$tmp/err" && [ ! -e "$tmp/lzw.tif" ] ||
    fail "--tiff-compression lzw: exit $rc, $(cat "$tmp/err")"

"$gpuimg" convert --format tiff "$samples/alpha.png" - >"$tmp/stdout.tif" &&
    cmp -s "$tmp/stdout.tif" "$tmp/alpha.tif" || fail "--format tiff to standard output"
"$gpuimg" convert - "$tmp/stdin.png" <"$tmp/alpha.tif" && "$imgcmp" "$samples/alpha.png" "$tmp/stdin.png" ||
    fail "a TIFF on standard input"

"$gpuimg" blur --sigma 2 "$samples/scene.png" "$tmp/blur-png.png" &&
    "$gpuimg" blur --sigma 2 "$tmp/scene.tif" "$tmp/blur-tif.tif" &&
    "$imgcmp" "$tmp/blur-png.png" "$tmp/blur-tif.tif" || fail "blur of a TIFF differs from blur of its PNG"

# 16 bits: a big-endian uncompressed file in, the same samples out, or a
# refusal that names the operation's 16-bit limit
python3 - "$tiny" "$tmp/deep.tif" <<'PY' || fail "could not write the 16-bit TIFF"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import tinytiff
w, h, ch = 7, 5, 3
samples = [(x * 9973 + y * 40503 + c * 257) % 65536 for y in range(h) for x in range(w) for c in range(ch)]
open(sys.argv[2], 'wb').write(tinytiff.encode([{'width': w, 'height': h, 'channels': ch, 'bits': 16,
                                                'samples': samples}], big_endian=True))
PY
if "$gpuimg" convert "$tmp/deep.tif" "$tmp/deep-out.tif" 2>"$tmp/err"; then
    python3 - "$tiny" "$tmp/deep.tif" "$tmp/deep-out.tif" <<'PY' || fail "16-bit convert changed the samples"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import tinytiff
a = tinytiff.read(open(sys.argv[2], 'rb').read())
b = tinytiff.read(open(sys.argv[3], 'rb').read())
sys.exit(0 if a[:5] == b[:5] else 1)
PY
else
    grep -q '16-bit image is not supported' "$tmp/err" || fail "16-bit convert: $(cat "$tmp/err")"
fi

python3 - "$tiny" "$tmp/pages.tif" "$tmp/palette.tif" "$tmp/palette-nomap.tif" <<'PY' || fail "could not write the test TIFFs"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import tinytiff
page = {'width': 4, 'height': 3, 'channels': 1, 'bits': 8, 'samples': list(range(12))}
open(sys.argv[2], 'wb').write(tinytiff.encode([page, page, page, page]))
page['photometric'] = 3
open(sys.argv[4], 'wb').write(tinytiff.encode([page]))  # libtiff reads it as gray
page['tags'] = {320: (3, [0] * 768)}
open(sys.argv[3], 'wb').write(tinytiff.encode([page]))
PY
# Only the first page is read: a warning says so whatever the verbosity
# (it was a note under -v alone), one line per file, never under -q.
warning="pages.tif: warning: the TIFF has 4 pages; only the first was read"
for v in "" -v; do
    "$gpuimg" convert $v "$tmp/pages.tif" "$tmp/pages.png" 2>"$tmp/err" &&
        [ "$(grep -c 'pages; only the first' "$tmp/err")" -eq 1 ] && grep -q "$warning" "$tmp/err" ||
        fail "convert $v of a 4-page TIFF: not one warning naming it: $(cat "$tmp/err")"
done
"$gpuimg" convert -q "$tmp/pages.tif" "$tmp/pages.png" 2>"$tmp/err" && [ ! -s "$tmp/err" ] ||
    fail "convert -q of a 4-page TIFF printed: $(cat "$tmp/err")"
cp "$tmp/pages.tif" "$tmp/pages2.tif"
"$gpuimg" blur -o "$tmp/paged" "$tmp/pages.tif" "$tmp/pages2.tif" "$tmp/probe.tif" 2>"$tmp/err" &&
    [ "$(grep -c 'warning' "$tmp/err")" -eq 2 ] && grep -q "$warning" "$tmp/err" &&
    grep -q "pages2.tif: warning: the TIFF has 4 pages" "$tmp/err" ||
    fail "a batch of two 4-page TIFFs and a 1-page one: not a warning for each of the two: $(cat "$tmp/err")"
"$gpuimg" convert "$tmp/palette.tif" "$tmp/palette.png" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "palette.tif.*palette" "$tmp/err" &&
    [ ! -e "$tmp/palette.png" ] || fail "palette TIFF: exit $rc, $(cat "$tmp/err")"
"$gpuimg" convert "$tmp/palette-nomap.tif" "$tmp/palette-nomap.png" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "palette-nomap.tif: a palette (colour-mapped) TIFF is not supported" "$tmp/err" &&
    [ ! -e "$tmp/palette-nomap.png" ] || fail "palette TIFF without a colour map: exit $rc, $(cat "$tmp/err")"

# A strip whose byte count runs past the end of the file (500 of its 1961
# bytes there): the message says so (libtiff's read error), no output is
# left.
python3 - "$tiny" "$tmp/short.tif" <<'PY' || fail "could not write the cut TIFF"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import tinytiff
page = {'width': 53, 'height': 37, 'channels': 1, 'bits': 8,
        'samples': [(i * 7) % 256 for i in range(500)], 'tags': {279: (4, [53 * 37])}}
open(sys.argv[2], 'wb').write(tinytiff.encode([page]))
PY
"$gpuimg" convert "$tmp/short.tif" "$tmp/short.png" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "short.tif: cannot decode TIFF (strip 0: Read error on strip 0" "$tmp/err" &&
    [ ! -e "$tmp/short.png" ] || fail "a strip cut short: exit $rc, $(cat "$tmp/err")"

# tag FILE: the Orientation tag of a TIFF's first IFD, or none.
tag() {
    python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
e = '<' if d[:2] == b'II' else '>'
ifd = struct.unpack_from(e + 'I', d, 4)[0]
for i in range(struct.unpack_from(e + 'H', d, ifd)[0]):
    t, typ, n, v = struct.unpack_from(e + 'HHIH', d, ifd + 2 + 12 * i)
    if t == 274:
        print(v)
        sys.exit(0)
print('none')
PY
}

# The Orientation tag, 1 to 8, on the scene's pixels: --auto-orient and
# rotate turn them as a viewer shows the file; a TIFF written without
# --auto-orient keeps the pixels as stored and the tag (none for 1).
"$gpuimg" convert --tiff-compression none "$samples/scene.png" "$tmp/scene-plain.tif" ||
    fail "convert the scene to TIFF"
for o in 1 2 3 4 5 6 7 8; do
    python3 - "$tiny" "$tmp/scene-plain.tif" "$tmp/o$o.tif" "$o" <<'PY' || fail "could not write o$o.tif"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import tinytiff
w, h, ch, bits, samples, comp, predictor = tinytiff.read(open(sys.argv[2], 'rb').read())
page = {'width': w, 'height': h, 'channels': ch, 'bits': bits, 'samples': samples,
        'tags': {274: (3, [int(sys.argv[4])])}}
open(sys.argv[3], 'wb').write(tinytiff.encode([page], big_endian=int(sys.argv[4]) % 2 == 0))
PY
    "$gpuimg" convert --auto-orient "$tmp/o$o.tif" "$tmp/auto.png" &&
        python3 "$mt" shown "$tmp/auto.png" "$samples/scene.png" "$o" ||
        fail "--auto-orient of Orientation $o"
    "$gpuimg" rotate 180 "$tmp/o$o.tif" "$tmp/rot.png" &&
        python3 "$mt" shown "$tmp/rot.png" "$samples/scene.png" "$o" 3 ||
        fail "rotate 180 of Orientation $o"
    "$gpuimg" convert "$tmp/o$o.tif" "$tmp/kept.tif" && "$gpuimg" convert "$tmp/kept.tif" "$tmp/kept.png" &&
        python3 "$mt" shown "$tmp/kept.png" "$samples/scene.png" 1 || fail "Orientation $o: pixels not as stored"
    want=$o
    [ "$o" -eq 1 ] && want=none
    [ "$(tag "$tmp/kept.tif")" = "$want" ] || fail "Orientation $o: written as $(tag "$tmp/kept.tif")"
    # into a PNG and a JPEG as their Exif Orientation, the pixels as stored
    for ext in png jpg; do
        "$gpuimg" convert "$tmp/o$o.tif" "$tmp/kept.$ext" &&
            python3 "$mt" show "$tmp/kept.$ext" | grep -qx "orientation $want" ||
            fail "Orientation $o to .$ext: $(python3 "$mt" show "$tmp/kept.$ext" | grep '^orientation')"
    done
    python3 "$mt" shown "$tmp/kept.png" "$samples/scene.png" 1 || fail "Orientation $o to PNG: pixels not as stored"
    # and back into a TIFF's tag, nothing said to be left out
    "$gpuimg" convert -v --no-server "$tmp/kept.png" "$tmp/back.tif" 2>"$tmp/err" &&
        [ "$(tag "$tmp/back.tif")" = "$want" ] && ! grep -q "no place in TIFF" "$tmp/err" ||
        fail "Orientation $o: PNG to TIFF: tag $(tag "$tmp/back.tif"), $(cat "$tmp/err")"
done
# thumbnail turns first, as for the upright pixels
"$gpuimg" convert --auto-orient "$tmp/o6.tif" "$tmp/upright.png" &&
    "$gpuimg" thumbnail --size 20 "$tmp/o6.tif" "$tmp/th-tif.png" &&
    "$gpuimg" thumbnail --size 20 "$tmp/upright.png" "$tmp/th-png.png" &&
    "$imgcmp" "$tmp/th-png.png" "$tmp/th-tif.png" >/dev/null || fail "thumbnail of Orientation 6"
# a JPEG's Exif Orientation goes into the TIFF's tag
python3 "$mt" tag "$samples/scene.jpg" "$tmp/o6.jpg" orientation=6 &&
    "$gpuimg" convert "$tmp/o6.jpg" "$tmp/o6-jpg.tif" && [ "$(tag "$tmp/o6-jpg.tif")" = 6 ] ||
    fail "a JPEG of Exif Orientation 6 to TIFF: tag $(tag "$tmp/o6-jpg.tif")"
# out of 1..8: read as 1, -v says so
python3 - "$tiny" "$tmp/scene-plain.tif" "$tmp/o9.tif" <<'PY' || fail "could not write o9.tif"
import sys, os
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import tinytiff
w, h, ch, bits, samples, comp, predictor = tinytiff.read(open(sys.argv[2], 'rb').read())
page = {'width': w, 'height': h, 'channels': ch, 'bits': bits, 'samples': samples,
        'tags': {274: (3, [9])}}
open(sys.argv[3], 'wb').write(tinytiff.encode([page]))
PY
"$gpuimg" convert -v --no-server --auto-orient "$tmp/o9.tif" "$tmp/o9.png" 2>"$tmp/err" &&
    python3 "$mt" shown "$tmp/o9.png" "$samples/scene.png" 1 &&
    grep -q "TIFF Orientation 9 is not 1..8: read as 1" "$tmp/err" || fail "Orientation 9: $(cat "$tmp/err")"

[ "$failed" -eq 0 ] && echo "ok: TIFF through the command"
exit "$failed"
