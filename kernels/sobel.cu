/* Sobel gradient magnitude or binary edge map (gpuimg.h gives the rules),
 * of 8- and 16-bit images: one kernel, a template over the sample type.
 *
 * A block loads its tile plus a one-pixel halo into shared memory with
 * 16-byte loads (the border rule applies only to chunks that cross an
 * edge). Each lane then filters 4 adjacent pixels (2 for 16-bit pixels of
 * 3 and 4 channels) down a run of rows, keeping the last three rows'
 * inputs in registers.
 *
 * The gradients are small integers, so float arithmetic on them is exact:
 * inputs are 2^23 + v (v < 2^16), |gx|, |gy| < 2^18. At 8 bits s = gx^2 +
 * gy^2 < 2^22 is exact in float too; at 16 bits the double path forms it
 * in double (exact below 2^53). The default magnitude (scale 1, no
 * threshold) has fast forms at 8 and 16 bits (sobel_edge.cuh, which says
 * why they are exact). Any other scale, or a threshold, takes the
 * double path with _rn intrinsics, so nvcc cannot fuse it into FMAs: the
 * CPU computes the same plain IEEE operations. */
#include "border.cuh"
#include "sobel_edge.cuh"
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int RUN = GI_SOBEL_RUN, H = GI_SOBEL_H;
constexpr int THREADS = GI_SOBEL_WARPS * GI_WARP;
/* bytes of a pixel of C channels of T */
template <typename T, int C> constexpr int PB = C * (int)sizeof(T);
template <typename T, int C> constexpr int P = GI_SOBEL_PX((PB<T, C>)); /* pixels per lane */
template <typename T, int C> constexpr int W = GI_SOBEL_W((PB<T, C>));
template <typename T, int C> constexpr int PAD = GI_SOBEL_PAD((PB<T, C>));
template <typename T, int C> constexpr int ROW_BYTES = GI_SOBEL_ROW_BYTES((PB<T, C>));

/* The tile words a lane reads for one row: HW words before its first pixel
 * (they hold the halo pixel on the left), its own pixels, and HW words
 * after its last (the halo pixel on the right). */
template <typename T, int C> struct row_words {
    static constexpr int SB = sizeof(T), SPW = 4 / SB; /* samples per word */
    static constexpr int HW = (PB<T, C> + 3) / 4;     /* words of a halo pixel, rounded up */
    static constexpr int LANE_BYTES = P<T, C> * PB<T, C>;
    static constexpr int MID = LANE_BYTES / 4; /* words of the lane's own pixels */
    uint32_t w[MID + 2 * HW];

    /* p: HW words before the lane's first pixel, which is 4-byte aligned;
     * the middle words are aligned as LANE_BYTES allows (the tile's rows and
     * pads are whole 16-byte chunks) */
    __device__ __forceinline__ explicit row_words(const uint8_t *p)
    {
        const uint32_t *pw = (const uint32_t *)p;
#pragma unroll
        for (int i = 0; i < HW; i++) w[i] = pw[i];
        if constexpr (LANE_BYTES % 16 == 0) {
#pragma unroll
            for (int i = 0; i < MID / 4; i++) {
                const uint4 v = *(const uint4 *)(pw + HW + 4 * i);
                w[HW + 4 * i] = v.x, w[HW + 4 * i + 1] = v.y, w[HW + 4 * i + 2] = v.z,
                              w[HW + 4 * i + 3] = v.w;
            }
        } else if constexpr (LANE_BYTES % 8 == 0) {
#pragma unroll
            for (int i = 0; i < MID / 2; i++) {
                const uint2 v = *(const uint2 *)(pw + HW + 2 * i);
                w[HW + 2 * i] = v.x, w[HW + 2 * i + 1] = v.y;
            }
        } else {
#pragma unroll
            for (int i = HW; i < HW + MID; i++) w[i] = pw[i];
        }
#pragma unroll
        for (int i = HW + MID; i < MID + 2 * HW; i++) w[i] = pw[i];
    }
    /* channel c of pixel p (-1..P), as an integer */
    __device__ __forceinline__ uint32_t sample(int p, int c) const
    {
        const int b = HW * SPW + p * C + c;
        return (w[b / SPW] >> (8 * SB * (b % SPW))) & SOBEL_MAX<T>;
    }
    /* the same, as the float 2^23 + value (one byte_perm) */
    __device__ __forceinline__ float biased(int p, int c) const
    {
        const int b = HW * SPW + p * C + c;
        const uint32_t sel = SB == 1 ? 0x7540 | (b % 4) : b % 2 ? 0x7432 : 0x7410;
        return __uint_as_float(__byte_perm(w[b / SPW], 0x4B000000u, sel));
    }
};

/* Filter input of pixel p: channel f, or luma with gray (gray inputs are
 * used as they are), as 2^23 + value. Differences cancel the bias. */
/* Sample v, whose value is in its low 8 SB bits (the bits above ignored
 * at 16 bits, zero at 8), into place b of a lane's output words, keeping the
 * word's other samples: at 16 bits one byte_perm, where a mask, a shift
 * and an OR took three. */
template <int SB> __device__ __forceinline__ void put_sample(uint32_t *out, int b, uint32_t v)
{
    if constexpr (SB == 2)
        out[b / 2] = b % 2 ? __byte_perm(out[b / 2], v, 0x5410) : __byte_perm(v, out[b / 2], 0x7610);
    else
        out[b / 4] |= v << (8 * (b % 4));
}

template <typename T, int C, bool GRAY>
__device__ __forceinline__ float filter_input(const row_words<T, C> &r, int p, int f)
{
    if (!GRAY || C < 3) return r.biased(p, GRAY ? 0 : f);
    const uint32_t y = (77 * r.sample(p, 0) + 150 * r.sample(p, 1) + 29 * r.sample(p, 2) + 128) >> 8;
    return __uint_as_float(0x4B000000u | y);
}

template <typename T, int C, bool GRAY, bool FAST>
__global__ void __launch_bounds__(THREADS)
    sobel_kernel(gi_src_view s, uint8_t *dst, size_t dst_pitch, int tiles_x, edge_rule rule,
                 bool src_vec, bool dst_vec)
{
    extern __shared__ __align__(16) uint8_t sobel_tile[];
    constexpr bool alpha = !GRAY && (C == 2 || C == 4);
    constexpr int F = GRAY ? 1 : C - alpha, OC = GRAY ? 1 : C;
    constexpr int SB = sizeof(T), SPW = 4 / SB;
    constexpr int NP = P<T, C>, OW = NP * OC * SB / 4; /* output words per row */
    static_assert(NP * OC * SB % 4 == 0, "a lane's output is whole words");
    const int x0 = (int)(blockIdx.x % tiles_x) * W<T, C>, y0 = (int)(blockIdx.x / tiles_x) * H;
    gi_load_tile16<PB<T, C>, ROW_BYTES<T, C>, THREADS>(sobel_tile, ROW_BYTES<T, C>, H + 2, s,
                                                       x0 - PAD<T, C>, y0 - 1, src_vec);
    __syncthreads();

    const int lane = threadIdx.x % GI_WARP, warp = threadIdx.x / GI_WARP;
    const int x = x0 + NP * lane, r0 = warp * RUN; /* first output row of this warp in the tile */
    if (x >= s.width || y0 + r0 >= s.height) return;
    /* tile row t holds image row y0 - 1 + t; this lane's words start HW before its pixels */
    const uint8_t *base = sobel_tile + (PAD<T, C> + NP * lane) * PB<T, C> - 4 * row_words<T, C>::HW;
    /* Per filtered channel, over the rows read so far: the inputs of the
     * two rows before (for gy), and the partial gx of the next two output
     * rows. Output row j needs tile rows j (above) .. j + 2 (below). */
    float above[F][NP + 2], middle[F][NP + 2], gx_next[F][NP], gx_after[F][NP];
    /* stepped a row at a time: a product of y and the pitch each row cost
     * four instructions more */
    uint8_t *row_out = dst + (size_t)(y0 + r0) * dst_pitch + (size_t)x * OC * SB;
#pragma unroll
    for (int t = 0; t < RUN + 2; t++) {
        const row_words<T, C> rw(base + (r0 + t) * ROW_BYTES<T, C>);
        uint32_t out[OW] = {};
#pragma unroll
        for (int f = 0; f < F; f++) {
            float v[NP + 2], dh[NP];
#pragma unroll
            for (int p = 0; p < NP + 2; p++) v[p] = filter_input<T, C, GRAY>(rw, p - 1, f);
#pragma unroll
            for (int i = 0; i < NP; i++) dh[i] = v[i + 2] - v[i];
            if (t >= 2) { /* output row t - 2 */
                float dv[NP + 2];
#pragma unroll
                for (int p = 0; p < NP + 2; p++) dv[p] = v[p] - above[f][p];
                uint32_t e[NP]; /* the value in the low byte (8 bits) or bits (16) */
#pragma unroll
                for (int i = 0; i < NP; i++) {
                    const float gx = __fadd_rn(gx_next[f][i], dh[i]);
                    const float gy = __fadd_rn(__fmaf_rn(2.f, dv[i + 1], dv[i]), dv[i + 2]);
                    if constexpr (SB == 1) {
                        const float sq = __fmaf_rn(gx, gx, __fmul_rn(gy, gy)); /* exact: < 2^22 */
                        e[i] = FAST ? edge_fast(sq) : edge_exact<T>((double)sq, rule);
                    } else if constexpr (FAST) {
                        e[i] = edge_fast16(gx, gy);
                    } else { /* exact: < 2^37 */
                        const double sq = __dadd_rn(__dmul_rn((double)gx, (double)gx),
                                                    __dmul_rn((double)gy, (double)gy));
                        e[i] = edge_exact<T>(sq, rule);
                    }
                }
                if constexpr (OC == 1 && SB == 1) { /* four low bytes per word, three byte_perms */
#pragma unroll
                    for (int k = 0; k < OW; k++)
                        out[k] = __byte_perm(__byte_perm(e[4 * k], e[4 * k + 1], 0x0040),
                                             __byte_perm(e[4 * k + 2], e[4 * k + 3], 0x0040), 0x5410);
                } else {
#pragma unroll
                    for (int i = 0; i < NP; i++) put_sample<SB>(out, i * OC + f, SB == 1 ? e[i] & 0xFFu : e[i]);
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
            const row_words<T, C> mid(base + (r0 + t - 1) * ROW_BYTES<T, C>);
#pragma unroll
            for (int i = 0; i < NP; i++) put_sample<SB>(out, i * C + C - 1, mid.sample(i, C - 1));
        }
        uint8_t *const o = row_out;
        row_out += dst_pitch;
        if (dst_vec && x + NP <= s.width) {
            if constexpr (OW == 4) *(uint4 *)o = make_uint4(out[0], out[1], out[2], out[3]);
            else if constexpr (OW == 2) *(uint2 *)o = make_uint2(out[0], out[1]);
            else
#pragma unroll
                for (int k = 0; k < OW; k++) ((uint32_t *)o)[k] = out[k];
            continue;
        }
        /* unrolled with constant indices, so out stays in registers (a loop
         * that stops at the edge indexes it at run time: local memory) */
#pragma unroll
        for (int b = 0; b < NP * OC; b++)
            if (x + b / OC < s.width) ((T *)o)[b] = (T)(out[b / SPW] >> (8 * SB * (b % SPW)));
    }
}

bool aligned(const void *p, size_t pitch, size_t to)
{
    return (uintptr_t)p % to == 0 && pitch % to == 0;
}

template <typename T, int C, bool GRAY>
cudaError_t launch_mode(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, int tiles_x,
                        unsigned blocks, const edge_rule &rule, cudaStream_t stream)
{
    const bool src_vec = aligned(s.data, s.pitch, 16), dst_vec = aligned(dst, dst_pitch, 16);
    constexpr size_t smem = GI_SOBEL_SMEM((PB<T, C>));
    if (rule.scale == 1.0 && !rule.use_threshold) { /* edge_fast, edge_fast16 */
        sobel_kernel<T, C, GRAY, true><<<blocks, THREADS, smem, stream>>>(s, dst, dst_pitch, tiles_x,
                                                                          rule, src_vec, dst_vec);
        return cudaGetLastError();
    }
    sobel_kernel<T, C, GRAY, false><<<blocks, THREADS, smem, stream>>>(s, dst, dst_pitch, tiles_x,
                                                                       rule, src_vec, dst_vec);
    return cudaGetLastError();
}

template <typename T, int C>
cudaError_t launch(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, bool gray,
                   const edge_rule &rule, cudaStream_t stream)
{
    const int tiles_x = (s.width + W<T, C> - 1) / W<T, C>;
    const long long blocks = (long long)tiles_x * ((s.height + H - 1) / H);
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
    if (gray)
        return launch_mode<T, C, true>(s, dst, dst_pitch, tiles_x, (unsigned)blocks, rule, stream);
    return launch_mode<T, C, false>(s, dst, dst_pitch, tiles_x, (unsigned)blocks, rule, stream);
}

template <typename T>
cudaError_t launch_depth(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, int channels,
                         bool gray, const edge_rule &rule, cudaStream_t stream)
{
    switch (channels) {
    case 1: return launch<T, 1>(s, dst, dst_pitch, gray, rule, stream);
    case 2: return launch<T, 2>(s, dst, dst_pitch, gray, rule, stream);
    case 3: return launch<T, 3>(s, dst, dst_pitch, gray, rule, stream);
    case 4: return launch<T, 4>(s, dst, dst_pitch, gray, rule, stream);
    }
    return cudaErrorInvalidValue;
}

} // namespace

extern "C" cudaError_t gi_cuda_sobel(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                     size_t dst_pitch, int width, int height, int channels,
                                     int depth, double scale, int use_threshold, double threshold,
                                     int gray, int border_mode, int border_value,
                                     cudaStream_t stream)
{
    const gi_src_view s = {src, src_pitch, width, height, border_mode, (uint8_t)border_value};
    const edge_rule rule = {scale, threshold, use_threshold};
    if (depth == 8) return launch_depth<uint8_t>(s, dst, dst_pitch, channels, gray, rule, stream);
    if (depth == 16) return launch_depth<uint16_t>(s, dst, dst_pitch, channels, gray, rule, stream);
    return cudaErrorInvalidValue;
}
