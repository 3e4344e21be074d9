"""meson test's entry to pytest: exit 77 (skipped) without numpy or pytest,
else pytest's status over the files named (with the build's package first
on sys.path: PYTHONPATH is set by tests/python/meson.build)."""

import sys

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print(f"skip: {e}")
    sys.exit(77)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs", *sys.argv[1:]]))
