/* cuda_start_times [--together]: what CUDA's start costs a process on this
 * host, the part of a batch that more GPUs cannot share: the driver's
 * start (the first runtime call, cudaGetDeviceCount), then each GPU's
 * primary context (cudaSetDevice and a first cudaFree). With --together
 * the contexts are created on one thread each, at once, as a batch's
 * lanes create them; else one after another.
 *
 * Prints one line per step, in milliseconds since the process's first
 * CUDA call. Run it several times: a host whose GPUs are not kept
 * initialised (no persistence daemon) pays the driver's start in every
 * process. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_GPUS 64

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

typedef struct {
    int gpu;
    double began, ended;
    cudaError_t err;
} context_start;

static void *start_context(void *arg)
{
    context_start *c = arg;
    c->began = now_ms();
    c->err = cudaSetDevice(c->gpu);
    if (c->err == cudaSuccess) c->err = cudaFree(0);
    c->ended = now_ms();
    return NULL;
}

int main(int argc, char **argv)
{
    const int together = argc > 1 && strcmp(argv[1], "--together") == 0;
    if (argc > 2 || (argc == 2 && !together)) {
        fprintf(stderr, "usage: cuda_start_times [--together]\n");
        return 2;
    }
    const double t0 = now_ms();
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    const double driver = now_ms() - t0;
    if (err != cudaSuccess) {
        fprintf(stderr, "cuda_start_times: cudaGetDeviceCount: %s\n", cudaGetErrorString(err));
        return 1;
    }
    if (n > MAX_GPUS) n = MAX_GPUS;
    printf("driver start (cudaGetDeviceCount, %d GPUs): %.1f ms\n", n, driver);
    context_start starts[MAX_GPUS];
    pthread_t ids[MAX_GPUS];
    int threads = 0;
    for (int g = 0; g < n; g++) {
        starts[g] = (context_start){.gpu = g};
        if (!together) {
            start_context(&starts[g]);
        } else if (pthread_create(&ids[g], NULL, start_context, &starts[g]) == 0) {
            threads = g + 1;
        } else {
            fprintf(stderr, "cuda_start_times: cannot start a thread\n");
            n = g;
            break;
        }
    }
    for (int g = 0; g < threads; g++) pthread_join(ids[g], NULL);
    int rc = 0;
    for (int g = 0; g < n; g++) {
        if (starts[g].err != cudaSuccess) {
            fprintf(stderr, "cuda_start_times: GPU %d: %s\n", g, cudaGetErrorString(starts[g].err));
            rc = 1;
            continue;
        }
        printf("GPU %d context (%s): %.1f ms, ready at %.1f ms\n", g,
               together ? "together" : "in turn", starts[g].ended - starts[g].began,
               starts[g].ended - t0);
    }
    return rc;
}
