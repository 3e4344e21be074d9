#!/usr/bin/python3
"""gpuimg's CPU backend against OpenCV, operation by operation, in one run.

Prints a table: for each operation and channel count, the median
time of `gpuimg bench --device cpu` next to the median time of the same work
in OpenCV (python3-opencv) with the same thread count, and their ratio
(gpuimg / cv2: below 1 means gpuimg is faster). Each cell alternates
gpuimg and cv2 for --rounds rounds of --reps runs and reports the median of
the rounds' medians, so both see the same load on a shared machine.

    bench/cpu_vs_opencv.py [--gpuimg build/cmd/gpuimg] [--threads 2]
                           [--size 3840x2400] [--reps 7] [--rounds 3]
                           [--ops blur,sobel,...] [--depth 8|16]

--depth 16 times 16-bit images (cv2's CV_16U arrays), and each cell also
gives gpuimg's time for the same operation at 8 bits and the ratio of the
two (16-bit / 8-bit).

What cv2 does for each row:
  blur       GaussianBlur, 13x13 (radius 6), sigma 2, BORDER_REFLECT_101
             (gpuimg's mirror); for 2 and 4 channels gpuimg also premultiplies
  sobel      two CV_32F Sobels, magnitude, convertScaleAbs (16 bits: the
             magnitude capped at 65535 and cast, gpuimg's saturation)
  transpose  cv2.transpose
  hist       calcHist of every channel, 256 bins (16 bits: spanning 0..65535)
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("cpu_vs_opencv.py: needs OpenCV's Python module (apt-get install python3-opencv)")

LABELS = {"blur": "blur sigma 2, mirror", "sobel": "sobel magnitude",
          "transpose": "transpose", "hist": "hist 256"}


def cv2_work(op, img, channels):
    """A function running op on img the way the table's note describes."""
    wide = img.dtype == np.uint16
    if op == "blur":
        return lambda: cv2.GaussianBlur(img, (13, 13), 2.0, borderType=cv2.BORDER_REFLECT_101)
    if op == "sobel":
        def sobel():
            gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3, borderType=cv2.BORDER_REFLECT_101)
            gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3, borderType=cv2.BORDER_REFLECT_101)
            m = cv2.magnitude(gx, gy)
            if wide:
                return cv2.min(m, 65535.0).astype(np.uint16)
            return cv2.convertScaleAbs(m)
        return sobel
    if op == "transpose":
        return lambda: cv2.transpose(img)
    if op == "hist":
        top = 65536 if wide else 256
        return lambda: [cv2.calcHist([img], [c], None, [256], [0, top]) for c in range(channels)]
    raise ValueError(op)


def cv2_ms(op, img, channels, reps):
    work = cv2_work(op, img, channels)
    work()  # warm-up, as gpuimg bench's
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def gpuimg_ms(exe, op, width, height, channels, reps, threads, depth=8):
    out = subprocess.run([exe, "bench", "--device", "cpu", "-j", str(threads), "--op", op,
                          "--channels", str(channels), "--size", f"{width}x{height}",
                          "--depth", str(depth), "-n", str(reps), "--warmup", "1", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["rows"][0]["ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpuimg", default="build/cmd/gpuimg")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--size", default="3840x2400")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ops", default="blur,sobel,transpose,hist")
    ap.add_argument("--channels", default="1,3,4")
    ap.add_argument("--depth", type=int, choices=(8, 16), default=8)
    a = ap.parse_args()
    width, height = (int(v) for v in a.size.split("x"))
    chans = [int(c) for c in a.channels.split(",")]
    cv2.setNumThreads(a.threads)
    wide = a.depth == 16
    print(f"{a.size}, {a.depth} bits, {a.threads} threads, median of {a.rounds} alternating rounds "
          f"of {a.reps} runs; gpuimg / cv2 {cv2.__version__} ms (ratio; below 1: gpuimg faster)"
          + ("; then gpuimg at 8 bits ms (16-bit / 8-bit)" if wide else "") + "\n")
    print("| op | " + " | ".join(f"{c} ch" for c in chans) + " |")
    print("| --- |" + " --- |" * len(chans))
    worst = 0.0
    for op in a.ops.split(","):
        cells = []
        for ch in chans:
            shape = (height, width) if ch == 1 else (height, width, ch)
            rng = np.random.default_rng(1)
            img = (rng.integers(1, 65536, size=shape, dtype=np.uint16) if wide
                   else rng.integers(1, 256, size=shape, dtype=np.uint8))
            rounds = [(gpuimg_ms(a.gpuimg, op, width, height, ch, a.reps, a.threads, a.depth),
                       cv2_ms(op, img, ch, a.reps),
                       gpuimg_ms(a.gpuimg, op, width, height, ch, a.reps, a.threads) if wide else 0)
                      for _ in range(a.rounds)]
            g = statistics.median(r[0] for r in rounds)
            c = statistics.median(r[1] for r in rounds)
            worst = max(worst, g / c)
            cell = f"{g:.1f} / {c:.1f} ({g / c:.2f}x)"
            if wide:
                g8 = statistics.median(r[2] for r in rounds)
                cell += f"; {g8:.1f} ({g / g8:.2f}x)"
            cells.append(cell)
        print(f"| {LABELS.get(op, op)} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nworst ratio {worst:.2f}x")


if __name__ == "__main__":
    main()
