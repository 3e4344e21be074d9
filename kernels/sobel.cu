/* Sobel gradient magnitude or binary edge map (gpuimg.h gives the rules).
 *
 * A block loads its tile plus a one-pixel halo into shared memory (border
 * rule applied only there), then each thread filters its pixels from the
 * tile. The double arithmetic uses _rn intrinsics so nvcc cannot fuse it
 * into FMAs: the CPU computes the same plain IEEE operations, and the two
 * must round identically. */
#include "border.cuh"
#include "gi_kernels.h"
#include "tiling.h"

namespace {

struct edge_rule {
    double scale;
    double threshold;
    int use_threshold;
};

__device__ __forceinline__ uint8_t edge_value(int gx, int gy, const edge_rule &e)
{
    const double m = __dmul_rn(e.scale, __dsqrt_rn((double)(gx * gx + gy * gy)));
    if (e.use_threshold) return m >= e.threshold ? 255 : 0;
    const double rounded = floor(__dadd_rn(m, 0.5));
    return rounded >= 255.0 ? 255 : (uint8_t)rounded;
}

/* What the filter sees of a pixel: channel c, or luma with gray. A zero-mode
 * outside pixel is `value` in every channel, so its luma is `value` too. */
template <int C, bool GRAY> __device__ __forceinline__ int sample(const uint8_t *p, int c)
{
    if (!GRAY) return p[c];
    if (C < 3) return p[0];
    return (77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8;
}

template <int C, bool GRAY>
__global__ void __launch_bounds__(GI_SOBEL_TILE_W * GI_SOBEL_ROWS)
    sobel_kernel(gi_src_view s, uint8_t *dst, size_t dst_pitch, int tiles_x, edge_rule rule)
{
    __shared__ uint8_t tile[GI_SOBEL_TILE_BYTES(C)];
    constexpr int tile_w = GI_SOBEL_TILE_W + 2;
    constexpr bool alpha = !GRAY && (C == 2 || C == 4);
    constexpr int filtered = GRAY ? 1 : C - alpha, out_ch = GRAY ? 1 : C;
    const int x0 = (int)(blockIdx.x % tiles_x) * GI_SOBEL_TILE_W;
    const int y0 = (int)(blockIdx.x / tiles_x) * GI_SOBEL_TILE_H;
    const int tx = threadIdx.x % GI_WARP, ty = threadIdx.x / GI_WARP;

    gi_load_tile<C>(tile, tile_w, GI_SOBEL_TILE_H + 2, s, x0 - 1, y0 - 1);
    __syncthreads();

    const int x = x0 + tx;
    if (x >= s.width) return;
    for (int r = ty; r < GI_SOBEL_TILE_H && y0 + r < s.height; r += GI_SOBEL_ROWS) {
        /* p(dy, dx): the tap dy rows below and dx columns right of the
         * output pixel's top-left neighbour */
        const uint8_t *nw = tile + ((size_t)r * tile_w + tx) * C;
        auto p = [&](int dy, int dx, int c) { return sample<C, GRAY>(nw + (dy * tile_w + dx) * C, c); };
        uint8_t *out = dst + (size_t)(y0 + r) * dst_pitch + (size_t)x * out_ch;
#pragma unroll
        for (int c = 0; c < filtered; c++) {
            const int gx = (p(0, 2, c) - p(0, 0, c)) + 2 * (p(1, 2, c) - p(1, 0, c)) +
                           (p(2, 2, c) - p(2, 0, c));
            const int gy = (p(2, 0, c) - p(0, 0, c)) + 2 * (p(2, 1, c) - p(0, 1, c)) +
                           (p(2, 2, c) - p(0, 2, c));
            out[c] = edge_value(gx, gy, rule);
        }
        if (alpha) out[C - 1] = nw[(tile_w + 1) * C + C - 1]; /* the pixel's own alpha */
    }
}

template <int C>
cudaError_t launch(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, bool gray,
                   const edge_rule &rule, cudaStream_t stream)
{
    const int tiles_x = (s.width + GI_SOBEL_TILE_W - 1) / GI_SOBEL_TILE_W;
    const long long blocks = (long long)tiles_x * ((s.height + GI_SOBEL_TILE_H - 1) / GI_SOBEL_TILE_H);
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
    const unsigned threads = GI_SOBEL_TILE_W * GI_SOBEL_ROWS;
    if (gray)
        sobel_kernel<C, true><<<(unsigned)blocks, threads, 0, stream>>>(s, dst, dst_pitch, tiles_x, rule);
    else
        sobel_kernel<C, false><<<(unsigned)blocks, threads, 0, stream>>>(s, dst, dst_pitch, tiles_x, rule);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gi_cuda_sobel(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                     size_t dst_pitch, int width, int height, int channels,
                                     double scale, int use_threshold, double threshold, int gray,
                                     int border_mode, int border_value, cudaStream_t stream)
{
    const gi_src_view s = {src, src_pitch, width, height, border_mode, (uint8_t)border_value};
    const edge_rule rule = {scale, threshold, use_threshold};
    switch (channels) {
    case 1: return launch<1>(s, dst, dst_pitch, gray, rule, stream);
    case 2: return launch<2>(s, dst, dst_pitch, gray, rule, stream);
    case 3: return launch<3>(s, dst, dst_pitch, gray, rule, stream);
    case 4: return launch<4>(s, dst, dst_pitch, gray, rule, stream);
    }
    return cudaErrorInvalidValue;
}
