/* The CPU backend's benchmarks: host clock around the real operation, a
 * threaded memcpy for the bandwidth, and the seed paper's 5x5 float sum. */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "paper_input.h"
#include "cpu/cpu_backend.h"
#include "cpu/cpu_parallel.h"

#define COPY_BYTES ((size_t)256 << 20)
#define COPY_RUNS 7

gi_status gi__cpu_time_op(void *state, const gi__op_call *c, int warmup, int reps,
                          double *median_ms)
{
    double *ms = malloc(sizeof *ms * (size_t)reps);
    if (!ms) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate timings");
    gi_status st = GI_OK;
    for (int i = 0; i < warmup + reps && st == GI_OK; i++) {
        double start = gi__now_ms();
        st = gi__cpu_run_step(state, c);
        if (i >= warmup) ms[i - warmup] = gi__now_ms() - start;
    }
    if (st == GI_OK) *median_ms = gi__median(ms, reps);
    free(ms);
    return st;
}

typedef struct {
    const uint8_t *from;
    uint8_t *to;
    size_t chunk;
} copy_job;

static int copy_rows(void *arg, int begin, int end)
{
    const copy_job *j = arg;
    memcpy(j->to + j->chunk * begin, j->from + j->chunk * begin, j->chunk * (size_t)(end - begin));
    return 0;
}

gi_status gi__cpu_copy_bandwidth(void *state, double *gbytes_per_s)
{
    uint8_t *a = malloc(COPY_BYTES), *b = malloc(COPY_BYTES);
    if (!a || !b) {
        free(a);
        free(b);
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate the bandwidth buffers");
    }
    memset(a, 1, COPY_BYTES);
    memset(b, 2, COPY_BYTES);
    copy_job j = {a, b, COPY_BYTES / 1024};
    double ms[COPY_RUNS];
    for (int i = 0; i <= COPY_RUNS; i++) { /* the first run warms up */
        double start = gi__now_ms();
        gi__parallel_rows(gi__cpu_threads(state), 1024, copy_rows, &j);
        if (i) ms[i - 1] = gi__now_ms() - start;
    }
    *gbytes_per_s = 2.0 * COPY_BYTES / (gi__median(ms, COPY_RUNS) * 1e6);
    free(a);
    free(b);
    return GI_OK;
}

typedef struct {
    const float *in;
    float *out;
    int n;
} paper_job;

/* Sums the 5x5 window in the same order as the GPU kernels: rows top to
 * bottom, columns left to right. */
static int paper_rows(void *arg, int y0, int y1)
{
    const paper_job *j = arg;
    const int n = j->n;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < n; x++) {
            float sum = 0;
            for (int dy = -2; dy <= 2; dy++) {
                if (y + dy < 0 || y + dy >= n) continue;
                const float *row = j->in + (size_t)(y + dy) * n;
                for (int dx = -2; dx <= 2; dx++)
                    if (x + dx >= 0 && x + dx < n) sum += row[x + dx];
            }
            j->out[(size_t)y * n + x] = sum;
        }
    return 0;
}

gi_status gi__cpu_paper(void *state, int n, gi_paper_variant variant, int warmup, int reps,
                        double *median_ms, double *max_error)
{
    if (variant != GI_PAPER_CPU)
        return gi__fail(GI_ERR_NO_DEVICE, "the GPU variants of the paper benchmark need CUDA");
    size_t count = (size_t)n * n;
    paper_job j = {malloc(count * sizeof(float)), malloc(count * sizeof(float)), n};
    double *ms = malloc(sizeof *ms * (size_t)reps);
    gi_status st = GI_OK;
    if (!j.in || !j.out || !ms) st = gi__fail(GI_ERR_NO_MEMORY, "%dx%d floats do not fit", n, n);
    if (st == GI_OK) {
        gi__paper_matrix((float *)j.in, n);
        for (int i = 0; i < warmup + reps; i++) {
            double start = gi__now_ms();
            gi__parallel_rows(gi__cpu_threads(state), n, paper_rows, &j);
            if (i >= warmup) ms[i - warmup] = gi__now_ms() - start;
        }
        *median_ms = gi__median(ms, reps);
        *max_error = gi__paper_max_error(j.in, j.out, n);
    }
    free((float *)j.in);
    free(j.out);
    free(ms);
    return st;
}
