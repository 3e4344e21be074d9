#!/usr/bin/env python3
"""thumbnail_vs_peers.py [-r ROUNDS] [-j N] [-s SIZE] [--gpuimg PATH] FILE...

Times a folder of photos made into SIZE-pixel JPEG thumbnails (the box
SIZE x SIZE, aspect kept, quality 90) by gpuimg and by its peers, as
their users run them:
  gpuimg   `gpuimg thumbnail --size SIZE -q -o OUT FILE...` (one process;
           its own threads, -j N)
  pyvips   pyvips.Image.thumbnail (libvips's shrink-on-load) in a pool of N
  pillow   Image.draft (libjpeg's scaled decoding), then thumbnail with
           LANCZOS, in a pool of N
  cv2      cv2.imread with IMREAD_REDUCED_COLOR_2/4/8 where it keeps the
           box covered, then cv2.resize with INTER_AREA, in a pool of N
A peer whose module is missing is left out (one line says so). The tools
run in turn, ROUNDS times (default 3), alternated, so a slower minute of
the machine falls on each alike. Prints each one's best and median wall
time and its ratio to gpuimg's (above 1: gpuimg is faster). Not run by
the test suites: a benchmark for the machine it runs on."""
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SIZE = 256


def out_name(out, path):
    return os.path.join(out, os.path.splitext(os.path.basename(path))[0] + ".jpg")


def pyvips_one(job):
    import pyvips
    path, out = job
    pyvips.Image.thumbnail(path, SIZE).write_to_file(out_name(out, path), Q=90)


def pillow_one(job):
    from PIL import Image
    path, out = job
    with Image.open(path) as im:
        im.draft("RGB", (SIZE, SIZE))
        im = im.convert("RGB")
        im.thumbnail((SIZE, SIZE), Image.LANCZOS)
        im.save(out_name(out, path), quality=90)


def cv2_one(job):
    import cv2
    path, out = job
    w, h = None, None
    im = None
    for shrink, flag in ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
                         (2, cv2.IMREAD_REDUCED_COLOR_2), (1, cv2.IMREAD_COLOR)):
        im = cv2.imread(path, flag)
        if im is None:
            raise RuntimeError(f"{path}: cannot read")
        h, w = im.shape[:2]
        if shrink == 1 or (w >= SIZE and h >= SIZE):
            break
    scale = SIZE / max(w, h)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    cv2.imwrite(out_name(out, path), cv2.resize(im, size, interpolation=cv2.INTER_AREA),
                [cv2.IMWRITE_JPEG_QUALITY, 90])


def available(module):
    try:
        __import__(module)
        return True
    except ImportError:
        print(f"{module}: not installed, left out")
        return False


def main(argv):
    global SIZE
    rounds, jobs, gpuimg = 3, os.cpu_count() or 1, "build/cmd/gpuimg"
    while argv and argv[0] in ("-r", "-j", "-s", "--gpuimg"):
        value = argv[1]
        if argv[0] == "-r":
            rounds = int(value)
        elif argv[0] == "-j":
            jobs = int(value)
        elif argv[0] == "-s":
            SIZE = int(value)
        else:
            gpuimg = value
        argv = argv[2:]
    files = argv
    if not files:
        sys.exit(__doc__)

    def run_gpuimg(out):
        cmd = [gpuimg, "thumbnail", "--size", str(SIZE), "-q", "-j", str(jobs), "-o", out] + files
        if subprocess.run(cmd).returncode != 0:
            sys.exit("gpuimg failed")

    def pooled(one):
        def run(out):
            with multiprocessing.Pool(jobs) as pool:
                pool.map(one, [(f, out) for f in files])
        return run

    tools = [("gpuimg", run_gpuimg)]
    for name, module, one in (("pyvips", "pyvips", pyvips_one), ("pillow", "PIL", pillow_one),
                              ("cv2", "cv2", cv2_one)):
        if available(module):
            tools.append((name, pooled(one)))
    times = {name: [] for name, _ in tools}
    for _ in range(rounds):
        for name, run in tools:
            out = tempfile.mkdtemp()
            start = time.perf_counter()
            run(out)
            times[name].append(time.perf_counter() - start)
            shutil.rmtree(out)
    print(f"{len(files)} files to {SIZE}-pixel JPEG thumbnails, {jobs} workers, best of {rounds}")
    print("%-10s %8s %8s %10s" % ("tool", "best s", "median s", "x gpuimg"))
    for name, _ in tools:
        best = min(times[name])
        print("%-10s %8.3f %8.3f %10.2f" % (name, best, statistics.median(times[name]),
                                            best / min(times["gpuimg"])))


if __name__ == "__main__":
    main(sys.argv[1:])
