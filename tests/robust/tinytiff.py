"""tinytiff.py - a small TIFF writer for the tests (standard library only):
8- or 16-bit strips, uncompressed, deflate or PackBits, either byte order,
several pages, and tags that lie. Used by make_corpus.py (the robust
corpus) and tests/codec/check_tiff_cli.sh; read() reads back what gpuimg
writes (deflate, the horizontal predictor)."""
import struct
import zlib

SHORT, LONG = 3, 4
COLOURS = {1: 1, 2: 1, 3: 2, 4: 2}  # channels -> photometric (MinIsBlack, RGB)


def packbits(data):
    """PackBits of literal runs alone: valid, if no smaller."""
    out = bytearray()
    for at in range(0, len(data), 128):
        part = data[at:at + 128]
        out += bytes((len(part) - 1,)) + part
    return bytes(out)


def encode(pages, big_endian=False):
    """pages: dicts with width, height, channels, bits, samples (a flat list,
    row-major, interleaved), and optionally compression (1, 8, 32773),
    predictor (2: horizontal differences before compression), rows_per_strip,
    photometric, extra (the ExtraSamples value), and tags:
    {tag: (type, [values])} that replace or add entries (values None: the
    tag is left out). Returns the file's bytes."""
    e = '>' if big_endian else '<'
    out = bytearray(b'MM\0*' if big_endian else b'II*\0') + b'\0\0\0\0'
    link_at = 4  # where the offset of the next IFD goes
    for p in pages:
        w, h, ch, bits = p['width'], p['height'], p['channels'], p['bits']
        samples = list(p['samples'])
        predictor = p.get('predictor', 1)
        if predictor == 2:  # each sample less the same channel's one pixel before
            mod = 1 << bits
            for y in range(h):
                row = y * w * ch
                for i in range(w * ch - 1, ch - 1, -1):
                    samples[row + i] = (samples[row + i] - samples[row + i - ch]) % mod
        fmt = e + ('%dH' if bits == 16 else '%dB') % len(samples)
        raw = struct.pack(fmt, *samples)
        rows = p.get('rows_per_strip', h)
        row_bytes = w * ch * bits // 8
        comp = p.get('compression', 1)
        offsets, counts = [], []
        for y in range(0, h, rows):
            strip = raw[y * row_bytes:min(h, y + rows) * row_bytes]
            strip = zlib.compress(strip) if comp == 8 else packbits(strip) if comp == 32773 else strip
            offsets.append(len(out))
            counts.append(len(strip))
            out += strip
        if len(out) % 2:
            out += b'\0'
        tags = {256: (LONG, [w]), 257: (LONG, [h]), 258: (SHORT, [bits] * ch),
                259: (SHORT, [comp]), 262: (SHORT, [p.get('photometric', COLOURS[ch])]),
                273: (LONG, offsets), 277: (SHORT, [ch]), 278: (LONG, [rows]),
                279: (LONG, counts)}
        if ch in (2, 4):
            tags[338] = (SHORT, [p.get('extra', 2)])
        if predictor != 1:
            tags[317] = (SHORT, [predictor])
        tags.update(p.get('tags', {}))
        entries = sorted((t, v) for t, v in tags.items() if v[1] is not None)
        # values over 4 bytes go before the IFD
        blobs = {}
        for tag, (typ, values) in entries:
            data = struct.pack(e + ('%dH' if typ == SHORT else '%dI') % len(values), *values)
            if len(data) > 4:
                blobs[tag] = len(out)
                out += data + (b'\0' if len(data) % 2 else b'')
        ifd_at = len(out)
        struct.pack_into(e + 'I', out, link_at, ifd_at)
        out += struct.pack(e + 'H', len(entries))
        for tag, (typ, values) in entries:
            data = struct.pack(e + ('%dH' if typ == SHORT else '%dI') % len(values), *values)
            field = struct.pack(e + 'I', blobs[tag]) if tag in blobs else data.ljust(4, b'\0')
            out += struct.pack(e + 'HHI', tag, typ, len(values)) + field
        link_at = len(out)
        out += b'\0\0\0\0'
    return bytes(out)


def read(data):
    """(width, height, channels, bits, samples, compression, predictor) of
    the first page of a strip TIFF whose data are uncompressed or deflate,
    with or without the horizontal predictor (what gpuimg writes)."""
    e = '>' if data[:2] == b'MM' else '<'
    ifd = struct.unpack_from(e + 'I', data, 4)[0]
    tags = {}
    for i in range(struct.unpack_from(e + 'H', data, ifd)[0]):
        tag, typ, n = struct.unpack_from(e + 'HHI', data, ifd + 2 + 12 * i)
        size = {3: 2, 4: 4}.get(typ, 1)
        at = ifd + 2 + 12 * i + 8
        if n * size > 4:
            at = struct.unpack_from(e + 'I', data, at)[0]
        tags[tag] = list(struct.unpack_from(e + ('%dH' if typ == 3 else '%dI' if typ == 4
                                                else '%dB') % n, data, at))
    w, h, ch, bits = tags[256][0], tags[257][0], tags.get(277, [1])[0], tags[258][0]
    comp, predictor = tags.get(259, [1])[0], tags.get(317, [1])[0]
    raw = b''.join(data[o:o + n] for o, n in zip(tags[273], tags[279]))
    if comp in (8, 32946):
        raw = b''.join(zlib.decompress(data[o:o + n]) for o, n in zip(tags[273], tags[279]))
    count = w * h * ch
    samples = list(struct.unpack(e + ('%dH' if bits == 16 else '%dB') % count,
                                 raw[:count * bits // 8]))
    if predictor == 2:
        mask = (1 << bits) - 1
        for y in range(h):
            row = y * w * ch
            for i in range(row + ch, row + w * ch):
                samples[i] = (samples[i] + samples[i - ch]) & mask
    return w, h, ch, bits, samples, comp, predictor
