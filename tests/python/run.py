"""meson test's entry to pytest: exit 77 (skipped) without numpy or pytest,
else pytest's status over the files named (with the build's package first
on sys.path: PYTHONPATH is set by tests/python/meson.build).

Each run has a temporary folder of its own (--basetemp), removed after it.
pytest's shared /tmp/pytest-of-USER/pytest-N folders are cleaned by the
runs as they exit (the newest three kept), and in a fresh-clone CI run,
with meson running two at once, a running test lost its folder and the
inputs in it."""

import shutil
import sys
import tempfile

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print(f"skip: {e}")
    sys.exit(77)

own = tempfile.mkdtemp(prefix="gpuimg-pytest-")
try:
    status = pytest.main(["-q", "-p", "no:cacheprovider", "-rs", f"--basetemp={own}/t",
                          *sys.argv[1:]])
finally:
    shutil.rmtree(own, ignore_errors=True)
sys.exit(status)
