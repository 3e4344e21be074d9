"""Bad arguments raise ValueError or TypeError with gpuimg's (the CLI's)
message; file problems raise OSError subclasses naming the file."""

import os
from pathlib import Path

import numpy as np
import pytest

import gpuimg
from conftest import SAMPLES

IMG = np.zeros((6, 5, 3), np.uint8)


@pytest.mark.parametrize("call,kind,words", [
    (lambda: gpuimg.blur(IMG, sigma=0), ValueError, "sigma '0': must be greater than 0"),
    (lambda: gpuimg.blur(IMG, sigma=float("nan")), ValueError, "not a finite number"),
    (lambda: gpuimg.blur(IMG, sigma="2"), TypeError, "sigma must be a number"),
    (lambda: gpuimg.blur(IMG, radius=1025), ValueError, "must be an integer from 0 to 1024"),
    (lambda: gpuimg.blur(IMG, radius=2.5), TypeError, "radius must be an integer"),
    (lambda: gpuimg.blur(IMG, sigma=400), ValueError, "needs a radius over 1024; give radius"),
    (lambda: gpuimg.blur(IMG, kernel="median"), ValueError, "expected gaussian or box"),
    (lambda: gpuimg.blur(IMG, border="bounce"), ValueError,
     "expected zero, replicate, reflect, mirror or wrap"),
    (lambda: gpuimg.blur(IMG, border=3), TypeError, "border must be a str"),
    (lambda: gpuimg.blur(IMG, border_value=256), ValueError, "from 0 to 255"),
    (lambda: gpuimg.sobel(IMG, scale=-1), ValueError, "must not be negative"),
    (lambda: gpuimg.sobel(IMG, threshold=float("inf")), ValueError, "not a finite number"),
    (lambda: gpuimg.rotate(IMG, 45), ValueError, "'45' is not one of the choices"),
    (lambda: gpuimg.flip(IMG, "x"), ValueError, "'x' is not one of the choices"),
    (lambda: gpuimg.hist(IMG, bins=0), ValueError, "from 1 to 65536"),
    (lambda: gpuimg.hist(IMG, bins=257), ValueError, "must be 1..256 for an 8-bit image"),
    (lambda: gpuimg.convolve(IMG, [[1, 2]]), ValueError, "width and height must be odd"),
    (lambda: gpuimg.convolve(IMG, np.ones((33, 33))), ValueError, "at most 31x31"),
    (lambda: gpuimg.convolve(IMG, [[0, 0, 0]], normalize=True), ValueError, "sum"),
    (lambda: gpuimg.convolve(IMG, "1 2; 3"), ValueError, "rows have different lengths"),
    (lambda: gpuimg.convolve(IMG, "nosuchmask"), ValueError, "no such file, and not a mask"),
    (lambda: gpuimg.convolve(IMG, [[1e12]]), ValueError, ""),
    (lambda: gpuimg.pipe(IMG, "blur --sigma 0"), ValueError,
     "pipe: step 1 (blur): --sigma '0': must be greater than 0"),
    (lambda: gpuimg.pipe(IMG, "blur | median"), ValueError, "no image command 'median'"),
    # size is both sides: with width or height one would be dropped (the
    # CLI refuses --size with --width alike)
    (lambda: gpuimg.resize(IMG, width=3, size="10x5"), ValueError,
     "give size or width/height, not both"),
    (lambda: gpuimg.pipe(IMG, "resize --size 10x5 --height 3"), ValueError,
     "give size or width/height, not both"),
    # fit says how a box is filled: with one side or a scale it would be
    # ignored, and is refused, as the CLI's --fit is
    (lambda: gpuimg.resize(IMG, width=3, fit="cover"), ValueError,
     "fit 'cover' needs both sides: width and height, or size"),
    (lambda: gpuimg.resize(IMG, scale=0.5, fit="inside"), ValueError,
     "fit 'inside' needs both sides: width and height, or size"),
    (lambda: gpuimg.pipe(IMG, "resize --height 3 --fit fill"), ValueError,
     "fit 'fill' needs both sides: width and height, or size"),
    (lambda: gpuimg.pipe(IMG, "hist | blur"), ValueError, "hist can only be the last step"),
    (lambda: gpuimg.pipe(IMG, "blur --radius"), ValueError, "option '--radius' needs a value"),
    (lambda: gpuimg.pipe(IMG, "blur --radius x"), ValueError,
     "pipe: step 1 (blur): --radius 'x': must be an integer from 0 to 1024"),
    (lambda: gpuimg.pipe(IMG, "blur --bogus 1"), ValueError, "unknown option '--bogus'"),
    (lambda: gpuimg.pipe(IMG, "rotate"), ValueError, "missing angle"),
    (lambda: gpuimg.pipe(IMG, "blur 'x"), ValueError, "an unclosed quote"),
    (lambda: gpuimg.pipe(IMG, "blur | | sobel"), ValueError, "step 2 is empty"),
    (lambda: gpuimg.pipe(IMG, " | ".join(["flip h"] * 17)), ValueError, "a chain has 1..16"),
    (lambda: gpuimg.pipe(IMG, 5), TypeError, "steps must be a str"),
    (lambda: gpuimg.blur(IMG.astype(np.float32)), TypeError, "expected a uint8 or uint16 image"),
    (lambda: gpuimg.blur("photo.jpg"), TypeError,
     "'photo.jpg' is a file name, not an image: pass an array; load a file with gpuimg.load(path)"),
    (lambda: gpuimg.pipe(Path("photo.jpg"), "blur"), TypeError, "gpuimg.load(path)"),
    (lambda: gpuimg.save("photo.jpg", "out.png"), TypeError, "gpuimg.load(path)"),
    (lambda: gpuimg.blur(np.zeros((4, 4, 5), np.uint8)), ValueError, "1 to 4 channels"),
    (lambda: gpuimg.blur(np.zeros((4,), np.uint8)), ValueError, "(height, width)"),
    (lambda: gpuimg.blur(np.zeros((0, 4), np.uint8)), ValueError, "has no pixels"),
    (lambda: gpuimg.blur(IMG, device="tpu"), ValueError, "expected auto, cpu, cuda or cuda:N"),
    (lambda: gpuimg.compare(IMG, IMG[:, :4]), ValueError, "expected is 5x6 with 3 channels"),
    (lambda: gpuimg.compare(IMG, IMG, tolerance=300), ValueError, "0..255 for 8-bit images"),
    (lambda: gpuimg.compare(IMG, IMG, tolerance=65536), ValueError, "from 0 to 65535"),
    (lambda: gpuimg.compare(IMG, IMG, max_different="x%"), ValueError, "percentage"),
    (lambda: gpuimg.save(IMG, "x.png", quality=0), ValueError, "from 1 to 100"),
    (lambda: gpuimg.save(IMG, "x.png", png_level=13), ValueError, "from 1 to 12"),
    (lambda: gpuimg.save(IMG, "x.png", png_filter="best"), ValueError, "expected auto, none"),
    (lambda: gpuimg.save(IMG, "x.png", format="gif"), ValueError, "expected png, jpeg"),
    (lambda: gpuimg.save(IMG, "x.tif", tiff_compression="lzw"), ValueError,
     "expected deflate or none"),
    (lambda: gpuimg.Context("gpu"), ValueError, "expected auto, cpu, cuda or cuda:N"),
    (lambda: gpuimg.save(IMG, "x.png", metadata=5), TypeError, "gpuimg.Metadata or None"),
])
def test_bad_arguments(call, kind, words):
    with pytest.raises(kind) as e:
        call()
    assert words in str(e.value)


def test_missing_file():
    with pytest.raises(FileNotFoundError) as e:
        gpuimg.load("/nonexistent/dir/in.png")
    assert "/nonexistent/dir/in.png" in str(e.value)


def test_not_an_image(tmp_path):
    p = tmp_path / "text.png"
    p.write_text("not a png")
    with pytest.raises(gpuimg.DecodeError) as e:
        gpuimg.load(p)
    assert isinstance(e.value, OSError) and "text.png" in str(e.value)


def test_unsupported_kind_of_file(tmp_path):
    """A file of a kind gpuimg does not read is a DecodeError (an OSError)
    naming the file and the property, as a file that is no image is: a PAM
    of 5 channels here (any build), a CMYK TIFF where libtiff is built in."""
    p = tmp_path / "five.pam"
    p.write_bytes(b"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n" + bytes(5))
    with pytest.raises(gpuimg.DecodeError) as e:
        gpuimg.load(p)
    assert isinstance(e.value, OSError) and "five.pam" in str(e.value) and "DEPTH 5" in str(e.value)


def test_directory(tmp_path):
    with pytest.raises(IsADirectoryError):
        gpuimg.load(tmp_path)
    with pytest.raises(IsADirectoryError):
        gpuimg.save(IMG, tmp_path, format="png")


def test_save_into_missing_folder(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        gpuimg.save(IMG, tmp_path / "no" / "out.png")
    assert "out.png" in str(e.value)
    assert not (tmp_path / "no").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and writes everything")
def test_permission(tmp_path):
    p = tmp_path / "locked.png"
    gpuimg.save(IMG, p)
    p.chmod(0)
    with pytest.raises(PermissionError):
        gpuimg.load(p)


def test_format_contradicting_the_name(tmp_path):
    # format= names a format where the name cannot (the CLI's --format): a
    # name saying another is refused, not given JPEG bytes under .png
    with pytest.raises(ValueError, match="x.png: format 'jpeg' contradicts the name"):
        gpuimg.save(IMG, tmp_path / "x.png", format="jpeg")
    with pytest.raises(ValueError, match="x.tif: format 'png' contradicts the name"):
        gpuimg.batch([SAMPLES / "scene.png"], [tmp_path / "x.tif"], "flip h", format="png")
    assert not list(tmp_path.iterdir())
    gpuimg.save(IMG, tmp_path / "x.ppm", format="pnm")  # ppm, pgm and pnm are one format
    assert gpuimg.load(tmp_path / "x.ppm").shape == IMG.shape


def test_save_needs_a_format(tmp_path):
    with pytest.raises(ValueError) as e:
        gpuimg.save(IMG, tmp_path / "out.unknown")
    # Python's ways to name the format, not the CLI's option
    assert "out.unknown: cannot tell the format from the name" in str(e.value)
    assert "format=" in str(e.value) and "--format" not in str(e.value)
    assert not list(tmp_path.iterdir())
    gpuimg.save(IMG, tmp_path / "out.unknown", format="png")
    assert gpuimg.load(tmp_path / "out.unknown").shape == IMG.shape


def test_cuda_absent_is_a_device_error():
    ok, why = gpuimg.cuda_available()
    if ok:
        pytest.skip("a GPU is here")
    with pytest.raises(gpuimg.DeviceError):
        gpuimg.blur(IMG, device="cuda")
    with pytest.raises(gpuimg.DeviceError):
        gpuimg.Context("cuda")


def test_closed_context():
    ctx = gpuimg.Context("cpu")
    ctx.close()
    ctx.close()
    with pytest.raises(ValueError, match="closed"):
        ctx.blur(IMG)


def test_sample_loads_after_errors():
    assert gpuimg.load(SAMPLES / "scene.png").shape == (48, 64, 3)



_COMMAND = {"blur": gpuimg._c.OP_BLUR, "sobel": gpuimg._c.OP_SOBEL,
            "resize": gpuimg._c.OP_RESIZE, "hist": gpuimg._c.OP_HIST}


def _bad_value(p):
    """A value the table refuses for parameter p, as typed and for Python."""
    if p["type"] == "choice":
        return "bogus", "bogus"
    if p["type"] == "int":
        return str(int(p["max"]) + 1), int(p["max"]) + 1
    if p["min"] >= 0:
        return "-1", -1.0
    return "abc", None  # any number goes: only words are refused


@pytest.mark.parametrize("command", sorted(_COMMAND))
def test_option_messages_are_the_tables(command, cli):
    """The library's table of parameters decides a bad value's message, and
    the CLI, pipe() and the keyword arguments all say it."""
    kind = _COMMAND[command]
    options = [p for p in gpuimg._c.op_params(kind) if p["form"] == "option"]
    assert options, command
    for p in options:
        if p["type"] == "flag":
            continue
        typed, value = _bad_value(p)
        # resize's fit and filter are read with a size only
        extra = ["--scale", "2"] if p["name"] in ("fit", "filter") else []
        r = cli(command, *extra, f"--{p['name']}", typed, "in.png", "out.png", check=False)
        assert r.returncode == 2, (command, p["name"], r.stderr)
        first = r.stderr.splitlines()[0]
        prefix = f"gpuimg {command}: --"
        assert first.startswith(prefix), first
        message = first[len(prefix):]
        assert message.startswith(f"{p['name']} '{typed}': "), message
        with pytest.raises(ValueError) as e:
            gpuimg.pipe(IMG, " ".join([command, *extra, f"--{p['name']}", typed]))
        assert str(e.value).endswith(f"--{message}"), (str(e.value), message)
        if value is not None:
            kwargs = {"scale": 2} if extra else {}
            with pytest.raises(ValueError) as e:
                getattr(gpuimg, command)(IMG, **kwargs, **{p["name"]: value})
            assert str(e.value) == message.replace(f"'{typed}'", f"'{value}'"), str(e.value)
