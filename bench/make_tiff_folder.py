#!/usr/bin/env python3
"""make_tiff_folder.py [--seed S] [--smooth F] OUT N SOURCE...

Makes a benchmark folder of N 16-bit RGB TIFFs of about 24 MP (6000x4000
or 4000x6000), written by gpuimg (deflate with the horizontal predictor,
its default), from a few source photos. A photo is a random crop (50-100%
of each side) of a random source scaled up with cubic, its 8-bit samples
times 257 and 0.8-1.0, with Gaussian noise of sigma 10-60 (a camera's or
a scanner's low bits). A fraction F of the files (default 0) are smooth
renders instead: a sum of broad sines and a ramp over the frame, with
noise of sigma 0-4 (a renderer's or a depth camera's frame). File i
depends only on the seed and i. Needs numpy, OpenCV's Python module
(cv2) and gpuimg's. A benchmark input maker, not run by the test suites."""
import os
import random
import sys

import cv2
import numpy as np

import gpuimg


def photo(rng, nrng, sources):
    src = sources[rng.randrange(len(sources))]
    h, w = src.shape[:2]
    ch, cw = int(h * rng.uniform(0.5, 1.0)), int(w * rng.uniform(0.5, 1.0))
    y, x = rng.randrange(h - ch + 1), rng.randrange(w - cw + 1)
    crop = src[y:y + ch, x:x + cw]
    size = (6000, 4000) if cw >= ch else (4000, 6000)
    img = cv2.resize(crop, size, interpolation=cv2.INTER_CUBIC).astype(np.float32)
    img = img * (257.0 * rng.uniform(0.8, 1.0)) + nrng.normal(0, rng.uniform(10, 60), img.shape)
    return np.clip(img + 0.5, 0, 65535).astype(np.uint16)


def render(rng, nrng):
    w, h = (6000, 4000) if rng.random() < 0.5 else (4000, 6000)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    planes = []
    for _ in range(3):
        v = rng.uniform(8000, 40000) + rng.uniform(-2, 2) * x + rng.uniform(-2, 2) * y
        for _ in range(3):
            v = v + rng.uniform(1000, 8000) * np.sin(x / rng.uniform(200, 2000) + rng.uniform(0, 6)) \
                * np.cos(y / rng.uniform(200, 2000) + rng.uniform(0, 6))
        planes.append(v)
    img = np.stack(planes, -1) + nrng.normal(0, rng.uniform(0, 4), (h, w, 3))
    return np.clip(img + 0.5, 0, 65535).astype(np.uint16)


def main(args):
    seed, smooth = 1, 0.0
    while args and args[0] in ("--seed", "--smooth"):
        if args[0] == "--seed":
            seed = int(args[1])
        else:
            smooth = float(args[1])
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    out, n, paths = args[0], int(args[1]), args[2:]
    sources = []
    for p in paths:
        img = cv2.imread(p, cv2.IMREAD_COLOR)
        if img is None:
            sys.exit("make_tiff_folder.py: cannot read %s" % p)
        sources.append(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        rng = random.Random(seed * 1000003 + i)
        nrng = np.random.default_rng(seed * 1000003 + i)
        img = render(rng, nrng) if rng.random() < smooth else photo(rng, nrng, sources)
        gpuimg.save(img, os.path.join(out, "%04d.tif" % i))


if __name__ == "__main__":
    main(sys.argv[1:])
