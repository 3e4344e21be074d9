/* The seed paper's table (Cogrossi and Kuk), reproduced: a 5x5 mask of
 * ones over random float32 n x n matrices, zero outside, 1024^2 up to
 * MAX_N^2: the CPU (one thread per core, summing in the GPU kernels'
 * order), a naive global-memory GPU kernel, the tiled shared-memory
 * kernel, and the floor (the bytes read and written over GPU 0's copy
 * bandwidth).
 *   paper_times [MAX_N [REPS]]   MAX_N 1024..16384 (default 16384),
 *                                REPS of each GPU variant (default 20)
 *   paper_times --check          every variant at sizes that are and are
 *                                not multiples of 4 (the tiled kernel's
 *                                wide path and its fallback) and span
 *                                several of its blocks: exit 0 when each
 *                                is within 1e-3 of float64, 77 without a GPU
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuimg.h"
#include "paper_cuda.h"
#include "paper_input.h"
#include "timing.h"

typedef struct {
    const float *in;
    float *out;
    int n;
} paper_job;

/* Sums the 5x5 window in the same order as the GPU kernels: rows top to
 * bottom, columns left to right. */
static void paper_rows(void *arg, int y0, int y1)
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
}

static const char *paper_cpu(int n, int reps, double *median_ms, double *max_error)
{
    size_t count = (size_t)n * n;
    paper_job j = {malloc(count * sizeof(float)), malloc(count * sizeof(float)), n};
    double *ms = malloc(sizeof *ms * (size_t)reps);
    const char *failed = j.in && j.out && ms ? NULL : "the matrices do not fit in host memory";
    if (!failed) {
        paper_matrix((float *)j.in, n);
        for (int i = 0; i < reps; i++) {
            double start = bench_now_ms();
            bench_parallel_rows(gi_cpu_threads_default(), n, paper_rows, &j);
            ms[i] = bench_now_ms() - start;
        }
        *median_ms = bench_median(ms, reps);
        *max_error = paper_max_error(j.in, j.out, n);
    }
    free((float *)j.in);
    free(j.out);
    free(ms);
    return failed;
}

static int number(const char *text, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* One matrix size, every variant: ms and max errors into ms[3], err[3]. */
static const char *paper_all(int n, int cpu_reps, int warmup, int reps, double ms[3],
                             double err[3])
{
    const char *failed = paper_cpu(n, cpu_reps, &ms[PAPER_CPU], &err[PAPER_CPU]);
    for (int v = PAPER_GPU_NAIVE; v <= PAPER_GPU_TILED && !failed; v++)
        failed = paper_cuda(n, (paper_variant)v, warmup, reps, &ms[v], &err[v]);
    return failed;
}

static int check(void)
{
    static const int sizes[] = {5, 64, 67, 600};
    if (gi_cuda_device_count(NULL) == 0) {
        printf("skip: no GPU\n");
        return 77;
    }
    int failures = 0;
    for (int i = 0; i < 4; i++) {
        double ms[3], err[3];
        const char *failed = paper_all(sizes[i], 1, 1, 2, ms, err);
        for (int v = 0; v < 3 && !failed; v++)
            if (!(ms[v] > 0 && err[v] >= 0 && err[v] < 1e-3)) {
                fprintf(stderr, "paper n=%d variant %d: %g ms, max error %g\n", sizes[i], v,
                        ms[v], err[v]);
                failures++;
            }
        if (failed) {
            fprintf(stderr, "paper n=%d: %s\n", sizes[i], failed);
            failures++;
        }
    }
    printf("%d sizes, %d failed\n", 4, failures);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    int max_n = 16384, reps = 20;
    if (argc == 2 && strcmp(argv[1], "--check") == 0) return check();
    if (argc > 3 || (argc > 1 && number(argv[1], 1024, 16384, &max_n)) ||
        (argc > 2 && number(argv[2], 1, 10000, &reps))) {
        fprintf(stderr, "usage: paper_times [MAX_N (1024..16384) [REPS (1..10000)]]\n"
                        "       paper_times --check\n");
        return 2;
    }
    gi_device_info info;
    if (gi_cuda_device_info(0, 1, &info) != GI_OK) {
        fprintf(stderr, "paper_times: GPU 0: %s\n", gi_last_error());
        return 1;
    }
    printf("the seed paper's 5x5 float32 table on %s; copy bandwidth %.1f GB/s\n\n", info.name,
           info.copy_gbytes_per_s);
    printf("%-12s %12s %12s %12s %10s %12s %10s\n", "matrix", "CPU ms", "naive ms", "tiled ms",
           "floor ms", "CPU/tiled", "x floor");
    for (int n = 1024; n <= max_n; n *= 2) {
        double ms[3], err[3];
        /* one CPU run is plenty at sizes where it takes seconds */
        const char *failed = paper_all(n, n >= 8192 ? 1 : 3, 3, reps, ms, err);
        if (failed) {
            fprintf(stderr, "paper_times: %dx%d: %s\n", n, n, failed);
            return 1;
        }
        double floor_ms = 2.0 * 4.0 * n * (double)n / (info.copy_gbytes_per_s * 1e6);
        char size[32];
        snprintf(size, sizeof size, "%dx%d", n, n);
        printf("%-12s %12.3f %12.3f %12.3f %10.3f %12.0f %10.2f\n", size, ms[0], ms[1], ms[2],
               floor_ms, ms[0] / ms[2], ms[2] / floor_ms);
        printf("%-12s max error vs float64: CPU %.3g, naive %.3g, tiled %.3g\n", "", err[0],
               err[1], err[2]);
    }
    return 0;
}
