#!/usr/bin/env python3
"""pixels.py: checks an 8- or 16-bit PNG that gpuimg wrote, decoded by
tinypng (not by stb), against a reference of the same depth. Exit 0 when it matches, 1 (with the
reason on stderr) when not.

  pixels.py flipped OUT.png EXPECTED.pam TOLERANCE
      OUT mirrored left-right equals EXPECTED within TOLERANCE per sample
      (gpuimg flip h wrote it)
  pixels.py same OUT.png EXPECTED.pam TOLERANCE
      OUT equals EXPECTED within TOLERANCE per sample (gpuimg convert wrote it)
  pixels.py shape OUT.png WxHxC
      OUT has that width, height and channel count
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinypng  # noqa: E402


def flipped(out, expected, tolerance, mirrored=True):
    w, h, c, got = tinypng.decode(open(out, 'rb').read())
    ew, eh, ec, want = tinypng.read_pnm(expected)
    if (w, h, c) != (ew, eh, ec):
        return 'shape %dx%dx%d, want %dx%dx%d' % (w, h, c, ew, eh, ec)
    worst = (-1, None)
    for y in range(h):
        for x in range(w):
            for ch in range(c):
                gx = w - 1 - x if mirrored else x
                diff = abs(got[(y * w + gx) * c + ch] - want[(y * w + x) * c + ch])
                worst = max(worst, (diff, (x, y, ch)))
    if worst[0] > int(tolerance):
        return 'pixel %s differs by %d (tolerance %s)' % (worst[1], worst[0], tolerance)
    return None


def shape(out, want):
    w, h, c, _ = tinypng.decode(open(out, 'rb').read())
    got = '%dx%dx%d' % (w, h, c)
    return None if got == want else 'shape %s, want %s' % (got, want)


if __name__ == '__main__':
    checks = {'flipped': (flipped, 5), 'shape': (shape, 4),
              'same': (lambda *a: flipped(*a, mirrored=False), 5)}
    if len(sys.argv) < 2 or sys.argv[1] not in checks or len(sys.argv) != checks[sys.argv[1]][1]:
        sys.exit(__doc__)
    why = checks[sys.argv[1]][0](*sys.argv[2:])
    if why:
        sys.exit('%s: %s' % (sys.argv[2], why))
