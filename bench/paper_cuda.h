/* The seed paper's experiment (Cogrossi and Kuk) on the GPU: a 5x5 mask of
 * ones over a random float32 n x n matrix, zero outside, float32 out. */
#ifndef GPUIMG_BENCH_PAPER_CUDA_H
#define GPUIMG_BENCH_PAPER_CUDA_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum paper_variant {
    PAPER_CPU = 0,   /* the CPU, one thread per core (paper_times.c) */
    PAPER_GPU_NAIVE, /* one thread per output, every read from global memory */
    PAPER_GPU_TILED  /* shared-memory tiles, as gpuimg's kernels */
} paper_variant;

/* Queues the variant's kernel (paper.cu) on `stream`. in and out: device
 * arrays of n * n floats, rows packed. */
cudaError_t paper_launch(const float *in, float *out, int n, int variant, cudaStream_t stream);

/* Times a GPU variant on GPU 0: `warmup` untimed launches, then `reps`
 * launches each between two CUDA events; the median into *median_ms and
 * the largest error against float64 into *max_error. Returns NULL, or why
 * it failed. */
const char *paper_cuda(int n, paper_variant variant, int warmup, int reps, double *median_ms,
                       double *max_error);

#ifdef __cplusplus
}
#endif

#endif
