/* The 16-bit premultiplied blur's colour and alpha (gpuimg.h) from exact
 * vertical sums held in doubles, without 64-bit integers: one pixel at a
 * time, and a row's pixels in AVX-512 or AVX2 vectors, which the vertical
 * pass's kernels call for each block of sums (blur_kernels.c).
 * tests/cpu/test_blur16_finish.c checks both forms, built for each set,
 * against the integer formulas where the estimate is off by one either
 * way. */
#ifndef GI_BLUR16_FINISH_H
#define GI_BLUR16_FINISH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* min(65535, floor((vc 2^16 + floor(va / 2)) / va)), 0 where va = 0, all
 * in doubles so that it vectorizes; inv_va is 1 / va (rounded; the caller
 * divides once for a pixel's colours). vc, va < 2^48 are exact; the
 * estimate e of the quotient Q is within 2^-35 of it (n = vc 2^16 +
 * floor(va / 2) rounds once, 1 / va once, the product once: a relative
 * error below 3.01 2^-53, times at most 65536 where e < 65536), so where e
 * < 65536, q = floor(e) is Q - 1, Q or Q + 1, and the exact remainder r =
 * n - q va says which: with va = vh + vl (vh its bits from 2^24 up), q vh
 * and q vl are exact (40 bits at most), vc 2^16 - q vh is an integer below
 * 2^50 (so exact), and so are the other terms. Where e >= 65536, Q >=
 * 65535 (within 2^-35), and the output is 65535 either way. */
static inline double blur16_finish_colour(double vc, double va, double inv_va)
{
    const double t = vc * 65536.0, hv = floor(va * 0.5);
    const double e = (t + hv) * inv_va;
    const double q = floor(e < 65536.0 ? e : 65536.0);
    const double vh = floor(va * 0x1p-24) * 0x1p24, vl = va - vh;
    const double r = (t - q * vh) + (hv - q * vl);
    const double exact = q + (r >= va ? 1.0 : 0.0) - (r < 0 ? 1.0 : 0.0);
    return va == 0 ? 0.0 : e >= 65536.0 || exact > 65535.0 ? 65535.0 : exact;
}

/* Alpha's output, (va + 2^31) >> 32, from its exact sum va < 2^48. */
static inline double blur16_finish_alpha(double va)
{
    return floor((va + 0x1p31) * 0x1p-32);
}

/* One pixel's outputs (ch 2 or 4, alpha last) from its sums v. */
static inline void blur16_finish_pixel(const double *v, int ch, uint16_t *out)
{
    const double va = v[ch - 1], inv_va = 1.0 / va;
    for (int c = 0; c < ch - 1; c++) out[c] = (uint16_t)blur16_finish_colour(v[c], va, inv_va);
    out[ch - 1] = (uint16_t)blur16_finish_alpha(va);
}

/* The vector forms: each pixel's quotient estimate e = (t + hv) r - 1/16
 * = v (2^16 r) + (hv r - 1/16) uses an approximate reciprocal r of
 * max(va, 1), refined by one Newton step: within 2^-22 of 1 / va
 * (AVX-512's 14-bit estimate squared to 2^-28; AVX2's float estimate, 1.5
 * 2^-12 off, of va rounded to a float, 2^-24 off, squared to 2^-22.8).
 * Where x = n / va < 65537, (t + hv) r is within 65537 2^-22 < 1/63 of x,
 * so e lies in (x - 1, x): q = floor(e) is Q - 1 or Q (Q = floor(x)), and
 * the remainder d + hv, d = t - q va, says which (Q where it is at least
 * va). d is an integer below 2^50, and the fused multiply-add gives d
 * 2^-16 = v - q (va 2^-16) exactly, compared with (va - hv) 2^-16. Where
 * x >= 65537, e > 65536, so q is at least 65536 and the output 65535, as
 * it must be. va = 0 gives 0, colour and alpha alike. */
#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>

/* What a pixel's colours share, for 8 pixels: va 2^-16, 2^16 r, hv r -
 * 1/16 and (va - hv) 2^-16. */
typedef struct {
    __m512d va_s, r16, hr, upper_s;
    __mmask8 nonzero;
} blur16_pixels8;

static inline __attribute__((always_inline)) blur16_pixels8 blur16_pixels(__m512d va)
{
    const __m512d va1 = _mm512_max_pd(va, _mm512_set1_pd(1.0)), s = _mm512_set1_pd(0x1p-16);
    __m512d r = _mm512_rcp14_pd(va1);
    r = _mm512_mul_pd(r, _mm512_fnmadd_pd(va1, r, _mm512_set1_pd(2.0)));
    const __m512d hv = _mm512_roundscale_pd(_mm512_mul_pd(va, _mm512_set1_pd(0.5)),
                                            _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    blur16_pixels8 p = {_mm512_mul_pd(va, s), _mm512_mul_pd(r, _mm512_set1_pd(65536.0)),
                        _mm512_fmsub_pd(hv, r, _mm512_set1_pd(0.0625)),
                        _mm512_mul_pd(_mm512_sub_pd(va, hv), s),
                        _mm512_cmp_pd_mask(va, _mm512_setzero_pd(), _CMP_NEQ_OQ)};
    return p;
}

/* One colour of 8 pixels, as int32. */
static inline __attribute__((always_inline)) __m256i blur16_colour8(__m512d v, const blur16_pixels8 *p)
{
    __m512d q = _mm512_roundscale_pd(_mm512_fmadd_pd(v, p->r16, p->hr),
                                     _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __m512d d = _mm512_fnmadd_pd(q, p->va_s, v);
    q = _mm512_mask_add_pd(q, _mm512_cmp_pd_mask(d, p->upper_s, _CMP_GE_OQ), q, _mm512_set1_pd(1.0));
    q = _mm512_maskz_min_pd(p->nonzero, q, _mm512_set1_pd(65535.0));
    return _mm512_cvttpd_epi32(q);
}

/* Alpha's outputs of 8 pixels, as int32. */
static inline __attribute__((always_inline)) __m256i blur16_alpha8(__m512d va)
{
    return _mm512_cvttpd_epi32(_mm512_roundscale_pd(
        _mm512_mul_pd(_mm512_add_pd(va, _mm512_set1_pd(0x1p31)), _mm512_set1_pd(0x1p-32)),
        _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
}

/* Two int32 vectors' values as words, in the order idx names (word 2m of
 * a, 32 + 2m of b: their dwords' low halves). */
static inline __attribute__((always_inline)) __m512i blur16_words(__m256i a0, __m256i a1, __m256i b0,
                                                                  __m256i b1, __m512i idx)
{
    return _mm512_permutex2var_epi16(_mm512_inserti64x4(_mm512_castsi256_si512(a0), a1, 1), idx,
                                     _mm512_inserti64x4(_mm512_castsi256_si512(b0), b1, 1));
}

/* n sums (whole pixels of ch channels) to samples, 8 pixels at a time:
 * the channels taken apart (a 4 x 4 transpose of pixel pairs for RGBA),
 * each pixel's shared terms found once, and the samples put back in
 * order by one word permute. */
static inline __attribute__((always_inline)) void blur16_finish_row(const double *v, size_t n, const int ch,
                                                                    uint16_t *out)
{
    size_t i = 0;
    if (ch == 4) {
        const __m512i lo = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
        const __m512i hi = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
        /* word j: pixel j / 4, channel c = j % 4, at 2 (j / 4) + 16 (c & 1) + 32 (c >> 1) */
        static const uint16_t order[32] __attribute__((aligned(64))) = {
            0, 16, 32, 48, 2,  18, 34, 50, 4,  20, 36, 52, 6,  22, 38, 54,
            8, 24, 40, 56, 10, 26, 42, 58, 12, 28, 44, 60, 14, 30, 46, 62};
        const __m512i idx = _mm512_load_si512(order);
        for (; i + 32 <= n; i += 32) {
            const __m512d v0 = _mm512_loadu_pd(v + i), v1 = _mm512_loadu_pd(v + i + 8);
            const __m512d v2 = _mm512_loadu_pd(v + i + 16), v3 = _mm512_loadu_pd(v + i + 24);
            /* pixels 0-3's channels 0 and 1, 2 and 3; then pixels 4-7's */
            const __m512d s0 = _mm512_permutex2var_pd(v0, lo, v1), s1 = _mm512_permutex2var_pd(v0, hi, v1);
            const __m512d s2 = _mm512_permutex2var_pd(v2, lo, v3), s3 = _mm512_permutex2var_pd(v2, hi, v3);
            const __m512d va = _mm512_shuffle_f64x2(s1, s3, 0xEE);
            const blur16_pixels8 p = blur16_pixels(va);
            const __m512i w = blur16_words(blur16_colour8(_mm512_shuffle_f64x2(s0, s2, 0x44), &p),
                                           blur16_colour8(_mm512_shuffle_f64x2(s0, s2, 0xEE), &p),
                                           blur16_colour8(_mm512_shuffle_f64x2(s1, s3, 0x44), &p),
                                           blur16_alpha8(va), idx);
            _mm512_storeu_si512(out + i, w);
        }
    } else {
        const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
        const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
        /* word j < 16: pixel j / 2, channel j % 2, at 2 (j / 2) + 16 (j % 2) (the rest unused) */
        static const uint16_t order[32] __attribute__((aligned(64))) = {
            0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30};
        const __m512i idx = _mm512_load_si512(order);
        for (; i + 16 <= n; i += 16) {
            const __m512d v0 = _mm512_loadu_pd(v + i), v1 = _mm512_loadu_pd(v + i + 8);
            const __m512d va = _mm512_permutex2var_pd(v0, odd, v1);
            const blur16_pixels8 p = blur16_pixels(va);
            const __m256i c = blur16_colour8(_mm512_permutex2var_pd(v0, even, v1), &p);
            const __m512i w = _mm512_permutexvar_epi16(
                idx, _mm512_inserti64x4(_mm512_castsi256_si512(c), blur16_alpha8(va), 1));
            _mm256_storeu_si256((__m256i *)(out + i), _mm512_castsi512_si256(w));
        }
    }
    for (; i < n; i += (size_t)ch) blur16_finish_pixel(v + i, ch, out + i);
}
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

/* What a pixel's colours share, for 4 pixels (as blur16_pixels8). */
typedef struct {
    __m256d va_s, r16, hr, upper_s, nonzero;
} blur16_pixels4;

static inline __attribute__((always_inline)) blur16_pixels4 blur16_pixels(__m256d va)
{
    const __m256d va1 = _mm256_max_pd(va, _mm256_set1_pd(1.0)), s = _mm256_set1_pd(0x1p-16);
    __m256d r = _mm256_cvtps_pd(_mm_rcp_ps(_mm256_cvtpd_ps(va1)));
    r = _mm256_mul_pd(r, _mm256_fnmadd_pd(va1, r, _mm256_set1_pd(2.0)));
    const __m256d hv = _mm256_floor_pd(_mm256_mul_pd(va, _mm256_set1_pd(0.5)));
    blur16_pixels4 p = {_mm256_mul_pd(va, s), _mm256_mul_pd(r, _mm256_set1_pd(65536.0)),
                        _mm256_fmsub_pd(hv, r, _mm256_set1_pd(0.0625)),
                        _mm256_mul_pd(_mm256_sub_pd(va, hv), s),
                        _mm256_cmp_pd(va, _mm256_setzero_pd(), _CMP_NEQ_OQ)};
    return p;
}

/* One colour of 4 pixels, as int32. */
static inline __attribute__((always_inline)) __m128i blur16_colour4(__m256d v, const blur16_pixels4 *p)
{
    __m256d q = _mm256_floor_pd(_mm256_fmadd_pd(v, p->r16, p->hr));
    const __m256d d = _mm256_fnmadd_pd(q, p->va_s, v);
    q = _mm256_add_pd(q, _mm256_and_pd(_mm256_cmp_pd(d, p->upper_s, _CMP_GE_OQ), _mm256_set1_pd(1.0)));
    q = _mm256_and_pd(_mm256_min_pd(q, _mm256_set1_pd(65535.0)), p->nonzero);
    return _mm256_cvttpd_epi32(q);
}

/* Alpha's outputs of 4 pixels, as int32. */
static inline __attribute__((always_inline)) __m128i blur16_alpha4(__m256d va)
{
    return _mm256_cvttpd_epi32(_mm256_floor_pd(
        _mm256_mul_pd(_mm256_add_pd(va, _mm256_set1_pd(0x1p31)), _mm256_set1_pd(0x1p-32))));
}

/* n sums (whole pixels of ch channels) to samples, 4 pixels at a time:
 * the channels taken apart (a 4 x 4 transpose for RGBA; for gray+alpha
 * pixels 0, 2, 1, 3, put back in order with the words), each pixel's
 * shared terms found once. */
static inline __attribute__((always_inline)) void blur16_finish_row(const double *v, size_t n, const int ch,
                                                                    uint16_t *out)
{
    size_t i = 0;
    if (ch == 4) {
        /* words c0 of pixels 0-3, c1 of 0-3 (or c2, alpha) to pixel by pixel pairs */
        const __m128i pairs = _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
        for (; i + 16 <= n; i += 16) {
            const __m256d v0 = _mm256_loadu_pd(v + i), v1 = _mm256_loadu_pd(v + i + 4);
            const __m256d v2 = _mm256_loadu_pd(v + i + 8), v3 = _mm256_loadu_pd(v + i + 12);
            const __m256d t0 = _mm256_unpacklo_pd(v0, v1), t1 = _mm256_unpackhi_pd(v0, v1);
            const __m256d t2 = _mm256_unpacklo_pd(v2, v3), t3 = _mm256_unpackhi_pd(v2, v3);
            const __m256d va = _mm256_permute2f128_pd(t1, t3, 0x31);
            const blur16_pixels4 p = blur16_pixels(va);
            const __m128i c01 = _mm_shuffle_epi8(
                _mm_packus_epi32(blur16_colour4(_mm256_permute2f128_pd(t0, t2, 0x20), &p),
                                 blur16_colour4(_mm256_permute2f128_pd(t1, t3, 0x20), &p)),
                pairs);
            const __m128i c2a = _mm_shuffle_epi8(
                _mm_packus_epi32(blur16_colour4(_mm256_permute2f128_pd(t0, t2, 0x31), &p), blur16_alpha4(va)),
                pairs);
            _mm_storeu_si128((__m128i *)(out + i), _mm_unpacklo_epi32(c01, c2a));
            _mm_storeu_si128((__m128i *)(out + i + 8), _mm_unpackhi_epi32(c01, c2a));
        }
    } else {
        /* words colour of pixels 0, 2, 1, 3, then alpha's, to pixel order */
        const __m128i order = _mm_setr_epi8(0, 1, 8, 9, 4, 5, 12, 13, 2, 3, 10, 11, 6, 7, 14, 15);
        for (; i + 8 <= n; i += 8) {
            const __m256d v0 = _mm256_loadu_pd(v + i), v1 = _mm256_loadu_pd(v + i + 4);
            const __m256d va = _mm256_unpackhi_pd(v0, v1);
            const blur16_pixels4 p = blur16_pixels(va);
            const __m128i w = _mm_packus_epi32(blur16_colour4(_mm256_unpacklo_pd(v0, v1), &p), blur16_alpha4(va));
            _mm_storeu_si128((__m128i *)(out + i), _mm_shuffle_epi8(w, order));
        }
    }
    for (; i < n; i += (size_t)ch) blur16_finish_pixel(v + i, ch, out + i);
}
#else
static inline __attribute__((always_inline)) void blur16_finish_row(const double *v, size_t n, const int ch,
                                                                    uint16_t *out)
{
    for (size_t i = 0; i < n; i += (size_t)ch) blur16_finish_pixel(v + i, ch, out + i);
}
#endif

#endif
