/* cuda_startup_parts: where CUDA's start-up goes in a fresh process, part
 * by part, and what the copies of one photo cost, for the default device's
 * cost model (lib/engine/device_plan.c). Built and run by bench_device_choice.sh:
 *   cc -O2 -I/usr/local/cuda/include cuda_startup_parts.c \
 *      -L/usr/local/cuda/lib64 -lcudart -o parts && ./parts [BYTES]
 * BYTES (default 35,520,000: a 3700x2400 RGBA photo) sizes the buffers. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static double mark;

/* Prints the time since the last lap under `what`; exits on a CUDA error. */
static void lap(const char *what, cudaError_t e)
{
    double t = now_ms();
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
    printf("%-52s %8.2f ms\n", what, t - mark);
    mark = now_ms();
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : 35520000;
    int n = 0;
    void *pinned = NULL, *dev = NULL;
    cudaStream_t stream;
    double start = mark = now_ms();
    lap("cudaGetDeviceCount (driver start, enumeration)", cudaGetDeviceCount(&n));
    lap("cudaSetDevice(0)", cudaSetDevice(0));
    lap("cudaFree(0) (primary context)", cudaFree(0));
    lap("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    double startup = now_ms() - start;
    lap("cudaHostAlloc (pinned, BYTES)", cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
    lap("cudaMalloc (BYTES)", cudaMalloc(&dev, bytes));
    unsigned char *host = malloc(bytes), *back = malloc(bytes);
    if (!host || !back) return 1;
    memset(host, 1, bytes);
    mark = now_ms();
    memcpy(pinned, host, bytes);
    lap("memcpy pageable -> pinned (staging in)", cudaSuccess);
    cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, stream);
    lap("H2D from pinned", cudaStreamSynchronize(stream));
    lap("H2D from pageable (cudaMemcpy)", cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    cudaMemcpyAsync(pinned, dev, bytes, cudaMemcpyDeviceToHost, stream);
    lap("D2H to pinned", cudaStreamSynchronize(stream));
    memcpy(back, pinned, bytes);
    lap("memcpy pinned -> new pageable (staging out, first touch)", cudaSuccess);
    memcpy(back, pinned, bytes);
    lap("memcpy pinned -> pageable again (pages present)", cudaSuccess);
    printf("%-52s %8.2f ms\n", "start-up (count, device, context, stream)", startup);
    printf("bytes %zu, devices %d\n", bytes, n);
    free(host);
    free(back);
    cudaFreeHost(pinned);
    cudaFree(dev);
    cudaStreamDestroy(stream);
    return 0;
}
