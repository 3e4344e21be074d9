#!/usr/bin/env python3
"""metadata_tool.py: photo metadata for the cli suite, with the standard
library only, independent of gpuimg's parser.

  metadata_tool.py tag SRC OUT [orientation=N] [order=II|MM] [icc=BYTES] [xmp=1]
                       [exif=HEX (raw TIFF bytes)] [colour=1 (PNG sRGB, gAMA, cHRM)]
      OUT is SRC (PNG or JPEG, as gpuimg or stb wrote it: no metadata of
      its own) with an Exif Orientation, an ICC profile of BYTES bytes
      (over 65519: several APP2 segments in a JPEG) and an XMP packet,
      each only when asked, in SRC's container (eXIf/iCCP/iTXt or
      APP1/APP2).
  metadata_tool.py show FILE
      One line per kind: 'size WxH', 'orientation N|none', 'exif N bytes|none',
      'icc SHA256|none', 'xmp SHA256|none', 'xmp-orientation N|none',
      'colour sRGB gAMA cHRM names|none'.
  metadata_tool.py shown OUT.png SRC.png O1 [O2...]
      Exit 0 when OUT's pixels are SRC's as a viewer shows orientation O1,
      then that shown as O2, ... (gpuimg wrote OUT; 8-bit, not interlaced).
"""
import hashlib
import os
import re
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'robust'))
import tinypng  # noqa: E402

XMP_JPEG = b'http://ns.adobe.com/xap/1.0/\0'
ICC_JPEG = b'ICC_PROFILE\0'


def exif_bytes(orientation, order):
    """A TIFF header and IFD0 with Orientation (SHORT), then an empty IFD1."""
    e = '<' if order == 'II' else '>'
    ifd0 = struct.pack(e + 'H', 1) + struct.pack(e + 'HHIHH', 0x0112, 3, 1, orientation, 0)
    ifd0 += struct.pack(e + 'I', 8 + len(ifd0) + 4)
    return (order.encode() + struct.pack(e + 'HI', 42, 8) + ifd0 + struct.pack(e + 'HI', 0, 0))


def icc_bytes(size):
    """A stand-in profile: its size first, as in an ICC header, then a pattern."""
    body = bytes((i * 131 + (i >> 8) * 7) & 0xff for i in range(size - 4))
    return struct.pack('>I', size) + body


def xmp_bytes(orientation):
    return ('<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
            'xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="%d" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/" dc:creator="gpuimg tests"/>'
            '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>' % orientation).encode()


def segment(marker, body):
    return bytes((0xff, marker)) + struct.pack('>H', len(body) + 2) + body


def tag(src, out, *args):
    o = dict(a.split('=', 1) for a in args)
    data = open(src, 'rb').read()
    orientation = int(o.get('orientation', '1'))
    exif = bytes.fromhex(o['exif']) if 'exif' in o else \
        exif_bytes(orientation, o.get('order', 'II')) if 'orientation' in o else None
    icc = icc_bytes(int(o['icc'])) if 'icc' in o else None
    xmp = xmp_bytes(orientation) if o.get('xmp') else None
    if data.startswith(tinypng.SIGNATURE):
        extra = b''
        if icc:
            extra += tinypng.chunk(b'iCCP', b'test profile\0\0' + zlib.compress(icc))
        if exif:
            extra += tinypng.chunk(b'eXIf', exif)
        if xmp:
            extra += tinypng.chunk(b'iTXt', b'XML:com.adobe.xmp\0\0\0\0\0' + xmp)
        if o.get('colour'):
            extra += (tinypng.chunk(b'sRGB', b'\0') + tinypng.chunk(b'gAMA', struct.pack('>I', 45455))
                      + tinypng.chunk(b'cHRM', struct.pack('>8I', 31270, 32900, 64000, 33000,
                                                           30000, 60000, 15000, 6000)))
        data = data[:33] + extra + data[33:]
    else:
        extra = segment(0xe1, b'Exif\0\0' + exif) if exif else b''
        if xmp:
            extra += segment(0xe1, XMP_JPEG + xmp)
        parts = [icc[i:i + 65519] for i in range(0, len(icc), 65519)] if icc else []
        for n, part in enumerate(parts):
            extra += segment(0xe2, ICC_JPEG + bytes((n + 1, len(parts))) + part)
        data = data[:2] + extra + data[2:]
    open(out, 'wb').write(data)


def png_parts(data):
    found, at = {'size': '%dx%d' % struct.unpack('>II', data[16:24])}, 8
    while at + 12 <= len(data):
        n, = struct.unpack('>I', data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + n]
        if kind == b'iCCP':
            found.setdefault('icc', zlib.decompress(body[body.index(b'\0') + 2:]))
        elif kind == b'eXIf':
            found.setdefault('exif', body)
        elif kind == b'iTXt' and body.startswith(b'XML:com.adobe.xmp\0'):
            rest = body[18:]
            text = rest[2:].split(b'\0', 2)[2]
            found.setdefault('xmp', zlib.decompress(text) if rest[0] else text)
        elif kind in (b'sRGB', b'gAMA', b'cHRM'):
            found.setdefault('colour', []).append(kind.decode())
        at += 12 + n
    return found


def jpeg_parts(data):
    found, icc, at = {}, {}, 2
    while at + 4 <= len(data) and data[at] == 0xff and data[at + 1] not in (0xda, 0xd9):
        n, = struct.unpack('>H', data[at + 2:at + 4])
        marker, body = data[at + 1], data[at + 4:at + 2 + n]
        if marker == 0xe1 and body.startswith(b'Exif\0'):
            found.setdefault('exif', body[6:])
        elif marker == 0xe1 and body.startswith(XMP_JPEG):
            found.setdefault('xmp', body[len(XMP_JPEG):])
        elif marker == 0xe2 and body.startswith(ICC_JPEG):
            icc[body[12]] = body[14:]
        elif marker in (0xc0, 0xc1, 0xc2):
            height, width = struct.unpack('>HH', body[1:5])
            found['size'] = '%dx%d' % (width, height)
        at += 2 + n
    if icc:
        found['icc'] = b''.join(icc[k] for k in sorted(icc))
    return found


def exif_orientation(exif):
    e = '<' if exif[:2] == b'II' else '>'
    ifd, = struct.unpack(e + 'I', exif[4:8])
    count, = struct.unpack(e + 'H', exif[ifd:ifd + 2])
    for i in range(count):
        t, kind, _, value = struct.unpack(e + 'HHIH', exif[ifd + 2 + 12 * i:ifd + 12 + 12 * i])
        if t == 0x0112 and kind == 3:
            return value
    return None


def show(path):
    data = open(path, 'rb').read()
    found = png_parts(data) if data.startswith(tinypng.SIGNATURE) else jpeg_parts(data)
    exif, xmp = found.get('exif'), found.get('xmp')
    digest = lambda b: hashlib.sha256(b).hexdigest() if b is not None else 'none'  # noqa: E731
    xo = re.search(rb'tiff:Orientation(?:="|>)(\d)', xmp) if xmp else None
    lines = ['size %s' % found.get('size'),
             'orientation %s' % ((exif and exif_orientation(exif)) or 'none'),
             'exif %s' % ('%d bytes' % len(exif) if exif else 'none'),
             'icc %s' % digest(found.get('icc')),
             'xmp %s' % digest(xmp),
             'xmp-orientation %s' % (xo.group(1).decode() if xo else 'none'),
             'colour %s' % (' '.join(found['colour']) if 'colour' in found else 'none')]
    sys.stdout.write(''.join(line + '\n' for line in lines))  # one write: a reader may stop early


def oriented(w, h, c, px, o):
    """What a viewer shows of stored pixels for orientation o (TIFF: where
    stored row 0 and column 0 appear)."""
    sw, sh = (h, w) if o >= 5 else (w, h)
    out = bytearray(len(px))
    for y in range(sh):
        for x in range(sw):
            col, row = {1: (x, y), 2: (w - 1 - x, y), 3: (w - 1 - x, h - 1 - y),
                        4: (x, h - 1 - y), 5: (y, x), 6: (y, h - 1 - x),
                        7: (w - 1 - y, h - 1 - x), 8: (w - 1 - y, x)}[o]
            out[(y * sw + x) * c:(y * sw + x + 1) * c] = px[(row * w + col) * c:(row * w + col + 1) * c]
    return sw, sh, bytes(out)


def shown(out, src, *orientations):
    w, h, c, px = tinypng.decode(open(src, 'rb').read())
    for o in orientations:
        w, h, px = oriented(w, h, c, px, int(o))
    gw, gh, gc, got = tinypng.decode(open(out, 'rb').read())
    if (gw, gh, gc) != (w, h, c) or got != px:
        sys.exit('%s: not %s shown as %s' % (out, src, ' then '.join(orientations)))


if __name__ == '__main__':
    modes = {'tag': tag, 'show': show, 'shown': shown}
    if len(sys.argv) < 3 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    modes[sys.argv[1]](*sys.argv[2:])
