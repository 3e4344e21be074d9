#!/usr/bin/env python3
"""folder_vs_peers.py [-r ROUNDS] [-o OUTROOT] NAME=COMMAND ... -- FILE...

Times whole commands over one folder of files, as a user runs them: each
COMMAND is a shell command with {out} for an empty output folder and
{files} for the inputs, e.g.

  gpuimg='build/cmd/gpuimg blur --sigma 2 -q -o {out} {files}'
  vips='python3 peer_batch.py vips blur 16 {out} {files}'

The commands run in turn, ROUNDS times (default 3), alternated, so a
slower minute of the machine falls on every tool alike. Prints each
one's best and median wall time and its ratio to the first command's
(time of the other / time of the first: above 1, the first is faster).
A command that fails stops the run."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main(argv):
    rounds, outroot = 3, None
    while argv and argv[0] in ("-r", "-o"):
        if argv[0] == "-r":
            rounds = int(argv[1])
        else:
            outroot = argv[1]
        argv = argv[2:]
    if "--" not in argv:
        sys.exit(__doc__)
    sep = argv.index("--")
    tools = [a.split("=", 1) for a in argv[:sep]]
    files = argv[sep + 1:]
    if not tools or not files or any(len(t) != 2 for t in tools):
        sys.exit(__doc__)
    times = {name: [] for name, _ in tools}
    quoted = " ".join("'" + f.replace("'", "'\\''") + "'" for f in files)
    for _ in range(rounds):
        for name, cmd in tools:
            out = tempfile.mkdtemp(dir=outroot)
            start = time.perf_counter()
            r = subprocess.run(cmd.format(out=out, files=quoted), shell=True)
            wall = time.perf_counter() - start
            shutil.rmtree(out)
            if r.returncode != 0:
                sys.exit("%s failed with status %d" % (name, r.returncode))
            times[name].append(wall)
    first = tools[0][0]
    print("%-18s %8s %8s %10s" % ("tool", "best s", "median s", "x " + first))
    for name, _ in tools:
        best = min(times[name])
        print("%-18s %8.2f %8.2f %10.2f" % (name, best, statistics.median(times[name]),
                                            best / min(times[first])))


if __name__ == "__main__":
    main(sys.argv[1:])
