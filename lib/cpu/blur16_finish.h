/* The 16-bit premultiplied blur's colour and alpha (gpuimg.h) from exact
 * vertical sums held in doubles, without 64-bit integers, so that
 * blur16.c's loops vectorize; tests/cpu/test_blur16_finish.c checks the
 * colour against the integer formula where the estimate is off by one
 * either way. */
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

/* The vector forms take the sums as they lie, interleaved: each lane
 * gets its pixel's alpha sum by a shuffle inside the pixel, every lane is
 * finished as a colour, and the alpha lanes are then replaced. The
 * quotient's estimate e = (t + hv) r uses an approximate reciprocal r of
 * max(va, 1), refined by one Newton step: within 2^-22 of 1 / va
 * (AVX-512's 14-bit estimate squared to 2^-28; AVX2's float estimate,
 * 1.5 2^-12 off, of va rounded to a float, 2^-24 off, squared to
 * 2^-22.5), so where x = n / va < 65537, e is within 65537 2^-22 < 2^-5
 * of x, q = floor(min(e, 65536)) is Q - 1, Q or Q + 1 (Q = floor(x)), and
 * the remainder r = (t - q va) + hv says which: t - q va is an integer
 * below 2^50, which the fused multiply-add gives exactly, and adding hv
 * keeps it exact. Where x >= 65537, e > 65536, q = 65536, the remainder
 * is at least va and the output 65535, as it must be. va = 0 gives 0 in
 * every lane, colour and alpha alike. */
#if defined(__AVX512F__)
#include <immintrin.h>

/* 8 sums (2 pixels of 4 channels, or 4 of 2) to their outputs as int32. */
static inline __attribute__((always_inline)) __m256i blur16_finish8(__m512d v, const int ch)
{
    const __m512d va = ch == 4 ? _mm512_permutex_pd(v, 0xFF) : _mm512_permute_pd(v, 0xFF);
    const __m512d one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
    const __m512d c65536 = _mm512_set1_pd(65536.0);
    const int floor_mode = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    const __m512d va1 = _mm512_max_pd(va, one);
    __m512d r = _mm512_rcp14_pd(va1);
    r = _mm512_mul_pd(r, _mm512_fnmadd_pd(va1, r, _mm512_set1_pd(2.0)));
    const __m512d t = _mm512_mul_pd(v, c65536);
    const __m512d hv = _mm512_roundscale_pd(_mm512_mul_pd(va, _mm512_set1_pd(0.5)), floor_mode);
    const __m512d e = _mm512_mul_pd(_mm512_add_pd(t, hv), r);
    __m512d q = _mm512_roundscale_pd(_mm512_min_pd(e, c65536), floor_mode);
    const __m512d rem = _mm512_add_pd(_mm512_fnmadd_pd(q, va, t), hv);
    q = _mm512_mask_add_pd(q, _mm512_cmp_pd_mask(rem, va, _CMP_GE_OQ), q, one);
    q = _mm512_mask_sub_pd(q, _mm512_cmp_pd_mask(rem, zero, _CMP_LT_OQ), q, one);
    q = _mm512_min_pd(q, _mm512_set1_pd(65535.0));
    const __m512d a = _mm512_roundscale_pd(
        _mm512_mul_pd(_mm512_add_pd(va, _mm512_set1_pd(0x1p31)), _mm512_set1_pd(0x1p-32)), floor_mode);
    q = _mm512_mask_mov_pd(q, ch == 4 ? 0x88 : 0xAA, a);
    q = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(va, zero, _CMP_NEQ_OQ), q);
    return _mm512_cvttpd_epi32(q);
}

/* n sums (whole pixels of ch channels) to samples, 16 at a time. */
static inline __attribute__((always_inline)) void blur16_finish_row(const double *v, size_t n, const int ch,
                                                                    uint16_t *out)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i w = _mm512_inserti64x4(_mm512_castsi256_si512(blur16_finish8(_mm512_loadu_pd(v + i), ch)),
                                             blur16_finish8(_mm512_loadu_pd(v + i + 8), ch), 1);
        _mm256_storeu_si256((__m256i *)(out + i), _mm512_cvtepi32_epi16(w));
    }
    for (; i < n; i += (size_t)ch) blur16_finish_pixel(v + i, ch, out + i);
}
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

/* 4 sums (1 pixel of 4 channels, or 2 of 2); CH a constant. */
#define BLUR16_FINISH4(v, CH)                                                                      \
    blur16_finish4(v, CH == 4 ? _mm256_permute4x64_pd(v, 0xFF) : _mm256_permute_pd(v, 0xF),     \
                   CH == 4 ? 0x8 : 0xA)

static inline __attribute__((always_inline)) __m128i blur16_finish4(__m256d v, __m256d va, const int alpha)
{
    const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
    const __m256d c65536 = _mm256_set1_pd(65536.0);
    const __m256d va1 = _mm256_max_pd(va, one);
    __m256d r = _mm256_cvtps_pd(_mm_rcp_ps(_mm256_cvtpd_ps(va1)));
    r = _mm256_mul_pd(r, _mm256_fnmadd_pd(va1, r, _mm256_set1_pd(2.0)));
    const __m256d t = _mm256_mul_pd(v, c65536);
    const __m256d hv = _mm256_floor_pd(_mm256_mul_pd(va, _mm256_set1_pd(0.5)));
    const __m256d e = _mm256_mul_pd(_mm256_add_pd(t, hv), r);
    __m256d q = _mm256_floor_pd(_mm256_min_pd(e, c65536));
    const __m256d rem = _mm256_add_pd(_mm256_fnmadd_pd(q, va, t), hv);
    q = _mm256_add_pd(q, _mm256_and_pd(_mm256_cmp_pd(rem, va, _CMP_GE_OQ), one));
    q = _mm256_sub_pd(q, _mm256_and_pd(_mm256_cmp_pd(rem, zero, _CMP_LT_OQ), one));
    q = _mm256_min_pd(q, _mm256_set1_pd(65535.0));
    const __m256d a = _mm256_floor_pd(
        _mm256_mul_pd(_mm256_add_pd(va, _mm256_set1_pd(0x1p31)), _mm256_set1_pd(0x1p-32)));
    q = _mm256_blend_pd(q, a, alpha);
    q = _mm256_and_pd(q, _mm256_cmp_pd(va, zero, _CMP_NEQ_OQ));
    return _mm256_cvttpd_epi32(q);
}

static inline __attribute__((always_inline)) size_t blur16_finish_row_ch(const double *v, size_t n,
                                                                         const int ch, uint16_t *out)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256d a = _mm256_loadu_pd(v + i), b = _mm256_loadu_pd(v + i + 4);
        const __m128i w = ch == 4 ? _mm_packus_epi32(BLUR16_FINISH4(a, 4), BLUR16_FINISH4(b, 4))
                                  : _mm_packus_epi32(BLUR16_FINISH4(a, 2), BLUR16_FINISH4(b, 2));
        _mm_storeu_si128((__m128i *)(out + i), w);
    }
    return i;
}

static inline __attribute__((always_inline)) void blur16_finish_row(const double *v, size_t n, const int ch,
                                                                    uint16_t *out)
{
    size_t i = ch == 4 ? blur16_finish_row_ch(v, n, 4, out) : blur16_finish_row_ch(v, n, 2, out);
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
