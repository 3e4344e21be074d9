/* The seed paper's GPU variants: launches timed with CUDA events on a
 * stream of their own, the result checked against float64. */
#include <stdio.h>
#include <stdlib.h>

#include "paper_cuda.h"
#include "paper_input.h"
#include "timing.h"

static char why[256];

static const char *cuda_failed(cudaError_t e, const char *call)
{
    snprintf(why, sizeof why, "%s: %s", call, cudaGetErrorString(e));
    return why;
}

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

typedef struct {
    float *in, *out;
    int n;
    paper_variant variant;
} paper_run;

/* One launch between the two events, and its time in ms. */
static cudaError_t time_one(event_timer *t, const paper_run *p, double *ms)
{
    float elapsed = 0;
    cudaError_t e = check(t, cudaEventRecord(t->start, t->stream), "cudaEventRecord");
    if (e == cudaSuccess) e = check(t, paper_launch(p->in, p->out, p->n, p->variant, t->stream), "paper kernel");
    if (e == cudaSuccess) e = check(t, cudaEventRecord(t->stop, t->stream), "cudaEventRecord");
    /* a kernel's own failure surfaces at the synchronization */
    if (e == cudaSuccess) e = check(t, cudaEventSynchronize(t->stop), "paper kernel");
    if (e == cudaSuccess)
        e = check(t, cudaEventElapsedTime(&elapsed, t->start, t->stop), "cudaEventElapsedTime");
    *ms = elapsed;
    return e;
}

/* `warmup` untimed launches, then `reps` timed ones; the median. */
static const char *time_launches(cudaStream_t stream, const paper_run *p, int warmup, int reps,
                                 double *median_ms)
{
    double *ms = malloc(sizeof *ms * (size_t)reps);
    if (!ms) return "cannot allocate timings";
    event_timer t = {stream, NULL, NULL, "cudaEventCreate"};
    cudaError_t e = cudaEventCreate(&t.start);
    if (e == cudaSuccess) e = cudaEventCreate(&t.stop);
    for (int i = 0; i < warmup && e == cudaSuccess; i++)
        e = check(&t, paper_launch(p->in, p->out, p->n, p->variant, stream), "paper kernel");
    for (int i = 0; i < reps && e == cudaSuccess; i++) e = time_one(&t, p, &ms[i]);
    const char *failed = e == cudaSuccess ? NULL : cuda_failed(e, t.failed);
    if (!failed) *median_ms = bench_median(ms, reps);
    /* the cleanup cannot change the answer */
    cudaStreamSynchronize(stream);
    if (t.start) cudaEventDestroy(t.start);
    if (t.stop) cudaEventDestroy(t.stop);
    cudaGetLastError();
    free(ms);
    return failed;
}

/* Uploads the paper's matrix, poisons the output with NaNs (so an output
 * the kernel skips fails the check), times the kernel and downloads its
 * result once, for the check against the input. */
static const char *run_paper(cudaStream_t stream, const paper_run *run, float *in, float *out,
                             int warmup, int reps, double *median_ms)
{
    const size_t bytes = (size_t)run->n * run->n * sizeof(float);
    paper_matrix(in, run->n);
    cudaError_t e = cudaMemcpyAsync(run->in, in, bytes, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess) e = cudaMemsetAsync(run->out, 0xff, bytes, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return cuda_failed(e, "paper upload");
    const char *failed = time_launches(stream, run, warmup, reps, median_ms);
    if (failed) return failed;
    e = cudaMemcpyAsync(out, run->out, bytes, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    return e == cudaSuccess ? NULL : cuda_failed(e, "paper download");
}

const char *paper_cuda(int n, paper_variant variant, int warmup, int reps, double *median_ms,
                       double *max_error)
{
    const size_t bytes = (size_t)n * n * sizeof(float);
    float *in = malloc(bytes), *out = malloc(bytes);
    paper_run run = {NULL, NULL, n, variant};
    cudaStream_t stream = NULL;
    const char *failed = in && out ? NULL : "the matrices do not fit in host memory";
    cudaError_t e = cudaSuccess;
    if (!failed && (e = cudaStreamCreate(&stream)) != cudaSuccess)
        failed = cuda_failed(e, "cudaStreamCreate");
    if (!failed && (e = cudaMalloc((void **)&run.in, bytes)) == cudaSuccess)
        e = cudaMalloc((void **)&run.out, bytes);
    if (!failed && e != cudaSuccess) failed = cuda_failed(e, "cudaMalloc");
    if (!failed) failed = run_paper(stream, &run, in, out, warmup, reps, median_ms);
    if (!failed) *max_error = paper_max_error(in, out, n);
    /* cleanup of what was made; a failure here cannot change the answer */
    cudaFree(run.in);
    cudaFree(run.out);
    if (stream) cudaStreamDestroy(stream);
    cudaGetLastError();
    free(in);
    free(out);
    return failed;
}
