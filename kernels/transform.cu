/* Transpose, rotations and flips (gpuimg.h gives the formulas) of 8- and
 * 16-bit images. A permutation moves whole pixels, so the kernels are
 * templates over the bytes of a pixel (channels times sample bytes: 1 to
 * 4, 6 or 8), not over the sample type.
 *
 * Transposes of 1- to 3-byte pixels have a kernel of their own: a block
 * reads a GI_XT_ROWS x 128-byte tile (96 for 3 bytes) with 16-byte loads into
 * shared memory, each thread turns 4x4 pixel blocks around in registers
 * (byte_perms) and stores one run of 4 pixels per output row; a warp's
 * stores cover 4 rows x 32 pixels.
 *
 * Everything else: each block owns a 32x32 output tile. It reads the source
 * window that lands there into shared memory with row-wise, coalesced
 * reads, then writes its output rows, also coalesced, picking each pixel
 * from the transposed or mirrored tile position. A thread moves GI_XF_VEC
 * adjacent pixels per access (4 to 32 bytes). Shared memory holds one
 * uint32 per pixel (uint64 for 6 and 8 bytes) in rows of odd pitch, so
 * reading a tile column hits 32 distinct banks (words of 8-byte pixels: two
 * each, as every 8-byte access). 16-bit pixels of 3 and 4 channels take
 * this kernel for every transform. A mirrored source window may start anywhere; it is
 * widened to start on a vector-aligned pixel and the offset is carried into
 * the lookup. */
#include <type_traits>

#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int T = GI_XF_TILE, V = GI_XF_VEC;

/* A pixel as the generic kernel holds it: its PB bytes, channel bytes in
 * order from the lowest. */
template <int PB> using pixel_t = std::conditional_t<(PB > 4), uint64_t, uint32_t>;

/* A group of V = 4 pixels of PB bytes moves as PB 32-bit words; it uses
 * 8- or 16-byte accesses where PB allows. */
template <int PB> constexpr int vec_align = PB % 4 == 0 ? 16 : PB % 2 == 0 ? 8 : 4;

template <int PB> __device__ __forceinline__ void load_words(const uint8_t *p, uint32_t w[PB])
{
    if constexpr (PB % 4 == 0) {
#pragma unroll
        for (int i = 0; i < PB / 4; i++) {
            const uint4 v = ((const uint4 *)p)[i];
            w[4 * i] = v.x, w[4 * i + 1] = v.y, w[4 * i + 2] = v.z, w[4 * i + 3] = v.w;
        }
    } else if constexpr (PB % 2 == 0) {
#pragma unroll
        for (int i = 0; i < PB / 2; i++) {
            const uint2 v = ((const uint2 *)p)[i];
            w[2 * i] = v.x, w[2 * i + 1] = v.y;
        }
    } else {
#pragma unroll
        for (int i = 0; i < PB; i++) w[i] = ((const uint32_t *)p)[i];
    }
}

template <int PB> __device__ __forceinline__ void store_words(uint8_t *p, const uint32_t w[PB])
{
    if constexpr (PB % 4 == 0) {
#pragma unroll
        for (int i = 0; i < PB / 4; i++)
            ((uint4 *)p)[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
    } else if constexpr (PB % 2 == 0) {
#pragma unroll
        for (int i = 0; i < PB / 2; i++) ((uint2 *)p)[i] = make_uint2(w[2 * i], w[2 * i + 1]);
    } else {
#pragma unroll
        for (int i = 0; i < PB; i++) ((uint32_t *)p)[i] = w[i];
    }
}

/* Pixel q of a group, byte c in byte c, from the group's packed words. */
template <int PB> __device__ __forceinline__ pixel_t<PB> unpack(const uint32_t w[PB], int q)
{
    pixel_t<PB> pixel = 0;
#pragma unroll
    for (int c = 0; c < PB; c++) {
        const int k = q * PB + c;
        pixel |= (pixel_t<PB>)((w[k / 4] >> (k % 4 * 8)) & 0xffu) << (8 * c);
    }
    return pixel;
}

template <int PB> __device__ __forceinline__ void pack(uint32_t w[PB], int q, pixel_t<PB> pixel)
{
#pragma unroll
    for (int c = 0; c < PB; c++) {
        const int k = q * PB + c;
        w[k / 4] |= (uint32_t)((pixel >> (8 * c)) & 0xffu) << (k % 4 * 8);
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

template <int PB>
__device__ void load_window(const xf_args &a, pixel_t<PB> (*tile)[GI_XF_PITCH], int wx0, int sy0,
                            int groups)
{
    const int ly = threadIdx.x / (T / V);
    const int sy = sy0 + ly;
    if (sy < 0 || sy >= a.height) return;
    const uint8_t *row = a.src + (size_t)sy * a.src_pitch;
    for (int g = threadIdx.x % (T / V); g < groups; g += T / V) {
        const int sx = wx0 + g * V;
        pixel_t<PB> *out = &tile[ly][g * V];
        if (a.src_vec && sx >= 0 && sx + V <= a.width) {
            uint32_t words[PB];
            load_words<PB>(row + (size_t)sx * PB, words);
#pragma unroll
            for (int q = 0; q < V; q++) out[q] = unpack<PB>(words, q);
            continue;
        }
        for (int q = 0; q < V; q++) {
            if (sx + q < 0 || sx + q >= a.width) continue;
            const uint8_t *p = row + (size_t)(sx + q) * PB;
            pixel_t<PB> pixel = 0;
            for (int c = 0; c < PB; c++) pixel |= (pixel_t<PB>)p[c] << (8 * c);
            out[q] = pixel;
        }
    }
}

template <int PB> __global__ void __launch_bounds__(GI_XF_THREADS) transform_kernel(xf_args a)
{
    __shared__ pixel_t<PB> tile[GI_XF_ROWS][GI_XF_PITCH];
    const int ox0 = (int)(blockIdx.x % a.tiles_x) * T, oy0 = (int)(blockIdx.x / a.tiles_x) * T;
    const tile_map m = map_tile(a, ox0, oy0);
    /* floor to a multiple of V, also for negative sx0 */
    const int wx0 = m.sx0 - ((m.sx0 % V) + V) % V, shift = m.sx0 - wx0;
    load_window<PB>(a, tile, wx0, m.sy0, (shift + T + V - 1) / V);
    __syncthreads();

    const int j = threadIdx.x / (T / V), i0 = threadIdx.x % (T / V) * V;
    const int oy = oy0 + j, ox = ox0 + i0;
    if (oy >= a.out_height || ox >= a.out_width) return;
    pixel_t<PB> pixels[V];
#pragma unroll
    for (int q = 0; q < V; q++) {
        int lx = m.swap ? j : i0 + q, ly = m.swap ? i0 + q : j;
        if (m.mirror_x) lx = T - 1 - lx;
        if (m.mirror_y) ly = T - 1 - ly;
        pixels[q] = tile[ly][lx + shift];
    }
    uint8_t *out = a.dst + (size_t)oy * a.dst_pitch + (size_t)ox * PB;
    if (a.dst_vec && ox + V <= a.out_width) {
        uint32_t words[PB] = {};
#pragma unroll
        for (int q = 0; q < V; q++) pack<PB>(words, q, pixels[q]);
        store_words<PB>(out, words);
        return;
    }
    for (int q = 0; q < V && ox + q < a.out_width; q++)
        for (int c = 0; c < PB; c++) out[q * PB + c] = (uint8_t)(pixels[q] >> (8 * c));
}

bool aligned(const void *p, size_t pitch, size_t to)
{
    return (uintptr_t)p % to == 0 && pitch % to == 0;
}

/* ------------------------------------------------ transpose, pixels of 1-3 bytes */

namespace xt {

constexpr int TR = GI_XT_ROWS, NT = GI_XT_THREADS;
/* tile columns in bytes: 128, or 96 for 3-byte pixels (whole 16-byte loads) */
template <int PB> constexpr int TCB = PB == 3 ? 96 : GI_XT_COLS;
template <int PB> constexpr int TC = TCB<PB> / PB;           /* tile columns in pixels */
template <int PB> constexpr int PW = TCB<PB> / 4 + 1;       /* shared pitch in words */
template <int PB> constexpr int QN = TC<PB> / 4;            /* 4-pixel groups per row */

/* Column j of the 4x4 byte block whose rows are a[0..3]. */
__device__ __forceinline__ void transpose4x4(const uint32_t (&a)[4], uint32_t (&o)[4])
{
    const uint32_t t0 = __byte_perm(a[0], a[1], 0x5140), t1 = __byte_perm(a[0], a[1], 0x7362);
    const uint32_t t2 = __byte_perm(a[2], a[3], 0x5140), t3 = __byte_perm(a[2], a[3], 0x7362);
    o[0] = __byte_perm(t0, t2, 0x5410);
    o[1] = __byte_perm(t0, t2, 0x7632);
    o[2] = __byte_perm(t1, t3, 0x5410);
    o[3] = __byte_perm(t1, t3, 0x7632);
}

/* The 4x4 pixel block with rows in[0..3] (PB words each: 4 pixels of PB
 * bytes) turned around: out[j] holds pixel j of each row, rows in order. */
template <int PB>
__device__ __forceinline__ void transpose_block(const uint32_t (&in)[4][PB], uint32_t (&out)[4][PB])
{
    if constexpr (PB == 1) {
        const uint32_t a[4] = {in[0][0], in[1][0], in[2][0], in[3][0]};
        uint32_t o[4];
        transpose4x4(a, o);
#pragma unroll
        for (int j = 0; j < 4; j++) out[j][0] = o[j];
    } else if constexpr (PB == 2) { /* 16-bit pixels: one byte_perm per word */
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int sel = j % 2 ? 0x7632 : 0x5410;
            out[j][0] = __byte_perm(in[0][j / 2], in[1][j / 2], sel);
            out[j][1] = __byte_perm(in[2][j / 2], in[3][j / 2], sel);
        }
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int w = 0; w < PB; w++) {
                uint32_t word = 0;
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const int b = 4 * w + k, i = b / PB, c = b % PB, sb = j * PB + c;
                    word |= ((in[i][sb / 4] >> (8 * (sb % 4))) & 255u) << (8 * k);
                }
                out[j][w] = word;
            }
    }
}

template <int PB>
__global__ void __launch_bounds__(NT)
    transpose_kernel(const uint8_t *src, size_t src_pitch, uint8_t *dst, size_t dst_pitch, int width,
                     int height, int tiles_x, bool src_vec, bool dst_vec)
{
    __shared__ uint32_t tile[TR * PW<PB>];
    const int c0 = (int)(blockIdx.x % tiles_x) * TC<PB>, r0 = (int)(blockIdx.x / tiles_x) * TR;
    const bool full = r0 + TR <= height && c0 + TC<PB> <= width;
    if (full && src_vec) {
        constexpr int CPR = TCB<PB> / 16, U = TR * CPR / NT;
        static_assert(TR * CPR % NT == 0, "whole loads per thread");
        uint4 v[U];
        const uint8_t *base = src + (size_t)r0 * src_pitch + (size_t)c0 * PB;
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int i = threadIdx.x + u * NT, r = i / CPR, c = i % CPR;
            v[u] = __ldg((const uint4 *)(base + (size_t)r * src_pitch + 16 * c));
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int i = threadIdx.x + u * NT, r = i / CPR, c = i % CPR;
            uint32_t *t = tile + r * PW<PB> + 4 * c;
            t[0] = v[u].x, t[1] = v[u].y, t[2] = v[u].z, t[3] = v[u].w;
        }
    } else { /* a partial tile or an unaligned source: whole 16-byte chunks where they fit */
        constexpr int CPR = TCB<PB> / 16;
        const long long row_bytes = (long long)width * PB;
        for (int i = threadIdx.x; i < TR * CPR; i += NT) {
            const int r = i / CPR, c = i % CPR;
            const long long b0 = (long long)c0 * PB + 16 * c;
            const uint8_t *in = src + (size_t)(r0 + r) * src_pitch + b0;
            uint32_t *t = tile + r * PW<PB> + 4 * c;
            if (src_vec && r0 + r < height && b0 + 16 <= row_bytes) {
                const uint4 v = __ldg((const uint4 *)in);
                t[0] = v.x, t[1] = v.y, t[2] = v.z, t[3] = v.w;
                continue;
            }
            uint32_t w[4] = {0, 0, 0, 0};
            for (int k = 0; k < 16; k++)
                if (r0 + r < height && b0 + k < row_bytes) w[k / 4] |= (uint32_t)in[k] << (8 * (k % 4));
            t[0] = w[0], t[1] = w[1], t[2] = w[2], t[3] = w[3];
        }
    }
    __syncthreads();

    /* a warp takes 8 row groups x 4 pixel groups at a time */
    const int lane = threadIdx.x % GI_WARP, warp = threadIdx.x / GI_WARP;
    constexpr int PASSES = TR / 4 * QN<PB> / NT;
    static_assert(TR / 4 * QN<PB> % NT == 0 && TR % 32 == 0 && QN<PB> % 4 == 0, "warps tile the blocks");
#pragma unroll
    for (int u = 0; u < PASSES; u++) {
        const int a = warp * PASSES + u;
        const int rg = a % (TR / 32) * 8 + lane % 8, q = a / (TR / 32) * 4 + lane / 8;
        uint32_t in[4][PB], out[4][PB];
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int w = 0; w < PB; w++) in[i][w] = tile[(4 * rg + i) * PW<PB> + PB * q + w];
        transpose_block<PB>(in, out);
        const int ox = r0 + 4 * rg; /* output column = input row */
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int oy = c0 + 4 * q + j; /* output row = input column */
            uint8_t *o = dst + (size_t)oy * dst_pitch + (size_t)ox * PB;
            if (dst_vec && oy < width && ox + 4 <= height) {
                if constexpr (PB == 2) *(uint2 *)o = make_uint2(out[j][0], out[j][1]);
                else
#pragma unroll
                    for (int w = 0; w < PB; w++) ((uint32_t *)o)[w] = out[j][w];
                continue;
            }
            if (oy >= width) continue;
            for (int b = 0; b < 4 * PB && ox + b / PB < height; b++)
                o[b] = (uint8_t)(out[j][b / 4] >> (8 * (b % 4)));
        }
    }
}

template <int PB> cudaError_t launch(const xf_args &a, cudaStream_t stream)
{
    const int tiles_x = (a.width + TC<PB> - 1) / TC<PB>;
    const long long blocks = (long long)tiles_x * ((a.height + TR - 1) / TR);
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
    transpose_kernel<PB><<<(unsigned)blocks, NT, 0, stream>>>(
        a.src, a.src_pitch, a.dst, a.dst_pitch, a.width, a.height, tiles_x,
        aligned(a.src, a.src_pitch, 16), aligned(a.dst, a.dst_pitch, PB == 2 ? 8 : 4));
    return cudaGetLastError();
}

} // namespace xt

template <int PB> cudaError_t launch(xf_args a, cudaStream_t stream)
{
    a.src_vec = aligned(a.src, a.src_pitch, vec_align<PB>);
    a.dst_vec = aligned(a.dst, a.dst_pitch, vec_align<PB>);
    a.tiles_x = (a.out_width + T - 1) / T;
    const long long blocks = (long long)a.tiles_x * ((a.out_height + T - 1) / T);
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
    transform_kernel<PB><<<(unsigned)blocks, GI_XF_THREADS, 0, stream>>>(a);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gi_cuda_transform(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                         size_t dst_pitch, int width, int height, int channels,
                                         int depth, int transform, cudaStream_t stream)
{
    if (transform < GI_TRANSPOSE || transform > GI_FLIP_V || channels < 1 || channels > 4 ||
        (depth != 8 && depth != 16))
        return cudaErrorInvalidValue;
    const bool swaps =
        transform == GI_TRANSPOSE || transform == GI_ROTATE_90 || transform == GI_ROTATE_270;
    xf_args a = {src, src_pitch, dst, dst_pitch, width, height,
                 swaps ? height : width, swaps ? width : height, 0, transform, false, false};
    /* a permutation moves whole pixels: only their bytes matter */
    const int pixel_bytes = channels * depth / 8;
    if (transform == GI_TRANSPOSE && pixel_bytes == 1) return xt::launch<1>(a, stream);
    if (transform == GI_TRANSPOSE && pixel_bytes == 2) return xt::launch<2>(a, stream);
    if (transform == GI_TRANSPOSE && pixel_bytes == 3) return xt::launch<3>(a, stream);
    switch (pixel_bytes) {
    case 1: return launch<1>(a, stream);
    case 2: return launch<2>(a, stream);
    case 3: return launch<3>(a, stream);
    case 4: return launch<4>(a, stream);
    case 6: return launch<6>(a, stream);
    case 8: return launch<8>(a, stream);
    }
    return cudaErrorInvalidValue;
}
