#!/usr/bin/env python3
"""The GPU codec peer: nvImageCodec decoding JPEG files into device memory.

    nvimgcodec_decode.py [--backend hw|hybrid|cuda] [-r ROUNDS] FILE...

Reads the files into memory, decodes them once to warm the decoder (its
first batch costs 1.6-2.3 s), then times ROUNDS batched decodes of all of
them into device memory (RGB, interleaved) and prints the best and median
images/s. hw: the GPU's hardware JPEG engines; hybrid: Huffman on the CPU,
the rest on the GPU; cuda: all on the GPU's cores.

Needs `pip install nvidia-nvimgcodec-cu13` and CuPy (for the device
synchronisation), and nvJPEG on LD_LIBRARY_PATH (/usr/local/cuda/lib64).
gpuimg's side of the comparison is docs/performance.md's: `gpuimg hist
--device cuda` over the same files, whose JPEGs decode into device memory
and are read once by the histogram kernel.
"""
import argparse
import statistics
import sys
import time

import cupy as cp
from nvidia import nvimgcodec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=["hw", "hybrid", "cuda"], default="hw")
    ap.add_argument("-r", "--rounds", type=int, default=3)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    kind = {"hw": nvimgcodec.BackendKind.HW_GPU_ONLY,
            "hybrid": nvimgcodec.BackendKind.HYBRID_CPU_GPU,
            "cuda": nvimgcodec.BackendKind.GPU_ONLY}[a.backend]
    data = []
    for f in a.files:
        with open(f, "rb") as fh:
            data.append(fh.read())
    dec = nvimgcodec.Decoder(backends=[nvimgcodec.Backend(kind)])
    warm = dec.decode(data)
    cp.cuda.runtime.deviceSynchronize()
    if any(im is None for im in warm):
        sys.exit("nvimgcodec: some files did not decode")
    del warm
    rates = []
    for _ in range(a.rounds):
        t0 = time.perf_counter()
        imgs = dec.decode(data)
        cp.cuda.runtime.deviceSynchronize()
        rates.append(len(data) / (time.perf_counter() - t0))
        del imgs
    print(f"nvimgcodec {a.backend}: {len(data)} files, best {max(rates):.0f} images/s, "
          f"median {statistics.median(rates):.0f}")


if __name__ == "__main__":
    main()
