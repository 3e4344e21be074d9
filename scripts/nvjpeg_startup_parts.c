/* nvjpeg_startup_parts: where the fast codecs' start-up goes in a fresh
 * process, part by part, and what a first and a second group of decodes on
 * the JPEG engines cost: what the device path (lib/batch_device.c) waits
 * for before its first file. Build and run on the GPU machine:
 *   cc -O2 -I/usr/local/cuda/include nvjpeg_startup_parts.c \
 *      -L/usr/local/cuda/lib64 -lnvjpeg -lcudart -o parts && ./parts FILE.jpg [N]
 * N (default 8) copies of FILE make a group. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cuda_runtime_api.h>
#include <nvjpeg.h>
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

/* Prints the time since the last lap under `what`; exits on a failure. */
static void lap(const char *what, int failed)
{
    double t = now_ms();
    if (failed) {
        fprintf(stderr, "%s: failed (%d)\n", what, failed);
        exit(1);
    }
    printf("%-56s %8.2f ms\n", what, t - mark);
    mark = now_ms();
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: parts FILE.jpg [N]\n"), 2;
    int n = argc > 2 ? atoi(argv[2]) : 8;
    FILE *f = fopen(argv[1], "rb");
    if (!f || n < 1 || n > 64) return 1;
    static unsigned char data[32 << 20];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    int count = 0, w[NVJPEG_MAX_COMPONENT], h[NVJPEG_MAX_COMPONENT], comps = 0;
    nvjpegChromaSubsampling_t css;
    nvjpegHandle_t handle;
    nvjpegJpegState_t state;
    nvjpegJpegStream_t stream;
    cudaStream_t cs;
    double start = mark = now_ms();
    lap("cudaGetDeviceCount (driver start, enumeration)", cudaGetDeviceCount(&count));
    lap("cudaFree(0) (primary context)", cudaFree(0));
    lap("nvjpegCreateEx(HARDWARE)", nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, 0, &handle));
    lap("nvjpegJpegStateCreate", nvjpegJpegStateCreate(handle, &state));
    lap("nvjpegJpegStreamCreate", nvjpegJpegStreamCreate(handle, &stream));
    lap("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    lap("nvjpegDecodeBatchedInitialize(N)",
        nvjpegDecodeBatchedInitialize(handle, state, n, 1, NVJPEG_OUTPUT_RGBI));
    printf("%-56s %8.2f ms\n", "start-up, in all", now_ms() - start);
    mark = now_ms();
    lap("nvjpegGetImageInfo", nvjpegGetImageInfo(handle, data, size, &comps, &css, w, h));
    lap("nvjpegJpegStreamParseHeader", nvjpegJpegStreamParseHeader(handle, data, size, stream));
    lap("nvjpegJpegStreamParse (whole file)", nvjpegJpegStreamParse(handle, data, size, 0, 0, stream));
    const unsigned char *ptrs[64];
    size_t sizes[64];
    nvjpegImage_t out[64];
    size_t pitch = ((size_t)w[0] * 3 + 255) & ~(size_t)255;
    for (int i = 0; i < n; i++) {
        ptrs[i] = data;
        sizes[i] = size;
        memset(&out[i], 0, sizeof out[i]);
        out[i].pitch[0] = pitch;
        if (cudaMalloc((void **)&out[i].channel[0], pitch * h[0]) != cudaSuccess) return 1;
    }
    lap("cudaMalloc N outputs", 0);
    for (int rep = 0; rep < 3; rep++) {
        int s = nvjpegDecodeBatched(handle, state, ptrs, sizes, out, cs);
        lap(rep ? "decode N on the engines (again)" : "decode N on the engines (first)",
            s ? s : cudaStreamSynchronize(cs));
    }
    printf("%d x %d, %d components, %zu bytes, N = %d\n", w[0], h[0], comps, size, n);
    return 0;
}
