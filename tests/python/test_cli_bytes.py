"""Every operation and border mode (aliases too) against the CLI: the same
input file, the CLI's output file and the package's saved result compared
byte for byte, with each step given both through the keyword API and
through pipe()'s CLI text."""

import shlex

import numpy as np
import pytest

import gpuimg
from conftest import GOLDEN, SAMPLES, random_image

BORDERS = ["zero", "replicate", "reflect", "mirror", "wrap"]
ALIASES = ["constant", "clamp", "nearest", "edge", "symmetric", "reflect101", "periodic", "tile"]
SHARPEN = "0 -1 0; -1 5 -1; 0 -1 0"
MOTION = str(GOLDEN / "masks" / "motion-7x7.txt")

# (the CLI's words, the same through the keyword API)
CASES = [(f"blur --sigma 1 --border {b}", lambda a, b=b: gpuimg.blur(a, sigma=1, border=b))
         for b in BORDERS + ALIASES]
CASES += [
    ("blur", lambda a: gpuimg.blur(a)),
    ("blur --sigma 2.5 --border zero --border-value 200",
     lambda a: gpuimg.blur(a, sigma=2.5, border="zero", border_value=200)),
    ("blur --sigma 0.6 --radius 5 --border wrap",
     lambda a: gpuimg.blur(a, sigma=0.6, radius=5, border="wrap")),
    ("blur --kernel box --sigma 1.5", lambda a: gpuimg.blur(a, sigma=1.5, kernel="box")),
]
CASES += [(f"blur --kernel box --radius 3 --border {b}",
           lambda a, b=b: gpuimg.blur(a, kernel="box", radius=3, border=b)) for b in BORDERS]
CASES += [(f"sobel --border {b}", lambda a, b=b: gpuimg.sobel(a, border=b)) for b in BORDERS]
CASES += [
    ("sobel --scale 2.5 --gray", lambda a: gpuimg.sobel(a, scale=2.5, gray=True)),
    ("sobel --threshold 80", lambda a: gpuimg.sobel(a, threshold=80)),
    ("sobel --gray --threshold 60 --border zero --border-value 9",
     lambda a: gpuimg.sobel(a, gray=True, threshold=60, border="zero", border_value=9)),
]
CASES += [(f"convolve --kernel '{SHARPEN}' --border {b}",
           lambda a, b=b: gpuimg.convolve(a, SHARPEN, border=b)) for b in BORDERS]
CASES += [
    (f"convolve --kernel {MOTION} --normalize --border reflect",
     lambda a: gpuimg.convolve(a, MOTION, normalize=True, border="reflect")),
    ("convolve --kernel '1 2 1; 2 4 2; 1 2 1' --normalize --border zero --border-value 255",
     lambda a: gpuimg.convolve(a, np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]), normalize=True,
                               border="zero", border_value=255)),
    ("transpose", gpuimg.transpose),
    ("rotate 90", lambda a: gpuimg.rotate(a, 90)),
    ("rotate 180", lambda a: gpuimg.rotate(a, 180)),
    ("rotate 270", lambda a: gpuimg.rotate(a, "270")),
    ("flip h", lambda a: gpuimg.flip(a, "h")),
    ("flip v", lambda a: gpuimg.flip(a, "v")),
    ("resize --scale 0.37", lambda a: gpuimg.resize(a, scale=0.37)),
    ("resize --scale 2.5 --filter cubic", lambda a: gpuimg.resize(a, scale=2.5, filter="cubic")),
    ("resize --width 7 --filter area", lambda a: gpuimg.resize(a, width=7, filter="area")),
    ("resize --size 5x9 --fit fill --filter lanczos2",
     lambda a: gpuimg.resize(a, size="5x9", fit="fill", filter="lanczos2")),
    ("resize --size 6 --fit cover --filter linear",
     lambda a: gpuimg.resize(a, size=6, fit="cover", filter="linear")),
    ("resize --height 3 --filter nearest", lambda a: gpuimg.resize(a, height=3, filter="nearest")),
    ("crop 0 0 5 4", lambda a: gpuimg.crop(a, 0, 0, 5, 4)),
    ("crop --gravity centre 3 2", lambda a: gpuimg.crop(a, 3, 2, gravity="centre")),
]


@pytest.fixture(scope="session")
def inputs(tmp_path_factory):
    """The samples (RGB, RGBA, gray+alpha, gray) and random images of 1..4
    channels, odd sizes among them, as PNG files."""
    folder = tmp_path_factory.mktemp("inputs")
    paths = [SAMPLES / n for n in ("scene.png", "alpha.png", "gray_alpha.png", "edge_line.png")]
    rng = np.random.default_rng(7)
    for c, (h, w) in zip((0, 2, 3, 4, 1), ((13, 1), (1, 17), (9, 11), (31, 23), (1, 1))):
        p = folder / f"random-{c}-{h}x{w}.png"
        gpuimg.save(random_image(rng, h, w, c), p)
        paths.append(p)
    return paths


def _check(cli, tmp_path, words, python_result, src):
    """words: the CLI's, as a shell would split them, or a list."""
    cli_out, py_out = tmp_path / "cli.png", tmp_path / "py.png"
    args = shlex.split(words) if isinstance(words, str) else words
    cli(*args, src, cli_out)
    gpuimg.save(python_result, py_out)
    assert np.array_equal(gpuimg.load(cli_out), python_result), f"{words} on {src.name}: pixels"
    assert cli_out.read_bytes() == py_out.read_bytes(), f"{words} on {src.name}: file bytes"


@pytest.mark.parametrize("words,run", CASES, ids=[c[0][:60] for c in CASES])
def test_operation_equals_cli(cli, tmp_path, inputs, words, run):
    for src in inputs:
        img = gpuimg.load(src)
        _check(cli, tmp_path, words, run(img), src)
        _check(cli, tmp_path, words, gpuimg.pipe(img, words), src)


PIPES = ["blur --sigma 2 | rotate 90 | sobel --gray",
         "resize --scale 1.6 --filter cubic | crop --gravity centre 5 5 | blur",
         "convolve -k '1 1 1; 1 1 1; 1 1 1' -n --border wrap | flip v | transpose",
         "sobel -g -t 40 | blur -s 1.5 -k box --border=reflect"]


@pytest.mark.parametrize("steps", PIPES)
def test_pipe_equals_cli(cli, tmp_path, inputs, steps):
    for src in inputs:
        img = gpuimg.load(src)
        _check(cli, tmp_path, ["pipe", steps], gpuimg.pipe(img, steps), src)
        as_list = gpuimg.pipe(img, [s.strip() for s in steps.split("|")])
        assert np.array_equal(as_list, gpuimg.pipe(img, steps))


@pytest.mark.parametrize("size,crop", [("16", "none"), ("20x10", "centre"), ("100", "none")])
def test_thumbnail_equals_cli(cli, tmp_path, inputs, size, crop):
    """From a file (a JPEG shrunk on load) and from its pixels."""
    for src in [SAMPLES / "scene.jpg"] + list(inputs):
        _check(cli, tmp_path, ["thumbnail", "--size", size, "--crop", crop],
               gpuimg.thumbnail(src, size, crop=crop), src)
    img = gpuimg.load(SAMPLES / "alpha.png")
    piped = gpuimg.pipe(img, f"resize --size {size} --fit {'inside' if crop == 'none' else 'cover'}")
    if crop == "none":
        assert np.array_equal(gpuimg.thumbnail(img, size), piped)


def _cli_hist(cli, tmp_path, src, bins, pipe=None):
    out = tmp_path / "hist.csv"
    if pipe:
        cli("pipe", f"{pipe} | hist --format csv --bins {bins}", src, out)
    else:
        cli("hist", "--format", "csv", "--bins", bins, src, out)
    rows = out.read_text().strip().split("\n")[1:]
    return np.array([[int(v) for v in r.split(",")[1:]] for r in rows], dtype=np.int64).T


@pytest.mark.parametrize("bins", [256, 16, 7, 1])
def test_hist_equals_cli(cli, tmp_path, inputs, bins):
    for src in inputs:
        img = gpuimg.load(src)
        counts = gpuimg.hist(img, bins=bins)
        assert counts.dtype == np.int64 and counts.shape == (gpuimg.load(src).reshape(
            img.shape[0], img.shape[1], -1).shape[2], bins)
        assert np.array_equal(counts, _cli_hist(cli, tmp_path, src, bins)), src.name
        piped = gpuimg.pipe(img, f"blur --sigma 2 | hist --bins {bins}")
        assert np.array_equal(piped, _cli_hist(cli, tmp_path, src, bins, "blur --sigma 2"))


def _jpeg_with_orientation(path, orientation):
    """A JPEG whose Exif says `orientation` (one IFD0 entry)."""
    gpuimg.save(gpuimg.load(SAMPLES / "scene.png"), path, format="jpeg")
    tiff = (b"II*\x00" + (8).to_bytes(4, "little") + (1).to_bytes(2, "little") +
            (0x0112).to_bytes(2, "little") + (3).to_bytes(2, "little") +
            (1).to_bytes(4, "little") + orientation.to_bytes(2, "little") + b"\x00\x00" +
            (0).to_bytes(4, "little"))
    payload = b"Exif\x00\x00" + tiff
    data = path.read_bytes()
    path.write_bytes(data[:2] + b"\xff\xe1" + (len(payload) + 2).to_bytes(2, "big") + payload +
                     data[2:])


@pytest.mark.parametrize("auto_orient", [False, True])
@pytest.mark.parametrize("ext", ["jpg", "png"])
def test_metadata_through_load_and_save(cli, tmp_path, auto_orient, ext):
    src = tmp_path / "exif6.jpg"
    _jpeg_with_orientation(src, 6)
    cli("blur", "--sigma", "1.5", *(["--auto-orient"] if auto_orient else []), src,
        tmp_path / f"cli.{ext}")
    img, meta = gpuimg.load_with_metadata(src, auto_orient=auto_orient)
    assert meta.exif.startswith(b"II*\x00") and meta.orientation == (1 if auto_orient else 6)
    assert img.shape == ((64, 48, 3) if auto_orient else (48, 64, 3))
    gpuimg.save(gpuimg.blur(img, sigma=1.5), tmp_path / f"py.{ext}", metadata=meta)
    assert (tmp_path / f"py.{ext}").read_bytes() == (tmp_path / f"cli.{ext}").read_bytes()
    gpuimg.save(img, tmp_path / "plain.png")
    assert gpuimg.load_with_metadata(tmp_path / "plain.png")[1].empty
