/* The 16-bit premultiplied blur's colour and alpha (gpuimg.h) from exact
 * vertical sums v = 2^16 hi + lo, hi and lo the vertical pass's two 32-bit
 * sums, held in doubles, without 64-bit integers: one pixel at a time,
 * and a row's pixels in AVX-512 or AVX2 vectors, which the vertical
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

/* An unsigned 32-bit sum as a double, through int32 (whose conversion
 * every set has, so that the loops below vectorize). */
static inline double blur16_double(uint32_t s)
{
    return (double)(int32_t)(s ^ 0x80000000u) + 2147483648.0;
}

/* n sums v = 2^16 hi + lo (whole pixels of ch channels) to samples one
 * pixel at a time: the base set's rows and the vector forms' rests, their
 * doubles made a block at a time first (made pixel by pixel, the base
 * set's vertical pass took 1.1 times as long). */
static inline void blur16_finish_pixels(const uint32_t *hi, const uint32_t *lo, size_t n, const int ch,
                                        uint16_t *out)
{
    double v[64]; /* whole pixels */
    for (size_t i = 0; i < n; i += 64) {
        const size_t m = n - i < 64 ? n - i : 64;
        for (size_t k = 0; k < m; k++) v[k] = blur16_double(hi[i + k]) * 65536.0 + blur16_double(lo[i + k]);
        for (size_t k = 0; k < m; k += (size_t)ch) blur16_finish_pixel(v + k, ch, out + i + k);
    }
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

/* What a pixel's colours share, for 8 pixels, from va_s = va 2^-16 (AVX-512
 * works in that scale: the reciprocal of va_s is 2^16 r, and floor(va / 2)
 * 2^-16 is one rounding of va_s to 15 fractional bits, halved): va 2^-16,
 * 2^16 r, hv r - 1/16 and (va - hv) 2^-16. */
typedef struct {
    __m512d va_s, r16, hr, upper_s;
    __mmask8 nonzero;
} blur16_pixels8;

static inline __attribute__((always_inline)) blur16_pixels8 blur16_pixels(__m512d va_s)
{
    const __m512d va1 = _mm512_max_pd(va_s, _mm512_set1_pd(0x1p-16));
    __m512d r16 = _mm512_rcp14_pd(va1);
    r16 = _mm512_mul_pd(r16, _mm512_fnmadd_pd(va1, r16, _mm512_set1_pd(2.0)));
    /* 2 hv 2^-16: floor(va_s 2^15) 2^-15 */
    const __m512d hv2 = _mm512_roundscale_pd(va_s, (15 << 4) | _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    blur16_pixels8 p = {va_s, r16, _mm512_fmsub_pd(hv2, _mm512_mul_pd(r16, _mm512_set1_pd(0.5)), _mm512_set1_pd(0.0625)),
                        _mm512_fnmadd_pd(hv2, _mm512_set1_pd(0.5), va_s),
                        _mm512_cmp_pd_mask(va_s, _mm512_setzero_pd(), _CMP_NEQ_OQ)};
    return p;
}

/* One colour of 8 pixels, as int32 (0 where va = 0), not yet capped at
 * 65535: q is at least 0 (e >= -1/16, and q = -1 is always corrected),
 * and where it passes 2^31 the conversion gives 2^31, which the unsigned
 * cap takes to 65535 as well. */
static inline __attribute__((always_inline)) __m256i blur16_colour8(__m512d v, const blur16_pixels8 *p)
{
    __m512d q = _mm512_roundscale_pd(_mm512_fmadd_pd(v, p->r16, p->hr),
                                     _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __m512d d = _mm512_fnmadd_pd(q, p->va_s, v);
    q = _mm512_mask_add_pd(q, _mm512_cmp_pd_mask(d, p->upper_s, _CMP_GE_OQ), q, _mm512_set1_pd(1.0));
    return _mm512_maskz_cvttpd_epi32(p->nonzero, q);
}

/* Alpha's outputs of 8 pixels, as int32, from va_s = va 2^-16: (va +
 * 2^31) 2^-32 = va_s 2^-16 + 1/2 is exact, and the conversion rounds it
 * down. */
static inline __attribute__((always_inline)) __m256i blur16_alpha8(__m512d va_s)
{
    return _mm512_cvt_roundpd_epi32(_mm512_fmadd_pd(va_s, _mm512_set1_pd(0x1p-16), _mm512_set1_pd(0.5)),
                                    _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}

/* 2^16 hi + lo for 8 sums, exact in doubles (below 2^48). */
static inline __attribute__((always_inline)) __m512d blur16_sums8(__m256i hi, __m256i lo)
{
    return _mm512_fmadd_pd(_mm512_cvtepu32_pd(hi), _mm512_set1_pd(65536.0), _mm512_cvtepu32_pd(lo));
}

/* The same sums times 2^-16, hi + lo 2^-16 (exact: 48 bits at most). */
static inline __attribute__((always_inline)) __m512d blur16_scaled8(__m256i hi, __m256i lo)
{
    return _mm512_fmadd_pd(_mm512_cvtepu32_pd(lo), _mm512_set1_pd(0x1p-16), _mm512_cvtepu32_pd(hi));
}

static inline __attribute__((always_inline)) __m256i blur16_high256(__m512i v)
{
    return _mm512_extracti64x4_epi64(v, 1);
}

/* Two int32 vectors as one. */
static inline __attribute__((always_inline)) __m512i blur16_join(__m256i a, __m256i b)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
}

/* Colour's int32 capped at 65535 (unsigned: 2^31 too). */
static inline __attribute__((always_inline)) __m512i blur16_cap(__m512i v)
{
    return _mm512_min_epu32(v, _mm512_set1_epi32(65535));
}

/* n sums v = 2^16 hi + lo (whole pixels of ch channels) to samples, 32
 * values at a time: the channels taken apart in the 32-bit sums (one
 * permute of two vectors per pair of channels, before the doubles double
 * the vectors), each 8 pixels' shared terms found once, and the samples
 * put back in order by one word permute. */
static inline __attribute__((always_inline)) void blur16_finish_row(const uint32_t *hi, const uint32_t *lo,
                                                                    size_t n, const int ch, uint16_t *out)
{
    size_t i = 0;
    if (ch == 4) {
        /* dwords R0-7 G0-7 of pixels 0-3 and 4-7; B0-7 A0-7 */
        static const uint32_t rg[16] __attribute__((aligned(64))) = {0, 4, 8, 12, 16, 20, 24, 28,
                                                                    1, 5, 9, 13, 17, 21, 25, 29};
        static const uint32_t ba[16] __attribute__((aligned(64))) = {2, 6, 10, 14, 18, 22, 26, 30,
                                                                    3, 7, 11, 15, 19, 23, 27, 31};
        /* word j: pixel j / 4, channel c = j % 4, at 2 (j / 4) + 16 (c & 1) + 32 (c >> 1) */
        static const uint16_t order[32] __attribute__((aligned(64))) = {
            0, 16, 32, 48, 2,  18, 34, 50, 4,  20, 36, 52, 6,  22, 38, 54,
            8, 24, 40, 56, 10, 26, 42, 58, 12, 28, 44, 60, 14, 30, 46, 62};
        const __m512i irg = _mm512_load_si512(rg), iba = _mm512_load_si512(ba), idx = _mm512_load_si512(order);
        for (; i + 32 <= n; i += 32) {
            const __m512i h0 = _mm512_loadu_si512(hi + i), h1 = _mm512_loadu_si512(hi + i + 16);
            const __m512i l0 = _mm512_loadu_si512(lo + i), l1 = _mm512_loadu_si512(lo + i + 16);
            const __m512i hrg = _mm512_permutex2var_epi32(h0, irg, h1), hba = _mm512_permutex2var_epi32(h0, iba, h1);
            const __m512i lrg = _mm512_permutex2var_epi32(l0, irg, l1), lba = _mm512_permutex2var_epi32(l0, iba, l1);
            const __m512d va_s = blur16_scaled8(blur16_high256(hba), blur16_high256(lba));
            const blur16_pixels8 p = blur16_pixels(va_s);
            const __m512i rg = blur16_join(
                blur16_colour8(blur16_sums8(_mm512_castsi512_si256(hrg), _mm512_castsi512_si256(lrg)), &p),
                blur16_colour8(blur16_sums8(blur16_high256(hrg), blur16_high256(lrg)), &p));
            const __m512i ba = blur16_join(
                blur16_colour8(blur16_sums8(_mm512_castsi512_si256(hba), _mm512_castsi512_si256(lba)), &p),
                blur16_alpha8(va_s));
            _mm512_storeu_si512(out + i, _mm512_permutex2var_epi16(blur16_cap(rg), idx, blur16_cap(ba)));
        }
    } else {
        /* dwords: colour of pixels 0-15; alpha of pixels 0-15 */
        static const uint32_t colour[16] __attribute__((aligned(64))) = {0,  2,  4,  6,  8,  10, 12, 14,
                                                                        16, 18, 20, 22, 24, 26, 28, 30};
        static const uint32_t alpha[16] __attribute__((aligned(64))) = {1,  3,  5,  7,  9,  11, 13, 15,
                                                                       17, 19, 21, 23, 25, 27, 29, 31};
        /* word j: pixel j / 2, colour at 2 (j / 2), alpha at 32 + 2 (j / 2) */
        static const uint16_t order[32] __attribute__((aligned(64))) = {
            0,  32, 2,  34, 4,  36, 6,  38, 8,  40, 10, 42, 12, 44, 14, 46,
            16, 48, 18, 50, 20, 52, 22, 54, 24, 56, 26, 58, 28, 60, 30, 62};
        const __m512i ic = _mm512_load_si512(colour), ia = _mm512_load_si512(alpha), idx = _mm512_load_si512(order);
        for (; i + 32 <= n; i += 32) {
            const __m512i h0 = _mm512_loadu_si512(hi + i), h1 = _mm512_loadu_si512(hi + i + 16);
            const __m512i l0 = _mm512_loadu_si512(lo + i), l1 = _mm512_loadu_si512(lo + i + 16);
            const __m512i hc = _mm512_permutex2var_epi32(h0, ic, h1), ha = _mm512_permutex2var_epi32(h0, ia, h1);
            const __m512i lc = _mm512_permutex2var_epi32(l0, ic, l1), la = _mm512_permutex2var_epi32(l0, ia, l1);
            const __m512d va0 = blur16_scaled8(_mm512_castsi512_si256(ha), _mm512_castsi512_si256(la));
            const __m512d va1 = blur16_scaled8(blur16_high256(ha), blur16_high256(la));
            const blur16_pixels8 p0 = blur16_pixels(va0), p1 = blur16_pixels(va1);
            const __m512i c = blur16_join(
                blur16_colour8(blur16_sums8(_mm512_castsi512_si256(hc), _mm512_castsi512_si256(lc)), &p0),
                blur16_colour8(blur16_sums8(blur16_high256(hc), blur16_high256(lc)), &p1));
            const __m512i a = blur16_join(blur16_alpha8(va0), blur16_alpha8(va1));
            _mm512_storeu_si512(out + i, _mm512_permutex2var_epi16(blur16_cap(c), idx, a));
        }
    }
    blur16_finish_pixels(hi + i, lo + i, n - i, ch, out + i);
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
    return _mm256_cvttpd_epi32(_mm256_floor_pd(_mm256_fmadd_pd(va, _mm256_set1_pd(0x1p-32), _mm256_set1_pd(0.5))));
}

/* 2^16 hi + lo for 4 sums, exact in doubles: through int32, whose
 * conversion AVX2 has, as s - 2^31 each, the two 2^31 added back as one
 * constant. */
static inline __attribute__((always_inline)) __m256d blur16_sums4(__m128i hi, __m128i lo)
{
    const __m128i bias = _mm_set1_epi32((int)0x80000000u);
    const __m256d h = _mm256_cvtepi32_pd(_mm_xor_si128(hi, bias)), l = _mm256_cvtepi32_pd(_mm_xor_si128(lo, bias));
    return _mm256_add_pd(_mm256_fmadd_pd(h, _mm256_set1_pd(65536.0), l), _mm256_set1_pd(0x1p47 + 0x1p31));
}

/* A 4 x 4 block of dwords (v[k]: pixel k's channels) transposed (v[c]:
 * channel c of the 4 pixels). */
static inline __attribute__((always_inline)) void blur16_transpose4(__m128i v[4])
{
    const __m128i t0 = _mm_unpacklo_epi32(v[0], v[1]), t1 = _mm_unpackhi_epi32(v[0], v[1]);
    const __m128i t2 = _mm_unpacklo_epi32(v[2], v[3]), t3 = _mm_unpackhi_epi32(v[2], v[3]);
    v[0] = _mm_unpacklo_epi64(t0, t2);
    v[1] = _mm_unpackhi_epi64(t0, t2);
    v[2] = _mm_unpacklo_epi64(t1, t3);
    v[3] = _mm_unpackhi_epi64(t1, t3);
}

/* n sums v = 2^16 hi + lo (whole pixels of ch channels) to samples, 4
 * pixels at a time: the channels taken apart in the 32-bit sums (a 4 x 4
 * transpose for RGBA, a split of even and odd dwords for gray+alpha), each
 * pixel's shared terms found once. */
static inline __attribute__((always_inline)) void blur16_finish_row(const uint32_t *hi, const uint32_t *lo,
                                                                    size_t n, const int ch, uint16_t *out)
{
    size_t i = 0;
    if (ch == 4) {
        /* words c0 of pixels 0-3, c1 of 0-3 (or c2, alpha) to pixel by pixel pairs */
        const __m128i pairs = _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
        for (; i + 16 <= n; i += 16) {
            __m128i h[4], l[4];
            for (int k = 0; k < 4; k++) {
                h[k] = _mm_loadu_si128((const __m128i *)(hi + i + 4 * k));
                l[k] = _mm_loadu_si128((const __m128i *)(lo + i + 4 * k));
            }
            blur16_transpose4(h);
            blur16_transpose4(l);
            const __m256d va = blur16_sums4(h[3], l[3]);
            const blur16_pixels4 p = blur16_pixels(va);
            const __m128i c01 = _mm_shuffle_epi8(
                _mm_packus_epi32(blur16_colour4(blur16_sums4(h[0], l[0]), &p), blur16_colour4(blur16_sums4(h[1], l[1]), &p)),
                pairs);
            const __m128i c2a = _mm_shuffle_epi8(
                _mm_packus_epi32(blur16_colour4(blur16_sums4(h[2], l[2]), &p), blur16_alpha4(va)), pairs);
            _mm_storeu_si128((__m128i *)(out + i), _mm_unpacklo_epi32(c01, c2a));
            _mm_storeu_si128((__m128i *)(out + i + 8), _mm_unpackhi_epi32(c01, c2a));
        }
    } else {
        /* words colour of pixels 0-3, then alpha's, to pixel by pixel pairs */
        const __m128i order = _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
        for (; i + 8 <= n; i += 8) {
            const __m128 h0 = _mm_loadu_ps((const float *)(hi + i)), h1 = _mm_loadu_ps((const float *)(hi + i + 4));
            const __m128 l0 = _mm_loadu_ps((const float *)(lo + i)), l1 = _mm_loadu_ps((const float *)(lo + i + 4));
            /* colour of pixels 0, 1, 2, 3 (the even dwords), alpha (the odd) */
            const __m128i hc = _mm_castps_si128(_mm_shuffle_ps(h0, h1, 0x88)), ha = _mm_castps_si128(_mm_shuffle_ps(h0, h1, 0xDD));
            const __m128i lc = _mm_castps_si128(_mm_shuffle_ps(l0, l1, 0x88)), la = _mm_castps_si128(_mm_shuffle_ps(l0, l1, 0xDD));
            const __m256d va = blur16_sums4(ha, la);
            const blur16_pixels4 p = blur16_pixels(va);
            const __m128i w = _mm_packus_epi32(blur16_colour4(blur16_sums4(hc, lc), &p), blur16_alpha4(va));
            _mm_storeu_si128((__m128i *)(out + i), _mm_shuffle_epi8(w, order));
        }
    }
    blur16_finish_pixels(hi + i, lo + i, n - i, ch, out + i);
}
#else
static inline __attribute__((always_inline)) void blur16_finish_row(const uint32_t *hi, const uint32_t *lo,
                                                                    size_t n, const int ch, uint16_t *out)
{
    blur16_finish_pixels(hi, lo, n, ch, out);
}
#endif

#endif
