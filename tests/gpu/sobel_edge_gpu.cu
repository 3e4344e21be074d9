/* The sobel kernel's fast default magnitudes (kernels/sobel_edge.cuh) on
 * the device, for every pair of gradients the kernel can form: at 16 bits
 * every |gx|, |gy| <= 4 * 65535 (6.9e10 pairs), at 8 bits every |gx|,
 * |gy| <= 4 * 255. Each result R must be gpuimg.h's min(MAX, round(sqrt(s)))
 * for s = gx^2 + gy^2, checked in exact integers: (2R - 1)^2 < 4 s (R > 0)
 * and 4 s < (2R + 1)^2 (R < MAX), 4 s never being an odd square. Both
 * rules are symmetric in the signs of gx and gy (a square; fabsf), so the
 * non-negative pairs cover the rest. Exits 77 without a GPU. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "sobel_edge.cuh"

namespace {

constexpr uint32_t G16 = 4u * 65535u, G8 = 4u * 255u;

struct mismatch {
    unsigned long long count;
    uint32_t gx, gy, got;
};

__device__ bool rounds_right(uint64_t s, uint32_t r, uint32_t max)
{
    const uint64_t four_s = 4 * s, lo = 2 * (uint64_t)r - 1, hi = 2 * (uint64_t)r + 1;
    if (r > max) return false;
    if (r > 0 && lo * lo >= four_s) return false;
    return r == max || four_s < hi * hi;
}

__device__ void record(mismatch *m, uint32_t gx, uint32_t gy, uint32_t got)
{
    if (atomicAdd(&m->count, 1ull) == 0) m->gx = gx, m->gy = gy, m->got = got;
}

/* thread gx walks every gy */
__global__ void check16(mismatch *m)
{
    const uint32_t gx = blockIdx.x * blockDim.x + threadIdx.x;
    if (gx > G16) return;
    for (uint32_t gy = 0; gy <= G16; gy++) {
        const uint32_t r = edge_fast16((float)gx, (float)gy);
        if (!rounds_right((uint64_t)gx * gx + (uint64_t)gy * gy, r, 65535u)) record(m, gx, gy, r);
    }
}

__global__ void check8(mismatch *m)
{
    const uint32_t gx = blockIdx.x * blockDim.x + threadIdx.x;
    if (gx > G8) return;
    for (uint32_t gy = 0; gy <= G8; gy++) {
        const uint32_t s = gx * gx + gy * gy, r = edge_fast((float)s) & 0xFFu; /* its low byte */
        if (!rounds_right(s, r, 255u)) record(m, gx, gy, r);
    }
}

int run(const char *what, void (*kernel)(mismatch *), uint32_t g, mismatch *m)
{
    if (cudaMemset(m, 0, sizeof *m) != cudaSuccess) return -1;
    kernel<<<(g + 128) / 128, 128>>>(m);
    mismatch h;
    const cudaError_t e = cudaMemcpy(&h, m, sizeof h, cudaMemcpyDeviceToHost);
    if (cudaGetLastError() != cudaSuccess || e != cudaSuccess) {
        printf("%s: CUDA failed: %s\n", what, cudaGetErrorString(e));
        return -1;
    }
    if (h.count) {
        printf("FAIL %s: %llu pairs wrong, e.g. gx %u gy %u gave %u\n", what, h.count, h.gx, h.gy, h.got);
        return 1;
    }
    printf("ok %s: every pair up to %u rounds right\n", what, g);
    return 0;
}

} // namespace

int main()
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("skip: no CUDA device\n");
        return 77;
    }
    mismatch *m;
    if (cudaMalloc(&m, sizeof *m) != cudaSuccess) {
        printf("cudaMalloc failed\n");
        return 1;
    }
    const int a = run("edge_fast (8 bits)", check8, G8, m);
    const int b = run("edge_fast16 (16 bits)", check16, G16, m);
    cudaFree(m);
    return a || b ? 1 : 0;
}
