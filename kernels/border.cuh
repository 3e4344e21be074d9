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

/* The source image and border a tile loader reads through. */
struct gi_src_view {
    const uint8_t *data;
    size_t pitch;
    int width, height;
    int mode;
    uint8_t value; /* every channel of an outside pixel in zero mode */
};

/* Loads the tw x th pixel window whose top-left pixel is image (x0, y0)
 * (x0, y0 may be negative) into shared `tile`, rows of tw * C bytes. Lanes
 * walk the bytes of a row, so global reads are coalesced: one warp per row,
 * or the whole block on each row when there are fewer rows than warps. Only
 * a window that crosses the image edge goes through the border rule. */
template <int C>
__device__ void gi_load_tile(uint8_t *tile, int tw, int th, const gi_src_view &s, int x0, int y0)
{
    const int warps = blockDim.x / 32;
    const bool by_warp = th >= warps;
    const int lane = by_warp ? threadIdx.x % 32 : threadIdx.x;
    const int lanes = by_warp ? 32 : blockDim.x;
    const int row_bytes = tw * C;
    const bool interior = x0 >= 0 && y0 >= 0 && x0 + tw <= s.width && y0 + th <= s.height;
    for (int r = by_warp ? threadIdx.x / 32 : 0; r < th; r += by_warp ? warps : 1) {
        uint8_t *out = tile + (size_t)r * row_bytes;
        if (interior) {
            const uint8_t *in = s.data + (size_t)(y0 + r) * s.pitch + (size_t)x0 * C;
            for (int b = lane; b < row_bytes; b += lanes) out[b] = in[b];
            continue;
        }
        const int sy = gi_border_map((long long)y0 + r, s.height, s.mode);
        const uint8_t *in = sy < 0 ? nullptr : s.data + (size_t)sy * s.pitch;
        for (int b = lane; b < row_bytes; b += lanes) {
            const int px = b / C, c = b - px * C;
            const int sx = in ? gi_border_map((long long)x0 + px, s.width, s.mode) : -1;
            out[b] = sx < 0 ? s.value : in[(size_t)sx * C + c];
        }
    }
}

#endif
