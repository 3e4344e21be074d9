#!/usr/bin/env python3
"""make_corpus.py CASES SAMPLES OUTDIR [NAME...]

Writes the bad-input corpus of the robust suite: for each line of CASES
(all of them, or those NAMEd) the file OUTDIR/NAME, made by the line's
maker, and for inputs that must decode, the pixels a correct decoder gives
in OUTDIR/NAME.pam (computed here, not by stb). A case whose tool (cjpeg,
djpeg, ImageMagick's convert) is missing gets OUTDIR/NAME.skip instead,
saying why. A line reads
    NAME EXPECT MAKER ARGS... [| RUN-OPTIONS...]
and check_case.sh reads EXPECT and RUN-OPTIONS; only MAKER ARGS matter
here. Makers:
    empty | text WORDS... | bytes HEX | directory | missing | unreadable
    gif                          a real GIF (stb is built without GIF)
    tinyjpeg SCAN-HEX [KEY=N...] a 64x8 JPEG with these scan bytes (see tinyjpeg)
    png KEY=VALUE...             a PNG written here (see png_case)
    pnm KEY=VALUE...             a Netpbm image written here (see pnm_case)
    tiff KEY=VALUE...            a TIFF written here by tinytiff.py (see tiff_case)
    jpeg CJPEG-OPTIONS...        cjpeg of a test picture; pixels from djpeg
    cmyk                         convert -colorspace CMYK; pixels from convert
    truncate SRC AT              the first AT bytes of SRC
    flip SRC AT MASK [crc]       SRC with the byte at AT xor MASK (hex)
    poke SRC AT HEX [crc]        SRC with bytes overwritten from AT
                                 (crc: the CRC of the PNG chunk that holds AT
                                 made right, so that the damage reaches the
                                 decoders)
    strip SRC MARKER             the JPEG SRC without its MARKER segments (DHT, ...)
    meta SRC KIND                SRC with hostile metadata KIND after IHDR or SOI
                                 (see hostile_metadata); pixels: SRC's
SRC is an earlier case or a file of SAMPLES. AT is a byte offset (negative:
from the end), 'half', or PART+N (or PART-N): N bytes into the data of the
first PNG chunk of that type (IHDR, PLTE, IDAT, IEND, tEXt...; IDAT-8 is its
length field) or after the first JPEG marker of that kind (SOF0, SOF2, DHT, DQT,
SOS, DRI, EOI), counting from the marker's length field."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinypng  # noqa: E402
import tinytiff  # noqa: E402

JPEG_MARKERS = {'SOF0': 0xc0, 'SOF2': 0xc2, 'DHT': 0xc4, 'DQT': 0xdb, 'SOS': 0xda,
                'DRI': 0xdd, 'EOI': 0xd9, 'APP0': 0xe0}
PNG_TYPES = {'gray': 0, 'rgb': 2, 'palette': 3, 'ga': 4, 'rgba': 6}


class Skip(Exception):
    """A tool the case needs is missing."""


def read_cases(path):
    for line in open(path):
        words = line.split()
        if words and not words[0].startswith('#'):
            maker = words[2:words.index('|')] if '|' in words else words[2:]
            yield words[0], maker


# ---------------------------------------------------------------- pictures

def sample(x, y, c, maxval):
    return ((x * 29 + y * 47 + c * 71) ^ (x * y)) % (maxval + 1)


def smooth_rgb(width, height):
    """A photo-like picture for JPEG: gradients and one hard edge."""
    return [[(x * 6 + (60 if x > width // 2 else 0)) % 256 if c == 0 else
             (y * 9) % 256 if c == 1 else (x * 3 + y * 4) % 256
             for x in range(width) for c in range(3)] for y in range(height)]


def png_case(args):
    """png size=WxH type=gray|rgb|ga|rgba|palette depth=N [interlace=1]
    [trns=1] [filters=DIGITS] [parts=N] [extra=1] [claim=WxH]
    [ihdr=HEX (13 raw IHDR bytes)] [palette=N (only N entries, so that
    indices name entries past the palette: opaque black)]: the file, and
    the pixels stb must give unless the header lies (claim, ihdr)."""
    o = dict(a.split('=', 1) for a in args)
    width, height = map(int, o.get('size', '13x7').split('x'))
    colour, depth = PNG_TYPES[o.get('type', 'rgb')], int(o.get('depth', '8'))
    channels = tinypng.CHANNELS[colour]
    maxval = (1 << depth) - 1 if colour != 3 else min((1 << depth) - 1, 199)
    rows = [[sample(x, y, c, maxval) for x in range(width) for c in range(channels)]
             for y in range(height)]
    if depth == 16:  # a high byte that matters and a low byte below 128
        rows = [[(v >> 8) << 8 | (i * 7 + y * 13) % 128 for i, v in enumerate(r)]
                for y, r in enumerate(rows)]
    palette = trns = None
    if colour == 3:
        entries = int(o.get('palette', maxval + 1))
        palette = [(i * 53 % 256, i * 101 % 256, i * 197 % 256) for i in range(entries)]
    if o.get('trns'):
        if colour == 3:
            trns = bytes(i * 37 % 256 for i in range((len(palette) + 1) // 2))
        else:  # a colour key, put at (1, 1) so some pixel is transparent
            key = [0x40 * maxval // 255 or 1] * channels
            rows[1][channels:2 * channels] = key
            trns = b''.join(struct.pack('>H', k) for k in key)
    extra = [(b'tEXt', b'Comment\0robust'), (b'prVt', b'\0' * 9)] if o.get('extra') else []
    claim = tuple(map(int, o['claim'].split('x'))) if 'claim' in o else None
    data = tinypng.encode(rows, width, height, colour, depth, palette, trns,
                          int(o.get('interlace', '0')), [int(f) for f in o.get('filters', '01234')],
                          claim, int(o.get('parts', '1')), extra,
                          bytes.fromhex(o['ihdr']) if 'ihdr' in o else None)
    if claim or 'ihdr' in o:
        return data, None
    return data, expected_png(rows, width, height, colour, depth, palette, trns)


def pnm_case(args):
    """pnm kind=1..7 size=WxH maxval=M depth=D (P7) tupltype=T|- (P7; -
    leaves it out) comments=N (comment lines in the header) cut=N (the
    last N bytes dropped) endhdr=0 (P7 without ENDHDR), and W= H= M= D=:
    header text that lies about the width, height, maxval or depth (the
    samples follow the true ones). The pixels a correct reader gives:
    samples scaled as (v * 255 + M // 2) // M, bitmaps 1 -> 0, 0 -> 255."""
    o = dict(a.split('=', 1) for a in args)
    kind = int(o.get('kind', '6'))
    width, height = map(int, o.get('size', '13x7').split('x'))
    maxval = 1 if kind in (1, 4) else int(o.get('maxval', '255'))
    depth = int(o.get('depth', '3')) if kind == 7 else 3 if kind in (3, 6) else 1
    rows = [[sample(x, y, c, maxval) for x in range(width) for c in range(depth)]
            for y in range(height)]
    note = b''.join(b'# comment %d\n' % i for i in range(int(o.get('comments', '0'))))
    w, h = o.get('W', str(width)).encode(), o.get('H', str(height)).encode()
    m, d = o.get('M', str(maxval)).encode(), o.get('D', str(depth)).encode()
    if kind == 7:
        tupl = o.get('tupltype', {1: 'GRAYSCALE', 2: 'GRAYSCALE_ALPHA', 3: 'RGB',
                                  4: 'RGB_ALPHA'}.get(depth, 'RGB'))
        header = (b'P7\n' + note + b'WIDTH ' + w + b'\nHEIGHT ' + h + b'\nDEPTH ' + d +
                  b'\nMAXVAL ' + m + b'\n' +
                  (b'TUPLTYPE ' + tupl.encode() + b'\n' if tupl != '-' else b'') +
                  (b'ENDHDR\n' if o.get('endhdr', '1') == '1' else b''))
    else:
        header = (b'P%d\n' % kind + note + w + b' ' + h + b'\n' +
                  (note + m + b'\n' if kind not in (1, 4) else b''))
    if kind in (1, 2, 3):
        data = b''.join(b' '.join(b'%d' % v for v in r) + b'\n' for r in rows)
    elif kind == 4:
        data = b''.join(bytes(sum(r[x] << (7 - x % 8) for x in range(b * 8, min(width, b * 8 + 8)))
                              for b in range((width + 7) // 8)) for r in rows)
    else:
        data = b''.join(struct.pack('>%d%s' % (len(r), 'H' if maxval > 255 else 'B'), *r)
                        for r in rows)
    cut = int(o.get('cut', '0'))
    data = (header + data)[:len(header) + len(data) - cut]
    if cut or any(k in o for k in ('W', 'H', 'M', 'D', 'endhdr')):
        return data, None
    # maxval past 255 reads as 16 bits: (v * 65535 + maxval / 2) / maxval
    top = 65535 if maxval > 255 else 255
    pixels = [(1 - v) * 255 if kind in (1, 4) else (v * top + maxval // 2) // maxval
              for r in rows for v in r]
    return data, (width, height, depth, pixels, top)


def tiff_case(args):
    """tiff size=WxH ch=1..4 bits=8|16 comp=1|8|32773 rows=N (a strip)
    be=1 (big-endian) pages=N photometric=N extra=N (ExtraSamples), and
    tag=TAG:TYPE:V,V,... (3 SHORT, 4 LONG) to add or replace an entry, or
    tag=TAG:- to leave it out. The pixels a correct reader gives, for
    8-bit files whose tags tell the truth (gray or RGB, no tag=)."""
    o, tags = {}, {}
    for a in args:
        key, value = a.split('=', 1)
        if key != 'tag':
            o[key] = value
            continue
        parts = value.split(':')
        tags[int(parts[0])] = (None, None) if parts[1] == '-' else (
            int(parts[1]), [int(v, 0) for v in parts[2].split(',')])
    if o.get('photometric') == '3':  # a palette has its colour map
        tags.setdefault(320, (3, [i * 257 for i in range(256)] * 3))
    width, height = map(int, o.get('size', '13x7').split('x'))
    ch, bits = int(o.get('ch', '3')), int(o.get('bits', '8'))
    maxval = (1 << bits) - 1
    pages = []
    for page in range(int(o.get('pages', '1'))):
        samples = [(sample(x, y, c, maxval) + page) & maxval
                   for y in range(height) for x in range(width) for c in range(ch)]
        p = {'width': width, 'height': height, 'channels': ch, 'bits': bits, 'samples': samples,
             'compression': int(o.get('comp', '1')), 'rows_per_strip': int(o.get('rows', height)),
             'tags': tags}
        for key in ('photometric', 'extra'):
            if key in o:
                p[key] = int(o[key])
        pages.append(p)
    data = tinytiff.encode(pages, o.get('be') == '1')
    if tags or bits != 8 or 'photometric' in o or 'extra' in o:
        return data, None
    return data, (width, height, ch, bytes(pages[0]['samples']))


def expected_png(rows, width, height, colour, depth, palette, trns):
    """The pixels of the PNG spec: palettes looked up, low depths scaled to
    0..255, 16 bits kept (alpha from tRNS 0 or 65535), tRNS as alpha."""
    out = []
    channels = tinypng.CHANNELS[colour]
    for r in rows:
        for x in range(width):
            px = r[x * channels:(x + 1) * channels]
            if colour == 3:
                i = px[0]
                rgb = list(palette[i]) if i < len(palette) else [0, 0, 0]
                out += rgb + ([trns[i] if i < len(trns) else 255] if trns else [])
                continue
            key = trns and list(struct.unpack('>%dH' % channels, trns))
            opaque = 65535 if depth == 16 else 255
            alpha = [0 if px == key else opaque] if trns else []
            scale = {1: 255, 2: 85, 4: 17}.get(depth, 1)
            out += [v * scale for v in px] + alpha
    out_channels = 3 + bool(trns) if colour == 3 else channels + bool(trns)
    return width, height, out_channels, out, 65535 if depth == 16 else 255


def gif():
    """A 1x1 GIF89a."""
    return (b'GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff'
            b',\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;')


def jpeg_segment(marker, body):
    return bytes((0xff, marker)) + struct.pack('>H', len(body) + 2) + body


def tinyjpeg(args):
    """tinyjpeg SCAN-HEX [dri=N] [dht=N]: a 64x8 grayscale baseline JPEG
    whose Huffman tables give every bit a meaning (two 1-bit codes, both DC
    difference 0, both end of block), so each of its 8 blocks takes 2 bits
    of SCAN-HEX, the entropy-coded data as written (stuffed zeros, fill bytes,
    restart markers), and decodes to mid-grey. dri=N: a restart every N
    blocks; dht=N: a table of N symbols after the scan (over 256 is invalid,
    and then no pixels are expected); dqt=empty: the DQT segment holds no
    table (no pixels expected); size=WxH: the frame says this size, the scan
    data staying what it is (no pixels expected)."""
    scan, o = bytes.fromhex(args[0]), dict(a.split('=', 1) for a in args[1:])
    one_bit = bytes([2] + [0] * 15 + [0, 0])
    quant = b'' if o.get('dqt') == 'empty' else bytes(1) + bytes([1] * 64)
    frame = tuple(map(int, o.get('size', '64x8').split('x')))
    data = (b'\xff\xd8' + jpeg_segment(0xdb, quant)
            + jpeg_segment(0xc0, struct.pack('>BHHB', 8, *frame[::-1], 1) + bytes.fromhex('01 11 00'))
            + jpeg_segment(0xc4, b'\x00' + one_bit) + jpeg_segment(0xc4, b'\x10' + one_bit))
    if 'dri' in o:
        data += jpeg_segment(0xdd, struct.pack('>H', int(o['dri'])))
    data += jpeg_segment(0xda, bytes.fromhex('01 01 00 00 3f 00')) + scan
    symbols = int(o.get('dht', '0'))
    if symbols:  # 16-bit codes, and 15-bit ones for what does not fit in a byte's count
        counts = [0] * 14 + [symbols - min(symbols, 255), min(symbols, 255)]
        data += jpeg_segment(0xc4, b'\x10' + bytes(counts) + bytes(symbols))
    data += b'\xff\xd9'
    whole = symbols <= 256 and quant and frame == (64, 8)
    return data, (64, 8, 1, bytes([128] * 512)) if whole else None


# ---------------------------------------------------------------- tools

def tool(name):
    path = shutil.which(name)
    if not path:
        raise Skip('%s not installed' % name)
    return path


def convert():
    """ImageMagick's convert; a stand-in without 'Version: ImageMagick' is not it."""
    path = tool('convert')
    probe = subprocess.run([path, '-version'], capture_output=True, text=True)
    if probe.returncode != 0 or 'Version: ImageMagick' not in probe.stdout:
        raise Skip('ImageMagick convert not installed (package imagemagick)')
    return path


def with_picture(run):
    """Runs run(ppm_path, tmpdir) on a 37x23 picture (odd: partial MCUs)."""
    width, height = 37, 23
    rows = smooth_rgb(width, height)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'src.ppm')
        with open(src, 'wb') as f:
            f.write(b'P6\n%d %d\n255\n' % (width, height) + bytes(v for r in rows for v in r))
        return run(src, tmp)


def jpeg_case(options):
    cjpeg = tool('cjpeg')
    djpeg = tool('djpeg')

    def run(src, tmp):
        data = subprocess.run([cjpeg] + options + [src], check=True, capture_output=True).stdout
        jpg = os.path.join(tmp, 'x.jpg')
        open(jpg, 'wb').write(data)
        pnm = os.path.join(tmp, 'x.pnm')
        decoded = subprocess.run([djpeg, '-pnm', '-outfile', pnm, jpg], capture_output=True)
        return data, tinypng.read_pnm(pnm) if decoded.returncode == 0 else None
    return with_picture(run)


def cmyk_case():
    im = convert()

    def run(src, tmp):
        jpg, ppm = os.path.join(tmp, 'x.jpg'), os.path.join(tmp, 'x.ppm')
        subprocess.run([im, src, '-colorspace', 'CMYK', '-quality', '95', jpg], check=True)
        subprocess.run([im, jpg, '-colorspace', 'sRGB', ppm], check=True)
        return open(jpg, 'rb').read(), tinypng.read_pnm(ppm)
    return with_picture(run)


# ---------------------------------------------------------------- edits

def offset(data, at):
    """A byte offset from a number, 'half' or PART+N (see the module doc)."""
    if at == 'half':
        return len(data) // 2
    if at.lstrip('-').isdigit():
        n = int(at)
        return n if n >= 0 else len(data) + n
    part, n = re.fullmatch(r'([A-Za-z0-9]+)([+-][0-9]+)', at).groups()
    n = int(n)
    if data.startswith(tinypng.SIGNATURE):
        pos = data.index(part.encode()) + 4
        return pos + n
    pos = data.index(bytes((0xff, JPEG_MARKERS[part])))
    return pos + 2 + n


def strip_segments(data, marker):
    """The JPEG without the segments of one kind that come before the scan."""
    out, at = bytearray(data[:2]), 2
    while at + 4 <= len(data) and data[at + 1] != 0xda:
        end = at + 2 + (data[at + 2] << 8 | data[at + 3])
        if data[at + 1] != JPEG_MARKERS[marker]:
            out += data[at:end]
        at = end
    return bytes(out + data[at:])


def edit(kind, data, args):
    if kind == 'strip':
        return strip_segments(data, args[0])
    if kind == 'truncate':
        return data[:offset(data, args[0])]
    at = offset(data, args[0])
    if kind == 'flip':
        edited = data[:at] + bytes((data[at] ^ int(args[1], 16),)) + data[at + 1:]
    else:  # poke
        patch = bytes.fromhex(args[1])
        edited = data[:at] + patch + data[at + len(patch):]
    return crc_made_right(edited, at) if args[2:] == ['crc'] else edited


def crc_made_right(data, at):
    """The PNG with the CRC of the chunk that holds byte `at` recomputed."""
    pos = 8
    while pos + 12 <= len(data):
        length = struct.unpack('>I', data[pos:pos + 4])[0]
        end = pos + 8 + length
        if pos <= at < end + 4:
            crc = struct.pack('>I', zlib.crc32(data[pos + 4:end]))
            return data[:end] + crc + data[end + 4:]
        pos = end + 4
    raise ValueError('byte %d is in no chunk' % at)


# ---------------------------------------------------------------- metadata

def tiff(entries, next_ifd=0, tail=b'', ifd0=8):
    """Little-endian TIFF bytes: IFD0 at ifd0 with (tag, type, count,
    value) entries, the next-IFD offset, then `tail`."""
    ifd = struct.pack('<H', len(entries)) + b''.join(struct.pack('<HHII', *e) for e in entries)
    return b'II*\0' + struct.pack('<I', ifd0) + ifd + struct.pack('<I', next_ifd) + tail


def ifd_chain(count):
    """count empty IFDs, each pointing at the next."""
    return b'II*\0' + struct.pack('<I', 8) + b''.join(
        struct.pack('<HI', 0, 8 + 6 * (i + 1) if i + 1 < count else 0) for i in range(count))


def hostile_metadata(kind):
    """(PNG chunk type or JPEG marker, body): metadata gpuimg must drop
    (or bound) while still processing the image."""
    exif = {
        'exif-truncated': b'II*\0\x08\0\0\0\x05\0\x12\x01\x03\0',
        'exif-ifd-loop': tiff([], next_ifd=8),
        'exif-subifd-loop': tiff([(0x8769, 4, 1, 8)]),
        'exif-ifd-past-end': tiff([], ifd0=0xfffffff0),
        'exif-value-past-end': tiff([(0x010f, 2, 1000, 0xfffffff0)]),
        'exif-count-overflow': tiff([(0x010f, 12, 0xffffffff, 8)]),
        'exif-orientation-9': tiff([(0x0112, 3, 1, 9)]),
        'exif-40-ifds': ifd_chain(40),
    }
    if kind in exif:
        return 'exif', exif[kind]
    if kind == 'iccp-100mb':  # a 100 MB profile claimed in 100 KB of zlib
        return b'iCCP', b'bomb\0\0' + zlib.compress(struct.pack('>I', 100 << 20) +
                                                     bytes((100 << 20) - 4), 9)
    if kind == 'iccp-bad-zlib':
        return b'iCCP', b'bad\0\0\x78\x9c\xff\xff\xff\xff'
    if kind == 'iccp-no-name':
        return b'iCCP', b'x' * 100
    if kind == 'itxt-xmp-cut':
        return b'iTXt', b'XML:com.adobe.xmp\0\0\0en'
    if kind == 'ztxt-xmp-100mb':
        return b'zTXt', b'XML:com.adobe.xmp\0\0' + zlib.compress(bytes(100 << 20), 9)
    if kind == 'icc-app2-misnumbered':
        return 0xe2, b'ICC_PROFILE\0\x03\x02' + bytes(100)
    if kind == 'icc-app2-zero-count':
        return 0xe2, b'ICC_PROFILE\0\x01\x00' + bytes(100)
    if kind == 'icc-app2-short':
        return 0xe2, b'ICC_PROFILE\0'
    if kind == 'xmp-extended':
        return 0xe1, b'http://ns.adobe.com/xmp/extension/\0' + bytes(40)
    raise ValueError('unknown metadata kind %s' % kind)


def with_metadata(data, kind):
    where, body = hostile_metadata(kind)
    if data.startswith(tinypng.SIGNATURE):
        assert where in ('exif', b'iCCP', b'iTXt', b'zTXt'), kind
        return data[:33] + tinypng.chunk(b'eXIf' if where == 'exif' else where, body) + data[33:]
    assert where == 'exif' or isinstance(where, int), kind
    if where == 'exif':
        where, body = 0xe1, b'Exif\0\0' + body
    return data[:2] + jpeg_segment(where, body) + data[2:]


# ---------------------------------------------------------------- cases

def make(maker, args, samples, outdir, cases):
    """(bytes, expected pixels or None) of a file made by `maker`."""
    if maker == 'empty':
        return b'', None
    if maker == 'text':
        return ' '.join(args).encode() + b'\n', None
    if maker == 'bytes':
        return bytes.fromhex(''.join(args)), None
    if maker == 'gif':
        return gif(), None
    if maker == 'tinyjpeg':
        return tinyjpeg(args)
    if maker == 'png':
        return png_case(args)
    if maker == 'pnm':
        return pnm_case(args)
    if maker == 'tiff':
        return tiff_case(args)
    if maker == 'jpeg':
        return jpeg_case(args)
    if maker == 'cmyk':
        return cmyk_case()
    if maker in ('truncate', 'flip', 'poke', 'strip', 'meta'):
        src = os.path.join(outdir, args[0])
        if args[0] in cases:
            write_case(args[0], samples, outdir, cases)
            if os.path.exists(src + '.skip'):
                raise Skip(open(src + '.skip').read().strip())
        else:
            src = os.path.join(samples, args[0])
        if maker == 'meta':
            pam = src + '.pam'
            return (with_metadata(open(src, 'rb').read(), args[1]),
                    tinypng.read_pnm(pam) if os.path.exists(pam) else None)
        return edit(maker, open(src, 'rb').read(), args[1:]), None
    raise ValueError('unknown maker %s' % maker)


def write_case(name, samples, outdir, cases):
    """Writes the case NAME (of the dict `cases`: name -> maker words)."""
    path, maker = os.path.join(outdir, name), cases[name]
    if os.path.lexists(path) or os.path.exists(path + '.skip') or maker[0] == 'missing':
        return
    if maker[0] == 'directory':
        os.makedirs(path)
        return
    if maker[0] == 'unreadable':
        open(path, 'wb').write(tinypng.SIGNATURE)
        os.chmod(path, 0)
        return
    try:
        data, pixels = make(maker[0], maker[1:], samples, outdir, cases)
    except Skip as why:
        open(path + '.skip', 'w').write('%s\n' % why)
        return
    open(path, 'wb').write(data)
    if pixels:
        tinypng.write_pam(path + '.pam', *pixels)


def main(cases_file, samples, outdir, *names):
    cases = dict(read_cases(cases_file))
    unknown = [n for n in names if n not in cases]
    if unknown:
        sys.exit('no such case: %s' % ' '.join(unknown))
    os.makedirs(outdir, exist_ok=True)
    for name in names or cases:
        write_case(name, samples, outdir, cases)
    print('%d cases in %s' % (len(names or cases), outdir))


if __name__ == '__main__':
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
