#!/usr/bin/env python3
"""make_photo_folder.py [--seed S] OUT N SOURCE...

Makes a benchmark folder of N JPEGs from a few source photos, varied the
way a user's folder is: each file is a random crop (60-100% of each side)
of a random source, scaled by 1.0-1.4 (so 9 MP sources give 5-16 MP
files), sometimes mirrored, saved at quality 75-95 with 4:2:0, 4:2:2 or
4:4:4 sampling. Every file is written twice with the same pixels:
OUT/baseline/NNNN.jpg and OUT/progressive/NNNN.jpg, so the two folders
differ only in the JPEG's scan structure. File i depends only on the seed
and i, so a folder of any N is the start of a larger one; the files are
made in a pool of every core. Needs OpenCV's Python module (cv2). A
benchmark input maker, not run by the test suites."""
import multiprocessing
import os
import random
import sys

import cv2

SAMPLINGS = {
    "420": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420,
    "422": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_422,
    "444": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444,
}


def varied(rng, photo):
    h, w = photo.shape[:2]
    ch, cw = int(h * rng.uniform(0.6, 1.0)), int(w * rng.uniform(0.6, 1.0))
    y, x = rng.randrange(h - ch + 1), rng.randrange(w - cw + 1)
    img = photo[y:y + ch, x:x + cw]
    scale = rng.uniform(1.0, 1.4)
    img = cv2.resize(img, (int(cw * scale), int(ch * scale)), interpolation=cv2.INTER_LINEAR)
    return cv2.flip(img, 1) if rng.random() < 0.5 else img


def write(path, img, quality, sampling, progressive):
    params = [cv2.IMWRITE_JPEG_QUALITY, quality,
              cv2.IMWRITE_JPEG_SAMPLING_FACTOR, SAMPLINGS[sampling],
              cv2.IMWRITE_JPEG_PROGRESSIVE, int(progressive)]
    if not cv2.imwrite(path, img, params):
        sys.exit(f"make_photo_folder: cannot write {path}")


def make_one(job):
    out, seed, i, sources = job
    rng = random.Random(seed * 1000003 + i)
    path = rng.choice(sources)
    photo = cv2.imread(path, cv2.IMREAD_COLOR)
    if photo is None:
        sys.exit(f"make_photo_folder: cannot read {path}")
    img = varied(rng, photo)
    quality, sampling = rng.randint(75, 95), rng.choice(sorted(SAMPLINGS))
    for kind in ("baseline", "progressive"):
        write(os.path.join(out, kind, f"{i:04d}.jpg"), img, quality, sampling,
              kind == "progressive")


def main(argv):
    seed = 1
    if argv[:1] == ["--seed"]:
        seed, argv = int(argv[1]), argv[2:]
    if len(argv) < 3:
        sys.exit(__doc__)
    out, n, sources = argv[0], int(argv[1]), argv[2:]
    for kind in ("baseline", "progressive"):
        os.makedirs(os.path.join(out, kind), exist_ok=True)
    with multiprocessing.Pool() as pool:
        pool.map(make_one, [(out, seed, i, sources) for i in range(n)])


if __name__ == "__main__":
    main(sys.argv[1:])
