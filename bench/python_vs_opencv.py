#!/usr/bin/env python3
"""The Python package against the C call and against OpenCV, in one process.

    python3 bench/python_vs_opencv.py [--threads 2] [--size 3840x2400]
                                      [--reps 7] [--rounds 3] [--cupy]

Needs gpuimg (pip install ., or PYTHONPATH=build/python) and, for the
second table, opencv-python-headless in the same Python.

1. Per-call overhead, 256x256: the median wall time of a gpuimg call from
   Python (argument checks, the result's numpy allocation, the GIL's
   release, the context's lock) minus the time the library spent in the
   operation itself (Context.last_times's kernel: gi_apply's backend call,
   timed inside the library), one CPU thread.
2. blur (sigma 2, mirror), sobel, transpose and hist (256 bins) on
   --size numpy arrays of 1 and 3 channels, gpuimg's CPU Context with
   --threads threads against cv2's Python calls under
   cv2.setNumThreads(--threads) (the calls of bench/cpu_vs_opencv.py).
   Each cell alternates the two for --rounds rounds of --reps runs and
   reports the median of the rounds' medians; ratio < 1: gpuimg faster.
3. --cupy (on a GPU machine): blur sigma 2 of a 3840x2400 RGB CuPy array
   that stays on the device, against cupyx.scipy.ndimage.gaussian_filter
   (the same 13 taps: truncate 3), and the result's bytes against
   gpuimg's CPU result.
"""

import argparse
import statistics
import time

import numpy as np

import gpuimg


def median_ms(fn, reps):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def overhead_table(reps):
    ctx = gpuimg.Context("cpu", threads=1)
    rng = np.random.default_rng(1)
    print("## per-call overhead, 256x256, 1 CPU thread (us; median of", reps, "calls)")
    print("| call | Python wall | library's own time | overhead |")
    print("| --- | ---: | ---: | ---: |")
    for channels in (1, 3):
        img = rng.integers(0, 256, (256, 256, channels), np.uint8)
        for name, call in [("transpose", lambda: ctx.transpose(img)),
                           ("flip h", lambda: ctx.flip(img, "h")),
                           ("blur sigma 1", lambda: ctx.blur(img, sigma=1)),
                           ("hist", lambda: ctx.hist(img))]:
            for _ in range(50):
                call()
            walls, inside = [], []
            for _ in range(reps):
                t = time.perf_counter()
                call()
                walls.append((time.perf_counter() - t) * 1e6)
                inside.append(ctx.last_times["kernel"] * 1e3)
            w, k = statistics.median(walls), statistics.median(inside)
            print(f"| {name}, {channels} ch | {w:.1f} | {k:.1f} | {w - k:.1f} |")
    ctx.close()


def gpuimg_call(ctx, op, img):
    return {"blur": lambda: ctx.blur(img, sigma=2), "sobel": lambda: ctx.sobel(img),
            "transpose": lambda: ctx.transpose(img), "hist": lambda: ctx.hist(img)}[op]


def opencv_table(threads, size, reps, rounds):
    import cv2

    # the very cv2 calls of the CPU backend's table (this folder's cpu_vs_opencv.py)
    from cpu_vs_opencv import cv2_work

    cv2.setNumThreads(threads)
    ctx = gpuimg.Context("cpu", threads=threads)
    w, h = map(int, size.split("x"))
    rng = np.random.default_rng(2)
    print(f"\n## {w}x{h} numpy arrays, {threads} threads, cv2 {cv2.__version__} "
          f"(ms; median of {rounds} rounds x {reps} runs, alternating)")
    print("| operation | channels | gpuimg | cv2 | gpuimg / cv2 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for op in ("blur", "sobel", "transpose", "hist"):
        for channels in (1, 3):
            img = rng.integers(0, 256, (h, w) if channels == 1 else (h, w, channels), np.uint8)
            ours, theirs = gpuimg_call(ctx, op, img), cv2_work(op, img, channels)
            ours(), theirs()
            a, b = [], []
            for _ in range(rounds):
                a.append(median_ms(ours, reps))
                b.append(median_ms(theirs, reps))
            ma, mb = statistics.median(a), statistics.median(b)
            print(f"| {op} | {channels} | {ma:.2f} | {mb:.2f} | {ma / mb:.2f} |")
    ctx.close()


def cupy_case(reps):
    import cupy
    import cupyx.scipy.ndimage as ndi

    rng = np.random.default_rng(3)
    host = rng.integers(0, 256, (2400, 3840, 3), np.uint8)
    dev = cupy.asarray(host)
    ctx = gpuimg.Context("cuda")
    want = gpuimg.blur(host, sigma=2, device="cpu")
    got = ctx.blur(dev, sigma=2)
    same = bool(np.array_equal(cupy.asnumpy(got), want))

    def timed(fn):
        fn()
        cupy.cuda.Device().synchronize()
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            fn()
            cupy.cuda.Device().synchronize()
            times.append((time.perf_counter() - t) * 1e3)
        return statistics.median(times)

    ours = timed(lambda: ctx.blur(dev, sigma=2))
    theirs = timed(lambda: ndi.gaussian_filter(dev, sigma=(2, 2, 0), mode="mirror",
                                               truncate=3.0))
    print("\n## CuPy, 3840x2400 RGB on the device, blur sigma 2 (ms, median of", reps, "runs)")
    print("| gpuimg (CuPy in, CuPy out) | cupyx gaussian_filter | speed-up | bytes == CPU's |")
    print("| ---: | ---: | ---: | --- |")
    print(f"| {ours:.3f} | {theirs:.3f} | {theirs / ours:.1f}x | {same} |")
    ctx.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--size", default="3840x2400")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--cupy", action="store_true", help="the CuPy case only (a GPU machine)")
    a = p.parse_args()
    if a.cupy:
        cupy_case(max(a.reps, 20))
        return
    overhead_table(2000)
    opencv_table(a.threads, a.size, a.reps, a.rounds)


if __name__ == "__main__":
    main()
