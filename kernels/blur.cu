/* Separable fixed-point blur (gpuimg.h gives the exact integer rules) of
 * 8- and 16-bit images: every kernel but the tensor-core one is a template
 * over the sample type, and depth<T> holds what the two depths' rules
 * differ in (sums' widths, rounding shifts, the largest sample).
 *
 * Three paths, all doing exactly the integer operations of the CPU backend,
 * so their results are identical byte for byte:
 *
 *  - 1 channel of 8 bits, radius 1..8: the tensor cores. The horizontal pass is a
 *    band matrix times the input bytes (mma m16n8k32, u8 x u8 -> s32), with
 *    each weight split into its low and high byte; the vertical pass splits
 *    the 16-bit horizontal sums into bytes too, so four products give the
 *    exact 32-bit sum. The K index of both passes is permuted so that the
 *    first pass's accumulator fragments are already the second pass's
 *    operand fragments, and the output columns so that each lane ends with
 *    four adjacent output bytes: nothing goes back through shared memory.
 *    Blocks are persistent and copy their next tile in (cp.async) while
 *    they filter the current one.
 *  - any channel count, radius 1..8: staged tile, horizontal sums of four
 *    pixels per thread into shared memory, vertical sums from a sliding
 *    window of rows in registers, using the weights' symmetry. With alpha
 *    the sums are planar and the window holds one channel at a time,
 *    alpha's first (every channel at once took RGBA to 102-106 registers).
 *  - larger radii (and radius 0): the original fused tile kernel up to
 *    GI_BLUR_FUSED_MAX_RADIUS (where its tile fits: GI_BLUR_FUSED_FITS),
 *    else two passes through scratch memory.
 *
 * Weights travel as a kernel parameter (constant bank, broadcast to the
 * warp) rather than a __constant__ symbol, which two contexts blurring on
 * two streams at once would overwrite under each other.
 * kernels/PERF_NOTES.md has the measurements behind these choices. */
#include <type_traits>

#include "border.cuh"
#include "gi_kernels.h"
#include "base/gi_size.h"
#include "tiling.h"

namespace {

template <int N> struct weights_param {
    int32_t w[N];
};
using fused_weights = weights_param<2 * GI_BLUR_FUSED_MAX_RADIUS + 1>;
using wide_weights = weights_param<2 * GI_BLUR_MAX_RADIUS + 1>;

/* 2 and 4 channels carry alpha last and blur colour premultiplied. */
template <int C> constexpr bool has_alpha = C == 2 || C == 4;

/* What the two depths' rules (gpuimg.h, blur) differ in: the sample, the
 * widths that hold the sums exactly, and the shifts that round them.
 *   h:   plain (sum + 2^7) >> 8, colour next to alpha rounded by
 *        COLOUR_H_SHIFT, alpha by ALPHA_H_SHIFT (0: the whole sum)
 *   out: plain (v + 2^23) >> 24, alpha rounded by ALPHA_OUT_SHIFT, colour
 *        min(MAX, (vc * 2^COLOUR_OUT_SHIFT + va / 2) / va) */
template <typename T> struct depth;
template <> struct depth<uint8_t> {
    static constexpr uint32_t MAX = 255;
    static constexpr int COLOUR_H_SHIFT = 8, ALPHA_H_SHIFT = 8;
    static constexpr int ALPHA_OUT_SHIFT = 24, COLOUR_OUT_SHIFT = 0;
    using colour_row = uint32_t; /* sum w * c * a <= 65536 * 65025 */
    using column = uint32_t;     /* plain and alpha v <= 65536 * 65280 */
    using wide_pair = uint32_t;  /* two alpha or colour h: < 2^25 */
};
template <> struct depth<uint16_t> {
    static constexpr uint32_t MAX = 65535;
    static constexpr int COLOUR_H_SHIFT = 16, ALPHA_H_SHIFT = 0;
    static constexpr int ALPHA_OUT_SHIFT = 32, COLOUR_OUT_SHIFT = 16;
    using colour_row = uint64_t; /* sum w * c * a < 2^48 */
    using column = uint64_t;     /* plain v < 2^40, alpha va < 2^48 */
    using wide_pair = uint64_t;  /* an alpha or colour h alone reaches 2^32 - 2^17 */
};

/* 2^(S-1), the half that makes >> S round; 0 for S = 0. */
template <typename A, int S> constexpr A half_unit = S > 0 ? (A)((A)1 << (S > 0 ? S - 1 : 0)) : (A)0;

/* The h shift of channel c of a C-channel image. */
template <typename T, int C> __host__ __device__ constexpr int h_shift(int c)
{
    return !has_alpha<C> ? 8 : c < C - 1 ? depth<T>::COLOUR_H_SHIFT : depth<T>::ALPHA_H_SHIFT;
}

/* The out shift of a plain or alpha channel. */
template <typename T, int C> __host__ __device__ constexpr int out_shift(int c)
{
    return has_alpha<C> && c == C - 1 ? depth<T>::ALPHA_OUT_SHIFT : 24;
}

/* A premultiplied colour's output, exactly: va == 0 ? 0 :
 * min(MAX, (vc * 2^COLOUR_OUT_SHIFT + va / 2) / va). */
template <typename T>
__device__ __forceinline__ uint32_t colour_exact(uint64_t vc, typename depth<T>::column va)
{
    if (va == 0) return 0;
    const uint64_t v = ((vc << depth<T>::COLOUR_OUT_SHIFT) + va / 2) / va;
    return (uint32_t)(v > depth<T>::MAX ? depth<T>::MAX : v);
}

/* ------------------------------------------------ larger radii */

/* Horizontal sum of one output pixel: h = (sum w * u + half) >> shift,
 * with u the sample, or c * a for colour next to alpha (depth<T> gives
 * the widths and shifts). */
template <typename T, int C> struct row_sum {
    typename depth<T>::colour_row colour[C] = {};
    uint32_t plain[C] = {};

    __device__ __forceinline__ void add(uint32_t w, const T *p)
    {
        if (has_alpha<C>) {
            const uint32_t a = p[C - 1];
#pragma unroll
            for (int c = 0; c < C - 1; c++)
                colour[c] += (typename depth<T>::colour_row)w * (p[c] * a);
            plain[C - 1] += w * a;
        } else {
#pragma unroll
            for (int c = 0; c < C; c++) plain[c] += w * p[c];
        }
    }
    __device__ __forceinline__ uint32_t result(int c) const
    {
        if (has_alpha<C> && c < C - 1) {
            constexpr int S = depth<T>::COLOUR_H_SHIFT;
            return (uint32_t)((colour[c] + half_unit<typename depth<T>::colour_row, S>) >> S);
        }
        const int s = h_shift<T, C>(c);
        return s ? (plain[c] + (1u << (s - 1))) >> s : plain[c];
    }
};

/* Vertical sum and final rounding; premultiplied colour sums in uint64. */
template <typename T, int C> struct column_sum {
    using V = typename depth<T>::column;
    uint64_t colour[C] = {};
    V plain[C] = {};

    __device__ __forceinline__ void add(uint32_t w, const uint32_t *h)
    {
#pragma unroll
        for (int c = 0; c < C; c++) {
            if (has_alpha<C> && c < C - 1) colour[c] += (uint64_t)w * h[c];
            else plain[c] += (V)w * h[c];
        }
    }
    __device__ __forceinline__ void store(T *out) const
    {
        const V va = plain[C - 1];
#pragma unroll
        for (int c = 0; c < C; c++) {
            if (has_alpha<C> && c < C - 1) {
                out[c] = (T)colour_exact<T>(colour[c], va);
            } else {
                const int s = out_shift<T, C>(c);
                out[c] = (T)((plain[c] + ((V)1 << (s - 1))) >> s);
            }
        }
    }
};

template <typename T, int C>
__global__ void __launch_bounds__(GI_BLUR_TILE_W * GI_BLUR_ROWS)
    blur_fused(gi_src_view s, uint8_t *dst, size_t dst_pitch, int tiles_x, int radius,
               fused_weights wt)
{
    extern __shared__ uint32_t fused_smem[];
    const int taps = 2 * radius + 1, rows = GI_BLUR_TILE_H + 2 * radius;
    const int tile_w = GI_BLUR_TILE_W + 2 * radius;
    uint32_t *hsum = fused_smem; /* [C][rows][GI_BLUR_TILE_W]: lanes hit consecutive words */
    T *tile = (T *)(fused_smem + (size_t)C * rows * GI_BLUR_TILE_W);
    const int x0 = (int)(blockIdx.x % tiles_x) * GI_BLUR_TILE_W;
    const int y0 = (int)(blockIdx.x / tiles_x) * GI_BLUR_TILE_H;
    const int tx = threadIdx.x % GI_WARP, ty = threadIdx.x / GI_WARP;

    gi_load_tile<C * (int)sizeof(T)>((uint8_t *)tile, tile_w, rows, s, x0 - radius, y0 - radius);
    __syncthreads();

    for (int r = ty; r < rows; r += GI_BLUR_ROWS) {
        const T *p = tile + ((size_t)r * tile_w + tx) * C;
        row_sum<T, C> h;
        for (int k = 0; k < taps; k++) h.add((uint32_t)wt.w[k], p + k * C);
#pragma unroll
        for (int c = 0; c < C; c++) hsum[(c * rows + r) * GI_BLUR_TILE_W + tx] = h.result(c);
    }
    __syncthreads();

    const int x = x0 + tx;
    if (x >= s.width) return;
    for (int r = ty; r < GI_BLUR_TILE_H && y0 + r < s.height; r += GI_BLUR_ROWS) {
        column_sum<T, C> v;
        for (int k = 0; k < taps; k++) {
            uint32_t h[C];
#pragma unroll
            for (int c = 0; c < C; c++) h[c] = hsum[(c * rows + r + k) * GI_BLUR_TILE_W + tx];
            v.add((uint32_t)wt.w[k], h);
        }
        v.store((T *)(dst + (size_t)(y0 + r) * dst_pitch) + (size_t)x * C);
    }
}

/* Two-pass, row pass: block b filters GI_BLUR_SEGMENT pixels of one row into
 * scratch, laid out [C][height][width] so the column pass reads coalesced. */
template <typename T, int C>
__global__ void __launch_bounds__(GI_BLUR_SEGMENT)
    blur_rows(gi_src_view s, uint32_t *scratch, int segments, int radius, wide_weights wt)
{
    extern __shared__ uint32_t row_smem[];
    const T *tile = (const T *)row_smem;
    const int y = (int)(blockIdx.x / segments);
    const int x0 = (int)(blockIdx.x % segments) * GI_BLUR_SEGMENT;
    gi_load_tile<C * (int)sizeof(T)>((uint8_t *)row_smem, GI_BLUR_SEGMENT + 2 * radius, 1, s,
                                x0 - radius, y);
    __syncthreads();

    const int x = x0 + threadIdx.x;
    if (x >= s.width) return;
    const T *p = tile + (size_t)threadIdx.x * C;
    row_sum<T, C> h;
    for (int k = 0; k < 2 * radius + 1; k++) h.add((uint32_t)wt.w[k], p + k * C);
    const size_t plane = (size_t)s.width * s.height;
#pragma unroll
    for (int c = 0; c < C; c++) scratch[c * plane + (size_t)y * s.width + x] = h.result(c);
}

/* Two-pass, column pass: one thread per output pixel. An outside row in zero
 * mode is a row of border pixels u, whose horizontal sum is exactly
 * 65536 u' (u' = u, or u * u for colour) rounded by the channel's shift,
 * because the weights sum to 65536. */
template <typename T, int C>
__global__ void __launch_bounds__(GI_BLUR_TILE_W * GI_BLUR_ROWS)
    blur_cols(const uint32_t *scratch, gi_src_view s, uint8_t *dst, size_t dst_pitch, int tiles_x,
              int radius, wide_weights wt)
{
    const int x = (int)(blockIdx.x % tiles_x) * GI_BLUR_TILE_W + threadIdx.x % GI_WARP;
    const int y = (int)(blockIdx.x / tiles_x) * GI_BLUR_ROWS + threadIdx.x / GI_WARP;
    if (x >= s.width || y >= s.height) return;
    const size_t plane = (size_t)s.width * s.height;
    const bool interior = y - radius >= 0 && y + radius < s.height;
    const uint64_t u = (uint64_t)s.value * (depth<T>::MAX / 255); /* value, or value * 257 */
    uint32_t outside[C];
#pragma unroll
    for (int c = 0; c < C; c++)
        outside[c] = (uint32_t)(((has_alpha<C> && c < C - 1 ? u * u : u) << 16) >> h_shift<T, C>(c));

    column_sum<T, C> v;
    for (int k = 0; k < 2 * radius + 1; k++) {
        const int sy = interior ? y - radius + k
                                : gi_border_map((long long)y - radius + k, s.height, s.mode);
        uint32_t h[C];
#pragma unroll
        for (int c = 0; c < C; c++)
            h[c] = sy < 0 ? outside[c] : scratch[c * plane + (size_t)sy * s.width + x];
        v.add((uint32_t)wt.w[k], h);
    }
    v.store((T *)(dst + (size_t)y * dst_pitch) + (size_t)x * C);
}


/* ------------------------------------------------ 1 channel, tensor cores */

namespace tc {

constexpr int XB = GI_BLUR_TC_XB, BW = GI_BLUR_TC_W, BH = GI_BLUR_TC_ROWS;
constexpr int PAD = GI_BLUR_TC_PAD, PITCH = GI_BLUR_TC_PITCH, THREADS = GI_BLUR_TC_WARPS * GI_WARP;

/* D = A * B + C on u8 operands with s32 accumulators, one m16n8k32 step.
 * Fragments (PTX ISA, lane = 4 * g + t): A regs (row g | g+8, k 4t..4t+3 |
 * 16+4t..), B regs (k 4t..4t+3 | 16+4t.., column g), C/D (row g | g+8,
 * columns 2t, 2t+1). */
__device__ __forceinline__ void mma_u8(uint32_t (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                       uint32_t b1, const uint32_t (&c)[4])
{
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]),
          "r"(c[2]), "r"(c[3]));
}

/* Window row of vertical K index k: within each 16-row half, lane t's
 * bytes 0..3 are rows 2t, 2t+1, 8+2t, 9+2t, which is where the horizontal
 * pass leaves them (accumulator rows 2t, 2t+1 of two 8-row blocks). */
__host__ __device__ constexpr int k_row(int k)
{
    return (k & 16) + 2 * ((k & 15) >> 2) + (k & 1) + 8 * ((k & 3) >> 1);
}

/* Output column (within the strip) of horizontal M row m: lane t's vertical
 * accumulators, columns 2t, 2t+1 of the two 8-column blocks, become the
 * four adjacent columns 4t..4t+3. */
__host__ __device__ constexpr int m_col(int m)
{
    return 4 * ((m & 7) >> 1) + 2 * (m >> 3) + (m & 1);
}

/* Every lane's A fragments of both band matrices, made on the host:
 * f[plane * 4 + reg][lane] horizontal, f[8 + plane * 4 + reg][lane]
 * vertical (plane 0: low weight bytes, 1: high). Horizontal: row m is
 * output column m_col(m) of the strip, K the input columns strip - 8 ..
 * strip + 23. Vertical: row m is output row m (window row 8 + m), K the
 * permuted window rows. */
struct fragments {
    uint32_t f[16][GI_WARP];
};

fragments make_fragments(const int32_t *w, int radius)
{
    fragments fr;
    auto byte = [&](int j, int plane) -> uint32_t {
        if (j < 0 || j > 2 * radius) return 0;
        return plane ? (uint32_t)w[j] >> 8 : (uint32_t)w[j] & 255u;
    };
    for (int lane = 0; lane < GI_WARP; lane++) {
        const int g = lane >> 2, t = lane & 3;
        for (int plane = 0; plane < 2; plane++)
            for (int r = 0; r < 4; r++) {
                const int m = g + 8 * (r & 1), k0 = 4 * t + 16 * (r >> 1);
                uint32_t h = 0, v = 0;
                for (int i = 0; i < 4; i++) {
                    h |= byte(k0 + i - 8 - m_col(m) + radius, plane) << (8 * i);
                    v |= byte(k_row(k0 + i) - 8 - m + radius, plane) << (8 * i);
                }
                fr.f[plane * 4 + r][lane] = h;
                fr.f[8 + plane * 4 + r][lane] = v;
            }
    }
    return fr;
}

/* Horizontal pass over the 16 window rows starting at tile row r0: the low
 * and high bytes of h = (sum w * u + 128) >> 8, packed as the vertical
 * pass's B fragments of both 8-column blocks. */
__device__ __forceinline__ void row_pass(const uint8_t *strip, int r0, const uint32_t (&ah)[2][4],
                                         uint32_t (&lo)[2], uint32_t (&hi)[2])
{
    const int g = (threadIdx.x % GI_WARP) >> 2;
    const uint32_t c128[4] = {128, 128, 128, 128}, c0[4] = {0, 0, 0, 0};
    uint32_t h[2][4];
#pragma unroll
    for (int s = 0; s < 2; s++) {
        const uint8_t *p = strip + (r0 + 8 * s + g) * PITCH;
        const uint32_t b0 = *(const uint32_t *)p, b1 = *(const uint32_t *)(p + 16);
        uint32_t dl[4], dh[4];
        mma_u8(dl, ah[0], b0, b1, c128);
        mma_u8(dh, ah[1], b0, b1, c0);
#pragma unroll
        for (int i = 0; i < 4; i++) h[s][i] = dh[i] + (dl[i] >> 8);
    }
#pragma unroll
    for (int b = 0; b < 2; b++) {
        const uint32_t p01 = __byte_perm(h[0][2 * b], h[0][2 * b + 1], 0x5410);
        const uint32_t p23 = __byte_perm(h[1][2 * b], h[1][2 * b + 1], 0x5410);
        lo[b] = __byte_perm(p01, p23, 0x6420);
        hi[b] = __byte_perm(p01, p23, 0x7531);
    }
}

__device__ __forceinline__ void store4(const gi_src_view &s, uint8_t *dst, size_t pitch, bool vec,
                                       int x, int y, uint32_t w)
{
    if (y >= s.height || x >= s.width) return;
    uint8_t *p = dst + (size_t)y * pitch + x;
    if (vec && x + 4 <= s.width) {
        *(uint32_t *)p = w;
        return;
    }
    for (int i = 0; i < 4 && x + i < s.width; i++) p[i] = (uint8_t)(w >> (8 * i));
}

__device__ __forceinline__ void load_tile(uint8_t *buf, const gi_src_view &s, int tile, int tiles_x,
                                          bool src_vec)
{
    const int x0 = tile % tiles_x * BW, y0 = tile / tiles_x * BH;
    gi_load_tile16_async<1, GI_BLUR_TC_TILE_BYTES, THREADS>(buf, PITCH, GI_BLUR_TC_TILE_ROWS, s,
                                                            x0 - PAD, y0 - GI_BLUR_TC_HALO, src_vec);
}

/* Vertical pass of one 16-row step from the two K halves (prev: window
 * rows 0..15, cur: 16..31), and the stores of its 2 x 4 output bytes. */
__device__ __forceinline__ void column_step(const gi_src_view &s, uint8_t *dst, size_t dst_pitch,
                                            bool wide, bool dst_vec, int x, int y, uint8_t *out,
                                            const uint32_t (&av)[2][4], const uint32_t (&prev_lo)[2],
                                            const uint32_t (&prev_hi)[2], const uint32_t (&cur_lo)[2],
                                            const uint32_t (&cur_hi)[2])
{
    const uint32_t c2p23[4] = {1u << 23, 1u << 23, 1u << 23, 1u << 23}, c0[4] = {0, 0, 0, 0};
    uint32_t v[2][4];
#pragma unroll
    for (int b = 0; b < 2; b++) {
        /* v = sum (256 wh + wl)(256 hh + hl) + 2^23, exact mod 2^32 */
        uint32_t lo_lo[4], cross[4], hi_hi[4];
        mma_u8(lo_lo, av[0], prev_lo[b], cur_lo[b], c2p23);
        mma_u8(cross, av[1], prev_lo[b], cur_lo[b], c0);
        mma_u8(cross, av[0], prev_hi[b], cur_hi[b], cross);
        mma_u8(hi_hi, av[1], prev_hi[b], cur_hi[b], c0);
#pragma unroll
        for (int i = 0; i < 4; i++) v[b][i] = lo_lo[i] + (cross[i] << 8) + (hi_hi[i] << 16);
    }
    /* out = v >> 24: the top bytes, four adjacent columns per row */
    const uint32_t top = __byte_perm(__byte_perm(v[0][0], v[0][1], 0x7373),
                                     __byte_perm(v[1][0], v[1][1], 0x7373), 0x5410);
    const uint32_t bottom = __byte_perm(__byte_perm(v[0][2], v[0][3], 0x7373),
                                        __byte_perm(v[1][2], v[1][3], 0x7373), 0x5410);
    if (wide && y + 16 <= s.height) {
        *(uint32_t *)out = top;
        *(uint32_t *)(out + 8 * dst_pitch) = bottom;
        return;
    }
    const int g = (threadIdx.x % GI_WARP) >> 2;
    store4(s, dst, dst_pitch, dst_vec, x, y + g, top);
    store4(s, dst, dst_pitch, dst_vec, x, y + g + 8, bottom);
}

/* A warp's strip of one tile: 16 columns, BH rows in 16-row steps; the K
 * halves alternate between two register sets (no copies). */
__device__ __forceinline__ void filter_strip(const uint8_t *buf, const gi_src_view &s, uint8_t *dst,
                                             size_t dst_pitch, bool dst_vec, int x0, int y0,
                                             const uint32_t (&ah)[2][4], const uint32_t (&av)[2][4])
{
    const int lane = threadIdx.x % GI_WARP, g = lane >> 2, t = lane & 3, warp = threadIdx.x / GI_WARP;
    /* B words of the horizontal pass: columns strip - 8 + 4t (and + 16) */
    const uint8_t *strip = buf + PAD - 8 + XB * warp + 4 * t;
    const int x = x0 + XB * warp + 4 * t;
    const bool wide = dst_vec && x0 + BW <= s.width; /* every lane stores 4 whole bytes */
    uint8_t *out = dst + (size_t)(y0 + g) * dst_pitch + x;
    const size_t step_bytes = 16 * dst_pitch;
    uint32_t a_lo[2], a_hi[2], b_lo[2], b_hi[2];
    row_pass(strip, 0, ah, a_lo, a_hi);
#pragma unroll 1
    for (int step = 0; step < BH / 16; step += 2) {
        const int y = y0 + 16 * step;
        if (y >= s.height) break;
        row_pass(strip, 16 * step + 16, ah, b_lo, b_hi);
        column_step(s, dst, dst_pitch, wide, dst_vec, x, y, out, av, a_lo, a_hi, b_lo, b_hi);
        out += step_bytes;
        if (y + 16 >= s.height) break;
        row_pass(strip, 16 * step + 32, ah, a_lo, a_hi);
        column_step(s, dst, dst_pitch, wide, dst_vec, x, y + 16, out, av, b_lo, b_hi, a_lo, a_hi);
        out += step_bytes;
    }
}

/* Persistent blocks: each walks tiles blockIdx.x, + gridDim.x, ..., and
 * copies the next tile in (cp.async) while it filters the current one.
 * 4 blocks of 256 threads per SM (64 registers; two 25 KB tiles each). */
__global__ void __launch_bounds__(THREADS, 4)
    blur1_tc(gi_src_view s, uint8_t *dst, size_t dst_pitch, int tiles_x, int tiles,
             fragments fr, bool src_vec, bool dst_vec)
{
    extern __shared__ __align__(16) uint8_t tc_tiles[]; /* two tiles */
    __shared__ uint32_t frag[16][GI_WARP];
    for (int i = threadIdx.x; i < 16 * GI_WARP; i += THREADS) frag[i / GI_WARP][i % GI_WARP] = fr.f[i / GI_WARP][i % GI_WARP];
    int tile = blockIdx.x;
    if (tile < tiles) load_tile(tc_tiles, s, tile, tiles_x, src_vec);
    gi_async_commit();
    __syncthreads();
    const int lane = threadIdx.x % GI_WARP;
    uint32_t ah[2][4], av[2][4];
#pragma unroll
    for (int p = 0; p < 2; p++)
#pragma unroll
        for (int r = 0; r < 4; r++) ah[p][r] = frag[p * 4 + r][lane], av[p][r] = frag[8 + p * 4 + r][lane];

    for (int cur = 0; tile < tiles; tile += gridDim.x, cur ^= 1) {
        const int next = tile + gridDim.x;
        if (next < tiles) load_tile(tc_tiles + (cur ^ 1) * GI_BLUR_TC_SMEM, s, next, tiles_x, src_vec);
        gi_async_commit();
        gi_async_wait<1>();
        __syncthreads();
        filter_strip(tc_tiles + cur * GI_BLUR_TC_SMEM, s, dst, dst_pitch, dst_vec, tile % tiles_x * BW,
                     tile / tiles_x * BH, ah, av);
        __syncthreads();
    }
}

} // namespace tc

/* ------------------------------------------------ any channels, radius <= 8 */

namespace gen {

constexpr int TW = GI_BLUR_GEN_W, NT = GI_BLUR_GEN_THREADS;
template <typename T, int C> constexpr int TH = GI_BLUR_GEN_H(C, (int)sizeof(T));
template <int C> constexpr int PAD = GI_BLUR_GEN_PAD(C);
template <typename T, int C> constexpr int IN_ROW = GI_BLUR_GEN_IN_ROW(C, (int)sizeof(T));
/* pixels per column-pass thread: four output samples where the channels allow */
template <int C> constexpr int VP = C == 1 ? 4 : C == 2 ? 2 : 1;

/* A premultiplied colour's output, as colour_exact without a 64-bit
 * division: a float estimate is within one of the quotient below MAX
 * (relative error a few 2^-24, times at most 65535), and the exact
 * remainder corrects it. inv_va approximates 1 / va. */
template <typename T>
__device__ __forceinline__ uint32_t colour_out(uint64_t vc, typename depth<T>::column va,
                                               float inv_va)
{
    if (va == 0) return 0;
    const uint64_t num = (vc << depth<T>::COLOUR_OUT_SHIFT) + (va >> 1);
    if (num >= (uint64_t)va * depth<T>::MAX) return depth<T>::MAX;
    uint32_t q = (uint32_t)__fmul_rn(__ull2float_rn(num), inv_va);
    const long long rem = (long long)(num - (uint64_t)q * va);
    if (rem < 0) q--;
    else if (rem >= (long long)va) q++;
    return q;
}

/* Stage 2: horizontal sums of 4 adjacent pixels of one staged row, into
 * out: their C values each in turn, or with alpha (planar) the 4 values of
 * each channel at out + c * plane. */
template <typename T, int C, int R>
__device__ __forceinline__ void row_sums(const uint8_t *in_row, int q, const int32_t *w,
                                         uint32_t *out, int plane)
{
    using D = depth<T>;
    using CR = typename D::colour_row;
    constexpr bool alpha = has_alpha<C>;
    constexpr int SB = sizeof(T), SPW = 4 / SB; /* samples per word */
    constexpr int WORDS = 5 * C * SB;           /* pixels px0 - 8 .. px0 + 11 */
    /* the words' alignment: PAD - 8 pixels, then 4 pixels per q */
    constexpr int OFF = (PAD<C> - 8) * C * SB, STEP = 4 * C * SB;
    uint32_t wd[WORDS];
    const uint32_t *src = (const uint32_t *)(in_row + (PAD<C> + 4 * q - 8) * C * SB);
    if constexpr (OFF % 16 == 0 && STEP % 16 == 0) {
#pragma unroll
        for (int i = 0; i < WORDS / 4; i++) {
            const uint4 v = ((const uint4 *)src)[i];
            wd[4 * i] = v.x, wd[4 * i + 1] = v.y, wd[4 * i + 2] = v.z, wd[4 * i + 3] = v.w;
        }
    } else if constexpr (OFF % 8 == 0 && STEP % 8 == 0) {
#pragma unroll
        for (int i = 0; i < WORDS / 2; i++) {
            const uint2 v = ((const uint2 *)src)[i];
            wd[2 * i] = v.x, wd[2 * i + 1] = v.y;
        }
    } else {
#pragma unroll
        for (int i = 0; i < WORDS; i++) wd[i] = src[i];
    }
    auto sample = [&](int p, int c) -> uint32_t {
        const int b = (p + 8) * C + c;
        return (wd[b / SPW] >> (8 * SB * (b % SPW))) & D::MAX;
    };
    uint32_t u[4 + 2 * R][C]; /* c * a <= 65535^2 fits too */
#pragma unroll
    for (int p = -R; p < 4 + R; p++)
#pragma unroll
        for (int c = 0; c < C; c++)
            u[p + R][c] = alpha && c < C - 1 ? sample(p, c) * sample(p, C - 1) : sample(p, c);
    uint32_t h[4 * C];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int c = 0; c < C; c++) {
            if (alpha && c < C - 1) {
                constexpr int S = D::COLOUR_H_SHIFT;
                CR acc = half_unit<CR, S> + (CR)(uint32_t)w[R] * u[i + R][c];
#pragma unroll
                for (int k = 1; k <= R; k++)
                    acc += (CR)(uint32_t)w[R + k] * ((CR)u[i + R - k][c] + u[i + R + k][c]);
                h[i * C + c] = (uint32_t)(acc >> S);
            } else { /* plain and alpha sums stay below 2^32 */
                const int S = h_shift<T, C>(c);
                uint32_t acc = (S ? 1u << (S - 1) : 0u) + (uint32_t)w[R] * u[i + R][c];
#pragma unroll
                for (int k = 1; k <= R; k++) acc += (uint32_t)w[R + k] * (u[i + R - k][c] + u[i + R + k][c]);
                h[i * C + c] = acc >> S;
            }
        }
    if constexpr (alpha) {
#pragma unroll
        for (int c = 0; c < C; c++)
            *(uint4 *)(out + c * plane) = make_uint4(h[c], h[C + c], h[2 * C + c], h[3 * C + c]);
    } else {
#pragma unroll
        for (int i = 0; i < C; i++)
            ((uint4 *)out)[i] = make_uint4(h[4 * i], h[4 * i + 1], h[4 * i + 2], h[4 * i + 3]);
    }
}

/* Stage 3's sum of window column p for output row j: sum_k w[k] h(j + k),
 * the weights' symmetry pairing rows (A: the sum's type, WP: a pair's). */
template <typename A, typename WP, int R, int WIN, int P>
__device__ __forceinline__ A column_taps(const uint32_t (&win)[WIN][P], int j, int p, const int32_t *w)
{
    A acc = (A)(uint32_t)w[R] * win[j + R][p];
#pragma unroll
    for (int k = 1; k <= R; k++) acc += (A)(uint32_t)w[R + k] * ((WP)win[j + R - k][p] + win[j + R + k][p]);
    return acc;
}

template <typename T, int C, int R>
__global__ void __launch_bounds__(NT)
    blur_small(gi_src_view s, uint8_t *dst, size_t dst_pitch, int tiles_x, fused_weights wt,
               bool src_vec, bool dst_vec)
{
    using D = depth<T>;
    using V = typename D::column;
    constexpr int ROWS = TH<T, C> + 2 * R;
    constexpr bool alpha = has_alpha<C>;
    /* pair sums of the column pass: plain h < 2^24 at either depth */
    using PAIR = std::conditional_t<alpha, typename D::wide_pair, uint32_t>;
    extern __shared__ __align__(16) uint8_t gen_smem[];
    uint8_t *in = gen_smem;
    /* [row][px][c]; with alpha planar, [c][row][px], so that the column
     * pass reads one channel at a time without bank conflicts */
    uint32_t *hs = (uint32_t *)(gen_smem + ROWS * IN_ROW<T, C>);
    constexpr int PLANE = ROWS * TW;
    const int x0 = (int)(blockIdx.x % tiles_x) * TW, y0 = (int)(blockIdx.x / tiles_x) * TH<T, C>;
    const int32_t *w = wt.w;

    gi_load_tile16<C * (int)sizeof(T), IN_ROW<T, C>, NT>(in, IN_ROW<T, C>, ROWS, s, x0 - PAD<C>,
                                                          y0 - R, src_vec);
    __syncthreads();

    for (int job = threadIdx.x; job < ROWS * (TW / 4); job += NT) {
        const int r = job / (TW / 4), q = job % (TW / 4);
        row_sums<T, C, R>(in + r * IN_ROW<T, C>, q, w,
                          hs + (alpha ? r * TW + 4 * q : (r * TW + 4 * q) * C), PLANE);
    }
    __syncthreads();

    /* Stage 3: thread = VP adjacent pixels x RS rows */
    constexpr int GROUPS = TW / VP<C>, SEGS = NT / GROUPS, RS = TH<T, C> / SEGS;
    static_assert(NT % GROUPS == 0 && TH<T, C> % SEGS == 0, "column threads tile the block");
    constexpr int N = VP<C> * C; /* values per row */
    const int grp = threadIdx.x % GROUPS, seg = threadIdx.x / GROUPS;
    const int x = x0 + grp * VP<C>;
    if (x >= s.width) return;
    uint32_t values[RS][N];
    if constexpr (alpha) {
        /* alpha's sums first, then each colour's from a window of its own
         * channel: a window of every channel at once held RGBA's blur to
         * 102-106 registers a thread, two blocks a multiprocessor */
        constexpr int P = VP<C>, WIN = RS + 2 * R;
        const uint32_t *col = hs + seg * RS * TW + grp * P;
        auto load = [&](const uint32_t *plane, uint32_t (&win)[WIN][P]) {
#pragma unroll
            for (int r = 0; r < WIN; r++) {
                if constexpr (P == 2) {
                    const uint2 v = *(const uint2 *)(plane + r * TW);
                    win[r][0] = v.x, win[r][1] = v.y;
                } else {
                    win[r][0] = plane[r * TW];
                }
            }
        };
        using WP = typename D::wide_pair;
        V va[RS][P];
        float inv_va[RS][P];
        {
            uint32_t win[WIN][P];
            load(col + (C - 1) * PLANE, win);
#pragma unroll
            for (int j = 0; j < RS; j++)
#pragma unroll
                for (int p = 0; p < P; p++) {
                    const V acc = column_taps<V, WP, R>(win, j, p, w);
                    va[j][p] = acc;
                    inv_va[j][p] = __frcp_rn((float)acc);
                    constexpr int S = out_shift<T, C>(C - 1);
                    values[j][p * C + C - 1] = (uint32_t)((acc + ((V)1 << (S - 1))) >> S);
                }
        }
#pragma unroll
        for (int c = 0; c < C - 1; c++) {
            uint32_t win[WIN][P];
            load(col + c * PLANE, win);
#pragma unroll
            for (int j = 0; j < RS; j++)
#pragma unroll
                for (int p = 0; p < P; p++)
                    values[j][p * C + c] =
                        colour_out<T>(column_taps<uint64_t, WP, R>(win, j, p, w), va[j][p], inv_va[j][p]);
        }
    } else {
        const uint32_t *col = hs + (seg * RS * TW + grp * VP<C>) * C;
        uint32_t win[RS + 2 * R][N];
#pragma unroll
        for (int r = 0; r < RS + 2 * R; r++) {
            if constexpr (N == 4) {
                const uint4 v = *(const uint4 *)(col + r * TW * C);
                win[r][0] = v.x, win[r][1] = v.y, win[r][2] = v.z, win[r][3] = v.w;
            } else {
#pragma unroll
                for (int i = 0; i < N; i++) win[r][i] = col[r * TW * C + i];
            }
        }
#pragma unroll
        for (int j = 0; j < RS; j++)
#pragma unroll
            for (int i = 0; i < N; i++) {
                const int S = out_shift<T, C>(i % C);
                const V acc = column_taps<V, PAIR, R>(win, j, i, w);
                values[j][i] = (uint32_t)((acc + ((V)1 << (S - 1))) >> S);
            }
    }
#pragma unroll
    for (int j = 0; j < RS; j++) {
        const int y = y0 + seg * RS + j;
        if (y >= s.height) break;
        T *out = (T *)(dst + (size_t)y * dst_pitch) + (size_t)x * C;
        if (N == 4 && dst_vec && x + VP<C> <= s.width) {
            if constexpr (sizeof(T) == 1)
                *(uint32_t *)out = values[j][0] | values[j][1] << 8 | values[j][2] << 16 | values[j][3] << 24;
            else
                *(uint2 *)out = make_uint2(values[j][0] | values[j][1] << 16, values[j][2] | values[j][3] << 16);
        } else {
#pragma unroll
            for (int i = 0; i < N; i++)
                if (x + i / C < s.width) out[i] = (T)values[j][i];
        }
    }
}

} // namespace gen

/* Blocks for a grid of tiles, or 0 when the count does not fit gridDim.x. */
unsigned tile_blocks(int width, int height, int tile_w, int tile_h, int *tiles_x)
{
    *tiles_x = (width + tile_w - 1) / tile_w;
    const long long n = (long long)*tiles_x * ((height + tile_h - 1) / tile_h);
    return n > 0x7fffffffLL ? 0 : (unsigned)n;
}

fused_weights small_weights(const int32_t *weights, int radius)
{
    fused_weights wt = {};
    for (int k = 0; k < 2 * radius + 1; k++) wt.w[k] = weights[k];
    return wt;
}

bool aligned(const void *p, size_t pitch, size_t to)
{
    return (uintptr_t)p % to == 0 && pitch % to == 0;
}

/* Blocks of `kernel` that fit on the device at once, cached per device so
 * the launch path stays short. The cache belongs to the kernel's type: one
 * kernel (blur1_tc) uses it. */
template <typename K> cudaError_t resident_blocks(K kernel, int threads, size_t smem, int *blocks)
{
    static int cache[64];
    int device;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess) return e;
    if (device < 64 && cache[device]) {
        *blocks = cache[device];
        return cudaSuccess;
    }
    int sms = 0, per_sm = 0;
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem);
    if (e != cudaSuccess) return e;
    *blocks = sms * (per_sm > 0 ? per_sm : 1);
    if (device < 64) cache[device] = *blocks;
    return cudaSuccess;
}

cudaError_t launch_tc(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, const int32_t *weights,
                      int radius, cudaStream_t stream)
{
    int tiles_x;
    const unsigned tiles = tile_blocks(s.width, s.height, tc::BW, tc::BH, &tiles_x);
    if (tiles == 0) return cudaErrorInvalidValue;
    const size_t smem = 2 * GI_BLUR_TC_SMEM;
    int resident;
    const cudaError_t e = resident_blocks(tc::blur1_tc, tc::THREADS, smem, &resident);
    if (e != cudaSuccess) return e;
    const unsigned blocks = tiles < (unsigned)resident ? tiles : (unsigned)resident;
    tc::blur1_tc<<<blocks, tc::THREADS, smem, stream>>>(
        s, dst, dst_pitch, tiles_x, (int)tiles, tc::make_fragments(weights, radius),
        aligned(s.data, s.pitch, 16), aligned(dst, dst_pitch, 4));
    return cudaGetLastError();
}

template <typename T, int C, int R>
cudaError_t launch_small_r(const gi_src_view &s, uint8_t *dst, size_t dst_pitch,
                           const int32_t *weights, cudaStream_t stream)
{
    int tiles_x;
    const unsigned blocks = tile_blocks(s.width, s.height, gen::TW, gen::TH<T, C>, &tiles_x);
    if (blocks == 0) return cudaErrorInvalidValue;
    gen::blur_small<T, C, R><<<blocks, gen::NT, GI_BLUR_GEN_SMEM(C, R, (int)sizeof(T)), stream>>>(
        s, dst, dst_pitch, tiles_x, small_weights(weights, R), aligned(s.data, s.pitch, 16),
        aligned(dst, dst_pitch, 4 * sizeof(T)));
    return cudaGetLastError();
}

template <typename T, int C>
cudaError_t launch_small(const gi_src_view &s, uint8_t *dst, size_t dst_pitch,
                         const int32_t *weights, int radius, cudaStream_t stream)
{
    switch (radius) {
    case 1: return launch_small_r<T, C, 1>(s, dst, dst_pitch, weights, stream);
    case 2: return launch_small_r<T, C, 2>(s, dst, dst_pitch, weights, stream);
    case 3: return launch_small_r<T, C, 3>(s, dst, dst_pitch, weights, stream);
    case 4: return launch_small_r<T, C, 4>(s, dst, dst_pitch, weights, stream);
    case 5: return launch_small_r<T, C, 5>(s, dst, dst_pitch, weights, stream);
    case 6: return launch_small_r<T, C, 6>(s, dst, dst_pitch, weights, stream);
    case 7: return launch_small_r<T, C, 7>(s, dst, dst_pitch, weights, stream);
    default: return launch_small_r<T, C, 8>(s, dst, dst_pitch, weights, stream);
    }
}

template <typename T, int C>
cudaError_t launch_fused(const gi_src_view &s, uint8_t *dst, size_t dst_pitch,
                         const int32_t *weights, int radius, cudaStream_t stream)
{
    int tiles_x;
    const unsigned blocks = tile_blocks(s.width, s.height, GI_BLUR_TILE_W, GI_BLUR_TILE_H, &tiles_x);
    if (blocks == 0) return cudaErrorInvalidValue;
    blur_fused<T, C><<<blocks, GI_BLUR_TILE_W * GI_BLUR_ROWS,
                       GI_BLUR_FUSED_SMEM(radius, C, (int)sizeof(T)), stream>>>(
        s, dst, dst_pitch, tiles_x, radius, small_weights(weights, radius));
    return cudaGetLastError();
}

template <typename T, int C>
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
    blur_rows<T, C><<<(unsigned)segments * s.height, GI_BLUR_SEGMENT,
                      GI_BLUR_SEGMENT_SMEM(radius, C, (int)sizeof(T)), stream>>>(
        s, scratch, segments, radius, wt);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    blur_cols<T, C><<<col_blocks, GI_BLUR_TILE_W * GI_BLUR_ROWS, 0, stream>>>(
        scratch, s, dst, dst_pitch, tiles_x, radius, wt);
    return cudaGetLastError();
}

/* The fast kernels pair w[R-k] with w[R+k], as the CPU's row pass does;
 * gi_blur_weights always gives symmetric weights. */
bool symmetric(const int32_t *weights, int radius)
{
    for (int k = 1; k <= radius; k++)
        if (weights[radius - k] != weights[radius + k]) return false;
    return true;
}

/* The tensor path splits each weight into two bytes. */
bool fits_two_bytes(const int32_t *weights, int radius)
{
    for (int k = 0; k <= 2 * radius; k++)
        if (weights[k] < 0 || weights[k] > 65535) return false;
    return true;
}

template <typename T, int C>
cudaError_t launch(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, const int32_t *weights,
                   int radius, void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    if (radius >= 1 && radius <= GI_BLUR_SMALL_RADIUS && symmetric(weights, radius)) {
        if constexpr (sizeof(T) == 1 && C == 1) { /* the tensor cores take 8-bit samples */
            if (fits_two_bytes(weights, radius))
                return launch_tc(s, dst, dst_pitch, weights, radius, stream);
        }
        return launch_small<T, C>(s, dst, dst_pitch, weights, radius, stream);
    }
    if (GI_BLUR_FUSED_FITS(radius, C, (int)sizeof(T)))
        return launch_fused<T, C>(s, dst, dst_pitch, weights, radius, stream);
    if (!scratch ||
        scratch_bytes < gi_cuda_blur_scratch_bytes(s.width, s.height, C, radius, 8 * (int)sizeof(T)))
        return cudaErrorInvalidValue;
    return launch_two_pass<T, C>(s, dst, dst_pitch, weights, radius, (uint32_t *)scratch, stream);
}

template <typename T>
cudaError_t launch_depth(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, int channels,
                         const int32_t *weights, int radius, void *scratch, size_t scratch_bytes,
                         cudaStream_t stream)
{
    switch (channels) {
    case 1: return launch<T, 1>(s, dst, dst_pitch, weights, radius, scratch, scratch_bytes, stream);
    case 2: return launch<T, 2>(s, dst, dst_pitch, weights, radius, scratch, scratch_bytes, stream);
    case 3: return launch<T, 3>(s, dst, dst_pitch, weights, radius, scratch, scratch_bytes, stream);
    case 4: return launch<T, 4>(s, dst, dst_pitch, weights, radius, scratch, scratch_bytes, stream);
    }
    return cudaErrorInvalidValue;
}

} // namespace

extern "C" size_t gi_cuda_blur_scratch_bytes(int width, int height, int channels, int radius,
                                             int depth)
{
    size_t bytes;
    if (GI_BLUR_FUSED_FITS(radius, channels, depth == 16 ? 2 : 1)) return 0;
    if (gi__image_bytes(width, height, channels, &bytes) || gi__mul_size(bytes, 4, &bytes))
        return SIZE_MAX;
    return bytes;
}

extern "C" cudaError_t gi_cuda_blur(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                    size_t dst_pitch, int width, int height, int channels,
                                    int depth, const int32_t *weights, int radius,
                                    int border_mode, int border_value, void *scratch,
                                    size_t scratch_bytes, cudaStream_t stream)
{
    if (radius < 0 || radius > GI_BLUR_MAX_RADIUS) return cudaErrorInvalidValue;
    const gi_src_view s = {src, src_pitch, width, height, border_mode, (uint8_t)border_value};
    if (depth == 8)
        return launch_depth<uint8_t>(s, dst, dst_pitch, channels, weights, radius, scratch,
                                     scratch_bytes, stream);
    if (depth == 16)
        return launch_depth<uint16_t>(s, dst, dst_pitch, channels, weights, radius, scratch,
                                      scratch_bytes, stream);
    return cudaErrorInvalidValue;
}
