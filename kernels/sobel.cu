/* Sobel gradient magnitude or binary edge map (gpuimg.h gives the rules).
 *
 * A block loads its tile plus a one-pixel halo into shared memory with
 * 16-byte loads (the border rule applies only to chunks that cross an
 * edge). Each lane then filters 4 adjacent pixels down a run of rows,
 * keeping the last three rows' inputs in registers.
 *
 * The gradients are small integers, so float arithmetic on them is exact.
 * The default magnitude (scale 1, no threshold) rounds sqrt(s) without
 * double arithmetic: for s = gx^2 + gy^2 <= 64770, sqrt(s) is at least
 * 0.25 / 509 ~ 4.9e-4 away from any k + 0.5 (|s - (k + 0.5)^2| >= 0.25),
 * while sqrt.approx.f32 is off by at most ~255 * 2^-20 ~ 2.4e-4, so
 * rounding the approximation to nearest gives the CPU's floor(sqrt(s) +
 * 0.5); for larger s both give 255 (sqrt >= 254.5005). PERF_NOTES.md
 * records the exhaustive check over every s. Any other scale, or a
 * threshold, takes the double path with _rn intrinsics, so nvcc cannot fuse
 * it into FMAs: the CPU computes the same plain IEEE operations. */
#include "border.cuh"
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int RUN = GI_SOBEL_RUN, H = GI_SOBEL_H;
constexpr int THREADS = GI_SOBEL_WARPS * GI_WARP;
template <int C> constexpr int P = GI_SOBEL_PX(C); /* pixels per lane */
template <int C> constexpr int W = GI_SOBEL_W(C);
template <int C> constexpr int PAD = GI_SOBEL_PAD(C);
template <int C> constexpr int ROW_BYTES = GI_SOBEL_ROW_BYTES(C);

struct edge_rule {
    double scale;
    double threshold;
    int use_threshold;
};

/* The CPU's rule, operation for operation. */
__device__ __forceinline__ uint32_t edge_exact(float s, const edge_rule &e)
{
    const double m = __dmul_rn(e.scale, __dsqrt_rn((double)s));
    if (e.use_threshold) return m >= e.threshold ? 255 : 0;
    const double rounded = floor(__dadd_rn(m, 0.5));
    return rounded >= 255.0 ? 255 : (uint32_t)rounded;
}

/* scale 1, no threshold: min(255, round(sqrt(s))), see the comment on top. */
__device__ __forceinline__ uint32_t edge_fast(float s)
{
    float m;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(m) : "f"(s));
    /* adding 1.5 * 2^23 rounds to an integer in the low mantissa bits: the
     * result's low byte (the caller reads only that) */
    return __float_as_uint(__fadd_rn(fminf(m, 255.f), 12582912.f));
}

/* The tile bytes a lane reads for one row: from 4 bytes before its first
 * pixel to 4 bytes after its last, so the halo pixel on each side (at most
 * 4 bytes) falls in the first and the last word. */
template <int C> struct row_words {
    static constexpr int MID = P<C> * C / 4; /* words of the lane's own pixels */
    uint32_t w[MID + 2];

    __device__ __forceinline__ explicit row_words(const uint8_t *p) /* 4-byte aligned */
    {
        w[0] = *(const uint32_t *)p;
        if constexpr (MID == 4) { /* the middle words are 16-byte aligned */
            const uint4 v = *(const uint4 *)(p + 4);
            w[1] = v.x, w[2] = v.y, w[3] = v.z, w[4] = v.w;
        } else if constexpr (MID == 2) { /* 8-byte aligned */
            const uint2 v = *(const uint2 *)(p + 4);
            w[1] = v.x, w[2] = v.y;
        } else {
#pragma unroll
            for (int i = 1; i <= MID; i++) w[i] = ((const uint32_t *)p)[i];
        }
        w[MID + 1] = ((const uint32_t *)p)[MID + 1];
    }
    /* channel c of pixel p (-1..P), as an integer */
    __device__ __forceinline__ uint32_t byte(int p, int c) const
    {
        const int b = 4 + p * C + c;
        return (w[b / 4] >> (8 * (b % 4))) & 255u;
    }
    /* the same, as the float 2^23 + value (one byte_perm) */
    __device__ __forceinline__ float biased(int p, int c) const
    {
        const int b = 4 + p * C + c;
        return __uint_as_float(__byte_perm(w[b / 4], 0x4B000000u, 0x7540 | (b % 4)));
    }
};

/* Filter input of pixel p: channel f, or luma with gray (gray inputs are
 * used as they are), as 2^23 + value. Differences cancel the bias. */
template <int C, bool GRAY>
__device__ __forceinline__ float filter_input(const row_words<C> &r, int p, int f)
{
    if (!GRAY || C < 3) return r.biased(p, GRAY ? 0 : f);
    const uint32_t y = (77 * r.byte(p, 0) + 150 * r.byte(p, 1) + 29 * r.byte(p, 2) + 128) >> 8;
    return __uint_as_float(0x4B000000u | y);
}

template <int C, bool GRAY, bool FAST>
__global__ void __launch_bounds__(THREADS)
    sobel_kernel(gi_src_view s, uint8_t *dst, size_t dst_pitch, int tiles_x, edge_rule rule,
                 bool src_vec, bool dst_vec)
{
    extern __shared__ __align__(16) uint8_t sobel_tile[];
    constexpr bool alpha = !GRAY && (C == 2 || C == 4);
    constexpr int F = GRAY ? 1 : C - alpha, OC = GRAY ? 1 : C;
    constexpr int NP = P<C>, OW = NP * OC / 4; /* output words per row */
    const int x0 = (int)(blockIdx.x % tiles_x) * W<C>, y0 = (int)(blockIdx.x / tiles_x) * H;
    gi_load_tile16<C, ROW_BYTES<C>, THREADS>(sobel_tile, ROW_BYTES<C>, H + 2, s, x0 - PAD<C>,
                                             y0 - 1, src_vec);
    __syncthreads();

    const int lane = threadIdx.x % GI_WARP, warp = threadIdx.x / GI_WARP;
    const int x = x0 + NP * lane, r0 = warp * RUN; /* first output row of this warp in the tile */
    if (x >= s.width || y0 + r0 >= s.height) return;
    /* tile row t holds image row y0 - 1 + t; this lane's bytes start 4 before its pixels */
    const uint8_t *base = sobel_tile + (PAD<C> + NP * lane) * C - 4;
    /* Per filtered channel, over the rows read so far: the inputs of the
     * two rows before (for gy), and the partial gx of the next two output
     * rows. Output row j needs tile rows j (above) .. j + 2 (below). */
    float above[F][NP + 2], middle[F][NP + 2], gx_next[F][NP], gx_after[F][NP];
#pragma unroll
    for (int t = 0; t < RUN + 2; t++) {
        const row_words<C> rw(base + (r0 + t) * ROW_BYTES<C>);
        uint32_t out[OW] = {};
#pragma unroll
        for (int f = 0; f < F; f++) {
            float v[NP + 2], dh[NP];
#pragma unroll
            for (int p = 0; p < NP + 2; p++) v[p] = filter_input<C, GRAY>(rw, p - 1, f);
#pragma unroll
            for (int i = 0; i < NP; i++) dh[i] = v[i + 2] - v[i];
            if (t >= 2) { /* output row t - 2 */
                float dv[NP + 2];
#pragma unroll
                for (int p = 0; p < NP + 2; p++) dv[p] = v[p] - above[f][p];
                uint32_t e[NP]; /* the value in the low byte */
#pragma unroll
                for (int i = 0; i < NP; i++) {
                    const float gx = __fadd_rn(gx_next[f][i], dh[i]);
                    const float gy = __fadd_rn(__fmaf_rn(2.f, dv[i + 1], dv[i]), dv[i + 2]);
                    const float sq = __fmaf_rn(gx, gx, __fmul_rn(gy, gy)); /* exact: < 2^22 */
                    e[i] = FAST ? edge_fast(sq) : edge_exact(sq, rule);
                }
                if constexpr (OC == 1) { /* four low bytes per word, three byte_perms */
#pragma unroll
                    for (int k = 0; k < OW; k++)
                        out[k] = __byte_perm(__byte_perm(e[4 * k], e[4 * k + 1], 0x0040),
                                             __byte_perm(e[4 * k + 2], e[4 * k + 3], 0x0040), 0x5410);
                } else {
#pragma unroll
                    for (int i = 0; i < NP; i++) {
                        const int b = i * OC + f;
                        out[b / 4] |= (e[i] & 255u) << (8 * (b % 4));
                    }
                }
            }
#pragma unroll
            for (int i = 0; i < NP; i++) {
                gx_next[f][i] = t >= 1 ? __fmaf_rn(2.f, dh[i], gx_after[f][i]) : 0.f;
                gx_after[f][i] = dh[i];
            }
#pragma unroll
            for (int p = 0; p < NP + 2; p++) above[f][p] = middle[f][p], middle[f][p] = v[p];
        }
        if (t < 2) continue;
        const int y = y0 + r0 + t - 2;
        if (y >= s.height) break;
        if constexpr (alpha) { /* each pixel keeps its own alpha */
            const row_words<C> mid(base + (r0 + t - 1) * ROW_BYTES<C>);
#pragma unroll
            for (int i = 0; i < NP; i++) {
                const int b = i * C + C - 1;
                out[b / 4] |= mid.byte(i, C - 1) << (8 * (b % 4));
            }
        }
        uint8_t *o = dst + (size_t)y * dst_pitch + (size_t)x * OC;
        if (dst_vec && x + NP <= s.width) {
            if constexpr (OW == 4) *(uint4 *)o = make_uint4(out[0], out[1], out[2], out[3]);
            else if constexpr (OW == 2) *(uint2 *)o = make_uint2(out[0], out[1]);
            else
#pragma unroll
                for (int k = 0; k < OW; k++) ((uint32_t *)o)[k] = out[k];
            continue;
        }
        for (int b = 0; b < NP * OC && x + b / OC < s.width; b++)
            o[b] = (uint8_t)(out[b / 4] >> (8 * (b % 4)));
    }
}

bool aligned(const void *p, size_t pitch, size_t to)
{
    return (uintptr_t)p % to == 0 && pitch % to == 0;
}

template <int C, bool GRAY>
cudaError_t launch_mode(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, int tiles_x,
                        unsigned blocks, const edge_rule &rule, cudaStream_t stream)
{
    const bool fast = rule.scale == 1.0 && !rule.use_threshold;
    const bool src_vec = aligned(s.data, s.pitch, 16), dst_vec = aligned(dst, dst_pitch, 16);
    if (fast)
        sobel_kernel<C, GRAY, true><<<blocks, THREADS, GI_SOBEL_SMEM(C), stream>>>(
            s, dst, dst_pitch, tiles_x, rule, src_vec, dst_vec);
    else
        sobel_kernel<C, GRAY, false><<<blocks, THREADS, GI_SOBEL_SMEM(C), stream>>>(
            s, dst, dst_pitch, tiles_x, rule, src_vec, dst_vec);
    return cudaGetLastError();
}

template <int C>
cudaError_t launch(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, bool gray,
                   const edge_rule &rule, cudaStream_t stream)
{
    const int tiles_x = (s.width + W<C> - 1) / W<C>;
    const long long blocks = (long long)tiles_x * ((s.height + H - 1) / H);
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
    if (gray) return launch_mode<C, true>(s, dst, dst_pitch, tiles_x, (unsigned)blocks, rule, stream);
    return launch_mode<C, false>(s, dst, dst_pitch, tiles_x, (unsigned)blocks, rule, stream);
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
