#!/usr/bin/env python3
"""make_seeds.py OUTDIR SAMPLES [CORPUS]: writes the seed corpora of the fuzz
targets, one folder each under OUTDIR:

  decode/    the sample images and the files of the bad-input corpus (CORPUS,
             a folder make_corpus.py wrote; left out when not given)
  jpeg_diff/ the JPEG files among them
  pipeline/  the same images behind each parameter block of PARAMS
  options/   the argument lists of ARGS, NUL-separated, after a first byte
             that picks whether the image options are in the table
  tiff/      the TIFF files among them, and TIFFs of tinytiff.py (16 bits,
             big-endian, deflate, PackBits, pages)
  serve_request/  the jobs kept in regressions/serve_request (a valid job
             is too long a format to write here twice: serve_probe job-seed
             wrote them)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinytiff  # noqa: E402

PARAM_BYTES = 48  # fuzz_pipeline.c
# Parameter blocks: all zeros (the first choice of everything), typical
# values, and all 0xff (raw doubles, invalid modes).
PARAMS = [bytes(PARAM_BYTES),
          bytes((3, 0, 4, 2, 3, 0, 8, 0, 0, 1, 0, 3, 3, 0, 0, 1, 5, 2, 7, 9,
                 11, 13, 17, 19, 23, 1, 16, 0, 1, 90, 5, 2) + (0,) * 16),
          b'\xff' * PARAM_BYTES]
ARGS = [
    ["blur", "--sigma", "2.5", "--radius", "7", "in.png", "out.png"],
    ["-q", "--device", "cpu", "-j", "2", "--border", "reflect", "--border-value", "9", "a", "b"],
    ["--max-pixels", "16M", "--max-input-bytes", "1G", "--shard", "1/4", "-o", "dir", "x.jpg"],
    ["--format", "jpeg", "--quality", "75", "--png-level", "12", "--png-filter", "paeth"],
    ["-k", "1 2 1; 2 4 2; 1 2 1", "--positive", "1e-3", "--nonneg", "0", "--any", "-7"],
    ["--kernel", "# comment\n1,2,3\n4 5 6\n7 8 9\n", "-f", "--", "-in-", "out"],
    ["-qv", "-j3", "--radius=1024", "--files-from", "-", "--summary-json", "s.json"],
]


def image_files(samples, corpus):
    for folder in [samples] + ([corpus] if corpus else []):
        names = set(os.listdir(folder))
        for name in sorted(names):
            path = os.path.join(folder, name)
            # NAME.pam next to NAME holds the pixels NAME decodes to: no seed.
            expected_pixels = name.endswith('.pam') and name[:-4] in names
            if (os.path.isfile(path) and os.access(path, os.R_OK) and not expected_pixels
                    and not name.endswith(('.c', '.md', '.skip'))):
                yield name, open(path, 'rb').read()


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), 'wb') as f:
        f.write(data)


def main(outdir, samples, corpus=None):
    for name, data in image_files(samples, corpus):
        write(os.path.join(outdir, 'decode'), name, data)
        if data.startswith(b'\xff\xd8'):
            write(os.path.join(outdir, 'jpeg_diff'), name, data)
        if data[:4] in (b'II*\0', b'MM\0*'):
            write(os.path.join(outdir, 'tiff'), name, data)
    for ch in range(1, 5):
        for bits, comp, big, pages, predictor in ((8, 1, False, 1, 1), (16, 8, True, 1, 1),
                                                  (8, 32773, False, 2, 1), (16, 8, False, 1, 2),
                                                  (8, 8, True, 1, 2)):
            page = {'width': 5, 'height': 3, 'channels': ch, 'bits': bits, 'compression': comp,
                    'rows_per_strip': 2, 'predictor': predictor,
                    'samples': [i * 37 % 256 for i in range(15 * ch)]}
            write(os.path.join(outdir, 'tiff'),
                  'tiny-%d-%d-%d-%d-%d.tif' % (ch, bits, comp, pages, predictor),
                  tinytiff.encode([page] * pages, big))
        for i, block in enumerate(PARAMS):
            write(os.path.join(outdir, 'pipeline'), '%d-%s' % (i, name), block + data)
    for i, args in enumerate(ARGS):
        for image_options in (0, 1):
            argv = bytes((image_options,)) + b'\0'.join(a.encode() for a in args)
            write(os.path.join(outdir, 'options'), 'args-%d-%d' % (i, image_options), argv)
    kept = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'regressions', 'serve_request')
    for name in sorted(os.listdir(kept)):
        write(os.path.join(outdir, 'serve_request'), name, open(os.path.join(kept, name), 'rb').read())


if __name__ == '__main__':
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
