/* The CUDA backend's benchmarks (cuda_bench.c), which its ops table's
 * time_op and paper (backend.h) call. */
#ifndef GI_CUDA_BENCH_H
#define GI_CUDA_BENCH_H

#include <cuda_runtime_api.h>

#include "gpuimg.h"

/* Queues one launch of the work being timed on `stream`. */
typedef cudaError_t (*gi__cuda_launch)(void *arg, cudaStream_t stream);

/* Queues `warmup` untimed launches, then `reps` launches each between two
 * events on `stream`, and returns the median of their times. The data stays
 * where it is: nothing is copied. `what` names the work in errors. */
gi_status gi__cuda_time_launches(cudaStream_t stream, gi__cuda_launch launch, void *arg,
                                 int warmup, int reps, const char *what, double *median_ms);

/* gi_bench_paper on the current device, its work queued on `stream`. */
gi_status gi__cuda_paper(cudaStream_t stream, int n, gi_paper_variant variant, int warmup,
                         int reps, double *median_ms, double *max_error);

#endif
