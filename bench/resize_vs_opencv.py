#!/usr/bin/env python3
"""resize_vs_opencv.py [PHOTO [THREADS]]: gpuimg.resize on the CPU against
cv2.resize on a 9 MP RGB photo (default ../shared/photos/the-mouse.jpg) to
a third and to double, each filter against its nearest OpenCV
interpolation, medians of 15 calls of each in turn after a warm-up,
THREADS threads each (default 2): wall time, and the CPU time of all the
process's threads (which other work on a shared machine barely moves).
Not run by the test suites."""
import statistics
import sys
import time

import cv2
import gpuimg

img = gpuimg.load(sys.argv[1] if len(sys.argv) > 1 else "../shared/photos/the-mouse.jpg")
h, w = img.shape[:2]
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
cv2.setNumThreads(threads)


def t(fs, n=15):
    """Median wall and CPU seconds of each of the functions fs, called in
    turn n times after a pause (the other library's threads, which spin a
    while after their work, go to sleep) and a warm-up of each: call by
    call, so that a shared machine's drift reaches both alike."""
    time.sleep(0.05)
    for f in fs:
        f()
    walls, cpus = [[] for _ in fs], [[] for _ in fs]
    for _ in range(n):
        for i, f in enumerate(fs):
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
        print(f"{name:6s} {flt:8s} wall gpuimg {g[0]*1000:7.1f} ms cv2 {c[0]*1000:7.1f} ms "
              f"gpuimg/cv2 {g[0]/c[0]:5.2f} | cpu gpuimg {g[1]*1000:7.1f} ms cv2 {c[1]*1000:7.1f} ms "
              f"gpuimg/cv2 {g[1]/c[1]:5.2f}")
