"""Awkward shapes and layouts: 1x1, single rows and columns, 1..4
channels, (H, W, 1), and views of every kind of stride give what their
contiguous copies give (which test_cli_bytes ties to the CLI); results are
new C-contiguous arrays; row-contiguous inputs are not copied."""

import numpy as np
import pytest

import gpuimg
from gpuimg import _arrays
from conftest import random_image

OPS = {
    "blur": lambda a: gpuimg.blur(a, sigma=1.3, border="reflect"),
    "box": lambda a: gpuimg.blur(a, kernel="box", radius=2, border="zero", border_value=77),
    "sobel": lambda a: gpuimg.sobel(a, border="wrap"),
    "sobel-gray": lambda a: gpuimg.sobel(a, gray=True, border="replicate"),
    "convolve": lambda a: gpuimg.convolve(a, [[1, -2, 1], [0, 3, 0], [1, 0, 1]]),
    "transpose": gpuimg.transpose,
    "rotate": lambda a: gpuimg.rotate(a, 90),
    "flip": lambda a: gpuimg.flip(a, "v"),
    "hist": lambda a: gpuimg.hist(a, bins=64),
    "pipe": lambda a: gpuimg.pipe(a, "blur -s 2 | rotate 270 | sobel"),
}
SIZES = [(1, 1), (1, 9), (9, 1), (2, 3), (17, 5), (40, 33)]


def _views(a):
    """Views of a's pixels with strides of every kind."""
    big = np.repeat(np.repeat(a, 2, axis=0), 2, axis=1)
    yield "every other pixel", big[::2, ::2]
    yield "flipped rows", a[::-1]
    yield "flipped columns", a[:, ::-1]
    yield "fortran order", np.asfortranarray(a)
    padded = np.zeros((a.shape[0], a.shape[1] + 3) + a.shape[2:], np.uint8)
    padded[:, 1:-2] = a
    yield "padded rows", padded[:, 1:-2]
    yield "transposed twice", a.swapaxes(0, 1).copy().swapaxes(0, 1)
    if a.ndim == 3 and a.shape[2] > 1:
        wider = np.zeros(a.shape[:2] + (4,), np.uint8)
        wider[..., : a.shape[2]] = a
        yield "channels of a wider image", wider[..., : a.shape[2]]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("channels", [0, 1, 2, 3, 4])
def test_views_equal_copies(rng, op, channels):
    f = OPS[op]
    for h, w in SIZES:
        a = random_image(rng, h, w, channels)
        for what, view in _views(a):
            want = f(np.ascontiguousarray(view))
            if op != "hist":
                assert want.flags.c_contiguous and want.dtype == np.uint8
            got = f(view)
            np.testing.assert_array_equal(got, want, err_msg=f"{op} {h}x{w}x{channels}: {what}")


@pytest.mark.parametrize("channels", [0, 1, 2, 3, 4])
def test_result_shapes(rng, channels):
    a = random_image(rng, 5, 7, channels)
    c = max(channels, 1)
    same = a.shape
    assert gpuimg.blur(a).shape == same
    assert gpuimg.transpose(a).shape == (7, 5) + same[2:]
    # one channel made by gray is 2-D; (H, W, 1) stays so
    assert gpuimg.sobel(a, gray=True).shape == ((5, 7, 1) if channels == 1 else (5, 7))
    assert gpuimg.hist(a).shape == (c, 256)
    assert gpuimg.hist(a).sum(axis=1).tolist() == [35] * c


def test_row_contiguous_input_is_not_copied(rng):
    a = random_image(rng, 6, 8, 3)
    assert _arrays.host(a) is a
    padded = np.zeros((6, 12, 3), np.uint8)[:, 2:10]
    assert _arrays.host(padded) is padded  # a row stride is all the library needs
    assert _arrays.host(a[:, ::2]) is not a


def test_inputs_are_left_alone(rng):
    a = random_image(rng, 20, 30, 4)
    before = a.copy()
    for f in OPS.values():
        f(a)
    np.testing.assert_array_equal(a, before)


def test_lists_and_readonly_arrays(rng):
    a = random_image(rng, 4, 5, 3)
    ro = a.copy()
    ro.flags.writeable = False
    np.testing.assert_array_equal(gpuimg.blur(ro), gpuimg.blur(a))
    np.testing.assert_array_equal(gpuimg.blur(a.tolist() and np.array(a.tolist(), np.uint8)),
                                  gpuimg.blur(a))
    np.testing.assert_array_equal(gpuimg.flip(memoryview(a), "h"), gpuimg.flip(a, "h"))


def test_loaded_arrays_are_numpy_and_writable(tmp_path, rng):
    for c in (0, 2, 3, 4):
        a = random_image(rng, 3, 4, c)
        gpuimg.save(a, tmp_path / "x.png")
        b = gpuimg.load(tmp_path / "x.png")
        np.testing.assert_array_equal(a, b)
        assert b.shape == a.shape and b.flags.writeable
        b[0, 0] = 1
