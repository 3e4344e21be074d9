/* The last step of the premultiplied blur (gpuimg.h): a colour's vertical
 * sum vc over alpha's va,
 *     out = va == 0 ? 0 : min(255, floor((vc + floor(va / 2)) / va)),
 * with vc < 2^41 and va < 2^32, in doubles instead of a 64-bit division
 * per colour, four lanes at a time (one RGBA pixel or two gray+alpha ones).
 * Each sum arrives split in two 32-bit parts, v = 512 * hi + lo (hi < 2^31,
 * lo < 2^25), and both the numerator num and va are integers under 2^41,
 * so exact in a double. The division is correctly rounded, and its floor
 * is exactly floor(num / va) wherever that is below 256: an exact quotient
 * k stays k, and one below k is at most k - 1/va <= k - 2^-32, while the
 * doubles next to k <= 256 are 2^-44 apart, so rounding cannot reach k.
 * From 256 on the output is 255 whatever the rounding.
 * tests/test_blur_finish.c checks this against the integer formula. */
#ifndef GI_BLUR_FINISH_H
#define GI_BLUR_FINISH_H

#include <stdint.h>
#include <string.h>

#include "cpu_simd.h"

#define BLUR_SPLIT_SHIFT 9
#define BLUR_SPLIT_MASK ((1u << BLUR_SPLIT_SHIFT) - 1)

typedef double blur_v4d __attribute__((vector_size(32)));
typedef int64_t blur_v4l __attribute__((vector_size(32)));
typedef int32_t blur_v4i __attribute__((vector_size(16)));
typedef uint32_t blur_v4u __attribute__((vector_size(16)));
typedef uint8_t blur_v16b __attribute__((vector_size(16)));

/* Four premultiplied results from their split sums: one RGBA pixel
 * (channels 4) or two gray+alpha ones (channels 2). Alpha lanes get the
 * plain (va + 2^23) >> 24 (va < 2^32, so it fits). */
static inline __attribute__((always_inline)) void blur_finish4(const uint32_t *hi_in,
                                                               const uint32_t *lo_in,
                                                               const int channels, uint8_t *out)
{
    /* -1 in alpha lanes */
    const blur_v4i is_alpha = channels == 4 ? (blur_v4i){0, 0, 0, -1} : (blur_v4i){0, -1, 0, -1};
    blur_v4u hi, lo;
    memcpy(&hi, hi_in, sizeof hi);
    memcpy(&lo, lo_in, sizeof lo);
    const blur_v4d v = __builtin_convertvector((blur_v4i)hi, blur_v4d) * (double)(1u << BLUR_SPLIT_SHIFT) +
                       __builtin_convertvector((blur_v4i)lo, blur_v4d);
    const blur_v4d halves = __builtin_convertvector((blur_v4i)hi, blur_v4d) *
                                (double)(1u << (BLUR_SPLIT_SHIFT - 1)) +
                            __builtin_convertvector((blur_v4i)(lo >> 1), blur_v4d);
    /* each lane's pixel's alpha: va, floor(va / 2), va as an integer */
    const blur_v4u joined = (hi << BLUR_SPLIT_SHIFT) + lo; /* exact where it is va */
    blur_v4d va, half;
    blur_v4u va32;
    if (channels == 4) {
        va = GI_SHUFFLE(v, v, blur_v4l, 3, 3, 3, 3);
        half = GI_SHUFFLE(halves, halves, blur_v4l, 3, 3, 3, 3);
        va32 = GI_SHUFFLE(joined, joined, blur_v4i, 3, 3, 3, 3);
    } else {
        va = GI_SHUFFLE(v, v, blur_v4l, 1, 1, 3, 3);
        half = GI_SHUFFLE(halves, halves, blur_v4l, 1, 1, 3, 3);
        va32 = GI_SHUFFLE(joined, joined, blur_v4i, 1, 1, 3, 3);
    }
    const blur_v4l one = (blur_v4l)(blur_v4d){1, 1, 1, 1}; /* masks pick 1.0 or 0.0 */
    const blur_v4d num = v + half;
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

typedef float blur_v8f __attribute__((vector_size(32)));
typedef int32_t blur_v8i __attribute__((vector_size(32)));
typedef uint32_t blur_v8u __attribute__((vector_size(32)));
typedef uint8_t blur_v32b __attribute__((vector_size(32)));

/* The same for eight lanes (two RGBA pixels, four gray+alpha ones) in
 * float, which is twice as wide and converts in one step. Every float here
 * is within a few 2^-24 relative of its integer (the split parts, the
 * numerator, va), so the quotient t is within 2^-21 relative of num / va:
 * below 257 that is under 2^-12 absolute. So floor(t) is exact unless t is
 * within 2^-10 of an integer, and t >= 256.5 means 255. A lane that is that
 * close (rare: flat areas give k + 1/2) sends its four lanes through
 * blur_finish4. */
static inline __attribute__((always_inline)) void blur_finish8(const uint32_t *hi_in,
                                                               const uint32_t *lo_in,
                                                               const int channels, uint8_t *out)
{
    const blur_v8i is_alpha = channels == 4 ? (blur_v8i){0, 0, 0, -1, 0, 0, 0, -1}
                                            : (blur_v8i){0, -1, 0, -1, 0, -1, 0, -1};
    blur_v8u hi, lo;
    memcpy(&hi, hi_in, sizeof hi);
    memcpy(&lo, lo_in, sizeof lo);
    const blur_v8f hif = __builtin_convertvector((blur_v8i)hi, blur_v8f);
    const blur_v8f v = hif * (float)(1u << BLUR_SPLIT_SHIFT) +
                       __builtin_convertvector((blur_v8i)lo, blur_v8f);
    const blur_v8f halves = hif * (float)(1u << (BLUR_SPLIT_SHIFT - 1)) +
                            __builtin_convertvector((blur_v8i)(lo >> 1), blur_v8f);
    const blur_v8u joined = (hi << BLUR_SPLIT_SHIFT) + lo; /* exact where it is va */
    blur_v8f va, half;
    blur_v8u va32;
    if (channels == 4) {
        va = GI_SHUFFLE(v, v, blur_v8i, 3, 3, 3, 3, 7, 7, 7, 7);
        half = GI_SHUFFLE(halves, halves, blur_v8i, 3, 3, 3, 3, 7, 7, 7, 7);
        va32 = GI_SHUFFLE(joined, joined, blur_v8i, 3, 3, 3, 3, 7, 7, 7, 7);
    } else {
        va = GI_SHUFFLE(v, v, blur_v8i, 1, 1, 3, 3, 5, 5, 7, 7);
        half = GI_SHUFFLE(halves, halves, blur_v8i, 1, 1, 3, 3, 5, 5, 7, 7);
        va32 = GI_SHUFFLE(joined, joined, blur_v8i, 1, 1, 3, 3, 5, 5, 7, 7);
    }
    const blur_v8i transparent = (blur_v8i)(va32 == 0);
    const blur_v8f one = {1, 1, 1, 1, 1, 1, 1, 1};
    blur_v8f t = (v + half) /
                 (va + (blur_v8f)((blur_v8i)one & transparent)); /* no lane divides by 0 */
    const blur_v8i big = t >= 256.5f;
    t = (blur_v8f)(((blur_v8i)t & ~big) | ((blur_v8i)(blur_v8f){256, 256, 256, 256, 256, 256, 256, 256} & big));
    blur_v8i colour = __builtin_convertvector(t, blur_v8i); /* t >= 0: floor */
    const blur_v8f fraction = t - __builtin_convertvector(colour, blur_v8f);
    const blur_v8i near = (fraction < 0x1p-10f) | (fraction > 1 - 0x1p-10f);
    const blur_v8i unsure = near & ~big & ~transparent & ~is_alpha;
    blur_v8i any = unsure | GI_SHUFFLE(unsure, unsure, blur_v8i, 4, 5, 6, 7, 0, 1, 2, 3);
    any |= GI_SHUFFLE(any, any, blur_v8i, 2, 3, 0, 1, 6, 7, 4, 5);
    any |= GI_SHUFFLE(any, any, blur_v8i, 1, 0, 3, 2, 5, 4, 7, 6);
    if (any[0]) {
        blur_finish4(hi_in, lo_in, channels, out);
        blur_finish4(hi_in + 4, lo_in + 4, channels, out + 4);
        return;
    }
    colour = (colour & ~(colour > 255)) | (255 & (colour > 255));
    colour &= ~transparent;
    const blur_v8i alpha = (blur_v8i)((va32 + (1u << 23)) >> 24);
    const blur_v8i result = (colour & ~is_alpha) | (alpha & is_alpha);
    const blur_v32b lanes = (blur_v32b)result;
    const blur_v32b bytes = GI_SHUFFLE(lanes, lanes, blur_v32b, 0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8,
                                       12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8,
                                       12, 16, 20, 24, 28);
    memcpy(out, &bytes, 8); /* each lane's low byte: the results are 0..255 */
}

/* One pixel of ch channels (alpha last), the same steps one lane at a
 * time: for a gray+alpha row's odd last pixel. */
static inline void blur_finish_pixel(const uint32_t *hi, const uint32_t *lo, int ch, uint8_t *out)
{
    const uint32_t va32 = (hi[ch - 1] << BLUR_SPLIT_SHIFT) + lo[ch - 1];
    const double va = (double)(int32_t)hi[ch - 1] * (1u << BLUR_SPLIT_SHIFT) + (int32_t)lo[ch - 1];
    const double half = (double)(int32_t)hi[ch - 1] * (1u << (BLUR_SPLIT_SHIFT - 1)) +
                        (int32_t)(lo[ch - 1] >> 1);
    for (int c = 0; c < ch - 1; c++) {
        const double num = (double)(int32_t)hi[c] * (1u << BLUR_SPLIT_SHIFT) + (int32_t)lo[c] + half;
        double t = va > 0 ? num / va : 0;
        int32_t q = (int32_t)(t < 256 ? t : 256);
        out[c] = va32 ? (uint8_t)(q > 255 ? 255 : q) : 0;
    }
    out[ch - 1] = (uint8_t)((va32 + (1u << 23)) >> 24);
}

#endif
