/* What `gpuimg bench` measures, through gpuimg.h alone: an operation's
 * time where the backend computes, and the copy bandwidth of the memory it
 * computes in. A library of the command's own (bench/meson.build), never
 * part of libgpuimg. */
#ifndef GPUIMG_BENCH_TIMING_H
#define GPUIMG_BENCH_TIMING_H

#include "gpuimg.h"

/* The median over `reps` runs of op on src, after `warmup` untimed runs,
 * of the time the backend computed (gi_context_last_times' kernel_ms:
 * CUDA events around the kernels, the uploads and downloads apart; on the
 * CPU the whole run). Returns NULL, or why it failed. */
const char *bench_op(gi_context *ctx, const gi_image *src, const gi_op *op, int warmup, int reps,
                     double *median_ms);

/* The copy bandwidth, bytes read plus written, of the memory ctx computes
 * in: device memory on CUDA (gi_cuda_device_info's), host memory copied
 * by one thread per core on the CPU. Returns NULL, or why it failed. */
const char *bench_copy(gi_context *ctx, double *gbytes_per_s);

/* Runs fn(arg, begin, end) over [0, rows) split into `threads` bands, one
 * thread each, and returns when all are done; 0, or -1 when a thread could
 * not start (the bands then run on the calling thread). */
int bench_parallel_rows(int threads, int rows, void (*fn)(void *arg, int begin, int end),
                        void *arg);
/* Monotonic milliseconds, and the median of n times (reordered). */
double bench_now_ms(void);
double bench_median(double *ms, int n);

#endif
