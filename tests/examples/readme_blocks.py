"""readme_blocks.py README GPUIMG SAMPLES PYTHONPATH: runs the README's
```sh and ```python blocks in order, as a user would at a shell, in a
scratch folder that holds the placeholder inputs the README names
(photo.jpg, photo.png, mask.txt, photos/*.jpg, scans/*.png; samples/ and tests/golden of
the source tree), with the built gpuimg first on PATH, the built package on
PYTHONPATH and no server (GPUIMG_SERVER=off).

Each shell command (a line, with its continuations after a trailing `\\`
or `|`) must exit 0; `gpuimg compare` may also exit 1 (different), never 2
(trouble: a file it names is missing), and no command may say "No such
file" (an `|| echo` after it would hide its status). A Python block must run without an
exception; one that defines test functions runs under pytest. Python blocks
are skipped without numpy or pytest (exit 77 when nothing ran).

What CI lacks is skipped by one rule, the table SKIPPED below: a shell line
matching a pattern there is not run (a GPU, a server, a network, the build
and test commands this test runs inside, a video). A new example that needs
such a thing goes into the table with its reason; everything else runs.

Prints one line per block and ends with "N passed, M failed"."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SKIPPED = [
    (r"^\./scripts/setup\.sh|^meson ", "builds and tests the tree this test runs in"),
    (r"\bpip install\b|\bpython3 -m venv\b", "needs a network"),
    (r"--device cuda\b", "needs a GPU"),
    (r"\bgpuimg serve\b", "starts a server (tests/serve covers it)"),
    (r"^ffmpeg\b", "needs ffmpeg and a video"),
    (r"^sbatch\b", "needs Slurm"),
]


def blocks(readme):
    """(language, first line number, text) of each ```sh and ```python block."""
    lang, start, lines = None, 0, []
    for n, line in enumerate(readme.read_text().splitlines(), 1):
        if lang is None:
            m = re.match(r"^```(sh|python)\s*$", line)
            if m:
                lang, start, lines = m.group(1), n + 1, []
        elif line.startswith("```"):
            yield lang, start, "\n".join(lines)
            lang = None
        else:
            lines.append(line)


def commands(text):
    """A shell block's commands: lines joined where they end in \\ or |."""
    cmd = ""
    for line in text.splitlines():
        cmd = f"{cmd}\n{line}" if cmd else line
        if not re.search(r"(\\|\|)\s*$", line.split(" #")[0]):
            if cmd.strip() and not cmd.lstrip().startswith("#"):
                yield cmd
            cmd = ""
    if cmd.strip():
        yield cmd


def skip_reason(cmd):
    for pattern, reason in SKIPPED:
        if re.search(pattern, cmd.strip(), re.M):
            return reason
    return None


def scratch(folder, gpuimg, samples, source_root):
    """The placeholder inputs of the README's examples."""
    shutil.copy(samples / "scene.png", folder / "photo.png")
    shutil.copy(samples / "scene.jpg", folder / "photo.jpg")
    (folder / "mask.txt").write_text("# a sharpening mask\n0 -1 0\n-1 5 -1\n0 -1 0\n")
    (folder / "photos").mkdir()
    for i, name in enumerate(["scene.png", "alpha.png", "edge_line.png"]):
        subprocess.run([gpuimg, "rotate", "180" if i else "90", samples / name,
                        folder / "photos" / f"p{i}.jpg"], check=True)
    (folder / "scans").mkdir()
    shutil.copy(samples / "scene.png", folder / "scans" / "a.png")
    os.symlink(samples, folder / "samples")
    (folder / "tests").mkdir()
    os.symlink(source_root / "tests" / "golden", folder / "tests" / "golden")


def have_python_tools(env):
    probe = subprocess.run([sys.executable, "-c", "import numpy, pytest, gpuimg"], env=env,
                           capture_output=True, text=True)
    return probe.returncode == 0, probe.stderr.strip().splitlines()[-1:] or [""]


def main():
    readme, gpuimg, samples = Path(sys.argv[1]), Path(sys.argv[2]).resolve(), Path(sys.argv[3])
    pythonpath = str(Path(sys.argv[4]).resolve()) if len(sys.argv) > 4 and sys.argv[4] else ""
    source_root = readme.resolve().parent
    env = dict(os.environ, PATH=f"{gpuimg.parent}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=pythonpath, GPUIMG_SERVER="off", PYTHONDONTWRITEBYTECODE="1")
    python_ok, why_not = have_python_tools(env) if pythonpath else (False, ["no package built"])
    passed = failed = ran = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        scratch(folder, str(gpuimg), samples.resolve(), source_root)
        for lang, line, text in blocks(readme):
            where = f"README.md:{line} ({lang})"
            if lang == "python":
                if not python_ok:
                    print(f"{where}: skipped: {why_not[0]}")
                    continue
                path = folder / f"test_readme_{line}.py"
                path.write_text(text + "\n")
                run = [sys.executable, path.name]
                if re.search(r"^def test_", text, re.M):
                    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--basetemp", str(folder / "pytest"), path.name]
                p = subprocess.run(run, cwd=folder, env=env, capture_output=True, text=True)
                ran += 1
                if p.returncode == 0:
                    passed += 1
                    print(f"{where}: ok")
                else:
                    failed += 1
                    print(f"FAIL: {where}: exit {p.returncode}\n{p.stdout}{p.stderr}")
                continue
            for cmd in commands(text):
                reason = skip_reason(cmd)
                if reason:
                    print(f"{where}: skipped ({reason}): {cmd.splitlines()[0]}")
                    continue
                p = subprocess.run(["sh", "-c", cmd], cwd=folder, env=env,
                                   capture_output=True, text=True)
                allowed = (0, 1) if re.match(r"gpuimg compare\b", cmd.strip()) else (0,)
                ran += 1
                if p.returncode in allowed and "No such file" not in p.stderr:
                    passed += 1
                    print(f"{where}: ok: {cmd.splitlines()[0]}")
                else:
                    failed += 1
                    print(f"FAIL: {where}: exit {p.returncode}: {cmd}\n{p.stderr}")
    print(f"{passed} passed, {failed} failed")
    if ran == 0:
        sys.exit(77)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
