#!/usr/bin/env python3
"""resize_agreement.py PHOTO...: how closely `gpuimg resize --filter
lanczos3` agrees with Pillow's LANCZOS and libvips's `resize` (kernel
lanczos3), as PSNR in dB over every sample (peak 255).

A sanity figure, not a bar: the three are different definitions of a
lanczos3 resampling. gpuimg and Pillow widen the filter by the reduction
(anti-aliased) and quantise the weights to integers (gpuimg to 2^14,
Pillow to its own precision); libvips first shrinks by a whole factor with
a box filter where the reduction is large (its `gap`) and rounds its own
way. Each photo is taken as RGB (alpha dropped, so that every library
resamples the same samples: their rules for alpha differ), each side
scaled by 1/3, 0.37 (a fractional reduction), 1/8 and 2, the same output
size for all three (libvips's scales are set from it, and a result of
another size is reported, not compared). Needs gpuimg (PYTHONPATH=
build/python), numpy, Pillow and pyvips in the same Python. Not run by
the test suites."""
import sys

import numpy as np
import pyvips
from PIL import Image

import gpuimg

SCALES = [("1/3", 1 / 3), ("0.37", 0.37), ("1/8", 1 / 8), ("2", 2.0)]


def psnr(a, b):
    diff = a.astype(np.float64) - b.astype(np.float64)
    mse = float(np.mean(diff * diff))
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def by_pillow(rgb, w, h):
    return np.asarray(Image.fromarray(rgb).resize((w, h), Image.LANCZOS))


def by_vips(rgb, w, h):
    src = pyvips.Image.new_from_memory(np.ascontiguousarray(rgb).data, rgb.shape[1], rgb.shape[0],
                                       3, "uchar")
    out = src.resize(w / rgb.shape[1], vscale=h / rgb.shape[0], kernel="lanczos3")
    return np.ndarray(buffer=out.write_to_memory(), dtype=np.uint8,
                      shape=(out.height, out.width, out.bands))


def main(paths):
    if not paths:
        sys.exit(__doc__)
    print(f"{'photo':24s} {'scale':>5s} {'size':>11s} {'vs Pillow':>10s} {'vs libvips':>11s}")
    for path in paths:
        img = gpuimg.load(path)
        if img.ndim == 2:
            img = np.repeat(img[:, :, None], 3, axis=2)
        rgb = np.ascontiguousarray(img[:, :, :3])
        for label, s in SCALES:
            w, h = max(1, round(rgb.shape[1] * s)), max(1, round(rgb.shape[0] * s))
            ours = gpuimg.resize(rgb, width=w, height=h, fit="fill", filter="lanczos3", device="cpu")
            cells = []
            for peer in (by_pillow, by_vips):
                theirs = peer(rgb, w, h)
                cells.append(f"{psnr(ours, theirs):.1f} dB" if theirs.shape == ours.shape
                             else f"size {theirs.shape[1]}x{theirs.shape[0]}")
            name = path.rsplit("/", 1)[-1]
            print(f"{name:24s} {label:>5s} {f'{w}x{h}':>11s} {cells[0]:>10s} {cells[1]:>11s}")


if __name__ == "__main__":
    main(sys.argv[1:])
