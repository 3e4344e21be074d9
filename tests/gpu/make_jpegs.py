#!/usr/bin/env python3
"""make_jpegs.py [OUTDIR]: writes the JPEGs that nvjpeg_vs_stb decodes with
both decoders (default OUTDIR: tests/gpu/jpegs beside this script).

They are kept in the repository because the GPU machines lack cjpeg and
ImageMagick. The picture is the robust suite's (gradients and a hard
edge); sizes 1x1, 17x3 and 333x101 leave partial MCUs. A name says the
sampling (gray, 444, 422, 420) and the size; files named fail-* use what
nvJPEG does not decode and must be refused with a clear reason. Needs
cjpeg (libjpeg-turbo-progs) and convert (imagemagick)."""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', 'robust'))
from make_corpus import smooth_rgb  # noqa: E402

SIZES = [(1, 1), (17, 3), (333, 101)]
# name prefix: cjpeg options
VARIANTS = {
    'gray': ['-grayscale', '-quality', '90'],
    '444': ['-sample', '1x1', '-quality', '95'],
    '420': ['-sample', '2x2', '-quality', '90'],
}
LARGE_ONLY = {
    '422': ['-sample', '2x1', '-quality', '90'],
    '420-progressive': ['-progressive', '-quality', '90'],
    '420-restart': ['-restart', '1', '-quality', '90'],
    'fail-arithmetic': ['-arithmetic', '-quality', '90'],
}


def write_ppm(path, width, height):
    rows = smooth_rgb(width, height)
    with open(path, 'wb') as f:
        f.write(b'P6\n%d %d\n255\n' % (width, height) + bytes(v for r in rows for v in r))


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        def cjpeg(name, options, size):
            src = os.path.join(tmp, '%dx%d.ppm' % size)
            write_ppm(src, *size)
            out = os.path.join(outdir, '%s-%dx%d.jpg' % ((name,) + size))
            subprocess.run(['cjpeg'] + options + ['-outfile', out, src], check=True)
        for name, options in VARIANTS.items():
            for size in SIZES:
                cjpeg(name, options, size)
        for name, options in LARGE_ONLY.items():
            cjpeg(name, options, SIZES[-1])
        src = os.path.join(tmp, '333x101.ppm')
        subprocess.run(['convert', src, '-colorspace', 'CMYK', '-quality', '95',
                        os.path.join(outdir, 'fail-cmyk-333x101.jpg')], check=True)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, 'jpegs'))
