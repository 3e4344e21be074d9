"""16-bit images in Python: uint16 arrays in and out, files read and written
at 16 bits sample for sample, the one rule for a change of depth, and clear
refusals (other dtypes, a 16-bit JPEG)."""

import numpy as np
import pytest

import gpuimg

SIZES = [(1, 1), (1, 7), (7, 1), (13, 11)]


@pytest.mark.parametrize("ext", ["png", "pam", "pnm"])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("size", SIZES)
def test_uint16_round_trip(tmp_path, rng, ext, channels, size):
    if ext == "pnm" and channels in (2, 4):
        pytest.skip("PGM and PPM hold no alpha")
    h, w = size
    a = rng.integers(0, 65536, (h, w, channels), dtype=np.uint16)
    a[0, 0, 0] = 0xFF00  # a sample whose high byte alone would misread it
    path = tmp_path / f"img.{ext}"
    gpuimg.save(a, path)
    got = gpuimg.load(path)
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got.reshape(h, w, channels), a)


def test_depth_conversion_on_save(tmp_path):
    a = np.array([[0, 255, 0xFF00, 0xFFFF, 128, 129]], np.uint16)
    gpuimg.save(a, tmp_path / "eight.png", depth=8)
    got = gpuimg.load(tmp_path / "eight.png")
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, (a.astype(np.uint32) + 128) // 257)
    assert got[0, 2] == 254
    b = np.array([[0, 1, 254, 255]], np.uint8)
    gpuimg.save(b, tmp_path / "sixteen.pam", depth=16)
    wide = gpuimg.load(tmp_path / "sixteen.pam")
    assert wide.dtype == np.uint16
    np.testing.assert_array_equal(wide, b.astype(np.uint16) * 257)


def test_compare_tolerance_at_16_bits():
    # 0..65535 at 16 bits, as the CLI's --tolerance (it stopped at 255)
    a = np.array([[0, 1000, 65535]], np.uint16)
    b = np.array([[1000, 0, 64535]], np.uint16)
    assert not gpuimg.compare(a, b, tolerance=999).equal
    r = gpuimg.compare(a, b, tolerance=1000)
    assert r.equal and r.tolerance == 1000 and r.max_diff == 1000
    assert gpuimg.compare(a, a, tolerance=65535).equal


def test_unaligned_uint16_is_copied(tmp_path):
    # uint16 at an odd address (np.frombuffer at an odd offset): copied to an
    # aligned array as other layouts are, not refused
    a = np.arange(4 * 5 * 3, dtype=np.uint16).reshape(4, 5, 3) * 1000
    buf = bytearray(a.nbytes + 1)
    odd = np.frombuffer(buf, dtype=np.uint16, offset=1).reshape(a.shape)
    odd[...] = a
    assert odd.ctypes.data % 2 == 1
    np.testing.assert_array_equal(gpuimg.flip(odd, "h"), a[:, ::-1])
    gpuimg.save(odd, tmp_path / "odd.png")
    np.testing.assert_array_equal(gpuimg.load(tmp_path / "odd.png"), a)


def test_sixteen_bits_to_jpeg_is_refused(tmp_path):
    """Python's way is named (depth=8), not the CLI's flag."""
    a = np.zeros((4, 4, 3), np.uint16)
    for path, format in ((tmp_path / "x.jpg", None), (tmp_path / "x", "jpeg")):
        with pytest.raises(ValueError, match="pass depth=8") as e:
            gpuimg.save(a, path, format=format)
        assert "--depth" not in str(e.value)
        with pytest.raises(ValueError, match="depth=16: JPEG holds 8 bits") as e:
            gpuimg.save(a[..., 0].astype(np.uint8), path, format=format, depth=16)
        assert "--depth" not in str(e.value)
    assert not list(tmp_path.iterdir())
    gpuimg.save(a, tmp_path / "x.jpg", depth=8)
    assert gpuimg.load(tmp_path / "x.jpg").dtype == np.uint8
    with pytest.raises(ValueError, match="depth=16: JPEG holds 8 bits"):
        gpuimg.batch([tmp_path / "x.jpg"], [tmp_path / "y.jpg"], "flip h", depth=16)
    assert not (tmp_path / "y.jpg").exists()


def test_other_dtypes_are_refused(tmp_path):
    for dtype in (np.float32, np.int16, np.uint32):
        with pytest.raises(TypeError, match="uint8 or uint16"):
            gpuimg.save(np.zeros((2, 2), dtype), tmp_path / "x.png")
    with pytest.raises(ValueError, match="depth"):
        gpuimg.save(np.zeros((2, 2), np.uint8), tmp_path / "x.png", depth=12)


def test_operations_keep_the_depth_or_say_so(rng):
    """A uint16 image through an operation: uint16 out, or a clear refusal
    (never uint8)."""
    a = rng.integers(0, 65536, (9, 8, 3), dtype=np.uint16)
    for op in (lambda x: gpuimg.blur(x, sigma=1), lambda x: gpuimg.pipe(x, "flip h")):
        try:
            out = op(a)
        except ValueError as e:
            assert "not supported" in str(e)
        else:
            assert out.dtype == np.uint16


def test_batch_keeps_or_converts_the_depth(tmp_path, rng):
    a = rng.integers(0, 65536, (5, 3, 3), dtype=np.uint16)
    gpuimg.save(a, tmp_path / "in.png")
    items = gpuimg.batch([tmp_path / "in.png"], [tmp_path / "kept.png"], "crop 0 0 0 0")
    items += gpuimg.batch([tmp_path / "in.png"], [tmp_path / "eight.png"], "crop 0 0 0 0", depth=8)
    assert all(i.status == "ok" for i in items), items
    np.testing.assert_array_equal(gpuimg.load(tmp_path / "kept.png"), a)
    np.testing.assert_array_equal(gpuimg.load(tmp_path / "eight.png"),
                                  (a.astype(np.uint32) + 128) // 257)


@pytest.mark.parametrize("compression", ["deflate", "none"])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_tiff_round_trip(tmp_path, rng, compression, channels):
    a = rng.integers(0, 65536, (13, 11, channels), dtype=np.uint16)
    path = tmp_path / "img.tif"
    try:
        gpuimg.save(a, path, tiff_compression=compression)
    except Exception as e:  # the error a build without libtiff gives
        if "no TIFF support" in str(e):
            pytest.skip("this build has no TIFF support")
        raise
    got = gpuimg.load(path)
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got.reshape(13, 11, channels), a)
    named = tmp_path / "named"
    gpuimg.save(a, named, format="tiff", tiff_compression=compression)
    assert named.read_bytes() == path.read_bytes()
    # uncompressed holds every sample as it is; deflate compresses
    size = path.stat().st_size
    assert size >= a.nbytes if compression == "none" else size > 0


def test_tiff_of_several_pages_warns(tmp_path):
    """Only a TIFF's first page is read, and load says so (the CLI warns on
    stderr); a TIFF of one page, and other files, load without a word."""
    import sys
    import warnings
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "robust"))
    import tinytiff
    page = {'width': 4, 'height': 3, 'channels': 1, 'bits': 8, 'samples': list(range(12))}
    several, one = tmp_path / "pages.tif", tmp_path / "page.tif"
    several.write_bytes(tinytiff.encode([page, page, page]))
    one.write_bytes(tinytiff.encode([page]))
    try:
        with pytest.warns(UserWarning, match=r"pages\.tif: the TIFF has 3 pages; only the first was read"):
            a, meta = gpuimg.load_with_metadata(several)
    except Exception as e:  # the error a build without libtiff gives
        if "no TIFF support" in str(e):
            pytest.skip("this build has no TIFF support")
        raise
    assert meta.pages == 3
    np.testing.assert_array_equal(a, np.arange(12, dtype=np.uint8).reshape(3, 4))
    with pytest.warns(UserWarning, match="3 pages"):
        gpuimg.load(several)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gpuimg.load_with_metadata(one)[1].pages == 1
        gpuimg.save(a, tmp_path / "a.png")
        assert gpuimg.load_with_metadata(tmp_path / "a.png")[1].pages == 1
