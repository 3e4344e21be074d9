/* The CUDA backend's benchmarks: launches timed with events on the
 * backend's stream, and the seed paper's 5x5 float32 experiment. */
#include <stdlib.h>

#include "backend/backend.h"
#include "base/clock.h"
#include "paper_input.h"
#include "cuda_bench.h"
#include "cuda/cuda_error.h"
#include "base/gi_error.h"
#include "gi_kernels.h"

/* Events around launches on one stream; `failed` names the call that
 * failed. */
typedef struct {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    const char *failed;
} event_timer;

static cudaError_t check(event_timer *t, cudaError_t e, const char *call)
{
    if (e != cudaSuccess) t->failed = call;
    return e;
}

/* One launch between the two events, and its time in ms. */
static cudaError_t time_one(event_timer *t, gi__cuda_launch launch, void *arg, const char *what,
                            double *ms)
{
    float elapsed = 0;
    cudaError_t e = check(t, cudaEventRecord(t->start, t->stream), "cudaEventRecord");
    if (e == cudaSuccess) e = check(t, launch(arg, t->stream), what);
    if (e == cudaSuccess) e = check(t, cudaEventRecord(t->stop, t->stream), "cudaEventRecord");
    /* a kernel's own failure surfaces at the synchronization */
    if (e == cudaSuccess) e = check(t, cudaEventSynchronize(t->stop), what);
    if (e == cudaSuccess)
        e = check(t, cudaEventElapsedTime(&elapsed, t->start, t->stop), "cudaEventElapsedTime");
    *ms = elapsed;
    return e;
}

gi_status gi__cuda_time_launches(cudaStream_t stream, gi__cuda_launch launch, void *arg,
                                 int warmup, int reps, const char *what, double *median_ms)
{
    double *ms = malloc(sizeof *ms * (size_t)reps);
    if (!ms) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate timings");
    event_timer t = {stream, NULL, NULL, "cudaEventCreate"};
    cudaError_t e = cudaEventCreate(&t.start);
    if (e == cudaSuccess) e = cudaEventCreate(&t.stop);
    for (int i = 0; i < warmup && e == cudaSuccess; i++) e = check(&t, launch(arg, stream), what);
    for (int i = 0; i < reps && e == cudaSuccess; i++) e = time_one(&t, launch, arg, what, &ms[i]);
    gi_status st = e == cudaSuccess ? GI_OK : gi__cuda_fail(e, t.failed);
    if (st == GI_OK) *median_ms = gi__median(ms, reps);
    /* After a failure, drain what was queued before the caller reuses its
     * buffers; that and the cleanup cannot change the answer. */
    cudaStreamSynchronize(stream);
    if (t.start) cudaEventDestroy(t.start);
    if (t.stop) cudaEventDestroy(t.stop);
    cudaGetLastError();
    free(ms);
    return st;
}

/* The CPU variant on a CUDA context: a CPU backend of all cores, as on a
 * CPU context. */
static gi_status cpu_paper(int n, int warmup, int reps, double *median_ms, double *max_error)
{
    const gi__backend_ops *ops;
    void *state;
    gi_status st = gi__cpu_backend_create(0, &ops, &state);
    if (st != GI_OK) return st;
    st = ops->paper(state, n, GI_PAPER_CPU, warmup, reps, median_ms, max_error);
    ops->destroy(state);
    return st;
}

typedef struct {
    float *in, *out;
    int n;
    gi_paper_variant variant;
} paper_run;

static cudaError_t launch_paper(void *arg, cudaStream_t stream)
{
    const paper_run *p = arg;
    return gi_cuda_paper(p->in, p->out, p->n, (int)p->variant, stream);
}

static gi_status device_alloc(float **ptr, size_t bytes, int n)
{
    cudaError_t e = cudaMalloc((void **)ptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        *ptr = NULL;
        return gi__fail(GI_ERR_NO_MEMORY, "paper benchmark: %dx%d floats: out of device memory", n,
                        n);
    }
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "cudaMalloc");
}

/* Uploads the paper's matrix, poisons the output with NaNs (so an output
 * the kernel skips fails the check), times the kernel and downloads its
 * result once, for the check against the input. */
static gi_status run_paper(cudaStream_t stream, paper_run *run, float *in, float *out, int warmup,
                           int reps, double *median_ms)
{
    const size_t bytes = (size_t)run->n * run->n * sizeof(float);
    gi__paper_matrix(in, run->n);
    cudaError_t e = cudaMemcpyAsync(run->in, in, bytes, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess) e = cudaMemsetAsync(run->out, 0xff, bytes, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return gi__cuda_fail(e, "paper upload");
    gi_status st = gi__cuda_time_launches(stream, launch_paper, run, warmup, reps, "paper kernel",
                                          median_ms);
    if (st != GI_OK) return st;
    e = cudaMemcpyAsync(out, run->out, bytes, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "paper download");
}

gi_status gi__cuda_paper(cudaStream_t stream, int n, gi_paper_variant variant, int warmup,
                         int reps, double *median_ms, double *max_error)
{
    if (variant == GI_PAPER_CPU) return cpu_paper(n, warmup, reps, median_ms, max_error);
    const size_t bytes = (size_t)n * n * sizeof(float);
    float *in = malloc(bytes), *out = malloc(bytes);
    paper_run run = {NULL, NULL, n, variant};
    gi_status st = in && out ? GI_OK : gi__fail(GI_ERR_NO_MEMORY, "%dx%d floats do not fit", n, n);
    if (st == GI_OK) st = device_alloc(&run.in, bytes, n);
    if (st == GI_OK) st = device_alloc(&run.out, bytes, n);
    if (st == GI_OK) st = run_paper(stream, &run, in, out, warmup, reps, median_ms);
    if (st == GI_OK) *max_error = gi__paper_max_error(in, out, n);
    /* cleanup of what was made; a failure here cannot change the answer */
    cudaFree(run.in);
    cudaFree(run.out);
    cudaGetLastError();
    free(in);
    free(out);
    return st;
}
