#!/bin/sh
# The fast codecs (nvJPEG decode and encode on the GPU) against the CPU
# peers, whole commands timed from outside, every tool in the same run.
#
#   scripts/bench_gpu_codecs.sh [PHOTOS_DIR]      (default ../shared/photos)
#   environment: GPUIMG (default build/cmd/gpuimg), PEER (default
#   ../shared/bench/peer_batch.py), JOBS (peers' pool, default nproc),
#   SIZES (JPEG-folder sizes, default "20 100 400 1000"), REPS (default 3),
#   OPS (ops on the 400 JPEGs besides blur, default "sobel transpose").
#
# Rows: blur sigma 2 over SIZES copies of the JPEG photos, JPEG out (gpuimg
# --codecs fast under the default device, which takes the GPU's codecs only
# where they repay their start-up; the same on --device cuda, always the
# GPU's; gpuimg exact, pyvips and OpenCV pools via peer_batch.py,
# the peers skipped when their Python module is missing), with the time
# until the first output file exists; OPS on the 400-file folder; the mixed
# folder (every photo x 10); one JPEG, whole process, fast against --device
# cpu; and gpuimg -v's time by stage for the 400-file fast run. Each figure
# is the best of REPS wall times; ratios are against the fast codecs.
# Output folders are emptied before every run and checked for a complete set.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
photos=${1:-$root/../shared/photos}
GPUIMG=${GPUIMG:-$root/build/cmd/gpuimg} PEER=${PEER:-$root/../shared/bench/peer_batch.py}
JOBS=${JOBS:-$(nproc)} SIZES=${SIZES:-20 100 400 1000} REPS=${REPS:-3}
OPS=${OPS:-sobel transpose}
export GPUIMG PEER JOBS SIZES REPS OPS
exec python3 - "$photos" <<'PY'
import glob, os, shutil, subprocess, sys, tempfile, time

photos = sys.argv[1]
gpuimg, peer, jobs = os.environ["GPUIMG"], os.environ["PEER"], int(os.environ["JOBS"])
sizes = [int(s) for s in os.environ["SIZES"].split()]
reps, ops = int(os.environ["REPS"]), os.environ["OPS"].split()
jpegs = sorted(glob.glob(os.path.join(photos, "*.jpg")) + glob.glob(os.path.join(photos, "*.jpeg")))
every = sorted(jpegs + glob.glob(os.path.join(photos, "*.png")))
if not jpegs:
    sys.exit("bench_gpu_codecs: no JPEG photos in " + photos)
tmp = tempfile.mkdtemp()

def have(module):
    return subprocess.run([sys.executable, "-c", "import " + module], capture_output=True).returncode == 0

def folder(name, sources, copies):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for c in range(copies):
        for s in sources:
            base, ext = os.path.splitext(os.path.basename(s))
            dst = os.path.join(d, "%s-%04d%s" % (base, c, ext))
            os.link(s, dst) if os.stat(s).st_dev == os.stat(d).st_dev else shutil.copy(s, dst)
    return sorted(glob.glob(os.path.join(d, "*")))

def commands(op, files, out):
    g = [gpuimg, op] + (["--sigma", "2"] if op == "blur" else [])
    rows = [("gpuimg --codecs fast", g + ["--codecs", "fast", "-q", "-o", out] + files),
            ("gpuimg --codecs fast --device cuda",
             g + ["--codecs", "fast", "--device", "cuda", "-q", "-o", out] + files),
            ("gpuimg exact (stb)", g + ["-q", "-o", out] + files)]
    for tool, module, label in (("vips", "pyvips", "pyvips pool"), ("cv2", "cv2", "OpenCV pool")):
        if os.path.exists(peer) and have(module):
            rows.append(("%s %d" % (label, jobs), [sys.executable, peer, tool, op, str(jobs), out] + files))
    return rows

def timed(cmd, out, expect):
    """Wall seconds and seconds until the first output file exists."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    first = None
    while p.poll() is None:
        if first is None and any(not e.name.startswith(".") for e in os.scandir(out)):
            first = time.perf_counter() - start
        time.sleep(0.002)
    wall = time.perf_counter() - start
    err = p.stderr.read().decode(errors="replace")
    got = len([e for e in os.scandir(out) if not e.name.startswith(".")])
    if p.returncode != 0 or got != expect:
        return None, None, "FAIL (exit %d, %d of %d files) %s" % (p.returncode, got, expect, err[-300:])
    return wall, first if first is not None else wall, ""

def table(title, op, files):
    print("\n### %s (%d files, best of %d)\n" % (title, len(files), reps))
    print("| tool | wall s | images/s | first output s | fast codecs are |")
    print("| --- | --- | --- | --- | --- |")
    out = os.path.join(tmp, "out")
    best = {}
    rows = commands(op, files, out)
    for r in range(reps):  # the tools alternate within each repetition
        for label, cmd in rows:
            wall, first, fail = timed(cmd, out, len(files))
            if fail:
                best[label] = (None, None, fail)
            elif label not in best or (best[label][0] is not None and wall < best[label][0]):
                best[label] = (wall, first, "")
    fast = best[rows[0][0]][0]
    for label, _ in rows:
        wall, first, fail = best[label]
        if fail:
            print("| %s | %s | | | |" % (label, fail))
        else:
            ratio = "%.2fx faster" % (wall / fast) if fast else ""
            print("| %s | %.3f | %.0f | %.3f | %s |" % (label, wall, len(files) / wall, first,
                                                       "" if label == rows[0][0] else ratio))
    sys.stdout.flush()

per_jpeg = {}
for n in sizes:
    copies = max(1, n // len(jpegs))
    files = folder("jpeg%d" % n, jpegs, copies)
    per_jpeg[n] = files
    table("blur sigma 2, %d JPEGs, JPEG out" % len(files), "blur", files)
big = per_jpeg.get(400) or per_jpeg[sizes[-1]]
for op in ops:
    table("%s, %d JPEGs" % (op, len(big)), op, big)
table("blur sigma 2, mixed folder (every photo x 10)", "blur", folder("mixed", every, 10))

print("\n### one JPEG, whole process, best of %d\n" % reps)
one, out = jpegs[0], os.path.join(tmp, "one.jpg")
for label, extra in (("--codecs fast", ["--codecs", "fast"]),
                     ("--codecs fast --device cuda", ["--codecs", "fast", "--device", "cuda"]),
                     ("--device cpu", ["--device", "cpu"]), ("default", [])):
    walls = []
    for _ in range(reps):
        start = time.perf_counter()
        subprocess.run([gpuimg, "blur", "--sigma", "2", "-q"] + extra + [one, out], check=True)
        walls.append(time.perf_counter() - start)
    print("- %s: %.3f s" % (label, min(walls)))

print("\n### gpuimg blur --codecs fast -v, %d JPEGs: time by stage\n" % len(big))
out = os.path.join(tmp, "out")
shutil.rmtree(out, ignore_errors=True)
p = subprocess.run([gpuimg, "blur", "--sigma", "2", "--codecs", "fast", "-v", "-o", out] + big,
                   capture_output=True, text=True)
for line in p.stderr.splitlines():
    if "by stage" in line or " ok, " in line or "backend" in line or "codecs" in line and "->" not in line:
        print("    " + line)
shutil.rmtree(tmp)
PY
