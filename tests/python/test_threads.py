"""Calls from several threads at once: each result equals the same call
made alone, on the module's pooled contexts and on one shared Context; and
the GIL is really released (threads overlap inside the library)."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import gpuimg
from conftest import random_image

CALLS = [
    lambda a: gpuimg.blur(a, sigma=2.5, border="wrap"),
    lambda a: gpuimg.sobel(a, gray=True),
    lambda a: gpuimg.pipe(a, "blur -s 1 | rotate 90 | convolve -k '1 2 1; 2 4 2; 1 2 1' -n"),
    lambda a: gpuimg.hist(a, bins=32),
    lambda a: gpuimg.compare(a, gpuimg.blur(a)).different_pixels,
]


def test_many_threads_same_results(rng):
    images = [random_image(rng, int(rng.integers(1, 200)), int(rng.integers(1, 200)),
                           int(rng.integers(0, 5))) for _ in range(24)]
    jobs = [(f, a) for a in images for f in CALLS]
    alone = [f(a) for f, a in jobs]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda job: job[0](job[1]), jobs * 3))
    for i, got in enumerate(together):
        np.testing.assert_array_equal(got, alone[i % len(jobs)], err_msg=f"job {i % len(jobs)}")


def test_shared_context(rng):
    ctx = gpuimg.Context("cpu", threads=2)
    a = random_image(rng, 300, 200, 3)
    want = gpuimg.blur(a, sigma=3)
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: ctx.blur(a, sigma=3), range(24)))
    for r in results:
        np.testing.assert_array_equal(r, want)
    ctx.close()


def test_gil_released(rng):
    """While one thread is inside a long blur, another keeps running Python."""
    ctx = gpuimg.Context("cpu", threads=1)

    def ticks_during(a):
        done = threading.Event()
        ticks = []

        def count():
            while not done.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0.001)

        t = threading.Thread(target=count)
        t.start()
        start = time.perf_counter()
        ctx.blur(a, sigma=40)
        end = time.perf_counter()
        done.set()
        t.join()
        return end - start, [x for x in ticks if start < x < end]

    # the blur must last long enough to count ticks in: a larger image on
    # a faster machine (1500^2 took 0.047 s on one)
    side = 1500
    a = random_image(rng, side, side, 3)
    ctx.blur(a, sigma=1)  # warm
    took, inside = ticks_during(a)
    while took <= 0.05 and side < 6000:
        side *= 2
        a = random_image(rng, side, side, 3)
        took, inside = ticks_during(a)
    assert took > 0.05
    assert len(inside) >= 3, f"{len(inside)} ticks during a {took:.3f} s call"
