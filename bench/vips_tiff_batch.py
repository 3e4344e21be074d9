#!/usr/bin/env python3
"""vips_tiff_batch.py COMPRESSION JOBS OUTDIR FILE...

The folder batch a pyvips user writes for TIFFs: a process pool of JOBS
workers, each file read, blurred (gaussblur 2, its default precision) and
written by tiffsave with COMPRESSION (none, as tiffsave defaults, or
deflate with the horizontal predictor, as gpuimg writes). A benchmark
peer for bench/folder_vs_peers.py, not run by the test suites."""
import os
import sys
from multiprocessing import Pool

compression, jobs, outdir, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]


def one(f):
    import pyvips
    im = pyvips.Image.new_from_file(f, access="sequential").gaussblur(2)
    out = os.path.join(outdir, os.path.basename(f))
    if compression == "deflate":
        im.tiffsave(out, compression="deflate", predictor="horizontal")
    else:
        im.tiffsave(out)


if __name__ == "__main__":
    if compression not in ("none", "deflate"):
        sys.exit("vips_tiff_batch.py: COMPRESSION is none or deflate, not %r" % compression)
    os.environ.setdefault("VIPS_CONCURRENCY", "1")
    with Pool(jobs) as p:
        p.map(one, files, chunksize=1)
