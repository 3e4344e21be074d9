#!/usr/bin/env python3
"""jpeg_path_rates.py GPUIMG DIR [OP [ARGS...]]: the exact JPEG decoder's
GPU path against the CPU, on a folder of JPEGs (default OP: blur --sigma 2).

Runs `GPUIMG OP ARGS -v -o OUT DIR/*.jpg` five ways, one after another
(ROUNDS=n alternates them n times, default 3; the best wall time is kept):
  cpu       --device cpu
  cuda-px   --device cuda, GPUIMG_JPEG_ARITHMETIC=cpu (pixels up, as before)
  cuda-co   --device cuda, GPUIMG_JPEG_ARITHMETIC=gpu (coefficients up)
  cuda      --device cuda (every file the entropy half takes: coefficients)
  default   the default device (the plan decides, per batch and per file)
checks that every output equals --device cpu's byte for byte, counts the
files whose -v line says gpuimg-jpeg-cuda, and sums the -v stages of each
way over its files. From the two forced CUDA runs it derives the cost
model's JPEG rates (lib/engine/device_plan.c), per pixel:
  cpu_jpeg_reconstruct_ns  (decode of cuda-px - decode of cuda-co) / pixels
  gpu_jpeg_reconstruct_ns  (kernel of cuda-co - kernel of cuda-px) / pixels
  cpu_jpeg_rest_ns         (read + decode + encode + write of cuda-co) / pixels
and the upload rates of pixels and of coefficients from the upload stage."""
import filecmp
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

STAGES = ['read', 'decode', 'startup', 'upload', 'kernel', 'download', 'encode', 'write']


def jpeg_pixels(path):
    """Width x height from the frame header (SOF0-SOF15 but DHT, JPG, DAC)."""
    with open(path, 'rb') as f:
        data = f.read()
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 2 if marker != 0xFF else 1
            continue
        length = struct.unpack('>H', data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack('>HH', data[i + 5:i + 9])
            return w * h
        i += 2 + length
    return 0


def run(way, gpuimg, op, inputs, out):
    env = dict(os.environ)
    env.pop('GPUIMG_JPEG_ARITHMETIC', None)
    device = {'cpu': 'cpu', 'default': 'auto'}.get(way, 'cuda')
    if way == 'cuda-px':
        env['GPUIMG_JPEG_ARITHMETIC'] = 'cpu'
    if way == 'cuda-co':
        env['GPUIMG_JPEG_ARITHMETIC'] = 'gpu'
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cmd = [gpuimg] + op + ['-v', '--device', device, '-o', out] + inputs
    start = time.monotonic()
    p = subprocess.run(cmd, env=env, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if p.returncode != 0:
        sys.exit('%s failed:\n%s' % (' '.join(cmd[:8]), p.stderr[-2000:]))
    sums = dict.fromkeys(STAGES, 0.0)
    on_gpu = 0
    for line in p.stderr.splitlines():
        m = re.search(r' -> .*? \(([0-9.]+) ms: ([^;)]*)', line)
        if not m:
            continue
        for part in m.group(2).split(', '):
            name, ms = part.rsplit(' ', 1)
            sums[name.strip()] += float(ms)
        on_gpu += 'codecs gpuimg-jpeg-cuda/' in line
    return wall, sums, on_gpu, p.stderr.splitlines()[-1]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    gpuimg, folder = sys.argv[1], sys.argv[2]
    op = sys.argv[3:] or ['blur', '--sigma', '2']
    inputs = sorted(glob.glob(os.path.join(folder, '*.jpg')) +
                    glob.glob(os.path.join(folder, '*.jpeg')))
    if not inputs:
        sys.exit('no JPEG in ' + folder)
    pixels = sum(jpeg_pixels(f) for f in inputs)
    ways = ['cpu', 'cuda-px', 'cuda-co', 'cuda', 'default']
    tmp = tempfile.mkdtemp()
    best = {}
    for _ in range(int(os.environ.get('ROUNDS', '3'))):
        for way in ways:
            r = run(way, gpuimg, op, inputs, os.path.join(tmp, way))
            if way not in best or r[0] < best[way][0]:
                best[way] = r
    print('%s on %d JPEGs, %.1f MP (%s)' % (' '.join(op), len(inputs), pixels / 1e6, folder))
    print('%-8s %8s %6s  %s' % ('way', 'wall s', 'gpu', ' '.join('%8s' % s for s in STAGES)))
    for way in ways:
        wall, sums, on_gpu, _ = best[way]
        same = all(filecmp.cmp(os.path.join(tmp, 'cpu', os.path.basename(f)),
                               os.path.join(tmp, way, os.path.basename(f)), shallow=False)
                   for f in inputs)
        print('%-8s %8.3f %6d  %s%s' % (way, wall, on_gpu,
                                        ' '.join('%8.0f' % sums[s] for s in STAGES),
                                        '' if same else '   OUTPUT DIFFERS FROM --device cpu'))
    print('(stage columns: ms summed over the files; wall: best of the rounds)')
    px, co = best['cuda-px'][1], best['cuda-co'][1]
    ns = 1e6 / pixels
    print('cpu_jpeg_reconstruct_ns %.3f' % ((px['decode'] - co['decode']) * ns))
    print('gpu_jpeg_reconstruct_ns %.4f' % ((co['kernel'] - px['kernel']) * ns))
    print('cpu_jpeg_rest_ns        %.3f' %
          ((co['read'] + co['decode'] + co['encode'] + co['write']) * ns))
    print('upload ms per MP: pixels %.3f, coefficients %.3f' % (px['upload'] * ns, co['upload'] * ns))
    for way in ways:
        print('%-8s %s' % (way, best[way][3]))
    shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
