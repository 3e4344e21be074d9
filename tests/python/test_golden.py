"""The golden cases (tests/golden/cases.txt) through the package: each
image case's command run as pipe() on the sample equals the frozen
output. And a golden test written as a user would write one."""

import shlex

import numpy as np
import pytest

import gpuimg
from gpuimg.testing import assert_images_equal
from conftest import GOLDEN, SAMPLES


def _cases():
    for line in (GOLDEN / "cases.txt").read_text().splitlines():
        words = shlex.split(line, comments=True)
        if len(words) >= 3 and words[0].endswith(".png") and words[1].endswith((".png", ".jpg")):
            yield pytest.param(words[0], words[1], words[2:], id=words[0])


def _python_steps(words):
    """A golden command as pipe() takes it: paths in --kernel are the CLI's,
    relative to samples/."""
    out = []
    for w in words:
        if w.startswith("../"):
            w = str((SAMPLES / w).resolve())
        out.append(shlex.quote(w))
    return " ".join(out)


@pytest.mark.parametrize("golden,source,words", list(_cases()))
def test_golden_case(golden, source, words):
    if words[0] not in ("blur", "sobel", "convolve", "transpose", "rotate", "flip", "pipe"):
        pytest.skip(f"{words[0]} is not an image operation")
    img = gpuimg.load(SAMPLES / source, auto_orient=words[0] in ("transpose", "rotate", "flip"))
    steps = words[1] if words[0] == "pipe" else _python_steps(words)
    assert_images_equal(GOLDEN / golden, gpuimg.pipe(img, steps))


# ---- the example of docs/python.md, as a user writes it

def test_blur_matches_golden(tmp_path):
    img = gpuimg.load(SAMPLES / "alpha.png")
    out = gpuimg.blur(img, sigma=2, border="mirror")
    assert_images_equal(GOLDEN / "blur-s2-mirror.png", out, diff_path=tmp_path / "diff.png")


def test_assert_images_equal_says_where(tmp_path):
    img = gpuimg.load(SAMPLES / "scene.png")
    bad = img.copy()
    bad[5, 7] = bad[5, 7] ^ 0x40
    bad[30, 2, 1] += 3
    with pytest.raises(AssertionError) as e:
        assert_images_equal(img, bad, diff_path=tmp_path / "diff.png")
    msg = str(e.value)
    assert "2 pixels" in msg and "(x 7, y 5)" in msg and "(x 2, y 30)" in msg, msg
    diff = gpuimg.load(tmp_path / "diff.png")
    assert diff.shape == img.shape[:2] + (3,)
    assert tuple(diff[5, 7]) == (128 + 0x40 // 2, 0, 0)
    assert_images_equal(img, bad, tolerance=3, max_different=1)  # within both
    with pytest.raises(AssertionError, match="shape"):
        assert_images_equal(img, img[:, :-1])
    assert_images_equal(img, bad, max_different="1%")


def test_assert_images_equal_at_16_bits(tmp_path, cli):
    """uint16: the values named as they are, the diff picture the CLI's
    (compare --diff-dir): 16-bit samples scaled by 255 / 65535 for it."""
    img = (np.arange(6 * 5 * 3, dtype=np.uint32).reshape(6, 5, 3) * 719 % 65536).astype(np.uint16)
    img[1, 2] = 40000
    bad = img.copy()
    bad[1, 2, 0] = 0
    bad[4, 3, 2] ^= 0x8000
    with pytest.raises(AssertionError) as e:
        assert_images_equal(img, bad, tolerance=300, diff_path=tmp_path / "diff.png")
    msg = str(e.value)
    assert "(x 2, y 1): expected [40000, 40000, 40000], actual [0, 40000, 40000]" in msg, msg
    assert "(x 3, y 4)" in msg, msg
    for name, a in (("e", img), ("a", bad)):
        (tmp_path / name).mkdir()
        gpuimg.save(a, tmp_path / name / "x.png")
    p = cli("compare", "-q", "-r", "--tolerance", "300", "--diff-dir", tmp_path / "d",
            tmp_path / "e", tmp_path / "a", check=False)
    assert p.returncode == 1, p.stderr
    np.testing.assert_array_equal(gpuimg.load(tmp_path / "diff.png"),
                                  gpuimg.load(tmp_path / "d" / "x.png"))
