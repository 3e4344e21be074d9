/* jpeg_encode_gpu: the exact JPEG writer on the GPU
 * (lib/cuda/jpeg_encode_device.h) makes the very file the CPU's writer
 * (gi__jpeg_write, stb_image_write's bytes) makes of the same pixels: 1-4
 * channels, sizes from 1x1, off the MCU grid and prime, qualities 1-100
 * (4:2:0 up to 90, 4:4:4 above), on noise (long codes, many 0xFF bytes to
 * stuff), smooth gradients (long zero runs, ZRL) and flat images (end of
 * block at once), with the device's rows padded and the scratch reused
 * from one image to the next, larger and smaller. Exits 77 without a GPU.
 * GPUIMG_TEST_SMALL=1 leaves out the large sizes (for compute-sanitizer). */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "cuda/jpeg_encode_device.h"
#include "codec/jpeg/jpeg_write.h"

enum { NOISE, SMOOTH, FLAT, KINDS };

static void fill(uint8_t *p, size_t n, int w, int ch, int kind)
{
    for (size_t i = 0; i < n; i++) {
        size_t px = i / (size_t)ch;
        int x = (int)(px % (size_t)w), y = (int)(px / (size_t)w), c = (int)(i % (size_t)ch);
        p[i] = kind == NOISE    ? (uint8_t)th_rand_int(0, 255)
               : kind == SMOOTH ? (uint8_t)((x * 3 + y * 2 + c * 40) & 0xFF)
                                : (uint8_t)(200 - 50 * c);
    }
}

static void compare_one(gi__cuda_jpeg_encoder *enc, int w, int h, int ch, int quality, int kind)
{
    size_t row = (size_t)w * (size_t)ch, pitch = (row + 255) / 256 * 256;
    uint8_t *host = malloc(row * (size_t)h);
    uint8_t *d = NULL;
    if (!th_check(host != NULL, "out of memory")) return;
    fill(host, row * (size_t)h, w, ch, kind);
    cudaError_t e = cudaMalloc((void **)&d, pitch * (size_t)h);
    if (e == cudaSuccess) e = cudaMemset(d, 0xA5, pitch * (size_t)h); /* padding shows if read */
    if (e == cudaSuccess) e = cudaMemcpy2D(d, pitch, host, row, row, (size_t)h, cudaMemcpyHostToDevice);
    uint8_t *cpu = NULL, *gpu = NULL;
    size_t cpu_size = 0, gpu_size = 0;
    double host_ms;
    int ok = th_check(e == cudaSuccess, "upload: %s", cudaGetErrorString(e)) &&
             th_check(gi__jpeg_write(host, w, h, ch, row, quality, 1, &cpu, &cpu_size) == 0,
                      "CPU write") &&
             th_check(gi__cuda_jpeg_encode(enc, d, pitch, w, h, ch, quality, NULL, &gpu, &gpu_size,
                                           &host_ms) == GI_OK,
                      "GPU encode %dx%d: %s", w, h, gi_last_error());
    if (ok) {
        size_t at = 0;
        while (at < cpu_size && at < gpu_size && cpu[at] == gpu[at]) at++;
        th_check(cpu_size == gpu_size && at == cpu_size,
                 "%dx%d, %d channels, quality %d, image kind %d: %zu bytes against the CPU's %zu, "
                 "first difference at byte %zu",
                 w, h, ch, quality, kind, gpu_size, cpu_size, at);
    }
    free(cpu);
    free(gpu);
    cudaFree(d);
    free(host);
}

int main(void)
{
    int count = 0;
    /* gi_cuda_device_count first: it loads the backend's library, whose
     * helpers it binds (lib/cuda/module_host.h) */
    if (gi_cuda_device_count(NULL) == 0 || cudaGetDeviceCount(&count) != cudaSuccess ||
        count == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    th_seed();
    const int small = getenv("GPUIMG_TEST_SMALL") != NULL;
    static const int sizes[][2] = {{1, 1},   {1, 17},  {17, 1},   {8, 8},     {16, 16},
                                   {7, 13},  {31, 29}, {97, 131}, {257, 3},   {3, 257},
                                   {640, 480}, {1023, 769}, {3001, 2003}};
    static const int qualities[] = {1, 2, 10, 25, 50, 75, 89, 90, 91, 95, 99, 100, 0};
    gi__cuda_jpeg_encoder enc = {0};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        const long pixels = (long)sizes[z][0] * sizes[z][1];
        if (small && pixels > 20000) continue;
        for (int ch = 1; ch <= 4; ch++)
            for (size_t q = 0; q < sizeof qualities / sizeof *qualities; q++)
                for (int kind = 0; kind < KINDS; kind++) {
                    if (pixels > 500000 && (q % 4 != 0 || kind == FLAT)) continue;
                    compare_one(&enc, sizes[z][0], sizes[z][1], ch, qualities[q], kind);
                }
    }
    /* a small image after the largest: the scratch is bigger than needed */
    compare_one(&enc, 5, 3, 3, 75, NOISE);
    gi__cuda_jpeg_encoder_free(&enc);
    return th_finish();
}
