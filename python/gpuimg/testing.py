"""Golden-image assertions for pytest:

    from gpuimg.testing import assert_images_equal

    def test_blur(tmp_path):
        out = gpuimg.blur(gpuimg.load("in.png"), sigma=2)
        assert_images_equal(gpuimg.load("golden/blur.png"), out,
                            diff_path=tmp_path / "diff.png")
"""

from __future__ import annotations

import os
from typing import Any, Optional, Union

import numpy as np

import gpuimg
from gpuimg import _arrays

__all__ = ["assert_images_equal", "diff_picture"]


def diff_picture(expected: np.ndarray, actual: np.ndarray, tolerance: int = 0) -> np.ndarray:
    """gpuimg compare --diff's picture: the expected image faded to light
    gray, pixels that differ by more than tolerance in red, brighter for
    larger differences (RGB, uint8; uint16 samples and differences scaled
    by 255 / 65535 for it, the tolerance on their own range)."""
    # as the CLI's picture: 16-bit values unscaled would wrap in uint8
    scale = 257 if expected.dtype == np.uint16 else 1
    e = expected.reshape(expected.shape[0], expected.shape[1], -1).astype(np.int32)
    a = actual.reshape(e.shape).astype(np.int32)
    d = np.abs(e - a).max(axis=2)
    v = e // scale
    luma = (77 * v[..., 0] + 150 * v[..., 1] + 29 * v[..., 2] + 128) >> 8 if e.shape[2] >= 3 \
        else v[..., 0]
    gray = 160 + luma // 4
    differs = d > tolerance
    out = np.empty(e.shape[:2] + (3,), np.uint8)
    out[..., 0] = np.where(differs, 128 + d // scale // 2, gray)
    out[..., 1] = out[..., 2] = np.where(differs, 0, gray)
    return out


def _where(expected: np.ndarray, actual: np.ndarray, tolerance: int, shown: int = 5) -> str:
    # int32: uint16 samples over 32767 were negative in int16
    e = expected.reshape(expected.shape[0], expected.shape[1], -1).astype(np.int32)
    a = actual.reshape(e.shape).astype(np.int32)
    ys, xs = np.nonzero(np.abs(e - a).max(axis=2) > tolerance)
    parts = [f"(x {x}, y {y}): expected {e[y, x].tolist()}, actual {a[y, x].tolist()}"
             for y, x in zip(ys[:shown], xs[:shown])]
    more = f"; and {len(ys) - shown} more" if len(ys) > shown else ""
    box = f"; within x {xs.min()}..{xs.max()}, y {ys.min()}..{ys.max()}" if len(ys) else ""
    return "; ".join(parts) + more + box


def assert_images_equal(expected: Any, actual: Any, tolerance: int = 0,
                        max_different: Union[int, str] = 0,
                        diff_path: Optional[Union[str, "os.PathLike[str]"]] = None) -> None:
    """Fails (AssertionError) unless the two images have the same shape and
    at most max_different pixels (or "K%") differ by more than tolerance in
    some channel. Paths are loaded first. The message says what gpuimg
    compare says (pixels, largest difference per channel, PSNR, SSIM) and
    where the first differing pixels are; diff_path gets the diff picture."""
    e = gpuimg.load(expected) if isinstance(expected, (str, os.PathLike)) else \
        np.asarray(_arrays.to_host(expected))
    a = gpuimg.load(actual) if isinstance(actual, (str, os.PathLike)) else \
        np.asarray(_arrays.to_host(actual))
    e3 = e.reshape(e.shape[0], e.shape[1], -1) if e.ndim in (2, 3) else e
    a3 = a.reshape(a.shape[0], a.shape[1], -1) if a.ndim in (2, 3) else a
    if e3.shape != a3.shape:
        raise AssertionError(f"images differ in shape: expected {e.shape}, actual {a.shape}")
    r = gpuimg.compare(e3, a3, tolerance=tolerance, max_different=max_different)
    if r.equal:
        return
    note = ""
    if diff_path is not None:
        gpuimg.save(diff_picture(e3, a3, tolerance), diff_path, format="png")
        note = f"\ndiff picture: {os.fspath(diff_path)}"
    raise AssertionError(
        f"images differ: {r.different_pixels} pixels ({r.different_percent:.4f}%) over "
        f"tolerance {r.tolerance}, max abs diff {' '.join(map(str, r.max_abs_diff))}, "
        f"psnr {r.psnr:.4f} dB, ssim {r.ssim:.10f}\n"
        f"first differing pixels: {_where(e3, a3, tolerance)}{note}")
