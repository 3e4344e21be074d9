#!/usr/bin/env python3
"""resize_vs_opencv.py: gpuimg.resize on the CPU against cv2.resize on a
9 MP RGB photo (../shared/photos/the-mouse.jpg) to a third and to double,
each filter against its nearest OpenCV interpolation, medians of 7 after a
warm-up, 2 threads each. Not run by the test suites."""
import statistics
import sys
import time

import cv2
import gpuimg

img = gpuimg.load(sys.argv[1] if len(sys.argv) > 1 else "../shared/photos/the-mouse.jpg")
h, w = img.shape[:2]
cv2.setNumThreads(2)


def t(f, n=7):
    f()
    xs = []
    for _ in range(n):
        a = time.perf_counter()
        f()
        xs.append(time.perf_counter() - a)
    return statistics.median(xs)


ctx = gpuimg.Context("cpu")
for name, (ow, oh) in {"third": (w // 3, h // 3), "double": (w * 2, h * 2)}.items():
    for flt, interp in [("area", cv2.INTER_AREA), ("linear", cv2.INTER_LINEAR), ("cubic", cv2.INTER_CUBIC), ("lanczos3", cv2.INTER_LANCZOS4)]:
        g = t(lambda: gpuimg.resize(img, width=ow, height=oh, fit="fill", filter=flt, device=ctx))
        c = t(lambda: cv2.resize(img, (ow, oh), interpolation=interp))
        print(f"{name:6s} {flt:8s} gpuimg {g*1000:8.1f} ms  cv2 {c*1000:8.1f} ms  gpuimg/cv2 {g/c:5.2f}")
