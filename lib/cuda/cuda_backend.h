/* What the CUDA backend's two files share: cuda_backend.c (the operations,
 * the ops table) and cuda_bench.c (event timing and the seed paper's
 * experiment). */
#ifndef GI_CUDA_BACKEND_H
#define GI_CUDA_BACKEND_H

#include <cuda_runtime_api.h>

#include "gpuimg.h"

/* Records a CUDA failure as GI_ERR_DEVICE, "CUDA <what>: <error name>
 * (<text>)", and clears the runtime's last error, which would otherwise
 * surface again at the next launch check. */
gi_status gi__cuda_fail(cudaError_t e, const char *what);

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
