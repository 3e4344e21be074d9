"""Argument conversion under random input: values of random types, shapes,
dtypes and strides go to every function; each call returns or raises
ValueError, TypeError or OSError, and the interpreter survives (a crash
fails this test's process). Also the extension's own entry points, which
the package normally feeds well-formed tuples, with malformed ones."""

import numpy as np
import pytest

import gpuimg
from gpuimg import _gpuimg as _c

EXPECTED = (ValueError, TypeError, OSError, OverflowError)


def _array(rng):
    dtype = rng.choice([np.uint8, np.uint8, np.uint8, np.int8, np.uint16, np.float32, np.bool_,
                        np.int64, np.complex64])
    ndim = int(rng.choice([0, 1, 2, 2, 3, 3, 3, 4]))
    shape = tuple(int(rng.choice([0, 1, 2, 3, 4, 5, 7, 16])) for _ in range(ndim))
    a = (rng.integers(0, 256, size=shape) if shape else np.uint8(3)).astype(dtype)
    if ndim and rng.random() < 0.5:  # a strided view
        index = tuple(slice(None, None, int(rng.choice([-2, -1, 1, 2, 3]))) for _ in range(ndim))
        a = a[index]
    if ndim >= 2 and rng.random() < 0.2:
        a = np.swapaxes(a, 0, 1)
    return a


def _value(rng):
    kind = int(rng.integers(0, 12))
    return [None, True, -1, 0, 3, 2 ** 70, -2.5, float("nan"), float("inf"), "mirror", "2",
            b"\x00", [1, 2], (1,), {}, object(), 1e300, 0.5, np.float32(2), np.int64(-7)][
        kind + int(rng.integers(0, 9))] if kind < 11 else _array(rng)


def _calls(rng):
    img = _array(rng) if rng.random() < 0.7 else _value(rng)
    v = lambda: _value(rng)  # noqa: E731
    return [
        lambda: gpuimg.blur(img, sigma=v(), radius=v(), kernel=v(), border=v(),
                            border_value=v()),
        lambda: gpuimg.blur(img, sigma=float(rng.uniform(0.1, 3))),
        lambda: gpuimg.sobel(img, scale=v(), threshold=v(), gray=v(), border=v()),
        lambda: gpuimg.sobel(img),
        lambda: gpuimg.transpose(img),
        lambda: gpuimg.rotate(img, v()),
        lambda: gpuimg.flip(img, v()),
        lambda: gpuimg.convolve(img, v(), normalize=v(), border=v()),
        lambda: gpuimg.convolve(img, _array(rng)),
        lambda: gpuimg.hist(img, bins=v()),
        lambda: gpuimg.pipe(img, v()),
        lambda: gpuimg.compare(img, _array(rng), tolerance=v(), max_different=v()),
        lambda: gpuimg.compare(img, img),
        lambda: gpuimg.blur(img, device=v()),
    ]


def test_fuzz_arguments(rng):
    outcomes = {"ok": 0, "refused": 0}
    for _ in range(300):
        for call in _calls(rng):
            try:
                call()
                outcomes["ok"] += 1
            except EXPECTED:
                outcomes["refused"] += 1
    assert outcomes["ok"] > 30 and outcomes["refused"] > 100, outcomes


def _raw_step(rng):
    kind = int(rng.integers(-1, 6))
    items = [kind] + [_value(rng) for _ in range(int(rng.integers(0, 8)))]
    if rng.random() < 0.3:
        items = [kind, 0, 1.0, -1, 3, 0]
    if rng.random() < 0.1:
        items = [4, b"\x00" * int(rng.integers(0, 80)), int(rng.integers(-2, 40)),
                 int(rng.integers(-2, 40)), False, 3, 0]
    return tuple(items)


def test_fuzz_extension_entry_points(rng):
    ctx = _c.Context(_c.DEVICE_CPU, 1)
    img = np.zeros((5, 6, 3), np.uint8)
    for _ in range(2000):
        steps = [_raw_step(rng) for _ in range(int(rng.integers(0, 4)))] if rng.random() < 0.9 \
            else _value(rng)
        alloc = rng.choice([lambda s, d: np.empty(s, np.uint8),
                            lambda s, d: np.empty((1, 1), np.uint8),
                            lambda s, d: b"abc", lambda s, d: None,
                            lambda s, d: np.empty(s, np.uint8)[:, ::-1],
                            lambda s, d: np.empty(s, np.uint16)])
        try:
            ctx.apply(img if rng.random() < 0.8 else _value(rng), steps, alloc)
        except EXPECTED:
            pass
        try:
            ctx.apply_device((int(rng.integers(0, 1 << 20)) * 256, 4, 4, 3, 256, 8), steps,
                             lambda s, d: (None, 0, 256))
        except EXPECTED:
            pass
        except gpuimg.DeviceError:
            pass
    for bad in [None, 1, "x", (1, 2), object()]:
        with pytest.raises(EXPECTED):
            _c.dlpack_open(bad)
        with pytest.raises(EXPECTED):
            ctx.apply_device(bad, [(2, 0)], lambda s, d: None)
    ctx.close()
