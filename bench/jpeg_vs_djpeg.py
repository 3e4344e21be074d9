#!/usr/bin/env python3
"""jpeg_vs_djpeg.py GPUIMG [-n RUNS] FILE...

Whole-process JPEG decode: `gpuimg hist FILE OUT` against libjpeg-turbo's
`djpeg -outfile /dev/null FILE`, RUNS times each (default 9), alternated,
on one file after another. Prints per file the medians of wall time and of
CPU time (user + system, from wait4: what the process used, whatever else
the machine runs), the ratios gpuimg/djpeg, and their geometric means and
worst cases over the files.
"""
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(argv):
    """(wall ms, cpu ms) of one run; exits on failure."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1e3
    if status != 0:
        sys.exit('%s: failed: %s' % (' '.join(argv), proc.stderr.read().decode()))
    proc.stderr.close()
    return wall, (usage.ru_utime + usage.ru_stime) * 1e3


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    gpuimg, runs = args.pop(0), 9
    if args[:1] == ['-n']:
        runs = int(args[1])
        args = args[2:]
    out = os.path.join(tempfile.mkdtemp(), 'hist.txt')
    ratios_wall, ratios_cpu = [], []
    print('%-36s %9s %9s %6s   %9s %9s %6s' % ('file', 'djpeg', 'gpuimg', 'ratio',
                                              'djpeg cpu', 'gpuimg cpu', 'ratio'))
    for path in args:
        times = {'djpeg': [], 'gpuimg': []}
        for _ in range(runs):
            times['djpeg'].append(run(['djpeg', '-outfile', os.devnull, path]))
            times['gpuimg'].append(run([gpuimg, 'hist', path, out]))
        med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
               for k, v in times.items()}
        rw = med['gpuimg'][0] / med['djpeg'][0]
        rc = med['gpuimg'][1] / med['djpeg'][1]
        ratios_wall.append(rw)
        ratios_cpu.append(rc)
        print('%-36s %7.1f ms %7.1f ms %6.2f   %7.1f ms %7.1f ms %6.2f' % (
            os.path.basename(path)[:36], med['djpeg'][0], med['gpuimg'][0], rw,
            med['djpeg'][1], med['gpuimg'][1], rc))

    def geo(r):
        return math.exp(sum(math.log(x) for x in r) / len(r))
    print('geometric mean: wall %.2f (worst %.2f), cpu %.2f (worst %.2f); %d runs each' % (
        geo(ratios_wall), max(ratios_wall), geo(ratios_cpu), max(ratios_cpu), runs))


if __name__ == '__main__':
    main()
