"""tinypng: PNG writing and reading with the standard library only, for
the robust suite. The writer makes every PNG variant (bit depths 1..16,
palettes, tRNS, Adam7 interlacing, any row filter, split IDATs, extra
chunks, a header that claims another size); the reader decodes what
gpuimg writes (8-bit, not interlaced) independently of stb. Samples are
ints, interleaved, rows top to bottom: rows[y][x * channels + c]."""
import struct
import zlib

SIGNATURE = b'\x89PNG\r\n\x1a\n'
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type -> samples per pixel
# Adam7 passes: x start, y start, x step, y step.
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]


def chunk(kind, data):
    body = kind + data
    return struct.pack('>I', len(data)) + body + struct.pack('>I', zlib.crc32(body))


def pack_row(samples, depth):
    """Packs one row of samples: big-endian 16-bit, bytes, or MSB-first bits."""
    if depth == 16:
        return b''.join(struct.pack('>H', s) for s in samples)
    if depth == 8:
        return bytes(samples)
    out, acc, bits = bytearray(), 0, 0
    for s in samples:
        acc, bits = acc << depth | s, bits + depth
        if bits == 8:
            out.append(acc)
            acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def filter_row(kind, row, prev, bpp):
    out = bytearray([kind])
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind] if kind <= 4 else 0
        out.append((x - pred) & 0xff)
    return bytes(out)


def unfilter_row(kind, line, prev, bpp):
    out = bytearray(len(line))
    for i, x in enumerate(line):
        a = out[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out[i] = (x + pred) & 0xff
    return bytes(out)


def raw_data(rows, width, height, channels, depth, interlace, filters):
    """The filtered scanlines, pass after pass when interlaced. `filters`
    gives the filter type of row i as filters[i % len(filters)]; a type
    over 4 (invalid) is written with the row unfiltered."""
    bpp = max(1, channels * depth // 8)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    out, n = bytearray(), 0
    for x0, y0, dx, dy in passes:
        prev = None
        for y in range(y0, height, dy):
            xs = range(x0, width, dx)
            if not xs:
                break
            samples = [rows[y][x * channels + c] for x in xs for c in range(channels)]
            row = pack_row(samples, depth)
            out += filter_row(filters[n % len(filters)], row, prev, bpp)
            prev, n = row, n + 1
    return bytes(out)


def encode(rows, width, height, colour, depth, palette=None, trns=None, interlace=0,
           filters=(0, 1, 2, 3, 4), claim=None, idat_parts=1, extra=(), ihdr=None):
    """A PNG file. claim=(w, h) writes those dimensions into IHDR instead;
    ihdr overrides the raw 13 IHDR bytes; extra chunks go before IDAT."""
    w, h = claim or (width, height)
    header = ihdr or struct.pack('>IIBBBBB', w, h, depth, colour, 0, 0, interlace)
    out = SIGNATURE + chunk(b'IHDR', header)
    if palette:
        out += chunk(b'PLTE', bytes(v for rgb in palette for v in rgb))
    if trns is not None:
        out += chunk(b'tRNS', trns)
    for kind, data in extra:
        out += chunk(kind, data)
    z = zlib.compress(raw_data(rows, width, height, CHANNELS[colour], depth, interlace, filters))
    step = -(-len(z) // idat_parts)
    for i in range(idat_parts):
        out += chunk(b'IDAT', z[i * step:(i + 1) * step])
    return out + chunk(b'IEND', b'')


def chunks(data):
    """(type, data) of each chunk after the signature."""
    at = len(SIGNATURE)
    while at + 8 <= len(data):
        size, kind = struct.unpack('>I4s', data[at:at + 8])
        yield kind, data[at + 8:at + 8 + size]
        at += 12 + size


def decode(data):
    """(width, height, channels, samples) of an 8- or 16-bit non-interlaced
    PNG: bytes at 8 bits, a list of ints at 16."""
    if data[:8] != SIGNATURE:
        raise ValueError('not a PNG')
    parts = dict(ihdr=None, idat=b'')
    for kind, body in chunks(data):
        if kind == b'IHDR':
            parts['ihdr'] = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            parts['idat'] += body
    width, height, depth, colour, _, _, interlace = parts['ihdr']
    if depth not in (8, 16) or interlace or colour not in (0, 2, 4, 6):
        raise ValueError('only 8- and 16-bit non-interlaced gray/RGB(A) PNGs are read here')
    channels, size = CHANNELS[colour], depth // 8
    raw, stride = zlib.decompress(parts['idat']), width * channels * size
    pixels, prev = bytearray(), None
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        prev = unfilter_row(line[0], line[1:], prev, channels * size)
        pixels += prev
    if depth == 16:
        return width, height, channels, list(struct.unpack('>%dH' % (len(pixels) // 2), pixels))
    return width, height, channels, bytes(pixels)


def write_pam(path, width, height, channels, pixels, maxval=255):
    """pixels: samples of 0..maxval (255, or 65535: big-endian pairs)."""
    tupl = {1: 'GRAYSCALE', 2: 'GRAYSCALE_ALPHA', 3: 'RGB', 4: 'RGB_ALPHA'}[channels]
    body = struct.pack('>%dH' % len(pixels), *pixels) if maxval > 255 else bytes(pixels)
    with open(path, 'wb') as f:
        f.write(b'P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n'
                % (width, height, channels, maxval, tupl.encode()) + body)


def read_pnm(path):
    """(width, height, channels, samples) of a P5, P6 or P7 file: bytes up to
    maxval 255, a list of ints past it."""
    data = open(path, 'rb').read()
    if data[:2] == b'P7':
        end = data.index(b'ENDHDR\n') + 7
        fields = dict(line.split(None, 1) for line in data[3:end - 7].decode().splitlines()
                      if line and not line.startswith('#'))
        body = data[end:]
        if int(fields['MAXVAL']) > 255:
            body = list(struct.unpack('>%dH' % (len(body) // 2), body))
        return (int(fields['WIDTH']), int(fields['HEIGHT']), int(fields['DEPTH']), body)
    words, at = [], 2
    while len(words) < 3:  # width, height, maxval; comments skipped
        while data[at:at + 1].isspace():
            at += 1
        if data[at:at + 1] == b'#':
            at = data.index(b'\n', at)
            continue
        start = at
        while not data[at:at + 1].isspace():
            at += 1
        words.append(int(data[start:at]))
    width, height, _ = words
    return width, height, 1 if data[:2] == b'P5' else 3, data[at + 1:]
