/* Transpose, rotations and flips (gpuimg.h gives the formulas).
 *
 * Each block owns a 32x32 output tile. It reads the source window that
 * lands there into shared memory with row-wise, coalesced reads, then writes
 * its output rows, also coalesced, picking each pixel from the transposed or
 * mirrored tile position. A thread moves GI_XF_VEC adjacent pixels per
 * access (4 to 16 bytes). Shared memory holds one uint32 per pixel in rows of
 * odd pitch, so reading a tile column hits 32 distinct banks. A mirrored
 * source window may start anywhere; it is widened to start on a
 * vector-aligned pixel and the offset is carried into the lookup. */
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int T = GI_XF_TILE, V = GI_XF_VEC;

/* A group of V pixels of C bytes moves as C 32-bit words; it uses one
 * 8- or 16-byte access where C allows. */
template <int C> constexpr int vec_align = C == 2 ? 8 : C == 4 ? 16 : 4;

template <int C> __device__ __forceinline__ void load_words(const uint8_t *p, uint32_t w[C])
{
    if (C == 4) {
        const uint4 v = *(const uint4 *)p;
        w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    } else if (C == 2) {
        const uint2 v = *(const uint2 *)p;
        w[0] = v.x, w[1] = v.y;
    } else {
#pragma unroll
        for (int i = 0; i < C; i++) w[i] = ((const uint32_t *)p)[i];
    }
}

template <int C> __device__ __forceinline__ void store_words(uint8_t *p, const uint32_t w[C])
{
    if (C == 4) *(uint4 *)p = make_uint4(w[0], w[1], w[2], w[3]);
    else if (C == 2) *(uint2 *)p = make_uint2(w[0], w[1]);
    else
#pragma unroll
        for (int i = 0; i < C; i++) ((uint32_t *)p)[i] = w[i];
}

/* Pixel q of a group, channel c in byte c, from the group's packed words. */
template <int C> __device__ __forceinline__ uint32_t unpack(const uint32_t w[C], int q)
{
    uint32_t pixel = 0;
#pragma unroll
    for (int c = 0; c < C; c++) {
        const int k = q * C + c;
        pixel |= ((w[k / 4] >> (k % 4 * 8)) & 0xffu) << (8 * c);
    }
    return pixel;
}

template <int C> __device__ __forceinline__ void pack(uint32_t w[C], int q, uint32_t pixel)
{
#pragma unroll
    for (int c = 0; c < C; c++) {
        const int k = q * C + c;
        w[k / 4] |= ((pixel >> (8 * c)) & 0xffu) << (k % 4 * 8);
    }
}

struct xf_args {
    const uint8_t *src;
    size_t src_pitch;
    uint8_t *dst;
    size_t dst_pitch;
    int width, height;       /* source */
    int out_width, out_height;
    int tiles_x;
    int transform;
    bool src_vec, dst_vec; /* row starts aligned for the wide accesses */
};

/* Where output tile (ox0, oy0) reads: the source window's top-left corner,
 * and how output tile position (i, j) maps to window position (lx, ly). */
struct tile_map {
    int sx0, sy0;
    bool swap, mirror_x, mirror_y; /* lx = swap ? j : i, then mirrored */
};

__device__ tile_map map_tile(const xf_args &a, int ox0, int oy0)
{
    const int w = a.width, h = a.height;
    switch (a.transform) {
    case GI_TRANSPOSE: return {oy0, ox0, true, false, false};
    case GI_ROTATE_90: return {oy0, h - ox0 - T, true, false, true};
    case GI_ROTATE_180: return {w - ox0 - T, h - oy0 - T, false, true, true};
    case GI_ROTATE_270: return {w - oy0 - T, ox0, true, true, false};
    case GI_FLIP_H: return {w - ox0 - T, oy0, false, true, false};
    default: /* GI_FLIP_V */ return {ox0, h - oy0 - T, false, false, true};
    }
}

template <int C>
__device__ void load_window(const xf_args &a, uint32_t (*tile)[GI_XF_PITCH], int wx0, int sy0,
                            int groups)
{
    const int ly = threadIdx.x / (T / V);
    const int sy = sy0 + ly;
    if (sy < 0 || sy >= a.height) return;
    const uint8_t *row = a.src + (size_t)sy * a.src_pitch;
    for (int g = threadIdx.x % (T / V); g < groups; g += T / V) {
        const int sx = wx0 + g * V;
        uint32_t *out = &tile[ly][g * V];
        if (a.src_vec && sx >= 0 && sx + V <= a.width) {
            uint32_t words[C];
            load_words<C>(row + (size_t)sx * C, words);
#pragma unroll
            for (int q = 0; q < V; q++) out[q] = unpack<C>(words, q);
            continue;
        }
        for (int q = 0; q < V; q++) {
            if (sx + q < 0 || sx + q >= a.width) continue;
            const uint8_t *p = row + (size_t)(sx + q) * C;
            uint32_t pixel = 0;
            for (int c = 0; c < C; c++) pixel |= (uint32_t)p[c] << (8 * c);
            out[q] = pixel;
        }
    }
}

template <int C> __global__ void __launch_bounds__(GI_XF_THREADS) transform_kernel(xf_args a)
{
    __shared__ uint32_t tile[GI_XF_ROWS][GI_XF_PITCH];
    const int ox0 = (int)(blockIdx.x % a.tiles_x) * T, oy0 = (int)(blockIdx.x / a.tiles_x) * T;
    const tile_map m = map_tile(a, ox0, oy0);
    /* floor to a multiple of V, also for negative sx0 */
    const int wx0 = m.sx0 - ((m.sx0 % V) + V) % V, shift = m.sx0 - wx0;
    load_window<C>(a, tile, wx0, m.sy0, (shift + T + V - 1) / V);
    __syncthreads();

    const int j = threadIdx.x / (T / V), i0 = threadIdx.x % (T / V) * V;
    const int oy = oy0 + j, ox = ox0 + i0;
    if (oy >= a.out_height || ox >= a.out_width) return;
    uint32_t pixels[V];
#pragma unroll
    for (int q = 0; q < V; q++) {
        int lx = m.swap ? j : i0 + q, ly = m.swap ? i0 + q : j;
        if (m.mirror_x) lx = T - 1 - lx;
        if (m.mirror_y) ly = T - 1 - ly;
        pixels[q] = tile[ly][lx + shift];
    }
    uint8_t *out = a.dst + (size_t)oy * a.dst_pitch + (size_t)ox * C;
    if (a.dst_vec && ox + V <= a.out_width) {
        uint32_t words[C] = {};
#pragma unroll
        for (int q = 0; q < V; q++) pack<C>(words, q, pixels[q]);
        store_words<C>(out, words);
        return;
    }
    for (int q = 0; q < V && ox + q < a.out_width; q++)
        for (int c = 0; c < C; c++) out[q * C + c] = (uint8_t)(pixels[q] >> (8 * c));
}

bool aligned(const void *p, size_t pitch, size_t to)
{
    return (uintptr_t)p % to == 0 && pitch % to == 0;
}

template <int C> cudaError_t launch(xf_args a, cudaStream_t stream)
{
    a.src_vec = aligned(a.src, a.src_pitch, vec_align<C>);
    a.dst_vec = aligned(a.dst, a.dst_pitch, vec_align<C>);
    a.tiles_x = (a.out_width + T - 1) / T;
    const long long blocks = (long long)a.tiles_x * ((a.out_height + T - 1) / T);
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
    transform_kernel<C><<<(unsigned)blocks, GI_XF_THREADS, 0, stream>>>(a);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gi_cuda_transform(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                         size_t dst_pitch, int width, int height, int channels,
                                         int transform, cudaStream_t stream)
{
    if (transform < GI_TRANSPOSE || transform > GI_FLIP_V) return cudaErrorInvalidValue;
    const bool swaps =
        transform == GI_TRANSPOSE || transform == GI_ROTATE_90 || transform == GI_ROTATE_270;
    xf_args a = {src, src_pitch, dst, dst_pitch, width, height,
                 swaps ? height : width, swaps ? width : height, 0, transform, false, false};
    switch (channels) {
    case 1: return launch<1>(a, stream);
    case 2: return launch<2>(a, stream);
    case 3: return launch<3>(a, stream);
    case 4: return launch<4>(a, stream);
    }
    return cudaErrorInvalidValue;
}
