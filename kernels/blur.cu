/* Separable fixed-point blur (gpuimg.h gives the exact integer rules).
 *
 * Radii up to GI_BLUR_FUSED_MAX_RADIUS run fused: a block loads its tile plus
 * an R-pixel halo into shared memory, filters every tile row horizontally
 * into shared uint32 sums, then filters those vertically; nothing but the
 * result goes back to global memory. Larger radii would not fit, so they run
 * as two passes through the caller's scratch buffer: a row pass (row segment
 * plus halo in shared memory) and a column pass. Both paths do the same
 * integer operations, so their results are identical.
 *
 * Weights travel as a kernel parameter (constant bank, broadcast to the
 * warp) rather than a __constant__ symbol, which two contexts blurring on
 * two streams at once would overwrite under each other. */
#include "border.cuh"
#include "gi_kernels.h"
#include "gi_size.h"
#include "tiling.h"

namespace {

template <int N> struct weights_param {
    int32_t w[N];
};
using fused_weights = weights_param<2 * GI_BLUR_FUSED_MAX_RADIUS + 1>;
using wide_weights = weights_param<2 * GI_BLUR_MAX_RADIUS + 1>;

/* 2 and 4 channels carry alpha last and blur colour premultiplied. */
template <int C> constexpr bool has_alpha = C == 2 || C == 4;

/* Horizontal sum of one output pixel: h = (sum w * u + 128) >> 8, with u the
 * sample, or c * a for colour next to alpha. At most 65536 * 65025, so
 * uint32 holds it. */
template <int C> struct row_sum {
    uint32_t acc[C] = {};

    __device__ __forceinline__ void add(uint32_t w, const uint8_t *p)
    {
        if (has_alpha<C>) {
            const uint32_t a = p[C - 1];
#pragma unroll
            for (int c = 0; c < C - 1; c++) acc[c] += w * (p[c] * a);
            acc[C - 1] += w * a;
        } else {
#pragma unroll
            for (int c = 0; c < C; c++) acc[c] += w * p[c];
        }
    }
    __device__ __forceinline__ uint32_t result(int c) const { return (acc[c] + 128) >> 8; }
};

/* Vertical sum and final rounding. Plain channels and alpha fit uint32
 * (65536 * 65280); premultiplied colour needs uint64. */
template <int C> struct column_sum {
    uint64_t colour[C] = {};
    uint32_t plain[C] = {};

    __device__ __forceinline__ void add(uint32_t w, const uint32_t *h)
    {
#pragma unroll
        for (int c = 0; c < C; c++) {
            if (has_alpha<C> && c < C - 1) colour[c] += (uint64_t)w * h[c];
            else plain[c] += w * h[c];
        }
    }
    __device__ __forceinline__ void store(uint8_t *out) const
    {
        const uint32_t va = plain[C - 1];
#pragma unroll
        for (int c = 0; c < C; c++) {
            if (has_alpha<C> && c < C - 1) {
                const uint64_t v = va == 0 ? 0 : (colour[c] + va / 2) / va;
                out[c] = (uint8_t)(v > 255 ? 255 : v);
            } else {
                out[c] = (uint8_t)((plain[c] + (1u << 23)) >> 24);
            }
        }
    }
};

template <int C>
__global__ void __launch_bounds__(GI_BLUR_TILE_W * GI_BLUR_ROWS)
    blur_fused(gi_src_view s, uint8_t *dst, size_t dst_pitch, int tiles_x, int radius,
               fused_weights wt)
{
    extern __shared__ uint32_t fused_smem[];
    const int taps = 2 * radius + 1, rows = GI_BLUR_TILE_H + 2 * radius;
    const int tile_w = GI_BLUR_TILE_W + 2 * radius;
    uint32_t *hsum = fused_smem; /* [C][rows][GI_BLUR_TILE_W]: lanes hit consecutive words */
    uint8_t *tile = (uint8_t *)(fused_smem + (size_t)C * rows * GI_BLUR_TILE_W);
    const int x0 = (int)(blockIdx.x % tiles_x) * GI_BLUR_TILE_W;
    const int y0 = (int)(blockIdx.x / tiles_x) * GI_BLUR_TILE_H;
    const int tx = threadIdx.x % GI_WARP, ty = threadIdx.x / GI_WARP;

    gi_load_tile<C>(tile, tile_w, rows, s, x0 - radius, y0 - radius);
    __syncthreads();

    for (int r = ty; r < rows; r += GI_BLUR_ROWS) {
        const uint8_t *p = tile + ((size_t)r * tile_w + tx) * C;
        row_sum<C> h;
        for (int k = 0; k < taps; k++) h.add((uint32_t)wt.w[k], p + k * C);
#pragma unroll
        for (int c = 0; c < C; c++) hsum[(c * rows + r) * GI_BLUR_TILE_W + tx] = h.result(c);
    }
    __syncthreads();

    const int x = x0 + tx;
    if (x >= s.width) return;
    for (int r = ty; r < GI_BLUR_TILE_H && y0 + r < s.height; r += GI_BLUR_ROWS) {
        column_sum<C> v;
        for (int k = 0; k < taps; k++) {
            uint32_t h[C];
#pragma unroll
            for (int c = 0; c < C; c++) h[c] = hsum[(c * rows + r + k) * GI_BLUR_TILE_W + tx];
            v.add((uint32_t)wt.w[k], h);
        }
        v.store(dst + (size_t)(y0 + r) * dst_pitch + (size_t)x * C);
    }
}

/* Two-pass, row pass: block b filters GI_BLUR_SEGMENT pixels of one row into
 * scratch, laid out [C][height][width] so the column pass reads coalesced. */
template <int C>
__global__ void __launch_bounds__(GI_BLUR_SEGMENT)
    blur_rows(gi_src_view s, uint32_t *scratch, int segments, int radius, wide_weights wt)
{
    extern __shared__ uint32_t row_smem[];
    uint8_t *tile = (uint8_t *)row_smem;
    const int y = (int)(blockIdx.x / segments);
    const int x0 = (int)(blockIdx.x % segments) * GI_BLUR_SEGMENT;
    gi_load_tile<C>(tile, GI_BLUR_SEGMENT + 2 * radius, 1, s, x0 - radius, y);
    __syncthreads();

    const int x = x0 + threadIdx.x;
    if (x >= s.width) return;
    const uint8_t *p = tile + (size_t)threadIdx.x * C;
    row_sum<C> h;
    for (int k = 0; k < 2 * radius + 1; k++) h.add((uint32_t)wt.w[k], p + k * C);
    const size_t plane = (size_t)s.width * s.height;
#pragma unroll
    for (int c = 0; c < C; c++) scratch[c * plane + (size_t)y * s.width + x] = h.result(c);
}

/* Two-pass, column pass: one thread per output pixel. An outside row in zero
 * mode is a row of border pixels, whose horizontal sum is exactly 256 * u
 * because the weights sum to 65536. */
template <int C>
__global__ void __launch_bounds__(GI_BLUR_TILE_W * GI_BLUR_ROWS)
    blur_cols(const uint32_t *scratch, gi_src_view s, uint8_t *dst, size_t dst_pitch, int tiles_x,
              int radius, wide_weights wt)
{
    const int x = (int)(blockIdx.x % tiles_x) * GI_BLUR_TILE_W + threadIdx.x % GI_WARP;
    const int y = (int)(blockIdx.x / tiles_x) * GI_BLUR_ROWS + threadIdx.x / GI_WARP;
    if (x >= s.width || y >= s.height) return;
    const size_t plane = (size_t)s.width * s.height;
    const bool interior = y - radius >= 0 && y + radius < s.height;
    uint32_t outside[C];
#pragma unroll
    for (int c = 0; c < C; c++)
        outside[c] = (has_alpha<C> && c < C - 1 ? (uint32_t)s.value * s.value : s.value) << 8;

    column_sum<C> v;
    for (int k = 0; k < 2 * radius + 1; k++) {
        const int sy = interior ? y - radius + k
                                : gi_border_map((long long)y - radius + k, s.height, s.mode);
        uint32_t h[C];
#pragma unroll
        for (int c = 0; c < C; c++)
            h[c] = sy < 0 ? outside[c] : scratch[c * plane + (size_t)sy * s.width + x];
        v.add((uint32_t)wt.w[k], h);
    }
    v.store(dst + (size_t)y * dst_pitch + (size_t)x * C);
}

/* Blocks for a grid of tiles, or 0 when the count does not fit gridDim.x. */
unsigned tile_blocks(int width, int height, int tile_w, int tile_h, int *tiles_x)
{
    *tiles_x = (width + tile_w - 1) / tile_w;
    const long long n = (long long)*tiles_x * ((height + tile_h - 1) / tile_h);
    return n > 0x7fffffffLL ? 0 : (unsigned)n;
}

template <int C>
cudaError_t launch_fused(const gi_src_view &s, uint8_t *dst, size_t dst_pitch,
                         const int32_t *weights, int radius, cudaStream_t stream)
{
    int tiles_x;
    const unsigned blocks = tile_blocks(s.width, s.height, GI_BLUR_TILE_W, GI_BLUR_TILE_H, &tiles_x);
    if (blocks == 0) return cudaErrorInvalidValue;
    fused_weights wt;
    for (int k = 0; k < 2 * radius + 1; k++) wt.w[k] = weights[k];
    blur_fused<C><<<blocks, GI_BLUR_TILE_W * GI_BLUR_ROWS, GI_BLUR_FUSED_SMEM(radius, C), stream>>>(
        s, dst, dst_pitch, tiles_x, radius, wt);
    return cudaGetLastError();
}

template <int C>
cudaError_t launch_two_pass(const gi_src_view &s, uint8_t *dst, size_t dst_pitch,
                            const int32_t *weights, int radius, uint32_t *scratch,
                            cudaStream_t stream)
{
    const int segments = (s.width + GI_BLUR_SEGMENT - 1) / GI_BLUR_SEGMENT;
    int tiles_x;
    const unsigned col_blocks = tile_blocks(s.width, s.height, GI_BLUR_TILE_W, GI_BLUR_ROWS, &tiles_x);
    if (col_blocks == 0 || (long long)segments * s.height > 0x7fffffffLL) return cudaErrorInvalidValue;
    wide_weights wt;
    for (int k = 0; k < 2 * radius + 1; k++) wt.w[k] = weights[k];
    blur_rows<C><<<(unsigned)segments * s.height, GI_BLUR_SEGMENT,
                   GI_BLUR_SEGMENT_SMEM(radius, C), stream>>>(
        s, scratch, segments, radius, wt);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    blur_cols<C><<<col_blocks, GI_BLUR_TILE_W * GI_BLUR_ROWS, 0, stream>>>(
        scratch, s, dst, dst_pitch, tiles_x, radius, wt);
    return cudaGetLastError();
}

template <int C>
cudaError_t launch(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, const int32_t *weights,
                   int radius, void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    if (radius <= GI_BLUR_FUSED_MAX_RADIUS)
        return launch_fused<C>(s, dst, dst_pitch, weights, radius, stream);
    if (!scratch || scratch_bytes < gi_cuda_blur_scratch_bytes(s.width, s.height, C, radius))
        return cudaErrorInvalidValue;
    return launch_two_pass<C>(s, dst, dst_pitch, weights, radius, (uint32_t *)scratch, stream);
}

} // namespace

extern "C" size_t gi_cuda_blur_scratch_bytes(int width, int height, int channels, int radius)
{
    size_t bytes;
    if (radius <= GI_BLUR_FUSED_MAX_RADIUS) return 0;
    if (gi__image_bytes(width, height, channels, &bytes) || gi__mul_size(bytes, 4, &bytes))
        return SIZE_MAX;
    return bytes;
}

extern "C" cudaError_t gi_cuda_blur(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                    size_t dst_pitch, int width, int height, int channels,
                                    const int32_t *weights, int radius, int border_mode,
                                    int border_value, void *scratch, size_t scratch_bytes,
                                    cudaStream_t stream)
{
    if (radius < 0 || radius > GI_BLUR_MAX_RADIUS) return cudaErrorInvalidValue;
    const gi_src_view s = {src, src_pitch, width, height, border_mode, (uint8_t)border_value};
    switch (channels) {
    case 1: return launch<1>(s, dst, dst_pitch, weights, radius, scratch, scratch_bytes, stream);
    case 2: return launch<2>(s, dst, dst_pitch, weights, radius, scratch, scratch_bytes, stream);
    case 3: return launch<3>(s, dst, dst_pitch, weights, radius, scratch, scratch_bytes, stream);
    case 4: return launch<4>(s, dst, dst_pitch, weights, radius, scratch, scratch_bytes, stream);
    }
    return cudaErrorInvalidValue;
}
