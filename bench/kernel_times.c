/* Times each CUDA launcher on device-resident 8192x8192 images (no host
 * transfers), next to the device-to-device copy bandwidth measured in the
 * same run: CUDA events, warm-up, median of repetitions. DEPTH 16 times
 * the same launchers on 16-bit samples (twice the bytes, so twice the
 * floor).
 *   usage: kernel_times [SIZE] [REPS] [DEPTH]          (defaults 8192, 30, 8) */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "gi_kernels.h"
#include "gpuimg.h"

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
                    cudaGetErrorString(e_));                                           \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

typedef struct {
    const uint8_t *src;
    uint8_t *dst;
    size_t pitch;
    int size, channels, depth;
    void *scratch;
    size_t scratch_bytes;
    unsigned long long *counts;
    const int32_t *weights;
    int radius;
} bench_args;

typedef cudaError_t (*launch_fn)(const bench_args *a);

static cudaError_t run_blur(const bench_args *a)
{
    return gi_cuda_blur(a->src, a->pitch, a->dst, a->pitch, a->size, a->size, a->channels, a->depth,
                        a->weights, a->radius, GI_BORDER_MIRROR, 0, a->scratch, a->scratch_bytes, 0);
}

static cudaError_t run_sobel(const bench_args *a)
{
    return gi_cuda_sobel(a->src, a->pitch, a->dst, a->pitch, a->size, a->size, a->channels, a->depth, 1.0,
                         0, 0, 0, GI_BORDER_MIRROR, 0, 0);
}

static cudaError_t run_transpose(const bench_args *a)
{
    return gi_cuda_transform(a->src, a->pitch, a->dst, a->pitch, a->size, a->size, a->channels, a->depth,
                             GI_TRANSPOSE, 0);
}

static cudaError_t run_hist(const bench_args *a)
{
    return gi_cuda_hist(a->src, a->pitch, a->size, a->size, a->channels, a->depth, 256, a->counts, 0);
}

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Median milliseconds of `reps` timed launches after 3 warm-ups. */
static float time_ms(launch_fn fn, const bench_args *a, int reps)
{
    cudaEvent_t start, stop;
    float *ms = malloc(sizeof(float) * (size_t)reps);
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < 3; i++) CHECK(fn(a));
    for (int i = 0; i < reps; i++) {
        CHECK(cudaEventRecord(start, 0));
        CHECK(fn(a));
        CHECK(cudaEventRecord(stop, 0));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms[i], start, stop));
    }
    qsort(ms, (size_t)reps, sizeof(float), by_value);
    float median = ms[reps / 2];
    free(ms);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return median;
}

static const uint8_t *copy_src;
static uint8_t *copy_dst;
static size_t copy_bytes;

static cudaError_t run_copy(const bench_args *a)
{
    (void)a;
    return cudaMemcpyAsync(copy_dst, copy_src, copy_bytes, cudaMemcpyDeviceToDevice, 0);
}

int main(int argc, char **argv)
{
    int size = argc > 1 ? atoi(argv[1]) : 8192, reps = argc > 2 ? atoi(argv[2]) : 30;
    const int depth = argc > 3 ? atoi(argv[3]) : 8;
    if (size < 16 || reps < 1 || (depth != 8 && depth != 16)) {
        fprintf(stderr, "usage: kernel_times [SIZE >= 16] [REPS >= 1] [DEPTH 8|16]\n");
        return 2;
    }
    copy_bytes = 1ull << 30;
    CHECK(cudaMalloc((void **)&copy_src, copy_bytes));
    CHECK(cudaMalloc((void **)&copy_dst, copy_bytes));
    CHECK(cudaMemset(copy_dst, 1, copy_bytes));
    CHECK(cudaMemset((void *)copy_src, 2, copy_bytes));
    double copy_gbs = 2.0 * copy_bytes / (time_ms(run_copy, NULL, reps) * 1e6);
    printf("device copy 1 GiB: %.0f GB/s (read + write); %d-bit samples\n", copy_gbs, depth);

    gi_blur_params bp;
    gi_blur_params_default(&bp);
    bp.sigma = 2;
    int32_t weights[2 * 6 + 1];
    gi_blur_weights(&bp, weights);
    printf("%-10s %2s %9s %9s %8s %8s %7s\n", "op", "ch", "ms", "Gpix/s", "GB/s", "floor ms", "x floor");
    static const struct { const char *name; launch_fn fn; int writes; } ops[] = {
        {"blur s=2", run_blur, 1}, {"sobel", run_sobel, 1}, {"transpose", run_transpose, 1},
        {"hist", run_hist, 0}};
    for (int channels = 1; channels <= 4; channels += 3) {
        size_t pitch = (size_t)size * channels * (depth / 8), bytes = pitch * size;
        bench_args a = {0};
        a.pitch = pitch;
        a.size = size;
        a.channels = channels;
        a.depth = depth;
        a.weights = weights;
        a.radius = 6;
        uint8_t *host = malloc(bytes);
        for (size_t i = 0; i < bytes; i++) host[i] = (uint8_t)(rand() >> 7);
        CHECK(cudaMalloc((void **)&a.src, bytes));
        CHECK(cudaMalloc((void **)&a.dst, bytes));
        CHECK(cudaMemcpy((void *)a.src, host, bytes, cudaMemcpyHostToDevice));
        a.scratch_bytes = gi_cuda_blur_scratch_bytes(size, size, channels, 6, depth);
        if (a.scratch_bytes) CHECK(cudaMalloc(&a.scratch, a.scratch_bytes));
        CHECK(cudaMalloc((void **)&a.counts, 4 * 256 * sizeof(unsigned long long)));
        for (int o = 0; o < 4; o++) {
            double moved = (double)bytes * (ops[o].writes ? 2 : 1);
            float ms = time_ms(ops[o].fn, &a, reps);
            double floor_ms = moved / (copy_gbs * 1e6);
            printf("%-10s %2d %9.3f %9.1f %8.0f %8.3f %7.2f\n", ops[o].name, channels, ms,
                   (double)size * size / (ms * 1e6), moved / (ms * 1e6), floor_ms, ms / floor_ms);
        }
        CHECK(cudaFree((void *)a.src));
        CHECK(cudaFree(a.dst));
        CHECK(cudaFree(a.scratch));
        CHECK(cudaFree(a.counts));
        free(host);
    }
    return 0;
}
