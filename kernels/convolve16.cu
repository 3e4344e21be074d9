/* Convolution of 16-bit images with a mask quantized for 16 bits
 * (gpuimg.h; lib/cpu/convolve16.c is the twin it matches byte for byte):
 * exact 64-bit sums of int32 x uint16 products (65535 * sum|q| <= 2^52),
 * then the arithmetic shift. One thread per pixel, its channels together;
 * the window comes through L1. The mask travels as a kernel parameter
 * (constant bank, broadcast to the warp), as in convolve.cu. */
#include "border.cuh"
#include "gi_kernels.h"

namespace {

struct mask16 {
    int32_t q[GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE]; /* rows of `width`, top first */
    int width, height, shift;
};

struct view16 {
    const uint8_t *data;
    size_t pitch;
    int width, height, mode;
    uint32_t outside; /* an outside sample in zero mode */
};
static_assert(sizeof(mask16) + sizeof(view16) + 32 <= 4096,
              "the kernel's parameters stay within the classic 4 KiB");

constexpr int BX = 32, BY = 8;

template <int C>
__global__ void __launch_bounds__(BX * BY) convolve16(view16 s, uint8_t *dst, size_t dst_pitch, mask16 m)
{
    const int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    if (x >= s.width || y >= s.height) return;
    const int rx = (m.width - 1) / 2, ry = (m.height - 1) / 2;
    long long acc[C] = {};
    for (int j = 0; j < m.height; j++) {
        const int sy = gi_border_map_near(y + j - ry, s.height, s.mode);
        const uint16_t *row = sy < 0 ? nullptr : (const uint16_t *)(s.data + (size_t)sy * s.pitch);
        for (int i = 0; i < m.width; i++) {
            const long long q = m.q[j * m.width + i];
            const int sx = row ? gi_border_map_near(x + i - rx, s.width, s.mode) : -1;
#pragma unroll
            for (int c = 0; c < C; c++) acc[c] += q * (long long)(sx < 0 ? s.outside : row[(size_t)sx * C + c]);
        }
    }
    uint16_t *out = (uint16_t *)(dst + (size_t)y * dst_pitch) + (size_t)x * C;
    const long long half = m.shift > 0 ? 1ll << (m.shift - 1) : 0;
#pragma unroll
    for (int c = 0; c < C; c++) {
        const long long v = (acc[c] + half) >> m.shift;
        out[c] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
    }
}

template <int C>
cudaError_t launch(const view16 &s, uint8_t *dst, size_t dst_pitch, const mask16 &m, cudaStream_t stream)
{
    const dim3 block(BX, BY), grid((s.width + BX - 1) / BX, (s.height + BY - 1) / BY);
    convolve16<C><<<grid, block, 0, stream>>>(s, dst, dst_pitch, m);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gi_cuda_convolve16(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                          size_t dst_pitch, int width, int height, int channels,
                                          const int32_t *q, int mask_w, int mask_h, int shift,
                                          int border_mode, int border_value, cudaStream_t stream)
{
    if (mask_w < 1 || mask_h < 1 || mask_w > GI_CONVOLVE_MAX_SIZE || mask_h > GI_CONVOLVE_MAX_SIZE ||
        !(mask_w & 1) || !(mask_h & 1) || shift < 0 || shift > 30)
        return cudaErrorInvalidValue;
    if ((height + BY - 1) / BY > 65535) return cudaErrorInvalidConfiguration;
    mask16 m = {};
    for (int k = 0; k < mask_w * mask_h; k++) m.q[k] = q[k];
    m.width = mask_w;
    m.height = mask_h;
    m.shift = shift;
    const view16 s = {src, src_pitch, width, height, border_mode, (uint32_t)border_value * 257u};
    switch (channels) {
    case 1: return launch<1>(s, dst, dst_pitch, m, stream);
    case 2: return launch<2>(s, dst, dst_pitch, m, stream);
    case 3: return launch<3>(s, dst, dst_pitch, m, stream);
    case 4: return launch<4>(s, dst, dst_pitch, m, stream);
    }
    return cudaErrorInvalidValue;
}
