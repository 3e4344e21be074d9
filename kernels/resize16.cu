/* Resampling of 16-bit images with the integer weights of gpuimg.h
 * (resize, 16 bits); lib/cpu/resize16.c is the twin it matches byte for
 * byte. resize.cu's two passes and tiles, with the horizontal pass's sums
 * kept in int64: premultiplied 16-bit samples times the weights pass 2^31.
 * Integer sums are the same in any order. */
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int TILE_W = GI_WARP;
constexpr int TILE_H = 8;
constexpr int STAGED_WEIGHTS = 4096;
static_assert(STAGED_WEIGHTS * 4 <= 48 * 1024, "the staged weights fit the default shared memory");

struct axis_view {
    const int32_t *first, *count, *q;
    int taps;
};

/* h of gpuimg.h for output column x of source row y, every channel. */
template <int C>
__device__ void filter_across16(const uint16_t *row, const int32_t *q, int first, int count,
                                long long *out)
{
    long long acc[C] = {};
    for (int k = 0; k < count; k++) {
        const uint16_t *p = row + (size_t)(first + k) * C;
        const long long w = q[k];
        if (C == 2 || C == 4) {
            const long long a = p[C - 1];
            for (int c = 0; c < C - 1; c++) acc[c] += w * (p[c] * a);
            acc[C - 1] += w * a;
        } else {
            for (int c = 0; c < C; c++) acc[c] += w * p[c];
        }
    }
    for (int c = 0; c < C; c++) out[c] = C == 2 || C == 4 ? acc[c] : (acc[c] + 32) >> 6;
}

__device__ const int32_t *stage_weights(const axis_view &a, int p0, int n, int32_t *shared)
{
    const int total = n * a.taps;
    const int32_t *from = a.q + (size_t)p0 * a.taps;
    if (total > STAGED_WEIGHTS) return from;
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = t; i < total; i += blockDim.x * blockDim.y) shared[i] = from[i];
    __syncthreads();
    return shared;
}

template <int C>
__global__ void resize16_rows(const uint8_t *src, size_t pitch, int in_h, int out_w,
                              axis_view ax, long long *h)
{
    __shared__ int32_t weights[STAGED_WEIGHTS];
    const int x0 = blockIdx.x * TILE_W, n = min(TILE_W, out_w - x0);
    const int32_t *q = stage_weights(ax, x0, n, weights);
    const int x = x0 + threadIdx.x, y = blockIdx.y * TILE_H + threadIdx.y;
    if (threadIdx.x >= n || y >= in_h) return;
    filter_across16<C>((const uint16_t *)(src + (size_t)y * pitch), q + (size_t)threadIdx.x * ax.taps,
                       ax.first[x], ax.count[x], h + ((size_t)y * out_w + x) * C);
}

__device__ uint16_t clamp16(long long v)
{
    return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
}

template <int C>
__global__ void resize16_columns(const long long *h, int out_w, int out_h, axis_view ay,
                                 uint8_t *dst, size_t pitch)
{
    __shared__ int32_t weights[STAGED_WEIGHTS];
    const int y0 = blockIdx.y * TILE_H, n = min(TILE_H, out_h - y0);
    const int32_t *q = stage_weights(ay, y0, n, weights);
    const int x = blockIdx.x * TILE_W + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= out_w || threadIdx.y >= n) return;
    const int32_t *w = q + (size_t)threadIdx.y * ay.taps;
    const int first = ay.first[y], count = ay.count[y];
    long long v[C] = {};
    for (int k = 0; k < count; k++) {
        const long long *p = h + ((size_t)(first + k) * out_w + x) * C;
        for (int c = 0; c < C; c++) v[c] += (long long)w[k] * p[c];
    }
    uint16_t *out = (uint16_t *)(dst + (size_t)y * pitch) + (size_t)x * C;
    if (C == 1 || C == 3) {
        for (int c = 0; c < C; c++) out[c] = clamp16((v[c] + (1 << 21)) >> 22);
        return;
    }
    const long long va = v[C - 1];
    for (int c = 0; c < C - 1; c++)
        out[c] = va <= 0 || v[c] <= 0 ? 0 : clamp16((v[c] + va / 2) / va);
    out[C - 1] = clamp16((va + (1 << 27)) >> 28);
}

template <int C>
cudaError_t launch(const uint8_t *src, size_t src_pitch, uint8_t *dst, size_t dst_pitch,
                   int in_h, int out_w, int out_h, axis_view ax, axis_view ay, long long *h,
                   cudaStream_t stream)
{
    const dim3 block(TILE_W, TILE_H);
    const dim3 rows((out_w + TILE_W - 1) / TILE_W, (in_h + TILE_H - 1) / TILE_H);
    resize16_rows<C><<<rows, block, 0, stream>>>(src, src_pitch, in_h, out_w, ax, h);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    const dim3 columns((out_w + TILE_W - 1) / TILE_W, (out_h + TILE_H - 1) / TILE_H);
    resize16_columns<C><<<columns, block, 0, stream>>>(h, out_w, out_h, ay, dst, dst_pitch);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gi_cuda_resize16(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                        size_t dst_pitch, int in_h, int out_w, int out_h,
                                        int channels, const int32_t *first_x,
                                        const int32_t *count_x, const int32_t *q_x, int taps_x,
                                        const int32_t *first_y, const int32_t *count_y,
                                        const int32_t *q_y, int taps_y, long long *h,
                                        cudaStream_t stream)
{
    const axis_view ax = {first_x, count_x, q_x, taps_x}, ay = {first_y, count_y, q_y, taps_y};
    switch (channels) {
    case 1: return launch<1>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h, ax, ay, h, stream);
    case 2: return launch<2>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h, ax, ay, h, stream);
    case 3: return launch<3>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h, ax, ay, h, stream);
    default: return launch<4>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h, ax, ay, h, stream);
    }
}
