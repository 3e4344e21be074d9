#!/usr/bin/env python3
"""progressive_variants.py OUTDIR PHOTO...

Writes the progressive JPEG variants of each photo (JPEG, PNG or PNM) that
the progressive decoder is measured on, OUTDIR/NAME-VARIANT.jpg, and prints
their paths, one a line, for jpeg_vs_djpeg.py or jpeg_entropy_times:

  jpegtran-prog   jpegtran -progressive of the photo as a JPEG (a PNG is
                  first saved by cjpeg -quality 90)
  scans-percomp   jpegtran -scans: one component per scan, every scan
  scans-spectral  spectral selection only (no successive approximation)
  scans-approx    successive approximation only (whole bands)
  scans-oneband   many one-coefficient bands
  scans-dcfirst   the DC at full precision first, then the AC bands
  cjpeg-444 ... cjpeg-gray   cjpeg -progressive -quality 85 at 4:4:4,
                  4:2:2, 4:2:0, 4:4:0 (-sample 1x2) and grayscale
  restart-row     cjpeg -progressive -restart 1 (an interval a MCU row)
  restart-mcu     cjpeg -progressive -restart 1B (an interval a MCU)
  magick          ImageMagick convert -interlace JPEG -quality 85

Needs libjpeg-turbo's cjpeg, djpeg and jpegtran and ImageMagick's convert.
A benchmark input maker, not run by the test suites."""
import os
import subprocess
import sys

# jpegtran -scans scripts for three components (components 0..2 are
# Y, Cb, Cr); a gray photo gets the progressive default instead.
SCANS = {
    'percomp': """
0: 0 0 0 1; 1: 0 0 0 1; 2: 0 0 0 1;
0: 1 5 0 2; 2: 1 63 0 1; 1: 1 63 0 1; 0: 6 63 0 2;
0: 1 63 2 1; 0: 0 0 1 0; 1: 0 0 1 0; 2: 0 0 1 0;
2: 1 63 1 0; 1: 1 63 1 0; 0: 1 63 1 0;
""",
    'spectral': """
0 1 2: 0 0 0 0; 0: 1 2 0 0; 0: 3 9 0 0; 0: 10 63 0 0;
1: 1 63 0 0; 2: 1 63 0 0;
""",
    'approx': """
0 1 2: 0 0 0 2; 0: 1 63 0 2; 1: 1 63 0 2; 2: 1 63 0 2;
0 1 2: 0 0 2 1; 0: 1 63 2 1; 1: 1 63 2 1; 2: 1 63 2 1;
0 1 2: 0 0 1 0; 0: 1 63 1 0; 1: 1 63 1 0; 2: 1 63 1 0;
""",
    'oneband': '0 1 2: 0 0 0 0;\n' + ''.join('0: %d %d 0 0;\n' % (k, k) for k in range(1, 32)) +
               '0: 32 63 0 0;\n' + ''.join('%d: %d %d 0 0;\n' % (c, k, k) for c in (1, 2)
                                           for k in range(1, 9)) +
               '1: 9 63 0 0; 2: 9 63 0 0;\n',
    'dcfirst': """
0 1 2: 0 0 0 0;
0: 1 63 0 1; 1: 1 63 0 1; 2: 1 63 0 1;
0: 1 63 1 0; 1: 1 63 1 0; 2: 1 63 1 0;
""",
}

SAMPLING = {'444': '1x1', '422': '2x1', '420': '2x2', '440': '1x2'}


def sh(argv, out=None):
    with open(out, 'wb') if out else open(os.devnull, 'wb') as f:
        r = subprocess.run(argv, stdout=f, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit('%s: failed: %s' % (' '.join(argv), r.stderr.decode()))


def variants(outdir, photo):
    name = os.path.splitext(os.path.basename(photo))[0]
    base = lambda v: os.path.join(outdir, '%s-%s.jpg' % (name, v))
    ppm = os.path.join(outdir, name + '.ppm')
    sh(['convert', photo, '-alpha', 'off', 'ppm:' + ppm])
    jpeg = photo
    if not photo.lower().endswith(('.jpg', '.jpeg')):
        jpeg = os.path.join(outdir, name + '-q90.jpg')
        sh(['cjpeg', '-quality', '90', '-outfile', jpeg, ppm])
    made = []
    sh(['jpegtran', '-progressive', '-outfile', base('jpegtran-prog'), jpeg])
    made.append(base('jpegtran-prog'))
    for v, script in SCANS.items():
        path = os.path.join(outdir, 'scans-%s.txt' % v)
        with open(path, 'w') as f:
            f.write(script)
        sh(['jpegtran', '-scans', path, '-outfile', base('scans-' + v), jpeg])
        made.append(base('scans-' + v))
    for v, s in SAMPLING.items():
        sh(['cjpeg', '-progressive', '-quality', '85', '-sample', s, '-outfile',
            base('cjpeg-' + v), ppm])
        made.append(base('cjpeg-' + v))
    sh(['cjpeg', '-progressive', '-quality', '85', '-grayscale', '-outfile', base('cjpeg-gray'),
        ppm])
    made.append(base('cjpeg-gray'))
    for v, r in (('restart-row', '1'), ('restart-mcu', '1B')):
        sh(['cjpeg', '-progressive', '-quality', '85', '-restart', r, '-outfile', base(v), ppm])
        made.append(base(v))
    sh(['convert', photo, '-alpha', 'off', '-interlace', 'JPEG', '-quality', '85',
        base('magick')])
    made.append(base('magick'))
    os.remove(ppm)
    return made


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for photo in sys.argv[2:]:
        for path in variants(outdir, photo):
            print(path)


if __name__ == '__main__':
    main()
