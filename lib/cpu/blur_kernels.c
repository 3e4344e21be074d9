/* The blur's inner loops for one instruction set (see blur_kernels.h):
 * meson compiles this file once per set, each with GI_BLUR_KERNELS naming
 * its table. Plain GCC vector code throughout, at the set's widest
 * vector, but for madd, the one instruction the compilers do not derive
 * from C, the float steps blur_finish.h fuses or estimates, the 16-bit
 * premultiplied finish (blur16_finish.h: reciprocal estimates, rounding
 * and the channels' shuffles), and the pairs' byte shuffles and widening
 * on x86, where GCC's code for them was slow (measured: the notes at
 * each). */
#include <string.h>

#if defined(__AVX512BW__)
#include <immintrin.h>
#define VBYTES 64
#define BLUR_LANES 16
#elif defined(__AVX2__)
#include <immintrin.h>
#define VBYTES 32
#define BLUR_LANES 8
#elif defined(__SSE2__)
#include <emmintrin.h>
#define VBYTES 16
#define BLUR_LANES 4
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#define VBYTES 16
#define BLUR_LANES 4
#else
#define VBYTES 16
#define BLUR_LANES 4
#endif

#include "blur16_finish.h"
#include "blur_kernels.h" /* and blur_finish.h, at BLUR_LANES */

#ifndef GI_BLUR_KERNELS
#define GI_BLUR_KERNELS gi__blur_kernels_base
#endif

#define LANES BLUR_LANES /* 32-bit lanes of a vector */

typedef uint32_t vu32 __attribute__((vector_size(VBYTES)));
typedef int32_t vi32 __attribute__((vector_size(VBYTES)));

static inline vu32 load(const uint32_t *p)
{
    vu32 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store(uint32_t *p, vu32 v)
{
    memcpy(p, &v, sizeof v);
}

static inline vu32 splat(uint32_t x)
{
    return (vu32){0} + x;
}

/* acc plus, in each lane, the signed 16-bit halves of a and b multiplied
 * and the two products added (pmaddwd; VNNI's vpdpwssd, AVX-512's or
 * AVX-VNNI's, does the add too, modulo 2^32 as the sums want). */
static inline vu32 madd_add(vu32 acc, vu32 a, vu32 b)
{
#if VBYTES == 64 && defined(__AVX512VNNI__)
    return (vu32)_mm512_dpwssd_epi32((__m512i)acc, (__m512i)a, (__m512i)b);
#elif VBYTES == 64
    return acc + (vu32)_mm512_madd_epi16((__m512i)a, (__m512i)b);
#elif defined(__AVXVNNI__)
    return (vu32)_mm256_dpwssd_avx_epi32((__m256i)acc, (__m256i)a, (__m256i)b);
#elif defined(__AVX2__)
    return acc + (vu32)_mm256_madd_epi16((__m256i)a, (__m256i)b);
#elif defined(__SSE2__)
    return acc + (vu32)_mm_madd_epi16((__m128i)a, (__m128i)b);
#elif defined(__ARM_NEON) && defined(__aarch64__)
    const int16x8_t x = vreinterpretq_s16_u32((uint32x4_t)a), y = vreinterpretq_s16_u32((uint32x4_t)b);
    const int32x4_t lo = vmull_s16(vget_low_s16(x), vget_low_s16(y)), hi = vmull_high_s16(x, y);
    return acc + (vu32)vpaddq_s32(lo, hi);
#else
    const vi32 even = ((vi32)(a << 16) >> 16) * ((vi32)(b << 16) >> 16);
    return acc + (vu32)even + (vu32)(((vi32)a >> 16) * ((vi32)b >> 16));
#endif
}

/* Sixteen bytes at a time as premultiplied samples in 32-bit lanes: each
 * byte times its pixel's alpha (times 1 for alpha itself), 16-bit
 * products (<= 65025), less 2^15 modulo 2^16. AVX-512 widens the bytes
 * straight to 32-bit lanes and multiplies their low halves; in plain
 * vector code GCC widens bytes to 32 bits one byte at a time, so there
 * the products are made in 16 bits and widened after. */
typedef uint8_t bytes16 __attribute__((vector_size(16)));
typedef uint16_t u16x16 __attribute__((vector_size(32)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));

static inline __attribute__((always_inline)) void premultiplied16(const uint8_t *in, const int ch,
                                                                  u32x16 *out)
{
#if VBYTES == 64
    /* alpha's byte, or a 1 (pshufb's -1 gives 0, OR-ed with one) */
    const __m128i pick = ch == 4 ? _mm_setr_epi8(3, 3, 3, -1, 7, 7, 7, -1, 11, 11, 11, -1, 15, 15, 15, -1)
                                 : _mm_setr_epi8(1, -1, 3, -1, 5, -1, 7, -1, 9, -1, 11, -1, 13, -1, 15, -1);
    const __m128i one = ch == 4 ? _mm_setr_epi8(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1)
                                : _mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1);
    const __m128i v = _mm_loadu_si128((const __m128i *)in);
    const __m128i a = _mm_or_si128(_mm_shuffle_epi8(v, pick), one);
    *out = (u32x16)_mm512_mullo_epi16(_mm512_cvtepu8_epi32(v), _mm512_cvtepu8_epi32(a)) ^ 0x8000;
#else
    const bytes16 ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    bytes16 v;
    memcpy(&v, in, sizeof v);
    /* index 16 picks a 1 from ones */
    const bytes16 a = ch == 4 ? GI_SHUFFLE(v, ones, bytes16, 3, 3, 3, 16, 7, 7, 7, 16, 11, 11, 11, 16,
                                           15, 15, 15, 16)
                              : GI_SHUFFLE(v, ones, bytes16, 1, 16, 3, 16, 5, 16, 7, 16, 9, 16, 11, 16,
                                           13, 16, 15, 16);
    const u16x16 u = __builtin_convertvector(v, u16x16) * __builtin_convertvector(a, u16x16);
    *out = __builtin_convertvector(u ^ 0x8000, u32x16);
#endif
}

static inline uint32_t premultiplied1(const uint8_t *in, size_t i, int ch)
{
    const size_t alpha = i - i % ch + ch - 1;
    return ((i == alpha ? 1u : in[alpha]) * in[i]) ^ 0x8000;
}

#if VBYTES == 32 && defined(__AVX2__)
/* AVX2: eight premultiplied samples in 32-bit lanes, as premultiplied16's
 * (the plain vector code of 16 lanes went through the stack on AVX2, and
 * the pairs took as long as the vertical pass). Each 128-bit half holds
 * whole pixels, so one in-half byte shuffle picks alpha. */
static inline __attribute__((always_inline)) __m256i premultiplied8(const uint8_t *in, const int ch)
{
    const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)in));
    /* each lane's pixel's alpha (its lane's low byte), or 0 then 1 */
    const __m256i pick = ch == 4 ? _mm256_setr_epi8(12, -1, -1, -1, 12, -1, -1, -1, 12, -1, -1, -1, -1, -1, -1, -1,
                                                    12, -1, -1, -1, 12, -1, -1, -1, 12, -1, -1, -1, -1, -1, -1, -1)
                                 : _mm256_setr_epi8(4, -1, -1, -1, -1, -1, -1, -1, 12, -1, -1, -1, -1, -1, -1, -1,
                                                    4, -1, -1, -1, -1, -1, -1, -1, 12, -1, -1, -1, -1, -1, -1, -1);
    const __m256i one = ch == 4 ? _mm256_setr_epi32(0, 0, 0, 1, 0, 0, 0, 1) : _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1);
    const __m256i a = _mm256_or_si256(_mm256_shuffle_epi8(v, pick), one);
    return _mm256_xor_si256(_mm256_mullo_epi16(v, a), _mm256_set1_epi32(0x8000));
}
#endif

#if VBYTES == 32 && defined(__AVX2__)
/* AVX2: sixteen premultiplied samples as 16-bit words (each 128-bit half
 * whole pixels, as premultiplied8's): half the multiplies and widenings
 * of two premultiplied8. */
static inline __attribute__((always_inline)) __m256i premultiplied16w(const uint8_t *in, const int ch)
{
    const __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)in));
    /* each word's pixel's alpha (its low byte), or 0 then 1 */
    const __m256i pick = ch == 4 ? _mm256_setr_epi8(6, -1, 6, -1, 6, -1, -1, -1, 14, -1, 14, -1, 14, -1, -1, -1,
                                                    6, -1, 6, -1, 6, -1, -1, -1, 14, -1, 14, -1, 14, -1, -1, -1)
                                 : _mm256_setr_epi8(2, -1, -1, -1, 6, -1, -1, -1, 10, -1, -1, -1, 14, -1, -1, -1,
                                                    2, -1, -1, -1, 6, -1, -1, -1, 10, -1, -1, -1, 14, -1, -1, -1);
    const __m256i one = ch == 4 ? _mm256_setr_epi16(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1)
                                : _mm256_setr_epi16(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1);
    const __m256i a = _mm256_or_si256(_mm256_shuffle_epi8(v, pick), one);
    return _mm256_xor_si256(_mm256_mullo_epi16(v, a), _mm256_set1_epi16((short)0x8000));
}
#endif

/* pairs of premultiplied samples, with the channels a constant: the high
 * halves are the next vector's lanes shifted in. */
static inline __attribute__((always_inline)) void premultiplied_pairs(const uint8_t *in, size_t count,
                                                                      const int ch, uint32_t *out)
{
    size_t i = 0;
#if VBYTES == 32 && defined(__AVX2__)
    /* sixteen at a time: the words of values i + ch .. i + ch + 15 are
     * those of i .. i + 31 shifted down, and interleaved with i .. i + 15
     * they are the pairs (the halves' order put right by two permutes) */
    __m256i now = premultiplied16w(in, ch);
    for (; i + 16 <= count; i += 16) {
        const __m256i next = premultiplied16w(in + i + 16, ch);
        const __m256i cross = _mm256_permute2x128_si256(now, next, 0x21);
        const __m256i high = ch == 4 ? _mm256_alignr_epi8(cross, now, 8) : _mm256_alignr_epi8(cross, now, 4);
        const __m256i lo = _mm256_unpacklo_epi16(now, high), hi = _mm256_unpackhi_epi16(now, high);
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(out + i + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
        now = next;
    }
    __m256i now8 = premultiplied8(in + i, ch);
    for (; i + 8 <= count; i += 8) {
        const __m256i next8 = premultiplied8(in + i + 8, ch);
        /* lanes 4..11 of now8:next8; for two channels, 2..9 */
        const __m256i cross = _mm256_permute2x128_si256(now8, next8, 0x21);
        const __m256i high = ch == 4 ? cross : _mm256_alignr_epi8(cross, now8, 8);
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_or_si256(now8, _mm256_slli_epi32(high, 16)));
        now8 = next8;
    }
#else
    u32x16 now, next;
    premultiplied16(in, ch, &now);
    for (; i + 16 <= count; i += 16) {
        premultiplied16(in + i + 16, ch, &next);
        const u32x16 high = ch == 4 ? GI_SHUFFLE(now, next, u32x16, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                                 14, 15, 16, 17, 18, 19)
                                    : GI_SHUFFLE(now, next, u32x16, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                 12, 13, 14, 15, 16, 17);
        const u32x16 pair = now | high << 16;
        memcpy(out + i, &pair, sizeof pair);
        now = next;
    }
#endif
    for (; i < count; i++) out[i] = premultiplied1(in, i, ch) | premultiplied1(in, i + ch, ch) << 16;
}

/* out[i] = s(i) | s(i + ch) << 16 for the bytes of whole pixels from in
 * on, s being the sample: the byte, or premultiplied (blur_kernels.h). */
static void plain_pairs(const uint8_t *in, size_t count, int ch, uint32_t *out)
{
    size_t i = 0;
#if defined(__AVX2__) /* the AVX-512 set's too */
    /* the bytes of in and in + ch interleaved and widened to 16 bits are
     * the pairs (GCC's loop widens each byte twice: AVX2's blur took 1.25
     * times as long) */
    for (; i + 16 <= count; i += 16) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(in + i));
        const __m128i b = _mm_loadu_si128((const __m128i *)(in + i + ch));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(a, b)));
        _mm256_storeu_si256((__m256i *)(out + i + 8), _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(a, b)));
    }
#endif
    for (; i < count; i++) out[i] = in[i] | (uint32_t)in[i + ch] << 16;
}

static void pairs(const uint8_t *in, size_t count, int ch, int premultiplied, uint32_t *out)
{
    if (!premultiplied)
        plain_pairs(in, count, ch, out);
    else if (ch == 4)
        premultiplied_pairs(in, count, 4, out);
    else
        premultiplied_pairs(in, count, 2, out);
}

/* The kernels work on BLOCK values at a time, G vectors, so that each
 * weight and row pointer, loaded once, serves G multiplies: 64 values on
 * AVX2 as on AVX-512 (8 sums of 16 registers; AVX2's passes took 15%
 * fewer instructions than with 4). */
#define G (VBYTES == 32 ? 8 : 4)
#define BLOCK (G * LANES)
_Static_assert(BLOCK <= BLUR_SLACK, "buffers have a block's slack");

typedef struct {
    vu32 v[G];
} block;

/* acc plus the centre's s * 2^16 where w[0] did not fit a pair's half:
 * its low half shifted up, or its high half in place. */
static inline __attribute__((always_inline)) block centre_correction(const blur_taps *t,
                                                                     const uint32_t *const *rows,
                                                                     ptrdiff_t offset, block acc,
                                                                     const int count)
{
    const uint32_t *row = rows[-t->first / 2] + offset;
    if (t->centre_half)
        for (int g = 0; g < count; g++) acc.v[g] += load(row + g * LANES) & splat(0xFFFF0000u);
    else
        for (int g = 0; g < count; g++) acc.v[g] += load(row + g * LANES) << 16;
    return acc;
}

/* start plus sum_k w[k] * s[k] for count vectors (a constant: G, or 1)
 * from offset on: the pair rows, and the centre's s * 2^16 where w[0] did
 * not fit. */
static inline __attribute__((always_inline)) block pair_sums(const blur_taps *t,
                                                             const uint32_t *const *rows,
                                                             ptrdiff_t offset, uint32_t start,
                                                             const int count)
{
    block acc;
    for (int g = 0; g < count; g++) acc.v[g] = splat(start);
    for (int p = 0; p < t->pairs; p++) {
        const uint32_t *row = rows[p] + offset;
        const vu32 w = splat(t->pair_w[p]);
        for (int g = 0; g < count; g++) acc.v[g] = madd_add(acc.v[g], load(row + g * LANES), w);
    }
    if (t->centre_high) acc = centre_correction(t, rows, offset, acc, count);
    return acc;
}

/* v (below 2^16 a lane) into the high halves of a pair row's values
 * (AVX-512: a store of the 16-bit high halves alone, instead of a load,
 * an OR and a store). */
static inline void put_high(uint32_t *row, vu32 v)
{
#if VBYTES == 64
    _mm512_mask_storeu_epi16(row, 0xAAAAAAAAu, (__m512i)(v << 16));
#else
    store(row, (load(row) & splat(0xFFFFu)) | v << 16);
#endif
}

#define MAX_PAIRS 1026 /* GI_BLUR_MAX_RADIUS + 2 */

/* The pointers to the tap pairs of value 0 around centre (step: the
 * channels), as pair_sums' rows of a 1-row "image". */
static inline void tap_rows(const blur_taps *t, const uint32_t *centre, int step, const uint32_t **taps)
{
    for (int p = 0; p < t->pairs; p++) taps[p] = centre + (ptrdiff_t)(t->first + 2 * p) * step;
}

/* h for n values from the pairs around centre, less 2^15, into the low
 * or (high) the high halves of the pair row q (blur_kernels.h). */
static void horizontal_plain(const blur_taps *t, const uint32_t *centre, int step, size_t n, uint32_t *q,
                             int high)
{
    const uint32_t *taps[MAX_PAIRS];
    tap_rows(t, centre, step, taps);
    for (size_t i = 0; i < n; i += BLOCK) {
        const block sums = pair_sums(t, taps, (ptrdiff_t)i, 128u, G);
        for (int g = 0; g < G; g++) {
            const vu32 h = (sums.v[g] >> 8) ^ 0x8000; /* h - 2^15 (h < 2^16) fits int16 */
            if (high) put_high(q + i + g * LANES, h);
            else store(q + i + g * LANES, h);
        }
    }
}

/* Premultiplied: h whole (< 2^24), as an exact float. */
static void horizontal_premultiplied(const blur_taps *t, const uint32_t *centre, int step, size_t n,
                                     float *out)
{
    const uint32_t *taps[MAX_PAIRS];
    tap_rows(t, centre, step, taps);
    for (size_t i = 0; i < n; i += BLOCK) {
        /* premultiplied samples lack 2^15 each: their sum 2^15 * 65536 */
        const block sums = pair_sums(t, taps, (ptrdiff_t)i, 128u + (1u << 31), G);
        for (int g = 0; g < G; g++) {
            const blur_vf h = __builtin_convertvector((vi32)(sums.v[g] >> 8), blur_vf);
            memcpy(out + i + g * LANES, &h, sizeof h);
        }
    }
}

/* The first count of the size values of a (each below 256; size BLOCK
 * or LANES, a constant) as bytes: a plain loop, which the compilers
 * narrow with pack instructions where it runs the whole size (a vector
 * conversion to bytes becomes one extract per lane on AVX2). */
static inline __attribute__((always_inline)) void put_bytes(const uint32_t *a, const size_t size,
                                                            size_t count, uint8_t *out)
{
    if (count >= size) {
        for (size_t t = 0; t < size; t++) out[t] = (uint8_t)a[t];
        return;
    }
    for (size_t t = 0; t < count; t++) out[t] = (uint8_t)a[t];
}

/* The vertical sums' start: h - 2^15 lacks 2^15 * 65536 = 2^31; + 2^23 rounds. */
#define VERTICAL_START ((1u << 31) + (1u << 23))

static void vertical_plain(const blur_taps *t, const uint32_t *const *rows, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i += BLOCK) {
        const block sums = pair_sums(t, rows, (ptrdiff_t)i, VERTICAL_START, G);
        uint32_t a[BLOCK];
        for (int g = 0; g < G; g++) store(a + g * LANES, sums.v[g] >> 24);
        put_bytes(a, BLOCK, n - i, out + i);
    }
}

/* Two rows at once: G2 vectors a block for each, their 2 * G2 sums and
 * the G2 vectors of a pair row in registers (16 on AVX2 and SSE2). */
#define G2 4
#define BLOCK2 (G2 * LANES)
_Static_assert(BLOCK2 <= BLUR_SLACK, "buffers have a block's slack");

static void vertical_plain2(const blur_taps *even, const blur_taps *odd, const uint32_t *const *rows,
                            size_t n, uint8_t *out_even, uint8_t *out_odd)
{
    for (size_t i = 0; i < n; i += BLOCK2) {
        block a0, a1;
        for (int g = 0; g < G2; g++) a0.v[g] = a1.v[g] = splat(VERTICAL_START);
        for (int p = 0; p < odd->pairs; p++) {
            const uint32_t *row = rows[p] + i;
            vu32 v[G2];
            for (int g = 0; g < G2; g++) v[g] = load(row + g * LANES);
            if (p < even->pairs) {
                const vu32 w = splat(even->pair_w[p]);
                for (int g = 0; g < G2; g++) a0.v[g] = madd_add(a0.v[g], v[g], w);
            }
            const vu32 w = splat(odd->pair_w[p]);
            for (int g = 0; g < G2; g++) a1.v[g] = madd_add(a1.v[g], v[g], w);
        }
        if (even->centre_high) a0 = centre_correction(even, rows, (ptrdiff_t)i, a0, G2);
        if (odd->centre_high) a1 = centre_correction(odd, rows, (ptrdiff_t)i, a1, G2);
        uint32_t b0[BLOCK2], b1[BLOCK2];
        for (int g = 0; g < G2; g++) {
            store(b0 + g * LANES, a0.v[g] >> 24);
            store(b1 + g * LANES, a1.v[g] >> 24);
        }
        put_bytes(b0, BLOCK2, n - i, out_even + i);
        put_bytes(b1, BLOCK2, n - i, out_odd + i);
    }
}

#define VBLOCK (BLUR_GROUP * LANES)
_Static_assert(VBLOCK <= BLUR_SLACK, "buffers have a block's slack");

/* The first count (up to LANES) of v's lanes, each 0..255, as bytes:
 * the set's narrowing instructions (a plain loop over a vector's lanes
 * goes through memory, and GCC makes one extract per lane of a vector
 * conversion to bytes on AVX2). */
static inline void put_lanes(blur_vi v, size_t count, uint8_t *out)
{
#if VBYTES == 64
    const __m128i bytes = _mm512_cvtepi32_epi8((__m512i)v);
    if (count >= LANES)
        _mm_storeu_si128((__m128i *)out, bytes);
    else
        _mm_mask_storeu_epi8(out, (__mmask16)((1u << count) - 1), bytes);
    return;
#elif defined(__AVX2__)
    const __m256i words = _mm256_packus_epi32((__m256i)v, (__m256i)v); /* per 128-bit half */
    const __m256i bytes = _mm256_packus_epi16(words, words);
    const __m128i both = _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1));
    uint8_t lanes[16];
    if (count >= LANES) {
        _mm_storel_epi64((__m128i *)out, both);
        return;
    }
    _mm_storeu_si128((__m128i *)lanes, both);
    memcpy(out, lanes, count);
#else
    int32_t lanes[LANES];
    memcpy(lanes, &v, sizeof lanes);
    for (size_t l = 0; l < LANES && l < count; l++) out[l] = (uint8_t)lanes[l];
#endif
}

/* The first count of a block's values (BLUR_GROUP vectors) as bytes:
 * AVX2 narrows a whole block's two vectors at once (two packs and a
 * qword permute instead of four packs and two extracts). */
static inline void put_block(const blur_vi v[BLUR_GROUP], size_t count, uint8_t *out)
{
#if VBYTES == 32 && defined(__AVX2__) && BLUR_GROUP == 2
    if (count >= VBLOCK) {
        /* words a0-3 b0-3 | a4-7 b4-7, as a0-7 | b0-7 */
        const __m256i words = _mm256_permute4x64_epi64(_mm256_packus_epi32((__m256i)v[0], (__m256i)v[1]), 0xD8);
        _mm_storeu_si128((__m128i *)out, _mm_packus_epi16(_mm256_castsi256_si128(words),
                                                           _mm256_extracti128_si256(words, 1)));
        return;
    }
#endif
    for (int g = 0; g < BLUR_GROUP && (size_t)g * LANES < count; g++)
        put_lanes(v[g], count - (size_t)g * LANES, out + g * LANES);
}

/* Values of a row whose float sums one call makes before they are
 * finished. */
#define SEGMENT (4 * VBLOCK)

/* The float sums of values offset .. offset + SEGMENT - 1 (those below n:
 * the reads stay within a block of a row's end) of nrows rows (a
 * constant) into sums, kept apart from the finish: inlined into its
 * loop, whose constants hold registers across the taps, GCC kept an AVX2
 * sum on the stack, and the store and reload in each tap's chain made
 * the sums latency-bound. */
static inline __attribute__((always_inline)) void
segment_sums(const blur_float_taps *t, const float *const *rows, size_t offset, size_t n, const int nrows,
             blur_vf sums[BLUR_ROWS][SEGMENT / LANES])
{
    for (int b = 0; b < SEGMENT && offset + b < n; b += VBLOCK) {
        blur_vf acc[BLUR_ROWS][BLUR_GROUP];
        if (t->taps <= BLUR_CHUNK) /* the same sums, without the chunks' loop (sigma up to 5) */
            blur_chunk_sums(t, rows, offset + b, nrows, 0, t->taps, acc);
        else
            blur_float_sums(t, rows, offset + b, nrows, acc);
        for (int j = 0; j < nrows; j++)
            for (int g = 0; g < BLUR_GROUP; g++) sums[j][b / LANES + g] = acc[j][g];
    }
}

/* Whether segment_sums_rows makes symmetric taps' sums with
 * blur_symmetric_sums (their bound is t->symmetric_bound). */
#if VBYTES == 32 && defined(__AVX2__)
#define SYMMETRIC_SUMS 1
#else
#define SYMMETRIC_SUMS 0
#endif

#if SYMMETRIC_SUMS && defined(__GNUC__) && !defined(__clang__)
/* GCC: blur_symmetric_sums' 14 live vectors fit AVX2's 16 registers only
 * when the scheduler weighs register pressure (without it, GCC started
 * later steps' additions early and kept three vectors on the stack) */
__attribute__((optimize("schedule-insns", "sched-pressure")))
#endif
static __attribute__((noinline)) void segment_sums_rows(const blur_float_taps *t, const float *const *rows,
                                                        size_t offset, size_t n, blur_vf sums[BLUR_ROWS][SEGMENT / LANES])
{
#if SYMMETRIC_SUMS
    /* AVX2: symmetric taps a vector at a time, their windows of rows in
     * registers (blur_symmetric_sums: the sums of 13 taps took two thirds
     * of the time; the chunks' loop issues a load of a row pointer or a
     * vector for each multiply-add, and AVX2's 16 registers hold no
     * windows for two vectors at once) */
    if (t->symmetric) {
        for (int v = 0; v < SEGMENT / LANES && offset + (size_t)v * LANES < n; v++) {
            blur_vf out[BLUR_ROWS];
            blur_symmetric_sums(t, rows, offset + (size_t)v * LANES, out);
            for (int j = 0; j < BLUR_ROWS; j++) sums[j][v] = out[j];
        }
        return;
    }
#endif
    segment_sums(t, rows, offset, n, BLUR_ROWS, sums);
}

static __attribute__((noinline)) void segment_sums_row(const blur_float_taps *t, const float *const *rows,
                                                       size_t offset, size_t n, blur_vf sums[BLUR_ROWS][SEGMENT / LANES])
{
    segment_sums(t, rows, offset, n, 1, sums);
}

#if VBYTES == 32 && defined(__AVX2__)
#define QUAD (4 * LANES)
_Static_assert(SEGMENT % QUAD == 0, "segments are whole quads");

/* blur_finish_vector's outputs for four vectors, 32 values (whole
 * pixels) from value i of a row on, into 32 bytes at out, in fewer
 * instructions per vector (AVX2: the finish took a quarter of the RGBA
 * blur's time):
 *   - one reciprocal for the alphas of all four: the alpha lanes gathered
 *     into one vector (4 channels: 8 pixels; 2 channels: two vectors of
 *     8), blur_reciprocal's steps on it, and each vector's lanes picked
 *     back out of it;
 *   - q capped at 255.75 before the ends are made (blur_finish.h: the
 *     same outputs and the same undecided lanes), so that both ends
 *     truncate into 0 .. 255 and one compare finds the undecided lanes;
 *   - one test for all four vectors, and one narrowing of all four. */
static inline __attribute__((always_inline)) void finish_quad(const blur_float_taps *t, const float *const *rows,
                                                               size_t i, const blur_vf *acc, blur_vf low,
                                                               blur_vf high, const int ch, uint8_t *out)
{
    const __m256 a0 = (__m256)acc[0], a1 = (__m256)acc[1], a2 = (__m256)acc[2], a3 = (__m256)acc[3];
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    __m256 r[4];
    if (ch == 4) {
        /* lanes a0 a2 a1 a3 of the first pixels | of the second */
        const __m256 va = _mm256_blend_ps(_mm256_shuffle_ps(a0, a1, 0xFF), _mm256_shuffle_ps(a2, a3, 0xFF), 0xAA);
        const __m256 e = _mm256_rcp_ps(va);
        const __m256 rv = _mm256_and_ps(_mm256_fmadd_ps(e, _mm256_fnmadd_ps(va, e, one), e),
                                        _mm256_cmp_ps(va, zero, _CMP_GT_OQ));
        r[0] = _mm256_permute_ps(rv, 0x00);
        r[1] = _mm256_permute_ps(rv, 0xAA);
        r[2] = _mm256_permute_ps(rv, 0x55);
        r[3] = _mm256_permute_ps(rv, 0xFF);
    } else {
        for (int h = 0; h < 2; h++) {
            const __m256 x = h ? a2 : a0, y = h ? a3 : a1;
            /* x's alphas 1 3, y's 1 3 | x's 5 7, y's 5 7 */
            const __m256 va = _mm256_shuffle_ps(x, y, 0xDD);
            const __m256 e = _mm256_rcp_ps(va);
            const __m256 rv = _mm256_and_ps(_mm256_fmadd_ps(e, _mm256_fnmadd_ps(va, e, one), e),
                                            _mm256_cmp_ps(va, zero, _CMP_GT_OQ));
            r[2 * h] = _mm256_permute_ps(rv, 0x50);
            r[2 * h + 1] = _mm256_permute_ps(rv, 0xFA);
        }
    }
    const __m256 r_alpha = _mm256_set1_ps(0x1p-24f), half = _mm256_set1_ps(0.5f), cap = _mm256_set1_ps(255.75f);
    const __m256 a[4] = {a0, a1, a2, a3};
    __m256i v[4], same[4];
    for (int g = 0; g < 4; g++) {
        /* the blend's mask must be a constant to clang, not just to GCC */
        const __m256 rg = ch == 4 ? _mm256_blend_ps(r[g], r_alpha, 0x88)
                                  : _mm256_blend_ps(r[g], r_alpha, 0xAA);
        const __m256 q = _mm256_min_ps(_mm256_fmadd_ps(a[g], rg, half), cap);
        v[g] = _mm256_cvttps_epi32(_mm256_mul_ps(q, (__m256)low));
        same[g] = _mm256_cmpeq_epi32(v[g], _mm256_cvttps_epi32(_mm256_mul_ps(q, (__m256)high)));
    }
    const __m256i all = _mm256_and_si256(_mm256_and_si256(same[0], same[1]), _mm256_and_si256(same[2], same[3]));
    if (__builtin_expect(_mm256_movemask_ps((__m256)all) != 0xFF, 0))
        for (int g = 0; g < 4; g++) {
            const unsigned unsure = (unsigned)_mm256_movemask_ps((__m256)same[g]) ^ 0xFFu;
            if (unsure) v[g] = (__m256i)blur_exact_vector(t, rows, i + (size_t)g * LANES, ch);
        }
    /* words 0-3 of v0, v1 | 4-7 of v0, v1; bytes of v0 v1 v2 v3 (0-3) | (4-7) */
    const __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(v[0], v[1]), _mm256_packus_epi32(v[2], v[3]));
    _mm256_storeu_si256((__m256i *)out, _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}
#endif

/* The outputs of values s0 .. s0 + count - 1 of an output row (its h rows
 * from rows[0] on) from their float sums; count is SEGMENT, a constant
 * (the loop unrolled, no test per vector), or a row's rest. */
static inline __attribute__((always_inline)) void
finish_row(const blur_float_taps *t, const float *const *rows, const blur_vf *sums, size_t s0, const size_t count,
           blur_vf low, blur_vf high, const int ch, uint8_t *out)
{
#if VBYTES == 32 && defined(__AVX2__)
    if (count == SEGMENT) {
        for (size_t b = 0; b < count; b += QUAD)
            finish_quad(t, rows, s0 + b, sums + b / LANES, low, high, ch, out + s0 + b);
        return;
    }
#endif
    for (size_t b = 0; b < count; b += VBLOCK) {
        blur_vi v[BLUR_GROUP] = {{0}};
        for (int g = 0; g < BLUR_GROUP; g++)
            if (b + g * LANES < count)
                v[g] = blur_finish_vector(t, rows, s0 + b + g * LANES, sums[b / LANES + g], low, high, ch);
        put_block(v, count - b, out + s0 + b);
    }
}

/* The premultiplied blur's vertical pass and finish (blur_finish.h) for
 * nrows output rows (a constant), with the channels a constant: the
 * finish's lane patterns without a test per vector. */
static inline __attribute__((always_inline)) void
premultiplied_rows(const blur_float_taps *t, const float *const *rows, size_t pixels, const int ch,
                   uint8_t *const *out, const int nrows)
{
    const size_t n = pixels * ch;
    /* made here: the bytes stored below could alias t->bound */
    const float bound = SYMMETRIC_SUMS && nrows == BLUR_ROWS && t->symmetric ? t->symmetric_bound : t->bound;
    const blur_vf low = blur_splatf(1.0f - bound), high = blur_splatf(1.0f + bound);
    uint8_t *dst[BLUR_ROWS]; /* here, not reloaded after each store */
    for (int j = 0; j < nrows; j++) dst[j] = out[j];
    for (size_t s0 = 0; s0 < n; s0 += SEGMENT) {
        blur_vf sums[BLUR_ROWS][SEGMENT / LANES];
        if (nrows == BLUR_ROWS)
            segment_sums_rows(t, rows, s0, n, sums);
        else
            segment_sums_row(t, rows, s0, n, sums);
        for (int j = 0; j < nrows; j++) {
            if (n - s0 >= SEGMENT)
                finish_row(t, rows + j, sums[j], s0, SEGMENT, low, high, ch, dst[j]);
            else
                finish_row(t, rows + j, sums[j], s0, n - s0, low, high, ch, dst[j]);
        }
    }
}

/* BLUR_ROWS rows at once; fewer (a band's last) one by one. */
static void vertical_premultiplied(const blur_float_taps *t, const float *const *rows, size_t pixels,
                                   int ch, uint8_t *const *out, int nrows)
{
    if (nrows == BLUR_ROWS) {
        if (ch == 4)
            premultiplied_rows(t, rows, pixels, 4, out, BLUR_ROWS);
        else
            premultiplied_rows(t, rows, pixels, 2, out, BLUR_ROWS);
        return;
    }
    for (int j = 0; j < nrows; j++) {
        if (ch == 4)
            premultiplied_rows(t, rows + j, pixels, 4, out + j, 1);
        else
            premultiplied_rows(t, rows + j, pixels, 2, out + j, 1);
    }
}

/* ---- 16 bits, plain (blur_kernels.h) ---- */

#if VBYTES == 64
/* pairs16's two stores of 32 pairs, from words a (the low halves) and b. */
static inline __attribute__((always_inline)) void put_pairs32(__m512i a, __m512i b, uint32_t *out)
{
    /* interleaved per 128-bit lane, then the lanes' qwords put in order */
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    const __m512i lo = _mm512_unpacklo_epi16(a, b), hi = _mm512_unpackhi_epi16(a, b);
    _mm512_storeu_si512(out, _mm512_permutex2var_epi64(lo, first, hi));
    _mm512_storeu_si512(out + 16, _mm512_permutex2var_epi64(lo, second, hi));
}
#endif
#if defined(__AVX2__) /* the AVX-512 set's too */
/* pairs16's two stores of 16 pairs, from words a (the low halves) and b. */
static inline __attribute__((always_inline)) void put_pairs16(__m256i a, __m256i b, uint32_t *out)
{
    /* interleaved per 128-bit half, then the halves put in order */
    const __m256i lo = _mm256_unpacklo_epi16(a, b), hi = _mm256_unpackhi_epi16(a, b);
    _mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(out + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
}
#endif

/* out[i] = (u[i] - 2^15) | (u[i + ch] - 2^15) << 16, the samples offset
 * to fit int16; reads u[0 .. count + ch) and no further. */
static void pairs16(const uint16_t *in, size_t count, int ch, uint32_t *out)
{
    size_t i = 0;
#if VBYTES == 64
    const __m512i offset16 = _mm512_set1_epi16((short)0x8000);
    for (; i + 32 <= count; i += 32)
        put_pairs32(_mm512_xor_si512(_mm512_loadu_si512(in + i), offset16),
                    _mm512_xor_si512(_mm512_loadu_si512(in + i + ch), offset16), out + i);
#endif
#if defined(__AVX2__) /* the AVX-512 set's too: the last 16 */
    const __m256i offset = _mm256_set1_epi16((short)0x8000);
    for (; i + 16 <= count; i += 16)
        put_pairs16(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(in + i)), offset),
                    _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(in + i + ch)), offset), out + i);
#endif
    for (; i < count; i++) out[i] = (uint32_t)(in[i] ^ 0x8000u) | (uint32_t)(in[i + ch] ^ 0x8000u) << 16;
}

/* An h's two halves (each below 2^16) into the pair rows hi and lo: an
 * even row's into the low halves (the high halves zeroed), an odd row's
 * (high 1) into the high halves. */
static inline void put_split(uint32_t *hi, uint32_t *lo, vu32 top, vu32 low, int high)
{
    if (high) {
        put_high(hi, top);
        put_high(lo, low);
    } else {
        store(hi, top);
        store(lo, low);
    }
}

/* h = (sum + 128) >> 8 (< 2^24) for n values from the pairs around
 * centre: the samples lack 2^15 each, their sum 2^15 * 65536 = 2^31, so
 * the sum modulo 2^32 starts there; the true sum is below 2^32 - 2^16.
 * h's bits from 8 up, less 2^15, go into the pair row hi, its low byte
 * into lo, an even row into the low halves (the high halves zeroed), an
 * odd row (high 1) into the high halves. */
static void horizontal16(const blur_taps *t, const uint32_t *centre, int step, size_t n, uint32_t *hi,
                         uint32_t *lo, int high)
{
    const uint32_t *taps[MAX_PAIRS];
    tap_rows(t, centre, step, taps);
    for (size_t i = 0; i < n; i += BLOCK) {
        const block sums = pair_sums(t, taps, (ptrdiff_t)i, (1u << 31) + 128u, G);
        for (int g = 0; g < G; g++) {
            const vu32 h = sums.v[g] >> 8;
            put_split(hi + i + g * LANES, lo + i + g * LANES, (h >> 8) ^ 0x8000, h & 0xFF, high);
        }
    }
}

/* out = (v + 2^23) >> 24 with v = 2^8 a + b, a = sum_k w[k] hh (< 2^32,
 * from the hi pair rows, whose h's lack 2^15 each: 2^31 in all) and b =
 * sum_k w[k] hl (< 2^24): 2^8 a + b + 2^23 = 2^24 (a >> 16) + (2^8 (a &
 * 0xFFFF) + b + 2^23), the second term below 2^26. */
static inline vu32 finish16(vu32 a, vu32 b)
{
    return (a >> 16) + ((((a & 0xFFFF) << 8) + b + (1u << 23)) >> 24);
}

/* The first count (up to 2 * LANES) of the values of two vectors (each
 * below 2^16) as uint16: AVX2 packs them (a plain loop over the lanes
 * went through memory). */
static inline void put_words2(vu32 v0, vu32 v1, size_t count, uint16_t *out)
{
#if VBYTES == 64
    /* packus works within 128-bit lanes: qwords v0 0-3, v1 0-3, v0 4-7, ...;
     * one permute puts v0's four before v1's. Through memory and a plain
     * loop (below) this took the 16-bit blur longer than AVX2's. */
    const __m512i words = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7),
                                                   _mm512_packus_epi32((__m512i)v0, (__m512i)v1));
    const __mmask32 keep = count >= 2 * LANES ? ~(__mmask32)0 : (__mmask32)((1u << count) - 1);
    _mm512_mask_storeu_epi16(out, keep, words);
    return;
#elif VBYTES == 32 && defined(__AVX2__)
    if (count >= 2 * LANES) {
        /* words v0 0-3, v1 0-3 | v0 4-7, v1 4-7, as v0 0-7 | v1 0-7 */
        const __m256i words = _mm256_permute4x64_epi64(_mm256_packus_epi32((__m256i)v0, (__m256i)v1), 0xD8);
        _mm256_storeu_si256((__m256i *)out, words);
        return;
    }
#endif
    uint32_t a[2 * LANES];
    store(a, v0);
    store(a + LANES, v1);
    for (size_t t = 0; t < 2 * LANES && t < count; t++) out[t] = (uint16_t)a[t];
}

/* The hi and lo sums of count vectors (a constant) from offset on: each
 * pair row's hi and lo vectors loaded together, one pass over the taps;
 * hi's values lack 2^15 each (2^31 in all), lo's sum starts at lo_start. */
static inline __attribute__((always_inline)) void split_sums(const blur_taps *t, const uint32_t *const *rows,
                                                             ptrdiff_t offset, ptrdiff_t lo_offset,
                                                             uint32_t lo_start, const int count, block *a,
                                                             block *b)
{
    for (int g = 0; g < count; g++) {
        a->v[g] = splat(1u << 31);
        b->v[g] = splat(lo_start);
    }
    for (int p = 0; p < t->pairs; p++) {
        const uint32_t *row = rows[p] + offset;
        const vu32 w = splat(t->pair_w[p]);
        for (int g = 0; g < count; g++) {
            a->v[g] = madd_add(a->v[g], load(row + g * LANES), w);
            b->v[g] = madd_add(b->v[g], load(row + lo_offset + g * LANES), w);
        }
    }
    if (t->centre_high) {
        *a = centre_correction(t, rows, offset, *a, count);
        *b = centre_correction(t, rows, offset + lo_offset, *b, count);
    }
}

/* One output row from the pair rows: hi at rows[p], lo lo_offset
 * values on. */
static void vertical16(const blur_taps *t, const uint32_t *const *rows, size_t lo_offset, size_t n,
                       uint16_t *out)
{
    for (size_t i = 0; i < n; i += 4 * LANES) {
        block a, b;
        split_sums(t, rows, (ptrdiff_t)i, (ptrdiff_t)lo_offset, 0, 4, &a, &b);
        for (int g = 0; g < 4; g += 2)
            if (i + g * LANES < n)
                put_words2(finish16(a.v[g], b.v[g]), finish16(a.v[g + 1], b.v[g + 1]), n - i - g * LANES,
                           out + i + g * LANES);
    }
}

/* The sums of an even output row (a0, b0) and of the row below it (a1,
 * b1) from the same pair rows, as vertical_plain2's: two vectors a block,
 * so that the eight sums (hi and lo of both rows) and the four vectors of
 * a pair row stay in AVX2's sixteen registers. */
#define G16 2
static inline __attribute__((always_inline)) void split_sums2(const blur_taps *even, const blur_taps *odd,
                                                              const uint32_t *const *rows, size_t i,
                                                              size_t lo_offset, uint32_t lo_start,
                                                              block *a0, block *b0, block *a1, block *b1)
{
    for (int g = 0; g < G16; g++) {
        a0->v[g] = a1->v[g] = splat(1u << 31);
        b0->v[g] = b1->v[g] = splat(lo_start);
    }
    for (int p = 0; p < odd->pairs; p++) {
        const uint32_t *row = rows[p] + i;
        vu32 h[G16], l[G16];
        for (int g = 0; g < G16; g++) {
            h[g] = load(row + g * LANES);
            l[g] = load(row + lo_offset + g * LANES);
        }
        if (p < even->pairs) {
            const vu32 w = splat(even->pair_w[p]);
            for (int g = 0; g < G16; g++) {
                a0->v[g] = madd_add(a0->v[g], h[g], w);
                b0->v[g] = madd_add(b0->v[g], l[g], w);
            }
        }
        const vu32 w = splat(odd->pair_w[p]);
        for (int g = 0; g < G16; g++) {
            a1->v[g] = madd_add(a1->v[g], h[g], w);
            b1->v[g] = madd_add(b1->v[g], l[g], w);
        }
    }
    if (even->centre_high) {
        *a0 = centre_correction(even, rows, (ptrdiff_t)i, *a0, G16);
        *b0 = centre_correction(even, rows, (ptrdiff_t)(i + lo_offset), *b0, G16);
    }
    if (odd->centre_high) {
        *a1 = centre_correction(odd, rows, (ptrdiff_t)i, *a1, G16);
        *b1 = centre_correction(odd, rows, (ptrdiff_t)(i + lo_offset), *b1, G16);
    }
}

/* An even output row and the row below it, as vertical_plain2. */
static void vertical16x2(const blur_taps *even, const blur_taps *odd, const uint32_t *const *rows,
                         size_t lo_offset, size_t n, uint16_t *out_even, uint16_t *out_odd)
{
    for (size_t i = 0; i < n; i += G16 * LANES) {
        block a0, a1, b0, b1;
        split_sums2(even, odd, rows, i, lo_offset, 0, &a0, &b0, &a1, &b1);
        put_words2(finish16(a0.v[0], b0.v[0]), finish16(a0.v[1], b0.v[1]), n - i, out_even + i);
        put_words2(finish16(a1.v[0], b1.v[0]), finish16(a1.v[1], b1.v[1]), n - i, out_odd + i);
    }
}

/* ---- 16 bits with alpha (blur16.c) ----
 *
 * The premultiplied samples u = c a (< 2^32) go in as two pair streams,
 * their high and low 16 bits (alpha: a and 0), each less 2^15 (pairs16).
 * With u = 2^16 uh + ul, sum_k w[k] u = 2^16 SH + SL, so colour's h =
 * (sum + 2^15) >> 16 is SH + ((SL + 2^15) >> 16), with SL + 2^15 below
 * 2^32; alpha's h, the sum itself, is SH (its SL is 0). h (< 2^32) goes
 * into two pair rows, its high and low 16 bits, each less 2^15, and the
 * vertical sums of the two, A and B (each below 2^32), make v = 2^16 A +
 * B (below 2^48), which blur16_finish.h takes as an exact double for the
 * colour's division and alpha's rounding. */

/* The premultiplied sample of value i (ch 2 or 4 channels, alpha last):
 * c a, or alpha's a 2^16 (its high half a, its low half 0). */
static inline uint32_t premultiplied16p(const uint16_t *in, size_t i, const int ch)
{
    const size_t alpha = i - i % (size_t)ch + (size_t)ch - 1;
    return i == alpha ? (uint32_t)in[i] << 16 : (uint32_t)in[i] * in[alpha];
}

#if VBYTES == 64
/* The premultiplied samples of 32 values (whole pixels) at in, their high
 * and low halves, each less 2^15: the words multiplied by their pixel's
 * alpha (broadcast in each 4- or 8-byte pixel by a byte shuffle), high
 * and low halves of the products apart. */
static inline __attribute__((always_inline)) void premultiplied32(const uint16_t *in, const int ch, __m512i *high,
                                                                  __m512i *low)
{
    const __m512i pick = ch == 4 ? _mm512_broadcast_i32x4(_mm_setr_epi8(6, 7, 6, 7, 6, 7, 6, 7, 14, 15, 14, 15, 14, 15, 14, 15))
                                 : _mm512_broadcast_i32x4(_mm_setr_epi8(2, 3, 2, 3, 6, 7, 6, 7, 10, 11, 10, 11, 14, 15, 14, 15));
    const __mmask32 alpha = ch == 4 ? 0x88888888u : 0xAAAAAAAAu;
    const __m512i offset = _mm512_set1_epi16((short)0x8000);
    const __m512i v = _mm512_loadu_si512(in), a = _mm512_shuffle_epi8(v, pick);
    *high = _mm512_xor_si512(_mm512_mask_blend_epi16(alpha, _mm512_mulhi_epu16(v, a), v), offset);
    *low = _mm512_xor_si512(_mm512_maskz_mov_epi16(~alpha, _mm512_mullo_epi16(v, a)), offset);
}
#elif defined(__AVX2__)
/* premultiplied32's 16 values. */
static inline __attribute__((always_inline)) void premultiplied16x(const uint16_t *in, const int ch, __m256i *high,
                                                                   __m256i *low)
{
    const __m256i pick = ch == 4 ? _mm256_setr_epi8(6, 7, 6, 7, 6, 7, 6, 7, 14, 15, 14, 15, 14, 15, 14, 15,
                                                    6, 7, 6, 7, 6, 7, 6, 7, 14, 15, 14, 15, 14, 15, 14, 15)
                                 : _mm256_setr_epi8(2, 3, 2, 3, 6, 7, 6, 7, 10, 11, 10, 11, 14, 15, 14, 15,
                                                    2, 3, 2, 3, 6, 7, 6, 7, 10, 11, 10, 11, 14, 15, 14, 15);
    const __m256i offset = _mm256_set1_epi16((short)0x8000), zero = _mm256_setzero_si256();
    const __m256i v = _mm256_loadu_si256((const __m256i *)in), a = _mm256_shuffle_epi8(v, pick);
    const __m256i hi = _mm256_mulhi_epu16(v, a), lo = _mm256_mullo_epi16(v, a);
    *high = _mm256_xor_si256(ch == 4 ? _mm256_blend_epi16(hi, v, 0x88) : _mm256_blend_epi16(hi, v, 0xAA), offset);
    *low = _mm256_xor_si256(ch == 4 ? _mm256_blend_epi16(lo, zero, 0x88) : _mm256_blend_epi16(lo, zero, 0xAA), offset);
}
#endif

/* pairs16's pairs of the premultiplied samples (alpha: a 2^16), of their
 * high halves into high and of their low halves into low, straight from
 * the 16-bit samples (the halves went through two rows of their own, and
 * each was read again for its pairs: 16% of the RGBA blur's time on Zen
 * 4); reads in[0 .. count + ch) and no further. AVX-512 takes the
 * partners, ch values on, from the next block's products (valignd) where
 * that block is whole; AVX2 multiplies them again. */
#define PAIRS16P_BLOCK 256 /* values: whole pixels */

static inline __attribute__((always_inline)) void pairs16p_ch(const uint16_t *in, size_t count, const int ch,
                                                              uint32_t *high, uint32_t *low)
{
    size_t i = 0;
#if VBYTES == 64
    if (count + ch >= 64) {
        __m512i h, l;
        premultiplied32(in, ch, &h, &l);
        for (; i + 64 <= count + ch; i += 32) {
            __m512i hn, ln;
            premultiplied32(in + i + 32, ch, &hn, &ln);
            const __m512i hs = ch == 4 ? _mm512_alignr_epi32(hn, h, 2) : _mm512_alignr_epi32(hn, h, 1);
            const __m512i ls = ch == 4 ? _mm512_alignr_epi32(ln, l, 2) : _mm512_alignr_epi32(ln, l, 1);
            put_pairs32(h, hs, high + i);
            put_pairs32(l, ls, low + i);
            h = hn;
            l = ln;
        }
    }
#elif defined(__AVX2__)
    for (; i + 16 <= count; i += 16) {
        __m256i h, l, hs, ls;
        premultiplied16x(in + i, ch, &h, &l);
        premultiplied16x(in + i + ch, ch, &hs, &ls);
        put_pairs16(h, hs, high + i);
        put_pairs16(l, ls, low + i);
    }
#endif
    /* the rest a block at a time: each product once, then the pairs (a
     * loop the compilers vectorize; with each product made twice, the
     * base set's blur took 1.15 times as long) */
    uint32_t u[PAIRS16P_BLOCK + 4];
    for (; i < count; i += PAIRS16P_BLOCK) {
        const size_t m = count - i < PAIRS16P_BLOCK ? count - i : PAIRS16P_BLOCK;
        for (size_t k = 0; k < m + ch; k++) u[k] = premultiplied16p(in, i + k, ch) ^ 0x80008000u;
        for (size_t k = 0; k < m; k++) {
            high[i + k] = (u[k] >> 16) | (u[k + ch] & 0xFFFF0000u);
            low[i + k] = (u[k] & 0xFFFFu) | u[k + ch] << 16;
        }
    }
}

static void pairs16p(const uint16_t *in, size_t count, int ch, uint32_t *high, uint32_t *low)
{
    if (ch == 4) pairs16p_ch(in, count, 4, high, low);
    else pairs16p_ch(in, count, 2, high, low);
}

/* GP vectors a block: the two streams' sums in AVX2's sixteen registers. */
#define GP (VBYTES == 32 ? 4 : G)

#if VBYTES == 64
/* dwords s .. s + 15 of a then b (s a constant). */
#define TAP_VECTOR(a, b, s) ((vu32)_mm512_alignr_epi32((b), (a), (s)))

/* pair_sums' G vectors for one of pairs16p's streams, whose taps' pairs
 * start on cache lines every 16 / (2 ch) taps (blur16.c aligns the first;
 * tap p lies 2 p ch values on): a line's G + 1 vectors loaded once, and
 * the taps between taken from two of them by valignd. A 64-byte load off
 * a line's start reads two lines, which three taps in four of gray+alpha
 * did: its horizontal pass took 1.16 times as long (RGBA's, one in two,
 * the same). Reads G + 1 vectors from the last line's start. */
static inline __attribute__((always_inline)) block line_sums(const blur_taps *t, const uint32_t *const *taps,
                                                             ptrdiff_t offset, uint32_t start, const int ch)
{
    block acc;
    for (int g = 0; g < G; g++) acc.v[g] = splat(start);
    for (int p = 0; p < t->pairs; p += 8 / ch) {
        __m512i v[G + 1];
        for (int g = 0; g <= G; g++) v[g] = _mm512_load_si512(taps[p] + offset + g * LANES);
        vu32 w = splat(t->pair_w[p]);
        for (int g = 0; g < G; g++) acc.v[g] = madd_add(acc.v[g], (vu32)v[g], w);
        if (p + 1 == t->pairs) break;
        w = splat(t->pair_w[p + 1]);
        for (int g = 0; g < G; g++)
            acc.v[g] = madd_add(acc.v[g], ch == 4 ? TAP_VECTOR(v[g], v[g + 1], 8) : TAP_VECTOR(v[g], v[g + 1], 4), w);
        if (ch == 4 || p + 2 == t->pairs) continue;
        w = splat(t->pair_w[p + 2]);
        for (int g = 0; g < G; g++) acc.v[g] = madd_add(acc.v[g], TAP_VECTOR(v[g], v[g + 1], 8), w);
        if (p + 3 == t->pairs) break;
        w = splat(t->pair_w[p + 3]);
        for (int g = 0; g < G; g++) acc.v[g] = madd_add(acc.v[g], TAP_VECTOR(v[g], v[g + 1], 12), w);
    }
    if (t->centre_high) acc = centre_correction(t, taps, offset, acc, G);
    return acc;
}
#endif

/* AVX-512: the channels a constant, for line_sums. */
static inline __attribute__((always_inline)) void horizontal16p_ch(const blur_taps *t, const uint32_t *centre_h,
                                                                   const uint32_t *centre_l, const int ch, size_t n,
                                                                   uint32_t *hi, uint32_t *lo, int high)
{
    const uint32_t *taps_h[MAX_PAIRS], *taps_l[MAX_PAIRS];
    tap_rows(t, centre_h, ch, taps_h);
    tap_rows(t, centre_l, ch, taps_l);
    for (size_t i = 0; i < n; i += GP * LANES) {
#if VBYTES == 64
        const block sh = line_sums(t, taps_h, (ptrdiff_t)i, 1u << 31, ch);
        const block sl = line_sums(t, taps_l, (ptrdiff_t)i, (1u << 31) + (1u << 15), ch);
#else
        const block sh = pair_sums(t, taps_h, (ptrdiff_t)i, 1u << 31, GP);
        const block sl = pair_sums(t, taps_l, (ptrdiff_t)i, (1u << 31) + (1u << 15), GP);
#endif
        for (int g = 0; g < GP; g++) {
            const vu32 h = sh.v[g] + (sl.v[g] >> 16);
            put_split(hi + i + g * LANES, lo + i + g * LANES, (h >> 16) ^ 0x8000, (h & 0xFFFF) ^ 0x8000,
                      high);
        }
    }
}

static void horizontal16p(const blur_taps *t, const uint32_t *centre_h, const uint32_t *centre_l,
                          int step, size_t n, uint32_t *hi, uint32_t *lo, int high)
{
    if (step == 4) horizontal16p_ch(t, centre_h, centre_l, 4, n, hi, lo, high);
    else horizontal16p_ch(t, centre_h, centre_l, 2, n, hi, lo, high);
}

/* The outputs of a block's first count values (whole pixels) from its
 * count vectors of hi and lo sums, v = 2^16 a + b (blur16_finish.h): the
 * sums go through buffers that stay in L1 (a row of them, in doubles 16
 * times the output's bytes, went through L2 and was read again by a loop
 * of its own). */
static inline __attribute__((always_inline)) void finish_block(const block *a, const block *b,
                                                               const int count, size_t values, int ch,
                                                               uint16_t *out)
{
    uint32_t hi[4 * LANES] __attribute__((aligned(64))), lo[4 * LANES] __attribute__((aligned(64)));
    for (int g = 0; g < count; g++) {
        store(hi + g * LANES, a->v[g]);
        store(lo + g * LANES, b->v[g]);
    }
    blur16_finish_row(hi, lo, values < (size_t)count * LANES ? values : (size_t)count * LANES, ch, out);
}

/* CH a constant in each of the functions below, so that the finish's
 * shuffles, masks and word orders are too (not a test of ch and a table
 * set up at each block) */
static inline __attribute__((always_inline)) void vertical16p_ch(const blur_taps *t, const uint32_t *const *rows,
                                                                 size_t lo_offset, size_t n, const int ch,
                                                                 uint16_t *out)
{
    for (size_t i = 0; i < n; i += 4 * LANES) {
        block a, b;
        split_sums(t, rows, (ptrdiff_t)i, (ptrdiff_t)lo_offset, 1u << 31, 4, &a, &b);
        finish_block(&a, &b, 4, n - i, ch, out + i);
    }
}

static void vertical16p(const blur_taps *t, const uint32_t *const *rows, size_t lo_offset, size_t n,
                        int ch, uint16_t *out)
{
    if (ch == 4) vertical16p_ch(t, rows, lo_offset, n, 4, out);
    else vertical16p_ch(t, rows, lo_offset, n, 2, out);
}

static inline __attribute__((always_inline)) void vertical16px2_ch(const blur_taps *even, const blur_taps *odd,
                                                                   const uint32_t *const *rows, size_t lo_offset,
                                                                   size_t n, const int ch, uint16_t *out_even,
                                                                   uint16_t *out_odd)
{
    for (size_t i = 0; i < n; i += G16 * LANES) {
        block a0, a1, b0, b1;
        split_sums2(even, odd, rows, i, lo_offset, 1u << 31, &a0, &b0, &a1, &b1);
        finish_block(&a0, &b0, G16, n - i, ch, out_even + i);
        finish_block(&a1, &b1, G16, n - i, ch, out_odd + i);
    }
}

static void vertical16px2(const blur_taps *even, const blur_taps *odd, const uint32_t *const *rows,
                          size_t lo_offset, size_t n, int ch, uint16_t *out_even, uint16_t *out_odd)
{
    if (ch == 4) vertical16px2_ch(even, odd, rows, lo_offset, n, 4, out_even, out_odd);
    else vertical16px2_ch(even, odd, rows, lo_offset, n, 2, out_even, out_odd);
}

const blur_kernels GI_BLUR_KERNELS = {pairs,          horizontal_plain, horizontal_premultiplied,
                                      vertical_plain, vertical_plain2,  vertical_premultiplied,
                                      pairs16,        horizontal16,     vertical16,
                                      vertical16x2,   pairs16p,         horizontal16p,
                                      vertical16p,    vertical16px2};
