/* The premultiplied blur's vertical pass and last step (gpuimg.h):
 *     colour  out = va == 0 ? 0 : min(255, floor((vc + floor(va / 2)) / va))
 *     alpha   out = (va + 2^23) >> 24
 * where vc = sum_k w[k] h_c(k) and va = sum_k w[k] h_a(k) are exact sums
 * of nonnegative integers: h < 2^24 (so exact as a float), w <= 2^16,
 * vc < 2^41, va < 2^32.
 *
 * The sums are made in floats (blur_float_sums) and the quotient
 * estimated from them; where an interval around the estimate that
 * provably holds the exact quotient has one floor, that is the output
 * (blur_finish_ends). The few lanes where it straddles an integer are
 * redone in 64-bit integers (blur_exact_lane). This replaces a
 * 24-bit h split into high and low 16-bit parts: two rings, two sums and
 * a finish in three tiers.
 *
 * The target. For integers vc >= 0 and va > 0, floor((vc + floor(va / 2))
 * / va) = floor(t) with t = vc / va + 1/2 in real numbers: they differ
 * only for odd va, by 1/(2 va), and no multiple of va lies between the
 * integer vc + floor(va / 2) and that plus 1/2. Alpha's target is
 * t = va 2^-24 + 1/2.
 *
 * Why the interval holds. u = 2^-24. A float sum of n nonnegative
 * products, in chunks of at most c taps whose m sums are added in turn,
 * is within g = (c + m + 2) u of its value, relative: the products round
 * by at most u of themselves (u of the sum in all; none with a fused
 * multiply-add), each of the fewer than c + m additions by u of a partial
 * sum, and no partial sum exceeds the whole. Symmetric taps (w[k] =
 * w[-k]; blur_symmetric_sums) may add the two rows of a weight first and
 * multiply the pair (taps = 2R + 1 <= BLUR_CHUNK, one chunk): each
 * pair's addition rounds by at most u of itself (u of the sum in all), an
 * unfused product by u more, and the R + 1 products' additions by u of a
 * partial sum each: within (R + 3) u, less than g = (2R + 4) u, and D
 * may be made with (R + 3) u for g (blur_symmetric_bound). So vc and va
 * are each off by
 * at most g; r, the reciprocal of va, by 8u (one Newton step on a 12- or
 * 14-bit estimate: e^2 + 2u with e <= 1.5 * 2^-12; a division: u); and
 * q = vc r + 1/2 rounds once more, so |q - t| <= q (2g + 9u) to first
 * order. The ends q (1 - D) and q (1 + D) round once each, their factors
 * once each: with D = (2g/u + 14) u, times 1.25 for the second-order
 * terms (below 10^-9 even for 2049 taps; blur_float_bound), they hold t
 * between them. Alpha lanes take r = 2^-24, and their q is off by q (g + u).
 * Where both ends have one floor, that is floor(t) (t >= 0: truncation is
 * the floor); from 255 on a colour is 255, and a q past int32 (vc can be
 * 2^41 where va is 1: a colour's h can round to more than 0 where alpha's
 * rounds to 0) truncates to at least that (blur_truncate). (AVX2's finish
 * caps q at 255.75 first: both ends of a capped q truncate to 255, and t
 * is then past 255 as q (1 - D) is; q below the cap is as before. The
 * same outputs, and the same lanes left undecided.) va = 0
 * exactly where the float sum is 0 (all terms are nonnegative): r = 0 and
 * q = 1/2 give 0, the formula's output for colour and alpha alike.
 * tests/cpu/test_blur_finish.c checks the sums and the finish against the
 * integer formula on the quotients' boundaries. */
#ifndef GI_BLUR_FINISH_H
#define GI_BLUR_FINISH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cpu_simd.h"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#endif

/* Taps summed into one float before that joins the total: keeps the
 * rounding bound near 2 (BLUR_CHUNK + taps / BLUR_CHUNK) units instead of
 * 2 taps. */
#define BLUR_CHUNK 32

/* Output rows that one vertical call makes, at most, and vectors a
 * block of each: each h row, loaded from L2 once, serves every output row
 * whose taps reach it from L1 (the ring of a wide row does not fit L1;
 * summing one output row at a time read 13 rows of L2 per row, and L2's
 * bandwidth set the pace), and the BLUR_ROWS * BLUR_GROUP sums are
 * independent chains, enough to keep the multiply-adds' pipes full. */
#define BLUR_ROWS 4
#define BLUR_GROUP 2

/* The vertical taps of the premultiplied blur: rows[k] of a pass are the
 * h rows of y - R + k, k < taps = 2R + 1. */
typedef struct {
    const float *w;     /* w[k] as floats (exact) */
    const int32_t *wi;  /* and as integers, for blur_exact_lane */
    int taps;
    float bound;        /* blur_float_bound(taps) */
    int symmetric;      /* w[k] = w[taps - 1 - k] and taps <= BLUR_CHUNK:
                           blur_symmetric_sums may make the sums */
    float symmetric_bound; /* blur_symmetric_bound(taps), for its sums */
} blur_float_taps;

/* D of the header comment for a sum of `taps` products. */
static inline float blur_float_bound(int taps)
{
    const int largest = taps < BLUR_CHUNK ? taps : BLUR_CHUNK;
    const int chunks = (taps + BLUR_CHUNK - 1) / BLUR_CHUNK;
    return (float)((2.0 * (largest + chunks + 2) + 14) * 1.25 * 0x1p-24);
}

/* D for blur_symmetric_sums' sums of `taps` (2R + 1) products: the
 * header's with g = (R + 3) u. */
static inline float blur_symmetric_bound(int taps)
{
    return (float)((2.0 * (taps / 2 + 3) + 14) * 1.25 * 0x1p-24);
}

/* The exact output of value i of a row (channel c of its pixel), from the
 * h rows in 64-bit integers. */
static inline uint8_t blur_exact_lane(const blur_float_taps *t, const float *const *rows, size_t i,
                                      int channels)
{
    const size_t c = i % (size_t)channels, alpha = i - c + (size_t)channels - 1;
    uint64_t vc = 0, va = 0;
    for (int k = 0; k < t->taps; k++) {
        vc += (uint64_t)t->wi[k] * (uint64_t)rows[k][i];
        va += (uint64_t)t->wi[k] * (uint64_t)rows[k][alpha];
    }
    if (i == alpha) return (uint8_t)((va + (1u << 23)) >> 24);
    if (!va) return 0;
    const uint64_t q = (vc + va / 2) / va;
    return (uint8_t)(q > 255 ? 255 : q);
}

#ifdef BLUR_LANES
typedef float blur_vf __attribute__((vector_size(BLUR_LANES * 4)));
typedef int32_t blur_vi __attribute__((vector_size(BLUR_LANES * 4)));
typedef uint32_t blur_vu __attribute__((vector_size(BLUR_LANES * 4)));

/* each lane's pixel's alpha lane; and, as shuffles of two vectors a, b,
 * the lanes of a with b's in the alpha lanes (a blend, one instruction) */
#if BLUR_LANES == 4
#define BLUR_ALPHA4 3, 3, 3, 3
#define BLUR_ALPHA2 1, 1, 3, 3
#define BLUR_BLEND_ALPHA4 0, 1, 2, 7
#define BLUR_BLEND_ALPHA2 0, 5, 2, 7
#elif BLUR_LANES == 8
#define BLUR_ALPHA4 3, 3, 3, 3, 7, 7, 7, 7
#define BLUR_ALPHA2 1, 1, 3, 3, 5, 5, 7, 7
#define BLUR_BLEND_ALPHA4 0, 1, 2, 11, 4, 5, 6, 15
#define BLUR_BLEND_ALPHA2 0, 9, 2, 11, 4, 13, 6, 15
#elif BLUR_LANES == 16
#define BLUR_ALPHA4 3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15
#define BLUR_ALPHA2 1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15
#define BLUR_BLEND_ALPHA4 0, 1, 2, 19, 4, 5, 6, 23, 8, 9, 10, 27, 12, 13, 14, 31
#define BLUR_BLEND_ALPHA2 0, 17, 2, 19, 4, 21, 6, 23, 8, 25, 10, 27, 12, 29, 14, 31
#else
#error "BLUR_LANES must be 4, 8 or 16"
#endif

static inline blur_vf blur_loadf(const float *p)
{
    blur_vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* x in every lane: a broadcast (an addition to a zero vector is not
 * folded away, for IEEE's -0; a loop over lanes goes through memory) */
static inline blur_vf blur_splatf(float x)
{
#if BLUR_LANES == 16 && defined(__AVX512F__)
    return (blur_vf)_mm512_set1_ps(x);
#elif BLUR_LANES == 8 && defined(__AVX__)
    return (blur_vf)_mm256_set1_ps(x);
#elif BLUR_LANES == 4 && defined(__SSE2__)
    return (blur_vf)_mm_set1_ps(x);
#elif BLUR_LANES == 4 && defined(__ARM_NEON) && defined(__aarch64__)
    return (blur_vf)vdupq_n_f32(x);
#else
    blur_vf v;
    for (int i = 0; i < BLUR_LANES; i++) v[i] = x;
    return v;
#endif
}

static inline blur_vi blur_select(blur_vi mask, blur_vi a, blur_vi b)
{
    return (a & mask) | (b & ~mask);
}

/* The lesser of a and b, lane by lane: x86's min where the set has it
 * (compilers make three instructions of a select), else a select. */
static inline blur_vf blur_minf(blur_vf a, blur_vf b)
{
#if BLUR_LANES == 16 && defined(__AVX512F__)
    return (blur_vf)_mm512_min_ps((__m512)a, (__m512)b);
#elif BLUR_LANES == 8 && defined(__AVX__)
    return (blur_vf)_mm256_min_ps((__m256)a, (__m256)b);
#elif BLUR_LANES == 4 && defined(__SSE2__)
    return (blur_vf)_mm_min_ps((__m128)a, (__m128)b);
#else
    return (blur_vf)blur_select((blur_vi)(a < b), (blur_vi)a, (blur_vi)b);
#endif
}

/* x >= 0 truncated to an integer, unsigned; from 2^31 on, at least 2^31 - 1:
 * the sets' conversions (x86 gives 2^31, NEON saturates; intrinsics,
 * which C's conversion, undefined out of range, is not), else x is
 * clamped first. */
static inline blur_vu blur_truncate(blur_vf x)
{
#if BLUR_LANES == 16 && defined(__AVX512F__)
    return (blur_vu)_mm512_cvttps_epi32((__m512)x);
#elif BLUR_LANES == 8 && defined(__AVX__)
    return (blur_vu)_mm256_cvttps_epi32((__m256)x);
#elif BLUR_LANES == 4 && defined(__SSE2__)
    return (blur_vu)_mm_cvttps_epi32((__m128)x);
#elif BLUR_LANES == 4 && defined(__ARM_NEON) && defined(__aarch64__)
    return (blur_vu)vcvtq_s32_f32((float32x4_t)x);
#else
    return (blur_vu)__builtin_convertvector(blur_minf(x, blur_splatf(0x1p30f)), blur_vi);
#endif
}

/* The lesser of a and b, unsigned, lane by lane. */
static inline blur_vu blur_minu(blur_vu a, blur_vu b)
{
#if BLUR_LANES == 16 && defined(__AVX512F__)
    return (blur_vu)_mm512_min_epu32((__m512i)a, (__m512i)b);
#elif BLUR_LANES == 8 && defined(__AVX2__)
    return (blur_vu)_mm256_min_epu32((__m256i)a, (__m256i)b);
#else
    return (blur_vu)blur_select((blur_vi)(a < b), (blur_vi)a, (blur_vi)b);
#endif
}

/* a * b + c, fused where the set has it (one rounding instead of two:
 * the bound counts two). */
static inline blur_vf blur_fmadd(blur_vf a, blur_vf b, blur_vf c)
{
#if BLUR_LANES == 16 && defined(__AVX512F__)
    return (blur_vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif BLUR_LANES == 8 && defined(__FMA__)
    return (blur_vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif BLUR_LANES == 4 && defined(__ARM_NEON) && defined(__aarch64__)
    return (blur_vf)vfmaq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b);
#else
    return a * b + c;
#endif
}

/* The set's reciprocal estimate, 14 or 12 bits, where it has one. */
#if BLUR_LANES == 16 && defined(__AVX512F__)
#define BLUR_RECIPROCAL_ESTIMATE(x) ((blur_vf)_mm512_rcp14_ps((__m512)(x)))
#elif BLUR_LANES == 8 && defined(__AVX__)
#define BLUR_RECIPROCAL_ESTIMATE(x) ((blur_vf)_mm256_rcp_ps((__m256)(x)))
#elif BLUR_LANES == 4 && defined(__SSE2__)
#define BLUR_RECIPROCAL_ESTIMATE(x) ((blur_vf)_mm_rcp_ps((__m128)(x)))
#endif

/* 1 / x within 8u, relative, for x > 0 (other lanes: anything; the caller
 * masks them): the estimate and one Newton step where the set has one (a
 * division costs a vector every 10 or more cycles), else a division. The
 * step's 1 - x r is one fused instruction where the set fuses (it rounds
 * once instead of twice: within the header's e^2 + 2u either way). */
static inline blur_vf blur_reciprocal(blur_vf x)
{
#ifdef BLUR_RECIPROCAL_ESTIMATE
    const blur_vf r = BLUR_RECIPROCAL_ESTIMATE(x);
    return blur_fmadd(r, blur_fmadd(-x, r, blur_splatf(1.0f)), r);
#else
    return 1.0f / x;
#endif
}

/* part[j][g] = sum_k w[k] rows[j + k][offset + g * BLUR_LANES ..] over
 * taps k0 .. k1 - 1, for output rows j < nrows (a constant). */
static inline __attribute__((always_inline)) void blur_chunk_sums(const blur_float_taps *t,
                                                                  const float *const *rows,
                                                                  size_t offset, const int nrows,
                                                                  int k0, int k1,
                                                                  blur_vf part[BLUR_ROWS][BLUR_GROUP])
{
    for (int j = 0; j < nrows; j++)
        for (int g = 0; g < BLUR_GROUP; g++) part[j][g] = (blur_vf){0};
    for (int k = k0; k < k1; k++) {
        const blur_vf w = blur_splatf(t->w[k]);
        for (int j = 0; j < nrows; j++) {
            const float *row = rows[j + k] + offset;
            for (int g = 0; g < BLUR_GROUP; g++)
                part[j][g] = blur_fmadd(w, blur_loadf(row + g * BLUR_LANES), part[j][g]);
        }
    }
}

/* out[j] = sum_k w[k] rows[j + k][at ..] for the BLUR_ROWS (4) output
 * rows j, one vector each, where the taps are symmetric (t->symmetric):
 * for each weight but the centre's, its two rows added first, then
 * multiplied and added in one step (the header's sum with a different
 * rounding, within the same bound). The rows of the output rows slide
 * through registers from one weight to the next, so that a weight costs
 * two loads for all four output rows, not one a row and tap; the loop is
 * unrolled four times with the registers' roles renamed at each step
 * (a plain loop moved each window a register down at every step, and
 * the moves took as many slots as the arithmetic). */
#define BLUR_SYM_STEP(A0, A1, A2, A3, B0, B1, B2, B3, k)                                   \
    do {                                                                                  \
        const blur_vf w_ = blur_splatf(t->w[k]);                                          \
        s0 = blur_fmadd(w_, A0 + B0, s0);                                                 \
        s1 = blur_fmadd(w_, A1 + B1, s1);                                                 \
        s2 = blur_fmadd(w_, A2 + B2, s2);                                                 \
        s3 = blur_fmadd(w_, A3 + B3, s3);                                                 \
        A0 = blur_loadf(rows[(k) + 4] + at);         /* the a window's next row */        \
        B3 = blur_loadf(rows[2 * R - (k) - 1] + at); /* and the b window's */            \
    } while (0)
#define BLUR_SYM_END(A0, A1, A2, A3)                                                      \
    do {                                                                                  \
        const blur_vf w_ = blur_splatf(t->w[R]);                                          \
        out[0] = blur_fmadd(w_, A0, s0);                                                  \
        out[1] = blur_fmadd(w_, A1, s1);                                                  \
        out[2] = blur_fmadd(w_, A2, s2);                                                  \
        out[3] = blur_fmadd(w_, A3, s3);                                                  \
    } while (0)
_Static_assert(BLUR_ROWS == 4, "blur_symmetric_sums makes four rows");
static inline __attribute__((always_inline)) void blur_symmetric_sums(const blur_float_taps *t,
                                                                      const float *const *rows, size_t at,
                                                                      blur_vf out[BLUR_ROWS])
{
    const int R = t->taps / 2;
    /* at weight k, output row j reads rows j + k (the a window) and
     * j + 2R - k (the b window) */
    blur_vf a0 = blur_loadf(rows[0] + at), a1 = blur_loadf(rows[1] + at), a2 = blur_loadf(rows[2] + at),
            a3 = blur_loadf(rows[3] + at);
    blur_vf b0 = blur_loadf(rows[2 * R] + at), b1 = blur_loadf(rows[2 * R + 1] + at),
            b2 = blur_loadf(rows[2 * R + 2] + at), b3 = blur_loadf(rows[2 * R + 3] + at);
    blur_vf s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    int k = 0;
    for (; k + 4 <= R; k += 4) {
        BLUR_SYM_STEP(a0, a1, a2, a3, b0, b1, b2, b3, k);
        BLUR_SYM_STEP(a1, a2, a3, a0, b3, b0, b1, b2, k + 1);
        BLUR_SYM_STEP(a2, a3, a0, a1, b2, b3, b0, b1, k + 2);
        BLUR_SYM_STEP(a3, a0, a1, a2, b1, b2, b3, b0, k + 3);
    }
    switch (R - k) {
    case 0:
        BLUR_SYM_END(a0, a1, a2, a3);
        return;
    case 1:
        BLUR_SYM_STEP(a0, a1, a2, a3, b0, b1, b2, b3, k);
        BLUR_SYM_END(a1, a2, a3, a0);
        return;
    case 2:
        BLUR_SYM_STEP(a0, a1, a2, a3, b0, b1, b2, b3, k);
        BLUR_SYM_STEP(a1, a2, a3, a0, b3, b0, b1, b2, k + 1);
        BLUR_SYM_END(a2, a3, a0, a1);
        return;
    default:
        BLUR_SYM_STEP(a0, a1, a2, a3, b0, b1, b2, b3, k);
        BLUR_SYM_STEP(a1, a2, a3, a0, b3, b0, b1, b2, k + 1);
        BLUR_SYM_STEP(a2, a3, a0, a1, b2, b3, b0, b1, k + 2);
        BLUR_SYM_END(a3, a0, a1, a2);
        return;
    }
}
#undef BLUR_SYM_STEP
#undef BLUR_SYM_END

/* acc[j][g]: the same over all the taps, in chunks of BLUR_CHUNK. */
static inline __attribute__((always_inline)) void blur_float_sums(const blur_float_taps *t,
                                                                  const float *const *rows,
                                                                  size_t offset, const int nrows,
                                                                  blur_vf acc[BLUR_ROWS][BLUR_GROUP])
{
    blur_chunk_sums(t, rows, offset, nrows, 0, t->taps < BLUR_CHUNK ? t->taps : BLUR_CHUNK, acc);
    for (int k0 = BLUR_CHUNK; k0 < t->taps; k0 += BLUR_CHUNK) {
        blur_vf part[BLUR_ROWS][BLUR_GROUP];
        blur_chunk_sums(t, rows, offset, nrows, k0, k0 + BLUR_CHUNK < t->taps ? k0 + BLUR_CHUNK : t->taps, part);
        for (int j = 0; j < nrows; j++)
            for (int g = 0; g < BLUR_GROUP; g++) acc[j][g] += part[j][g];
    }
}

/* The lanes set in m, as bits (lane l: bit l): x86's sign masks where the
 * set has them, else a loop. */
static inline unsigned blur_lane_bits(blur_vi m)
{
#if BLUR_LANES == 8 && defined(__AVX2__)
    return (unsigned)_mm256_movemask_ps((__m256)m);
#elif BLUR_LANES == 4 && defined(__SSE2__)
    return (unsigned)_mm_movemask_ps((__m128)m);
#else
    int32_t lanes[BLUR_LANES];
    unsigned bits = 0;
    memcpy(lanes, &m, sizeof lanes);
    for (int l = 0; l < BLUR_LANES; l++) bits |= (lanes[l] != 0) << l;
    return bits;
#endif
}

/* The outputs (0..255, one a lane) of BLUR_LANES values, whole pixels,
 * from their float sums into *out; returns the lanes (as bits) the
 * interval cannot decide, for blur_exact_lane. low and high are 1 - D and
 * 1 + D in every lane, made once a call. */
static inline __attribute__((always_inline)) unsigned blur_finish_ends(blur_vf acc, blur_vf low,
                                                                       blur_vf high, const int channels,
                                                                       blur_vi *out)
{
    const blur_vf va = channels == 4 ? GI_SHUFFLE(acc, acc, blur_vi, BLUR_ALPHA4)
                                     : GI_SHUFFLE(acc, acc, blur_vi, BLUR_ALPHA2);
    const blur_vi present = (blur_vi)(va > 0.0f);
    const blur_vf r_colour = (blur_vf)((blur_vi)blur_reciprocal(va) & present), r_alpha = blur_splatf(0x1p-24f);
    const blur_vf r = channels == 4 ? GI_SHUFFLE(r_colour, r_alpha, blur_vi, BLUR_BLEND_ALPHA4)
                                    : GI_SHUFFLE(r_colour, r_alpha, blur_vi, BLUR_BLEND_ALPHA2);
    /* A colour's q can pass 2^31 where va is 1 (alpha's h can round to 0
     * where the colour's does not): blur_truncate makes it at least 255,
     * unsigned. */
    const blur_vf q = blur_fmadd(acc, r, blur_splatf(0.5f));
    const blur_vu down = blur_truncate(q * low), up = blur_truncate(q * high);
    const blur_vu most = (blur_vu){0} + 255;
    *out = (blur_vi)blur_minu(down, most);
#if BLUR_LANES == 16 && defined(__AVX512F__)
    /* two mask compares, the second under the first */
    return _mm512_mask_cmplt_epu32_mask(_mm512_cmpneq_epu32_mask((__m512i)up, (__m512i)down),
                                        (__m512i)down, (__m512i)most);
#elif BLUR_LANES == 8 && defined(__AVX2__)
    /* up >= down, so they differ below 255 exactly where they differ once
     * clamped to it: one compare instead of three and an AND */
    return (unsigned)_mm256_movemask_ps((__m256)_mm256_cmpeq_epi32((__m256i)*out, (__m256i)blur_minu(up, most))) ^ 0xFFu;
#else
    return blur_lane_bits((blur_vi)((up != down) & (down < most)));
#endif
}

/* blur_exact_lane for the lanes set in bits (rare: kept out of line). */
static __attribute__((noinline, cold)) blur_vi blur_exact_lanes(const blur_float_taps *t,
                                                                const float *const *rows, size_t i,
                                                                unsigned bits, blur_vi v,
                                                                const int channels)
{
    int32_t values[BLUR_LANES];
    memcpy(values, &v, sizeof values);
    for (int l = 0; l < BLUR_LANES; l++)
        if (bits >> l & 1) values[l] = blur_exact_lane(t, rows, i + (size_t)l, channels);
    memcpy(&v, values, sizeof v);
    return v;
}

#if BLUR_LANES == 8 && defined(__AVX2__) && defined(__FMA__)
/* AVX2 with FMA: blur_exact_lane for the 8 values (whole pixels) from
 * value i of a row on, all at once:
 * the sums in doubles, which hold them exactly (products below 2^40,
 * sums below 2^42), and the quotient's floor from a division: with N =
 * vc + floor(va / 2) and m = floor(N / va), the correctly rounded N / va
 * lies in [m, m + 1) as (m + 1) va <= N + va < 2^53 keeps m + 1 - N / va
 * >= 1 / va above half its unit in the last place. (In place of the lane
 * by lane 64-bit sums: the undecided lanes took a twentieth of the RGBA
 * blur's time.) */
static __attribute__((noinline, cold)) blur_vi blur_exact_vector(const blur_float_taps *t, const float *const *rows,
                                                          size_t i, int ch)
{
    __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
    for (int k = 0; k < t->taps; k++) {
        const __m256 h = _mm256_loadu_ps(rows[k] + i);
        const __m256d w = _mm256_set1_pd((double)t->wi[k]);
        lo = _mm256_fmadd_pd(w, _mm256_cvtps_pd(_mm256_castps256_ps128(h)), lo);
        hi = _mm256_fmadd_pd(w, _mm256_cvtps_pd(_mm256_extractf128_ps(h, 1)), hi);
    }
    __m128i half[2];
    for (int x = 0; x < 2; x++) {
        const __m256d vc = x ? hi : lo;
        /* each lane's pixel's alpha sum: lane 3 of the 4 (4 channels), or
         * the odd lane of each two */
        const int four = ch == 4;
        const __m256d va = four ? _mm256_permute4x64_pd(vc, 0xFF) : _mm256_permute_pd(vc, 0xF);
        const __m256d n = _mm256_add_pd(vc, _mm256_floor_pd(_mm256_mul_pd(va, _mm256_set1_pd(0.5))));
        __m256d q = _mm256_min_pd(_mm256_floor_pd(_mm256_div_pd(n, va)), _mm256_set1_pd(255.0));
        q = _mm256_and_pd(q, _mm256_cmp_pd(va, _mm256_setzero_pd(), _CMP_GT_OQ)); /* va = 0: 0 */
        const __m256d alpha = _mm256_floor_pd(_mm256_mul_pd(_mm256_add_pd(va, _mm256_set1_pd(0x1p23)),
                                                            _mm256_set1_pd(0x1p-24)));
        q = four ? _mm256_blend_pd(q, alpha, 0x8) : _mm256_blend_pd(q, alpha, 0xA);
        half[x] = _mm256_cvttpd_epi32(q);
    }
    return (blur_vi)_mm256_set_m128i(half[1], half[0]);
}
#endif

/* The outputs of BLUR_LANES values from value i of a row on: the float
 * finish (low, high: blur_finish_ends'), and blur_exact_lane where it is
 * unsure. */
static inline __attribute__((always_inline)) blur_vi blur_finish_vector(const blur_float_taps *t,
                                                                        const float *const *rows,
                                                                        size_t i, blur_vf acc,
                                                                        blur_vf low, blur_vf high,
                                                                        const int channels)
{
    blur_vi out;
    const unsigned unsure = blur_finish_ends(acc, low, high, channels, &out);
    return __builtin_expect(unsure != 0, 0) ? blur_exact_lanes(t, rows, i, unsure, out, channels) : out;
}
#endif

#endif
