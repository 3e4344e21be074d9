/* The last step of the premultiplied blur (gpuimg.h): a colour's vertical
 * sum vc over alpha's va,
 *     out = va == 0 ? 0 : min(255, floor((vc + floor(va / 2)) / va)),
 * with vc < 2^41 and va < 2^32. The sums arrive as the vertical pass makes
 * them (blur_kernels.h): an alpha lane's hi is va itself (h of alpha fits
 * 16 bits), a colour lane's sum is split, vc = 256 * hi + lo (hi < 2^32,
 * lo <= BLUR_LO_MAX). Most colours are decided from hi alone, in floats
 * (blur_finish_lanes with lo unknown: the quotient's floor is the same at
 * both ends of lo's range); the rest once lo is summed, in floats, and
 * the few left after that in doubles (blur_finish4), instead of a 64-bit
 * division per colour. In doubles, the numerator and va are integers under
 * 2^41, so exact. The division is correctly rounded, and its floor
 * is exactly floor(num / va) wherever that is below 256: an exact quotient
 * k stays k, and one below k is at most k - 1/va <= k - 2^-32, while the
 * doubles next to k <= 256 are 2^-44 apart, so rounding cannot reach k.
 * From 256 on the output is 255 whatever the rounding.
 * tests/cpu/test_blur_finish.c checks both against the integer formula. */
#ifndef GI_BLUR_FINISH_H
#define GI_BLUR_FINISH_H

#include <stdint.h>
#include <string.h>

#include "cpu_simd.h"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

/* h of a premultiplied colour (< 2^24) travels as h >> BLUR_SPLIT_SHIFT
 * (< 2^16, offset into int16 as every sample) and h & BLUR_SPLIT_MASK;
 * the vertical sum of the low parts is at most BLUR_LO_MAX (weights sum
 * to 2^16). */
#define BLUR_SPLIT_SHIFT 8
#define BLUR_SPLIT_MASK ((1u << BLUR_SPLIT_SHIFT) - 1)
#define BLUR_LO_MAX (BLUR_SPLIT_MASK * 65536u)

typedef double blur_v4d __attribute__((vector_size(32)));
typedef int64_t blur_v4l __attribute__((vector_size(32)));
typedef int32_t blur_v4i __attribute__((vector_size(16)));
typedef uint32_t blur_v4u __attribute__((vector_size(16)));
typedef uint8_t blur_v16b __attribute__((vector_size(16)));

/* Four premultiplied results from their sums: one RGBA pixel
 * (channels 4) or two gray+alpha ones (channels 2). Alpha lanes get the
 * plain (va + 2^23) >> 24 (va < 2^32 - 2^24, so it fits). */
static inline __attribute__((always_inline)) void blur_finish4(const uint32_t *hi_in,
                                                               const uint32_t *lo_in,
                                                               const int channels, uint8_t *out)
{
    /* -1 in alpha lanes */
    const blur_v4i is_alpha = channels == 4 ? (blur_v4i){0, 0, 0, -1} : (blur_v4i){0, -1, 0, -1};
    blur_v4u hi, lo;
    memcpy(&hi, hi_in, sizeof hi);
    memcpy(&lo, lo_in, sizeof lo);
    const blur_v4d v = __builtin_convertvector(hi, blur_v4d) * (double)(1u << BLUR_SPLIT_SHIFT) +
                       __builtin_convertvector(lo, blur_v4d);
    /* each lane's pixel's alpha: va as an integer and as a double */
    const blur_v4u va32 = channels == 4 ? GI_SHUFFLE(hi, hi, blur_v4i, 3, 3, 3, 3)
                                        : GI_SHUFFLE(hi, hi, blur_v4i, 1, 1, 3, 3);
    const blur_v4d va = __builtin_convertvector(va32, blur_v4d);
    const blur_v4l one = (blur_v4l)(blur_v4d){1, 1, 1, 1}; /* masks pick 1.0 or 0.0 */
    const blur_v4d num = v + __builtin_convertvector(va32 >> 1, blur_v4d);
    /* va or, where it is 0, 1: no lane divides by zero */
    blur_v4d t = num / (va + (blur_v4d)((va == 0.0) & one));
    const blur_v4l big = t > 256.0;
    t = (blur_v4d)(((blur_v4l)t & ~big) | ((blur_v4l)(blur_v4d){256, 256, 256, 256} & big));
    blur_v4i colour = __builtin_convertvector(t, blur_v4i); /* t >= 0: floor */
    colour = (colour & ~(colour > 255)) | (255 & (colour > 255));
    colour &= ~(blur_v4i)(va32 == 0); /* transparent */
    const blur_v4i alpha = (blur_v4i)((va32 + (1u << 23)) >> 24);
    const blur_v4i result = (colour & ~is_alpha) | (alpha & is_alpha);
    const blur_v16b lanes = (blur_v16b)result;
    const blur_v16b bytes = GI_SHUFFLE(lanes, lanes, blur_v16b, 0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8,
                                       12, 0, 4, 8, 12);
    memcpy(out, &bytes, 4); /* each lane's low byte: the results are 0..255 */
}

/* BLUR_LANES results at once (a whole number of pixels: 4 RGBA lanes or
 * 2 gray+alpha ones each) in float, as wide as the caller's vectors;
 * BLUR_LANES is 4, 8 or 16, defined before this header. The colour's lo
 * is known, or only known to lie in [lo, lo + slack]; then t_lo and t_hi
 * approximate num / va at both ends, num = 256 hi + lo + floor(va / 2),
 * and r = 1 / va. Each of hi, lo + floor(va / 2) (< 2^32), va, 1 / va,
 * 256 hi + that, + slack and the product rounds once, 2^-24 relative:
 * t is within 7 * 2^-24 (< 2^-21) relative of its quotient, which below
 * 257 is under 2^-13 absolute. t_lo - 2^-12 and t_hi + 2^-12 add a
 * rounding of at most 2^-16 (half the spacing of floats below 512). So
 * the first truncates to at most the floor at the low end (the floor is
 * at least 0), the second to at least the floor at the high end (t is
 * clamped to 257): where they agree, that is the floor (about 1 lane in
 * 2^11 when lo is known, slack / va of them when it is not: 1 in 128 at
 * va = 2^31). A floor of 255 or more is 255 whatever lo is. va = 0 makes
 * r 0 and both ends 0, which is that lane's output. */
#ifdef BLUR_LANES
typedef float blur_vf __attribute__((vector_size(BLUR_LANES * 4)));
typedef int32_t blur_vi __attribute__((vector_size(BLUR_LANES * 4)));
typedef uint32_t blur_vu __attribute__((vector_size(BLUR_LANES * 4)));

/* each lane's pixel's alpha lane, -1 in alpha lanes, and the 64-bit lane
 * swaps of blur_any */
#if BLUR_LANES == 4
#define BLUR_ALPHA4 3, 3, 3, 3
#define BLUR_ALPHA2 1, 1, 3, 3
#define BLUR_IS_ALPHA4 0, 0, 0, -1
#define BLUR_IS_ALPHA2 0, -1, 0, -1
#define BLUR_ANY_SWAP1 1, 0
#elif BLUR_LANES == 8
#define BLUR_ALPHA4 3, 3, 3, 3, 7, 7, 7, 7
#define BLUR_ALPHA2 1, 1, 3, 3, 5, 5, 7, 7
#define BLUR_IS_ALPHA4 0, 0, 0, -1, 0, 0, 0, -1
#define BLUR_IS_ALPHA2 0, -1, 0, -1, 0, -1, 0, -1
#define BLUR_ANY_SWAP2 2, 3, 0, 1
#define BLUR_ANY_SWAP1 1, 0, 3, 2
#elif BLUR_LANES == 16
#define BLUR_ALPHA4 3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15
#define BLUR_ALPHA2 1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15
#define BLUR_IS_ALPHA4 0, 0, 0, -1, 0, 0, 0, -1, 0, 0, 0, -1, 0, 0, 0, -1
#define BLUR_IS_ALPHA2 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1
#define BLUR_ANY_SWAP2 2, 3, 0, 1, 6, 7, 4, 5
#define BLUR_ANY_SWAP1 1, 0, 3, 2, 5, 4, 7, 6
#else
#error "BLUR_LANES must be 4, 8 or 16"
#endif

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
#elif BLUR_LANES == 8 && defined(__AVX2__)
    return (blur_vf)_mm256_min_ps((__m256)a, (__m256)b);
#elif BLUR_LANES == 4 && defined(__SSE2__)
    return (blur_vf)_mm_min_ps((__m128)a, (__m128)b);
#else
    return (blur_vf)blur_select(a < b, (blur_vi)a, (blur_vi)b);
#endif
}

static inline blur_vi blur_mini(blur_vi a, blur_vi b)
{
#if BLUR_LANES == 16 && defined(__AVX512F__)
    return (blur_vi)_mm512_min_epi32((__m512i)a, (__m512i)b);
#elif BLUR_LANES == 8 && defined(__AVX2__)
    return (blur_vi)_mm256_min_epi32((__m256i)a, (__m256i)b);
#else
    return blur_select(a < b, a, b);
#endif
}

typedef int64_t blur_vl __attribute__((vector_size(BLUR_LANES * 4)));

/* Whether any lane of m is set (1) or none (0): x86's sign masks where the
 * set is there (a mask test instead of a chain of shuffles), else OR-ing
 * halves in registers. */
static inline int blur_any(blur_vi m)
{
#if BLUR_LANES == 16 && defined(__AVX512F__)
    return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;
#elif BLUR_LANES == 8 && defined(__AVX2__)
    return _mm256_movemask_ps((__m256)m) != 0;
#elif BLUR_LANES == 4 && defined(__SSE2__)
    return _mm_movemask_ps((__m128)m) != 0;
#else
    blur_vl x = (blur_vl)m;
#if BLUR_LANES == 16
    x |= GI_SHUFFLE(x, x, blur_vl, 4, 5, 6, 7, 0, 1, 2, 3);
#endif
#if BLUR_LANES >= 8
    x |= GI_SHUFFLE(x, x, blur_vl, BLUR_ANY_SWAP2);
#endif
    x |= GI_SHUFFLE(x, x, blur_vl, BLUR_ANY_SWAP1);
    return x[0] != 0;
#endif
}

/* The lanes through blur_finish4, for those blur_finish_lanes is unsure of. */
static inline void blur_finish_exact(blur_vu hi, blur_vu lo, int channels, uint32_t *out)
{
    uint32_t h[BLUR_LANES], l[BLUR_LANES];
    uint8_t bytes[BLUR_LANES];
    memcpy(h, &hi, sizeof h);
    memcpy(l, &lo, sizeof l);
    for (int i = 0; i < BLUR_LANES; i += 4) blur_finish4(h + i, l + i, channels, bytes + i);
    for (int i = 0; i < BLUR_LANES; i++) out[i] = bytes[i];
}

/* Writes the results (0..255, one a lane: the caller narrows them to
 * bytes, which compilers do best for whole arrays); returns the lanes
 * (-1) where they may be wrong: to be redone with lo known where slack
 * was not 0, else by blur_finish_exact. slack is a constant, 0 or
 * BLUR_LO_MAX. */
static inline __attribute__((always_inline)) blur_vi blur_finish_lanes(blur_vu hi, blur_vu lo,
                                                                       const uint32_t slack,
                                                                       const int channels, uint32_t *out)
{
    const blur_vi is_alpha = channels == 4 ? (blur_vi){BLUR_IS_ALPHA4} : (blur_vi){BLUR_IS_ALPHA2};
    const blur_vu va = channels == 4 ? GI_SHUFFLE(hi, hi, blur_vi, BLUR_ALPHA4)
                                     : GI_SHUFFLE(hi, hi, blur_vi, BLUR_ALPHA2);
    const blur_vf num = __builtin_convertvector(hi, blur_vf) * (float)(1u << BLUR_SPLIT_SHIFT) +
                        __builtin_convertvector(lo + (va >> 1), blur_vf);
    const blur_vi transparent = (blur_vi)(va == 0);
    const blur_vf fva = __builtin_convertvector(va | (blur_vu)(transparent & 1), blur_vf);
    const blur_vf r = (blur_vf)((blur_vi)(1.0f / fva) & ~transparent);
    const blur_vf limit = (blur_vf){0} + 257.0f;
    blur_vf t_lo = num * r, t_hi = t_lo;
    if (slack) t_hi = (num + (float)slack) * r;
    const blur_vi down = __builtin_convertvector(blur_minf(t_lo, limit) - 0x1p-12f, blur_vi);
    const blur_vi up = __builtin_convertvector(blur_minf(t_hi, limit) + 0x1p-12f, blur_vi);
    const blur_vi over = down > 254;
    const blur_vi colour = blur_mini(down, (blur_vi){0} + 255);
    const blur_vi alpha = (blur_vi)((va + (1u << 23)) >> 24);
    const blur_vi result = blur_select(is_alpha, alpha, colour);
    memcpy(out, &result, sizeof result);
    return (up != down) & ~over & ~is_alpha;
}
#endif

#endif
