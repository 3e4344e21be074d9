/* `gpuimg bench`'s measurements: the real call, timed where the backend
 * computes, and a copy of the same memory beside it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "timing.h"

#define COPY_BYTES ((size_t)256 << 20)
#define COPY_RUNS 7

double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof *ms, by_value);
    return n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
}

typedef struct {
    void (*fn)(void *arg, int begin, int end);
    void *arg;
    int begin, end;
} band;

static void *run_band(void *p)
{
    const band *b = p;
    b->fn(b->arg, b->begin, b->end);
    return NULL;
}

int bench_parallel_rows(int threads, int rows, void (*fn)(void *arg, int begin, int end),
                        void *arg)
{
    if (threads > rows) threads = rows;
    if (threads < 1) threads = 1;
    band *bands = malloc(sizeof *bands * (size_t)threads);
    pthread_t *ids = malloc(sizeof *ids * (size_t)threads);
    if (!bands || !ids) {
        free(bands);
        free(ids);
        fn(arg, 0, rows);
        return -1;
    }
    int failed = 0;
    for (int i = 0; i < threads; i++)
        bands[i] = (band){fn, arg, (int)((long long)rows * i / threads),
                          (int)((long long)rows * (i + 1) / threads)};
    /* band 0 is the calling thread's; a band whose thread cannot start
     * runs here too, and is marked so that it is not joined */
    for (int i = 1; i < threads; i++)
        if (pthread_create(&ids[i], NULL, run_band, &bands[i]) != 0) {
            failed = 1;
            run_band(&bands[i]);
            bands[i].fn = NULL;
        }
    run_band(&bands[0]);
    for (int i = 1; i < threads; i++)
        if (bands[i].fn) pthread_join(ids[i], NULL);
    free(bands);
    free(ids);
    return failed ? -1 : 0;
}

const char *bench_op(gi_context *ctx, const gi_image *src, const gi_op *op, int warmup, int reps,
                     double *median_ms)
{
    double *ms = malloc(sizeof *ms * (size_t)reps);
    gi_histogram *hist = op->kind == GI_OP_HIST ? malloc(sizeof *hist) : NULL;
    if (!ms || (op->kind == GI_OP_HIST && !hist)) {
        free(ms);
        free(hist);
        return "cannot allocate the timings";
    }
    gi_image dst = {0};
    gi_status st = GI_OK;
    if (!hist) {
        int w, h, ch;
        st = gi_apply_size(src, op, 1, &w, &h, &ch);
        if (st == GI_OK) st = gi_image_alloc_depth(&dst, w, h, ch, src->depth);
    }
    for (int i = 0; i < warmup + reps && st == GI_OK; i++) {
        st = gi_apply(ctx, src, op, 1, hist ? NULL : &dst, hist);
        gi_op_times t;
        gi_context_last_times(ctx, &t);
        if (i >= warmup) ms[i - warmup] = t.kernel_ms;
    }
    if (st == GI_OK) *median_ms = bench_median(ms, reps);
    gi_image_free(&dst);
    free(hist);
    free(ms);
    return st == GI_OK ? NULL : gi_last_error();
}

typedef struct {
    const uint8_t *from;
    uint8_t *to;
    size_t chunk;
    int stream; /* stores past the caches */
} copy_job;

static void copy_rows(void *arg, int begin, int end)
{
    const copy_job *j = arg;
    const uint8_t *from = j->from + j->chunk * begin;
    uint8_t *to = j->to + j->chunk * begin;
    const size_t n = j->chunk * (size_t)(end - begin);
#ifdef __SSE2__
    if (j->stream && (uintptr_t)from % 16 == 0 && (uintptr_t)to % 16 == 0 && n % 64 == 0) {
        for (size_t i = 0; i < n; i += 64)
            for (int k = 0; k < 4; k++)
                _mm_stream_si128((__m128i *)(void *)(to + i + 16 * k),
                                 _mm_load_si128((const __m128i *)(const void *)(from + i + 16 * k)));
        _mm_sfence();
        return;
    }
#endif
    memcpy(to, from, n);
}

/* The copy bandwidth of the host: the faster of memcpy (which may keep
 * its stores in the caches, and so first reads each line it writes) and a
 * copy with streaming stores: the floor is what the memory can do,
 * whichever way a backend writes. */
static const char *host_copy(double *gbytes_per_s)
{
    uint8_t *a = malloc(COPY_BYTES), *b = malloc(COPY_BYTES);
    if (!a || !b) {
        free(a);
        free(b);
        return "cannot allocate the bandwidth buffers";
    }
    memset(a, 1, COPY_BYTES);
    memset(b, 2, COPY_BYTES);
    double best = 0;
    for (int stream = 0; stream < 2; stream++) {
        copy_job j = {a, b, COPY_BYTES / 1024, stream};
        double ms[COPY_RUNS];
        for (int i = 0; i <= COPY_RUNS; i++) { /* the first run warms up */
            double start = bench_now_ms();
            bench_parallel_rows(gi_cpu_threads_default(), 1024, copy_rows, &j);
            if (i) ms[i - 1] = bench_now_ms() - start;
        }
        const double gbs = 2.0 * COPY_BYTES / (bench_median(ms, COPY_RUNS) * 1e6);
        if (gbs > best) best = gbs;
    }
    *gbytes_per_s = best;
    free(a);
    free(b);
    return NULL;
}

const char *bench_copy(gi_context *ctx, double *gbytes_per_s)
{
    if (strcmp(gi_context_backend(ctx), "cuda") != 0) return host_copy(gbytes_per_s);
    gi_device_info info;
    if (gi_cuda_device_info(0, 1, &info) != GI_OK) return gi_last_error();
    *gbytes_per_s = info.copy_gbytes_per_s;
    return NULL;
}
