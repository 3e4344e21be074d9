#!/usr/bin/env python3
"""jpeg_vs_djpeg.py GPUIMG [-n RUNS] [--one-core CPU] FILE...

Whole-process JPEG decode: `gpuimg hist FILE OUT` against libjpeg-turbo's
`djpeg -outfile /dev/null FILE`, RUNS times each (default 9), alternated,
on one file after another. gpuimg runs twice: with one thread (`-j 1`, as
each core decodes its own file in a batch) and with its default (the
file's scans on every core). Prints per file the medians of wall time
(djpeg, gpuimg -j 1, gpuimg) and the ratios to djpeg, then the CPU-time
ratio of `-j 1` (user + system, from wait4: what the process used,
whatever else the machine runs), and their geometric means and worst
cases over the files.

--one-core CPU runs djpeg and gpuimg -j 1 under `taskset -c CPU`, so that
neither gets a second core (djpeg is single-threaded anyway); the default
gpuimg run keeps the cores the script was given (run the script itself
under taskset to choose them).
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


def geo(r):
    return math.exp(sum(math.log(x) for x in r) / len(r))


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    gpuimg, runs, pin = args.pop(0), 9, []
    while args[:1] in (['-n'], ['--one-core']):
        if args[0] == '-n':
            runs = int(args[1])
        else:
            pin = ['taskset', '-c', args[1]]
        args = args[2:]
    out = os.path.join(tempfile.mkdtemp(), 'hist.txt')
    programs = {
        'djpeg': pin + ['djpeg', '-outfile', os.devnull],
        'one': pin + [gpuimg, 'hist', '-j', '1'],
        'default': [gpuimg, 'hist'],
    }
    ratios = {'one': [], 'default': [], 'one cpu': []}
    print('%-36s %9s %11s %6s %11s %6s   %s' % ('file', 'djpeg', 'gpuimg -j1', 'ratio',
                                              'gpuimg', 'ratio', 'cpu ratio -j1'))
    for path in args:
        times = {k: [] for k in programs}
        for _ in range(runs):
            for k, argv in programs.items():
                times[k].append(run(argv + ([path] if k == 'djpeg' else [path, out])))
        wall = {k: statistics.median(w for w, _ in v) for k, v in times.items()}
        cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
        r = {'one': wall['one'] / wall['djpeg'], 'default': wall['default'] / wall['djpeg'],
             'one cpu': cpu['one'] / cpu['djpeg']}
        for k in ratios:
            ratios[k].append(r[k])
        print('%-36s %6.1f ms %8.1f ms %6.2f %8.1f ms %6.2f   %6.2f' % (
            os.path.basename(path)[:36], wall['djpeg'], wall['one'], r['one'], wall['default'],
            r['default'], r['one cpu']), flush=True)
    print('geometric mean over %d files, %d runs each: -j 1 %.2f (worst %.2f), default %.2f '
          '(worst %.2f); CPU time -j 1 %.2f (worst %.2f)' % (
              len(args), runs, geo(ratios['one']), max(ratios['one']), geo(ratios['default']),
              max(ratios['default']), geo(ratios['one cpu']), max(ratios['one cpu'])))


if __name__ == '__main__':
    main()
