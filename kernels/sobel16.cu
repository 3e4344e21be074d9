/* Sobel of 16-bit images (gpuimg.h; lib/cpu/sobel16.c is the twin it
 * matches byte for byte): gpuimg.h's double formula per sample, with
 * rounding intrinsics so that no multiply-add is fused (the CPU rounds
 * the product and the sum apart). One thread per pixel; its 3x3
 * neighbours come through L1. */
#include "border.cuh"
#include "gi_kernels.h"

namespace {

struct sobel16_view {
    const uint8_t *data;
    size_t pitch;
    int width, height, mode;
    uint32_t outside; /* an outside sample in zero mode */
    double scale, threshold;
    int use_threshold;
};

constexpr int BX = 32, BY = 8;

/* The filter input of channel c (or luma, gray) at virtual (x, y). */
template <int C, bool GRAY>
__device__ __forceinline__ int32_t input(const sobel16_view &s, int x, int y, int c)
{
    const int sx = gi_border_map_near(x, s.width, s.mode), sy = gi_border_map_near(y, s.height, s.mode);
    if (sx < 0 || sy < 0) return (int32_t)s.outside; /* luma of (v, v, v) is v */
    const uint16_t *px = (const uint16_t *)(s.data + (size_t)sy * s.pitch) + (size_t)sx * C;
    if (GRAY && C >= 3) return (int32_t)((77u * px[0] + 150u * px[1] + 29u * px[2] + 128) >> 8);
    return px[GRAY ? 0 : c];
}

__device__ __forceinline__ uint16_t edge16(int32_t gx, int32_t gy, const sobel16_view &s)
{
    const double sq = __dadd_rn(__dmul_rn((double)gx, (double)gx), __dmul_rn((double)gy, (double)gy));
    const double magnitude = __dmul_rn(s.scale, __dsqrt_rn(sq));
    if (s.use_threshold) return magnitude >= s.threshold ? 65535 : 0;
    const double rounded = floor(__dadd_rn(magnitude, 0.5));
    return rounded >= 65535.0 ? 65535 : (uint16_t)rounded;
}

template <int C, bool GRAY>
__global__ void __launch_bounds__(BX * BY) sobel16(sobel16_view s, uint8_t *dst, size_t dst_pitch)
{
    const int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    if (x >= s.width || y >= s.height) return;
    constexpr int OUT_C = GRAY ? 1 : C;
    constexpr int FILTERED = GRAY ? 1 : (C == 2 || C == 4) ? C - 1 : C;
    uint16_t *out = (uint16_t *)(dst + (size_t)y * dst_pitch) + (size_t)x * OUT_C;
#pragma unroll
    for (int c = 0; c < FILTERED; c++) {
        int32_t u[3][3];
#pragma unroll
        for (int dy = 0; dy < 3; dy++)
#pragma unroll
            for (int dx = 0; dx < 3; dx++) u[dy][dx] = input<C, GRAY>(s, x + dx - 1, y + dy - 1, c);
        const int32_t gx = (u[0][2] - u[0][0]) + 2 * (u[1][2] - u[1][0]) + (u[2][2] - u[2][0]);
        const int32_t gy = (u[2][0] - u[0][0]) + 2 * (u[2][1] - u[0][1]) + (u[2][2] - u[0][2]);
        out[c] = edge16(gx, gy, s);
    }
    if (!GRAY && FILTERED < C) /* alpha is copied through */
        out[C - 1] = ((const uint16_t *)(s.data + (size_t)y * s.pitch))[(size_t)x * C + C - 1];
}

template <int C>
cudaError_t launch(const sobel16_view &s, int gray, uint8_t *dst, size_t dst_pitch, cudaStream_t stream)
{
    const dim3 block(BX, BY), grid((s.width + BX - 1) / BX, (s.height + BY - 1) / BY);
    if (gray) sobel16<C, true><<<grid, block, 0, stream>>>(s, dst, dst_pitch);
    else sobel16<C, false><<<grid, block, 0, stream>>>(s, dst, dst_pitch);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gi_cuda_sobel16(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                       size_t dst_pitch, int width, int height, int channels,
                                       double scale, int use_threshold, double threshold, int gray,
                                       int border_mode, int border_value, cudaStream_t stream)
{
    if ((height + BY - 1) / BY > 65535) return cudaErrorInvalidConfiguration;
    const sobel16_view s = {src, src_pitch, width, height, border_mode,
                            (uint32_t)border_value * 257u, scale, threshold, use_threshold};
    switch (channels) {
    case 1: return launch<1>(s, gray, dst, dst_pitch, stream);
    case 2: return launch<2>(s, gray, dst, dst_pitch, stream);
    case 3: return launch<3>(s, gray, dst, dst_pitch, stream);
    case 4: return launch<4>(s, gray, dst, dst_pitch, stream);
    }
    return cudaErrorInvalidValue;
}
