"""batch(): files to files with the library's batch engine give the CLI's
-o DIR bytes; on_item sees every item; a bad input fails alone; an
exception in on_item stops the batch and comes out of it."""

import shutil

import pytest

import gpuimg
from conftest import SAMPLES

NAMES = ["scene.png", "alpha.png", "gray_alpha.png", "edge_line.png", "scene.jpg"]


@pytest.fixture
def inputs(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for n in NAMES:
        shutil.copy(SAMPLES / n, folder / n)
    return [folder / n for n in NAMES]


def test_batch_equals_cli(cli, tmp_path, inputs):
    steps = "blur --sigma 2 | sobel --border wrap"
    seen = []
    items = gpuimg.batch(inputs, tmp_path / "py", steps, on_item=seen.append, jobs=2)
    cli("pipe", steps, "-q", "-j", "2", "-o", tmp_path / "cli", *inputs)
    assert [i.status for i in items] == ["ok"] * len(NAMES)
    assert sorted(i.input for i in seen) == sorted(str(p) for p in inputs)
    for n in NAMES:
        assert (tmp_path / "py" / n).read_bytes() == (tmp_path / "cli" / n).read_bytes(), n
    again = gpuimg.batch(inputs, tmp_path / "py", steps, skip_existing=True)
    assert {i.status for i in again} == {"skipped"}


def test_batch_output_paths_and_options(tmp_path, inputs):
    outs = [tmp_path / f"{i}.pnm" for i in range(len(inputs))]
    items = gpuimg.batch(inputs, outs, ["rotate 90"], device="cpu", format="pnm")
    assert all(i.status == "ok" and i.backend == "cpu" for i in items)
    for src, out in zip(inputs, outs):
        want = gpuimg.rotate(gpuimg.load(src), 90)
        got = gpuimg.load(out)
        assert got.shape[:2] == want.shape[:2]


def test_bad_input_fails_alone(tmp_path, inputs):
    bad = tmp_path / "in" / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nbroken")
    items = gpuimg.batch(inputs + [bad], tmp_path / "out", "flip h")
    assert [i.status for i in items] == ["ok"] * len(NAMES) + ["failed"]
    assert "broken.png" in items[-1].reason


def test_on_item_exception_comes_out(tmp_path, inputs):
    def boom(item):
        raise RuntimeError(f"stop at {item.input}")

    with pytest.raises(RuntimeError, match="stop at"):
        gpuimg.batch(inputs, tmp_path / "out", "blur", on_item=boom, jobs=1)


def test_batch_refusals(tmp_path, inputs):
    with pytest.raises(ValueError, match="inputs but"):
        gpuimg.batch(inputs, [tmp_path / "a.png"], "blur")
    with pytest.raises(ValueError, match="hist cannot be its last step"):
        gpuimg.batch(inputs, tmp_path / "out", "hist")
    # a path for the list ran each of its characters as an input
    for one in (str(inputs[0]), inputs[0], bytes(inputs[0])):
        with pytest.raises(TypeError, match="inputs is one path"):
            gpuimg.batch(one, tmp_path / "one", "blur")
    assert not (tmp_path / "one").exists()


def test_batch_format_names_outputs_as_the_cli(cli, tmp_path, inputs):
    # -o DIR --format jpeg writes photo.png to photo.jpg; batch() wrote JPEG
    # bytes under the name photo.png
    pngs = inputs[:-1]  # scene.jpg would be scene.png's output's name too
    items = gpuimg.batch(pngs, tmp_path / "py", "resize --size 9", format="jpeg")
    cli("resize", "--size", "9", "--format", "jpeg", "-q", "-o", tmp_path / "cli", *pngs)
    assert [i.status for i in items] == ["ok"] * len(pngs)
    assert sorted(p.name for p in (tmp_path / "py").iterdir()) == \
        sorted(p.name for p in (tmp_path / "cli").iterdir())
    for item in items:
        assert item.output.endswith(".jpg"), item.output
        name = item.output.rsplit("/", 1)[-1]
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()


def test_batch_refuses_two_inputs_for_one_output(tmp_path, inputs):
    # both said "ok" and one result was lost; the library refuses the batch
    # (gi_batch_check_outputs), naming both inputs and the file
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(SAMPLES / "alpha.png", other / "scene.png")
    with pytest.raises(ValueError, match=r"other/scene.png: .*in/scene.png writes the same "
                                         r"output file, .*out/scene.png$"):
        gpuimg.batch(inputs + [other / "scene.png"], tmp_path / "out", "flip h")
    with pytest.raises(ValueError, match="writes the same output file"):
        gpuimg.batch(inputs[:2], [tmp_path / "o.png", tmp_path / "." / "o.png"], "flip h")
    (tmp_path / "link").symlink_to(tmp_path)
    with pytest.raises(ValueError, match=r"alpha.png: its output .*link/o.png is the file "
                                         r".*scene.png writes, .*/o.png$"):
        gpuimg.batch(inputs[:2], [tmp_path / "o.png", tmp_path / "link" / "o.png"], "flip h")
    with pytest.raises(ValueError, match="writes the same output file"):  # scene.png, scene.jpg
        gpuimg.batch(inputs, tmp_path / "out", "flip h", format="png")
    assert not (tmp_path / "o.png").exists()
    assert not any((tmp_path / "out").glob("*"))
