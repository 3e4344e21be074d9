"""Shared by the package's tests: the CLI they compare against, the
samples, and a seeded generator (GPUIMG_SEED=N replays a run)."""

import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = Path(os.environ.get("GPUIMG_SAMPLES", ROOT / "samples"))
GOLDEN = ROOT / "tests" / "golden"
CLI = os.environ.get("GPUIMG_CLI", str(ROOT / "build" / "cmd" / "gpuimg"))


def run_cli(*args, check=True):
    """gpuimg ARGS on the CPU backend; the completed process."""
    env = dict(os.environ, GPUIMG_DEVICE="cpu")
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        raise AssertionError(f"gpuimg {' '.join(map(str, args))}: exit {p.returncode}: {p.stderr}")
    return p


@pytest.fixture(scope="session")
def cli():
    if not os.access(CLI, os.X_OK):
        pytest.skip(f"no CLI at {CLI} (set GPUIMG_CLI)")
    return run_cli


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("GPUIMG_SEED", time.time_ns() % (1 << 32)))
    print(f"seed {seed} (replay with GPUIMG_SEED={seed})")
    return np.random.default_rng(seed)


def random_image(rng, h, w, c):
    shape = (h, w) if c == 0 else (h, w, c)
    return rng.integers(0, 256, size=shape, dtype=np.uint8)
