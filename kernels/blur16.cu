/* Blur of 16-bit images (gpuimg.h's 16-bit definition; lib/cpu/blur16.c
 * is the twin it matches byte for byte). Two passes through scratch
 * memory: the rows' pass writes each image row's h as uint32 ([y][x C +
 * c]), the columns' pass sums 2R + 1 of them per output in 64-bit
 * integers (u32 x u32 products, one wide multiply-add each) and finishes.
 * An outside row of zero mode is never stored: its h is a constant (the
 * weights sum to 65536). One thread per pixel, its channels together, so
 * a premultiplied colour finds its alpha's sum in a register. */
#include "border.cuh"
#include "gi_kernels.h"

namespace {

struct weights16 {
    int32_t w[2 * GI_BLUR_MAX_RADIUS + 1]; /* w[-R..R] at w[k + R] */
};

struct view16 {
    const uint8_t *data;
    size_t pitch;
    int width, height, mode;
    uint32_t outside; /* an outside sample in zero mode */
};

constexpr int BX = 32, BY = 8;

template <int C> constexpr bool premultiplied = C == 2 || C == 4;

template <int C>
__global__ void __launch_bounds__(BX * BY) blur16_rows(view16 s, uint32_t *h, int radius, weights16 wt)
{
    const int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    if (x >= s.width || y >= s.height) return;
    const uint16_t *row = (const uint16_t *)(s.data + (size_t)y * s.pitch);
    uint32_t sum[C] = {};
    unsigned long long wide[C] = {};
    for (int k = -radius; k <= radius; k++) {
        const int sx = gi_border_map_near(x + k, s.width, s.mode);
        const uint32_t w = (uint32_t)wt.w[k + radius];
        uint32_t px[C];
#pragma unroll
        for (int c = 0; c < C; c++) px[c] = sx < 0 ? s.outside : row[(size_t)sx * C + c];
#pragma unroll
        for (int c = 0; c < C; c++) {
            if (premultiplied<C> && c < C - 1)
                wide[c] += (unsigned long long)w * (px[c] * px[C - 1]);
            else
                sum[c] += w * px[c];
        }
    }
    uint32_t *out = h + ((size_t)y * s.width + x) * C;
#pragma unroll
    for (int c = 0; c < C; c++) {
        if (premultiplied<C> && c < C - 1) out[c] = (uint32_t)((wide[c] + (1u << 15)) >> 16);
        else if (premultiplied<C>) out[c] = sum[c];
        else out[c] = (sum[c] + 128) >> 8;
    }
}

/* min(65535, (vc 2^16 + va / 2) / va), 0 where va = 0. */
__device__ __forceinline__ uint16_t finish_colour(unsigned long long vc, unsigned long long va)
{
    if (!va) return 0;
    const unsigned long long q = ((vc << 16) + (va >> 1)) / va;
    return (uint16_t)(q > 65535 ? 65535 : q);
}

template <int C>
__global__ void __launch_bounds__(BX * BY)
    blur16_cols(const uint32_t *h, view16 s, uint8_t *dst, size_t dst_pitch, int radius, weights16 wt)
{
    const int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    if (x >= s.width || y >= s.height) return;
    /* h of an outside row: 65536 v rounded as the rows' pass would */
    uint32_t outside[C];
#pragma unroll
    for (int c = 0; c < C; c++)
        outside[c] = !premultiplied<C> ? s.outside << 8 : c < C - 1 ? s.outside * s.outside : s.outside << 16;
    unsigned long long v[C] = {};
    for (int k = -radius; k <= radius; k++) {
        const int sy = gi_border_map_near(y + k, s.height, s.mode);
        const uint32_t *in = sy < 0 ? outside : h + ((size_t)sy * s.width + x) * C;
        const uint32_t w = (uint32_t)wt.w[k + radius];
#pragma unroll
        for (int c = 0; c < C; c++) v[c] += (unsigned long long)w * in[c];
    }
    uint16_t *out = (uint16_t *)(dst + (size_t)y * dst_pitch) + (size_t)x * C;
#pragma unroll
    for (int c = 0; c < C; c++) {
        if (!premultiplied<C>) out[c] = (uint16_t)((v[c] + (1u << 23)) >> 24);
        else if (c < C - 1) out[c] = finish_colour(v[c], v[C - 1]);
        else out[c] = (uint16_t)((v[c] + (1ull << 31)) >> 32);
    }
}

template <int C>
cudaError_t launch16(const view16 &s, uint8_t *dst, size_t dst_pitch, int radius,
                     const weights16 &wt, uint32_t *h, cudaStream_t stream)
{
    const dim3 block(BX, BY), grid((s.width + BX - 1) / BX, (s.height + BY - 1) / BY);
    blur16_rows<C><<<grid, block, 0, stream>>>(s, h, radius, wt);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    blur16_cols<C><<<grid, block, 0, stream>>>(h, s, dst, dst_pitch, radius, wt);
    return cudaGetLastError();
}

} // namespace

extern "C" size_t gi_cuda_blur16_scratch_bytes(int width, int height, int channels)
{
    const size_t row = (size_t)width * (size_t)channels * sizeof(uint32_t);
    if (height > 0 && row > SIZE_MAX / (size_t)height) return SIZE_MAX;
    return row * (size_t)height;
}

extern "C" cudaError_t gi_cuda_blur16(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                      size_t dst_pitch, int width, int height, int channels,
                                      const int32_t *weights, int radius, int border_mode,
                                      int border_value, void *scratch, size_t scratch_bytes,
                                      cudaStream_t stream)
{
    if (radius < 0 || radius > GI_BLUR_MAX_RADIUS ||
        scratch_bytes < gi_cuda_blur16_scratch_bytes(width, height, channels))
        return cudaErrorInvalidValue;
    if ((height + BY - 1) / BY > 65535) return cudaErrorInvalidConfiguration;
    weights16 wt = {};
    for (int k = 0; k < 2 * radius + 1; k++) wt.w[k] = weights[k];
    const view16 s = {src, src_pitch, width, height, border_mode, (uint32_t)border_value * 257u};
    uint32_t *h = (uint32_t *)scratch;
    switch (channels) {
    case 1: return launch16<1>(s, dst, dst_pitch, radius, wt, h, stream);
    case 2: return launch16<2>(s, dst, dst_pitch, radius, wt, h, stream);
    case 3: return launch16<3>(s, dst, dst_pitch, radius, wt, h, stream);
    case 4: return launch16<4>(s, dst, dst_pitch, radius, wt, h, stream);
    }
    return cudaErrorInvalidValue;
}
