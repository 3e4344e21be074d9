/* Device side of the border rule (gpuimg.h, design.md) and the halo loader
 * that applies it. Kernels call the rule only while loading a tile's halo,
 * so a tile that lies wholly inside the image does no border math. */
#ifndef GI_BORDER_CUH
#define GI_BORDER_CUH

#include <stdint.h>

#include "gpuimg.h"

/* i mod m, non-negative. 64-bit so 2n cannot overflow for any int n. */
__device__ __forceinline__ long long gi_mod_nonneg(long long i, long long m)
{
    long long r = i % m;
    return r < 0 ? r + m : r;
}

/* Maps i into [0, n); -1 for an outside index in zero mode. Holds for any i,
 * so radii larger than the image are fine. */
__device__ __forceinline__ int gi_border_map(long long i, int n, int mode)
{
    if (i >= 0 && i < n) return (int)i;
    long long j;
    switch (mode) {
    case GI_BORDER_REPLICATE:
        return i < 0 ? 0 : n - 1;
    case GI_BORDER_REFLECT:
        j = gi_mod_nonneg(i, 2LL * n);
        return (int)(j >= n ? 2LL * n - 1 - j : j);
    case GI_BORDER_MIRROR:
        if (n == 1) return 0;
        j = gi_mod_nonneg(i, 2LL * n - 2);
        return (int)(j >= n ? 2LL * n - 2 - j : j);
    case GI_BORDER_WRAP:
        return (int)gi_mod_nonneg(i, n);
    default: /* GI_BORDER_ZERO */
        return -1;
    }
}

/* The same rule for an index less than n outside [0, n), the only case a
 * tile loader meets unless the radius exceeds the image: int arithmetic,
 * no 64-bit modulo (which costs a call per byte on the GPU). */
__device__ __forceinline__ int gi_border_map_near(int i, int n, int mode)
{
    if (i >= 0 && i < n) return i;
    if (i >= -n && i - n < n) { /* written so that nothing overflows for any int n */
        switch (mode) {
        case GI_BORDER_REPLICATE: return i < 0 ? 0 : n - 1;
        case GI_BORDER_REFLECT: return i < 0 ? -1 - i : n - 1 - (i - n);
        case GI_BORDER_MIRROR:
            if (n == 1) return 0;
            if (i > -n && i - n < n - 1) return i < 0 ? -i : n - 2 - (i - n);
            break;
        case GI_BORDER_WRAP: return i < 0 ? i + n : i - n;
        default: return -1;
        }
    }
    return gi_border_map(i, n, mode);
}

/* The source image and border a tile loader reads through. */
struct gi_src_view {
    const uint8_t *data;
    size_t pitch;
    int width, height;
    int mode;
    uint8_t value; /* every byte of an outside pixel in zero mode */
};

/* The loaders below move bytes: PB is the bytes of a pixel (channels times
 * the bytes of a sample), so one loader serves 8- and 16-bit images. An
 * outside 16-bit sample of zero mode is value * 257, whose two bytes are
 * both `value`: filling bytes with `value` gives it in either byte order. */

/* Loads the tw x th pixel window whose top-left pixel is image (x0, y0)
 * (x0, y0 may be negative) into shared `tile`, rows of tw * PB bytes.
 * Lanes walk the bytes of a row, so global reads are coalesced: one warp
 * per row, or the whole block on each row when there are fewer rows than
 * warps. Only a window that crosses the image edge goes through the border
 * rule. */
template <int PB>
__device__ void gi_load_tile(uint8_t *tile, int tw, int th, const gi_src_view &s, int x0, int y0)
{
    const int warps = blockDim.x / 32;
    const bool by_warp = th >= warps;
    const int lane = by_warp ? threadIdx.x % 32 : threadIdx.x;
    const int lanes = by_warp ? 32 : blockDim.x;
    const int row_bytes = tw * PB;
    const bool interior = x0 >= 0 && y0 >= 0 && x0 + tw <= s.width && y0 + th <= s.height;
    for (int r = by_warp ? threadIdx.x / 32 : 0; r < th; r += by_warp ? warps : 1) {
        uint8_t *out = tile + (size_t)r * row_bytes;
        if (interior) {
            const uint8_t *in = s.data + (size_t)(y0 + r) * s.pitch + (size_t)x0 * PB;
            for (int b = lane; b < row_bytes; b += lanes) out[b] = in[b];
            continue;
        }
        const int sy = gi_border_map((long long)y0 + r, s.height, s.mode);
        const uint8_t *in = sy < 0 ? nullptr : s.data + (size_t)sy * s.pitch;
        for (int b = lane; b < row_bytes; b += lanes) {
            const int px = b / PB, c = b - px * PB;
            const int sx = in ? gi_border_map((long long)x0 + px, s.width, s.mode) : -1;
            out[b] = sx < 0 ? s.value : in[(size_t)sx * PB + c];
        }
    }
}

/* One 16-byte chunk of a tile row that is not wholly inside the image, or
 * whose source is not aligned: image row y (virtual), virtual bytes
 * [b0, b0 + 16), through the border rule. */
template <int PB>
__device__ void gi_load_chunk16_edge(uint4 *out, const gi_src_view &s, int y, long long b0, bool vec)
{
    const long long row_limit = (long long)s.width * PB;
    const int sy = gi_border_map_near(y, s.height, s.mode);
    if (sy < 0) {
        const uint32_t v = s.value * 0x01010101u;
        *out = make_uint4(v, v, v, v);
        return;
    }
    const uint8_t *row = s.data + (size_t)sy * s.pitch;
    if (vec && b0 >= 0 && b0 + 16 <= row_limit) {
        *out = __ldg((const uint4 *)(row + b0));
        return;
    }
    uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int k = 0; k < 16; k++) {
        const int b = (int)(b0 + k);
        const int px = b >= 0 ? b / PB : -((-b + PB - 1) / PB);
        const int ch = b - px * PB;
        const int sx = gi_border_map_near(px, s.width, s.mode);
        const uint32_t byte = sx < 0 ? s.value : row[(size_t)sx * PB + ch];
        w[k / 4] |= byte << (8 * (k % 4));
    }
    *out = make_uint4(w[0], w[1], w[2], w[3]);
}

/* The chunk columns [lo, hi) of a tile whose virtual bytes start at
 * b_first (a multiple of 16), cpr chunks a row, that lie wholly inside a
 * row of row_limit bytes: each moves as one 16-byte load where the source
 * is aligned (vec); the others cross or lie past the left or right edge
 * and go byte by byte through the border rule (none inside without vec). */
struct gi_chunk_cols {
    int lo, hi;
};
__device__ __forceinline__ gi_chunk_cols gi_inside_chunk_cols(long long b_first, long long row_limit,
                                                              int cpr, bool vec)
{
    if (!vec) return {0, 0};
    const long long lo = b_first >= 0 ? 0 : -b_first / 16;
    const long long hi = (row_limit - b_first) / 16; /* 16 c + 16 <= row_limit - b_first */
    const int l = (int)(lo < cpr ? lo : cpr);
    return {l, (int)(hi < l ? l : hi > cpr ? cpr : hi)};
}

/* Edge chunk k of a row's cpr - (hi - lo) edge chunks: its column. */
__device__ __forceinline__ int gi_edge_chunk_col(const gi_chunk_cols &in, int k)
{
    return k < in.lo ? k : in.hi + (k - in.lo);
}

/* Does the tile of rows [y0, y0 + rows), virtual bytes [x0 * PB, x0 * PB +
 * RB) lie inside the image, with an aligned source? */
template <int PB, int RB>
__device__ __forceinline__ bool gi_tile_inside(const gi_src_view &s, int x0, int y0, int rows, bool vec)
{
    const long long b_first = (long long)x0 * PB;
    return vec && y0 >= 0 && y0 + rows <= s.height && b_first >= 0 &&
           b_first + RB <= (long long)s.width * PB;
}

/* gi_load_tile16's tile across an edge (below): its inside chunks first, a load
 * each (rows through the border rule), then the edge chunks, dealt to the
 * threads on their own. Walked together, nearly every warp of such a tile
 * ran the byte-by-byte rule for one or two of its 32 chunks, and the
 * 16-bit sobel's edge tiles took a tenth of its instructions (ncu). Not
 * inlined: the callers' hot loops keep the registers they had. */
template <int PB, int RB, int NT>
__device__ __noinline__ void gi_load_edge_tile16(uint8_t *tile, int pitch, int rows, const gi_src_view &s,
                                                 int x0, int y0, bool vec)
{
    constexpr int CPR = RB / 16;
    const int total = CPR * rows;
    const long long b_first = (long long)x0 * PB;
    const gi_chunk_cols in = gi_inside_chunk_cols(b_first, (long long)s.width * PB, CPR, vec);
    for (int i = threadIdx.x; i < total; i += NT) {
        const int r = i / CPR, c = i - r * CPR;
        if (c < in.lo || c >= in.hi) continue;
        const int sy = gi_border_map_near(y0 + r, s.height, s.mode);
        const uint32_t v = s.value * 0x01010101u;
        *(uint4 *)(tile + r * pitch + 16 * c) =
            sy < 0 ? make_uint4(v, v, v, v)
                   : __ldg((const uint4 *)(s.data + (size_t)sy * s.pitch + b_first + 16 * c));
    }
    const int edge = CPR - (in.hi - in.lo);
    for (int j = threadIdx.x; j < edge * rows; j += NT) {
        const int r = j / edge, c = gi_edge_chunk_col(in, j - r * edge);
        gi_load_chunk16_edge<PB>((uint4 *)(tile + r * pitch + 16 * c), s, y0 + r, b_first + 16 * c, vec);
    }
}

/* Loads rows [y0, y0 + rows) of the virtual image (the border rule beyond
 * the edges), bytes [x0 * PB, x0 * PB + RB) of each, into shared `tile` rows
 * of `pitch` bytes, with NT threads. x0 * PB, RB and pitch are multiples of
 * 16. `vec`: the source pointer and pitch are 16-byte aligned. A tile that
 * lies inside the image is copied with 16-byte loads, U of a thread's loads
 * issued before its first store; elsewhere each 16-byte chunk inside the
 * image (after the border rule on its row) still moves as one load, and
 * only chunks that cross the left or right edge go byte by byte through the
 * rule. (Batching the edge tiles' loads too cost the callers' hot loops 16
 * to 32 registers: PERF_NOTES.md.) */
template <int PB, int RB, int NT>
__device__ void gi_load_tile16(uint8_t *tile, int pitch, int rows, const gi_src_view &s, int x0,
                               int y0, bool vec)
{
    constexpr int CPR = RB / 16; /* chunks per row */
    constexpr int U = 4;         /* loads in flight per thread */
    static_assert(RB % 16 == 0, "whole 16-byte chunks");
    const int total = CPR * rows;
    if (gi_tile_inside<PB, RB>(s, x0, y0, rows, vec)) {
        const uint8_t *base = s.data + (size_t)y0 * s.pitch + (size_t)x0 * PB;
        for (int first = threadIdx.x; first < total; first += U * NT) {
            uint4 v[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int i = first + u * NT, r = i / CPR, c = i - r * CPR;
                if (i < total) v[u] = __ldg((const uint4 *)(base + (size_t)r * s.pitch + 16 * c));
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int i = first + u * NT, r = i / CPR, c = i - r * CPR;
                if (i < total) *(uint4 *)(tile + r * pitch + 16 * c) = v[u];
            }
        }
        return;
    }
    gi_load_edge_tile16<PB, RB, NT>(tile, pitch, rows, s, x0, y0, vec);
}


/* The same, but chunks inside the image are copied with cp.async (16
 * bytes, bypassing L1) and join this thread's current async group: the
 * caller commits, waits and synchronizes before reading. Chunks that cross
 * an edge, or rows outside in zero mode, are written directly. */
template <int PB, int RB, int NT>
__device__ void gi_load_tile16_async(uint8_t *tile, int pitch, int rows, const gi_src_view &s, int x0,
                                     int y0, bool vec)
{
    constexpr int CPR = RB / 16;
    const int total = CPR * rows;
    const long long b_first = (long long)x0 * PB;
    const bool inside = gi_tile_inside<PB, RB>(s, x0, y0, rows, vec);
    /* the inside chunks, then the edge chunks on their own (as
     * gi_load_tile16, which says why) */
    const gi_chunk_cols in = gi_inside_chunk_cols(b_first, (long long)s.width * PB, CPR, vec);
    for (int i = threadIdx.x; i < total; i += NT) {
        const int r = i / CPR, c = i - r * CPR;
        if (c < in.lo || c >= in.hi) continue;
        uint8_t *out = tile + r * pitch + 16 * c;
        const int sy = inside ? y0 + r : gi_border_map_near(y0 + r, s.height, s.mode);
        if (sy >= 0) {
            const unsigned dst = (unsigned)__cvta_generic_to_shared(out);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst),
                         "l"(s.data + (size_t)sy * s.pitch + b_first + 16 * c)
                         : "memory");
        } else {
            const uint32_t v = s.value * 0x01010101u;
            *(uint4 *)out = make_uint4(v, v, v, v);
        }
    }
    const int edge = CPR - (in.hi - in.lo);
    for (int j = threadIdx.x; j < edge * rows; j += NT) {
        const int r = j / edge, c = gi_edge_chunk_col(in, j - r * edge);
        gi_load_chunk16_edge<PB>((uint4 *)(tile + r * pitch + 16 * c), s, y0 + r, b_first + 16 * c, vec);
    }
}

__device__ __forceinline__ void gi_async_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Waits until at most `pending` of this thread's async groups are in flight. */
template <int pending> __device__ __forceinline__ void gi_async_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(pending) : "memory");
}

#endif
