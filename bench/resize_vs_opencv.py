#!/usr/bin/env python3
"""resize_vs_opencv.py [PHOTO [THREADS]]: gpuimg.resize on the CPU against
cv2.resize on a 9 MP RGB photo (default ../shared/photos/the-mouse.jpg) to
a third and to double, each filter against its nearest OpenCV
interpolation, medians of 21 calls of each (three rounds in turn of a
warm-up and 7 calls), THREADS threads each (default 2): wall time, and the
CPU time of all the process's threads (which other work on a shared
machine barely moves). Not run by the test suites."""
import statistics
import sys
import time

import cv2
import gpuimg

img = gpuimg.load(sys.argv[1] if len(sys.argv) > 1 else "../shared/photos/the-mouse.jpg")
h, w = img.shape[:2]
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
cv2.setNumThreads(threads)


def t(fs, rounds=3, n=7):
    """Median wall and CPU seconds of each of the functions fs: in turn,
    rounds times, each a pause (the other library's threads, which spin a
    while after their work, go to sleep), a warm-up and n calls back to
    back. Calls of the two interleaved one by one would measure each
    library's threads waking beside the other's still spinning (on the
    H200 machine's 16 threads a third with linear took 1.03 ms right after
    a cv2 call, 0.58 ms after its own); rounds spread a shared machine's
    drift over both alike."""
    walls, cpus = [[] for _ in fs], [[] for _ in fs]
    for _ in range(rounds):
        for i, f in enumerate(fs):
            time.sleep(0.05)
            f()
            for _ in range(n):
                a, b = time.perf_counter(), time.process_time()
                f()
                walls[i].append(time.perf_counter() - a)
                cpus[i].append(time.process_time() - b)
    return [(statistics.median(w), statistics.median(c)) for w, c in zip(walls, cpus)]


ctx = gpuimg.Context("cpu", threads=threads)
for name, (ow, oh) in {"third": (w // 3, h // 3), "double": (w * 2, h * 2)}.items():
    for flt, interp in [("area", cv2.INTER_AREA), ("linear", cv2.INTER_LINEAR), ("cubic", cv2.INTER_CUBIC), ("lanczos3", cv2.INTER_LANCZOS4)]:
        g, c = t([lambda: gpuimg.resize(img, width=ow, height=oh, fit="fill", filter=flt, device=ctx),
                  lambda: cv2.resize(img, (ow, oh), interpolation=interp)])
        print(f"{name:6s} {flt:8s} wall gpuimg {g[0]*1000:7.2f} ms cv2 {c[0]*1000:7.2f} ms "
              f"gpuimg/cv2 {g[0]/c[0]:5.2f} | cpu gpuimg {g[1]*1000:7.2f} ms cv2 {c[1]*1000:7.2f} ms "
              f"gpuimg/cv2 {g[1]/c[1]:5.2f}")
