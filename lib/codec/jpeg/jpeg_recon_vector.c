/* The arithmetic kernels (jpeg_recon_kernels.h) for one instruction set:
 * meson compiles this file once per set, each with GI_JPEG_RECON naming
 * its table (SSE2 or NEON as the base, AVX2, AVX-512). GCC vector code,
 * with intrinsics where GCC derives no good instruction from it (madd,
 * saturating packs, widening, lane moves; the blur's kernels do the same);
 * the upsamplers are plain loops without a carried dependency, which GCC
 * vectorizes at -O3. Integer arithmetic throughout: every set gives the
 * scalar set's bytes (jpeg_recon_scalar.c, the definition), and the test
 * compares each with stb. */
#include <string.h>

#include "jpeg_recon_idct.h"
#include "jpeg_recon_kernels.h"
#include "base/vector_shuffle.h"

#ifndef GI_JPEG_RECON
#define GI_JPEG_RECON gi__jpeg_recon_base
#endif

/* Every function here but the table is static and takes vectors only from
 * its own file, so GCC's note that 32-byte vectors are passed differently
 * with AVX does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

/* ---- IDCT: stb's SSE2 IDCT, a block per 128 bits ----
 *
 * Each 128-bit lane holds a row of one block, so an AVX2 register works
 * on 2 blocks: every step below acts within 128-bit lanes (madd, packs,
 * unpacks), as stb's SSE2 code does on one block. The AVX-512 set works on
 * 256-bit registers too: with 4 blocks to a register, fewer groups are
 * all flat (below), and it took 12.1 ms of CPU for a 8.7 MP 4:4:4 photo
 * where 2 blocks take 10.6 (AVX2's code, 11.0).
 * The arithmetic is the scalar idct_1d's, arranged as stb arranges it:
 * the pairs of inputs that share products interleaved in 16 bits and
 * multiplied by pairs of constants with pmaddwd. */
#if defined(__AVX2__) /* AVX-512 too: see above */
#include <immintrin.h>
#define VBYTES 32
#elif defined(__SSE2__)
#include <emmintrin.h>
#define VBYTES 16
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#define VBYTES 16
#else
#define VBYTES 16
#endif
#define BLOCKS (VBYTES / 16) /* blocks a vector holds */

typedef int16_t vs16 __attribute__((vector_size(VBYTES)));
typedef uint16_t vu16 __attribute__((vector_size(VBYTES)));
typedef int32_t vs32 __attribute__((vector_size(VBYTES)));
typedef uint32_t vu32 __attribute__((vector_size(VBYTES)));
typedef uint8_t vu8 __attribute__((vector_size(VBYTES)));
typedef int16_t mask16 __attribute__((vector_size(16)));

#if VBYTES == 32
#define IV(x) ((__m256i)(x))
#define UNPACKLO16(a, b) ((vs16)_mm256_unpacklo_epi16(IV(a), IV(b)))
#define UNPACKHI16(a, b) ((vs16)_mm256_unpackhi_epi16(IV(a), IV(b)))
#define MADD(a, b) ((vs32)_mm256_madd_epi16(IV(a), IV(b)))
#define PACKS32(a, b) ((vs16)_mm256_packs_epi32(IV(a), IV(b)))
#define PACKUS16(a, b) ((vu8)_mm256_packus_epi16(IV(a), IV(b)))
#elif defined(__SSE2__)
#define IV(x) ((__m128i)(x))
#define UNPACKLO16(a, b) ((vs16)_mm_unpacklo_epi16(IV(a), IV(b)))
#define UNPACKHI16(a, b) ((vs16)_mm_unpackhi_epi16(IV(a), IV(b)))
#define MADD(a, b) ((vs32)_mm_madd_epi16(IV(a), IV(b)))
#define PACKS32(a, b) ((vs16)_mm_packs_epi32(IV(a), IV(b)))
#define PACKUS16(a, b) ((vu8)_mm_packus_epi16(IV(a), IV(b)))
#else /* 16 bytes in GCC vector code; NEON where there is NEON */
#define UNPACKLO16(a, b) GI_SHUFFLE(a, b, mask16, 0, 8, 1, 9, 2, 10, 3, 11)
#define UNPACKHI16(a, b) GI_SHUFFLE(a, b, mask16, 4, 12, 5, 13, 6, 14, 7, 15)
static inline vs32 MADD(vs16 a, vs16 b)
{
#if defined(__ARM_NEON) && defined(__aarch64__)
    return (vs32)vpaddq_s32(vmull_s16(vget_low_s16((int16x8_t)a), vget_low_s16((int16x8_t)b)),
                            vmull_high_s16((int16x8_t)a, (int16x8_t)b));
#else
    vs32 even = ((vs32)((vu32)a << 16) >> 16) * ((vs32)((vu32)b << 16) >> 16);
    return (vs32)((vu32)even + (vu32)(((vs32)a >> 16) * ((vs32)b >> 16)));
#endif
}
static inline vs32 clamp32(vs32 x, int lo, int hi)
{
    vs32 below = x < lo, above = x > hi;
    return (x & ~(below | above)) | (below & lo) | (above & hi);
}
typedef int16_t vs16x4 __attribute__((vector_size(8)));
typedef uint8_t vu8x8 __attribute__((vector_size(8)));
static inline vs16 PACKS32(vs32 a, vs32 b)
{
    vs16x4 lo = __builtin_convertvector(clamp32(a, -32768, 32767), vs16x4);
    vs16x4 hi = __builtin_convertvector(clamp32(b, -32768, 32767), vs16x4);
    vs16 r;
    memcpy(&r, &lo, 8);
    memcpy((char *)&r + 8, &hi, 8);
    return r;
}
static inline vu8 PACKUS16(vs16 a, vs16 b)
{
    vs16 lo_m = a < 0, hi_m = a > 255;
    vs16 ca = (a & ~(lo_m | hi_m)) | (hi_m & 255);
    lo_m = b < 0, hi_m = b > 255;
    vs16 cb = (b & ~(lo_m | hi_m)) | (hi_m & 255);
    vu8x8 x = __builtin_convertvector(ca, vu8x8), y = __builtin_convertvector(cb, vu8x8);
    vu8 r;
    memcpy(&r, &x, 8);
    memcpy((char *)&r + 8, &y, 8);
    return r;
}
#endif

/* Row u of the vector's blocks, which follow each other in memory. */
static inline vs16 load_row(const int16_t *blocks, int u)
{
    vs16 r;
#if VBYTES == 32
    __m256i v = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(blocks + 8 * u)));
    r = (vs16)_mm256_inserti128_si256(v, _mm_loadu_si128((const __m128i *)(blocks + 64 + 8 * u)), 1);
#else
    memcpy(&r, blocks + 8 * u, sizeof r);
#endif
    return r;
}

/* Rows y and y + 1 of the vector's blocks: p holds, in each 128-bit lane,
 * row y's 8 bytes then row y + 1's. */
static inline void store_rows(vu8 p, uint8_t *out, size_t stride)
{
#if VBYTES == 32
    __m256i rows = _mm256_permute4x64_epi64(IV(p), 0xD8);
    _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(rows));
    _mm_storeu_si128((__m128i *)(out + stride), _mm256_extracti128_si256(rows, 1));
#else
    memcpy(out, &p, 8);
    memcpy(out + stride, (const char *)&p + 8, 8);
#endif
}

/* The constants in 16-bit pairs for MADD: (c_even, c_odd) in each lane. */
static inline vs16 pair(int even, int odd)
{
    vu32 v = (vu32){0} + ((uint32_t)(uint16_t)even | (uint32_t)(uint16_t)odd << 16);
    return (vs16)v;
}

#define ADD16(a, b) ((vs16)((vu16)(a) + (vu16)(b)))
#define SUB16(a, b) ((vs16)((vu16)(a) - (vu16)(b)))

/* out0 = x * c0[even] + y * c0[odd] per 32-bit lane, low and high halves
 * of the 16-bit lanes; out1 the same with c1. */
#define ROT(out0, out1, x, y, c0, c1)                                                  \
    vs16 out0##lo_ = UNPACKLO16(x, y), out0##hi_ = UNPACKHI16(x, y);                  \
    vs32 out0##_l = MADD(out0##lo_, c0), out0##_h = MADD(out0##hi_, c0);               \
    vs32 out1##_l = MADD(out0##lo_, c1), out1##_h = MADD(out0##hi_, c1)

/* x * 4096 in 32 bits: x in the high half, shifted down. */
#define WIDEN12(out, x)                                                                 \
    vs32 out##_l = (vs32)UNPACKLO16((vs16){0}, x) >> 4;                                 \
    vs32 out##_h = (vs32)UNPACKHI16((vs16){0}, x) >> 4

/* o0 = (a + b) >> shift, o1 = (a - b) >> shift, packed to 16 bits with
 * saturation; a already biased */
#define BUTTERFLY(o0, o1, a, b, shift)                                                  \
    o0 = PACKS32((a##_l + b##_l) >> (shift), (a##_h + b##_h) >> (shift));               \
    o1 = PACKS32((a##_l - b##_l) >> (shift), (a##_h - b##_h) >> (shift))

static inline void idct_pass(vs16 r[8], int bias, int shift)
{
    const vs16 rot0_0 = pair(JPEG_C054, JPEG_C054 + JPEG_CM185);
    const vs16 rot0_1 = pair(JPEG_C054 + JPEG_C077, JPEG_C054);
    const vs16 rot1_0 = pair(JPEG_C117 + JPEG_CM090, JPEG_C117);
    const vs16 rot1_1 = pair(JPEG_C117, JPEG_C117 + JPEG_CM256);
    const vs16 rot2_0 = pair(JPEG_CM196 + JPEG_C030, JPEG_CM196);
    const vs16 rot2_1 = pair(JPEG_CM196, JPEG_CM196 + JPEG_C307);
    const vs16 rot3_0 = pair(JPEG_CM039 + JPEG_C205, JPEG_CM039);
    const vs16 rot3_1 = pair(JPEG_CM039, JPEG_CM039 + JPEG_C150);
    /* even part */
    ROT(t2e, t3e, r[2], r[6], rot0_0, rot0_1);
    WIDEN12(t0e, ADD16(r[0], r[4]));
    WIDEN12(t1e, SUB16(r[0], r[4]));
    vs32 x0_l = t0e_l + t3e_l + bias, x0_h = t0e_h + t3e_h + bias;
    vs32 x3_l = t0e_l - t3e_l + bias, x3_h = t0e_h - t3e_h + bias;
    vs32 x1_l = t1e_l + t2e_l + bias, x1_h = t1e_h + t2e_h + bias;
    vs32 x2_l = t1e_l - t2e_l + bias, x2_h = t1e_h - t2e_h + bias;
    /* odd part */
    ROT(y0o, y2o, r[7], r[3], rot2_0, rot2_1);
    ROT(y1o, y3o, r[5], r[1], rot3_0, rot3_1);
    ROT(y4o, y5o, ADD16(r[1], r[7]), ADD16(r[3], r[5]), rot1_0, rot1_1);
    vs32 x4_l = y0o_l + y4o_l, x4_h = y0o_h + y4o_h;
    vs32 x5_l = y1o_l + y5o_l, x5_h = y1o_h + y5o_h;
    vs32 x6_l = y2o_l + y5o_l, x6_h = y2o_h + y5o_h;
    vs32 x7_l = y3o_l + y4o_l, x7_h = y3o_h + y4o_h;
    BUTTERFLY(r[0], r[7], x0, x7, shift);
    BUTTERFLY(r[1], r[6], x1, x6, shift);
    BUTTERFLY(r[2], r[5], x2, x5, shift);
    BUTTERFLY(r[3], r[4], x3, x4, shift);
}

/* The 8x8 transpose of 16-bit lanes (in each 128-bit lane): three rounds
 * of interleaving, row i with row i + 4, then i + 2, then i + 1. */
static inline void transpose(vs16 r[8])
{
    static const int step[3] = {4, 2, 1};
    for (int round = 0; round < 3; round++) {
        vs16 t[8];
        int s = step[round];
        for (int i = 0, k = 0; k < 4; k++, i = (i + 1) % s == 0 ? i + 1 + s : i + 1) {
            t[i] = UNPACKLO16(r[i], r[i + s]);
            t[i + s] = UNPACKHI16(r[i], r[i + s]);
        }
        memcpy(r, t, sizeof t);
    }
}

/* A block whose only nonzero coefficient is DC d is flat: the column
 * pass gives (4096 d + 512) >> 10 = 4 d, saturated, in column 0 of every
 * row, and the row pass (s 4096 + bias) >> 17 from that s everywhere. */
static inline uint8_t flat_sample(int d)
{
    int s = 4 * d < -32768 ? -32768 : 4 * d > 32767 ? 32767 : 4 * d;
    int v = (s * 4096 + JPEG_IDCT_BIAS_ROWS) >> 17;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

typedef uint64_t vu64 __attribute__((vector_size(VBYTES)));

/* The vector's blocks are all flat: no nonzero AC coefficient. */
static inline int all_flat(const vs16 r[8])
{
    vs16 ac_of_row0;
    for (int i = 0; i < VBYTES / 2; i++) ac_of_row0[i] = i % 8 ? -1 : 0; /* DC: lane 0 of a block */
    vu64 ac = (vu64)(r[1] | r[2] | r[3] | r[4] | r[5] | r[6] | r[7] | (r[0] & ac_of_row0));
    uint64_t any = 0;
    for (int i = 0; i < VBYTES / 8; i++) any |= ac[i];
    return any == 0;
}

/* BLOCKS blocks from coeffs into out (8 bytes each, side by side). */
static inline void idct_vector(const int16_t *coeffs, const vu16 q[8], uint8_t *out, size_t stride)
{
    vs16 r[8];
    for (int u = 0; u < 8; u++) r[u] = (vs16)((vu16)load_row(coeffs, u) * q[u]);
    if (all_flat(r)) { /* common in smooth areas and chroma: 8 bytes a row */
        for (int b = 0; b < BLOCKS; b++) {
            uint8_t v = flat_sample(r[0][8 * b]);
            for (int y = 0; y < 8; y++) memset(out + 8 * b + y * stride, v, 8);
        }
        return;
    }
    idct_pass(r, JPEG_IDCT_BIAS_COLUMNS, 10);
    transpose(r);
    idct_pass(r, JPEG_IDCT_BIAS_ROWS, 17);
    transpose(r);
    for (int y = 0; y < 8; y += 2) store_rows(PACKUS16(r[y], r[y + 1]), out + y * stride, stride);
}

static void idct_blocks(const int16_t *coeffs, int n, const uint16_t quant[64], uint8_t *out,
                        size_t stride)
{
    vu16 q[8];
    for (int u = 0; u < 8; u++)
        for (int b = 0; b < BLOCKS; b++) memcpy((uint16_t *)&q[u] + 8 * b, quant + 8 * u, 16);
    int b = 0;
    for (; b + BLOCKS <= n; b += BLOCKS) idct_vector(coeffs + 64 * b, q, out + 8 * b, stride);
    if (b < n) { /* the last blocks, through a vector's worth of zeros */
        int16_t tail[64 * BLOCKS] = {0};
        uint8_t samples[8][8 * BLOCKS];
        memcpy(tail, coeffs + 64 * b, 64 * sizeof *tail * (size_t)(n - b));
        idct_vector(tail, q, samples[0], 8 * BLOCKS);
        for (int y = 0; y < 8; y++) memcpy(out + 8 * b + y * stride, samples[y], 8 * (size_t)(n - b));
    }
}

/* ---- Upsampling: loops the vectorizer takes ---- */

static void upsample_v2(uint8_t *restrict out, const uint8_t *restrict near,
                        const uint8_t *restrict far, int w)
{
    for (int i = 0; i < w; i++) out[i] = (uint8_t)((3 * near[i] + far[i] + 2) >> 2);
}

/* The ends as in the scalar set; in between, output 2 i from samples
 * i - 1, i and 2 i + 1 from i, i + 1. */
static void upsample_h2(uint8_t *restrict out, const uint8_t *restrict in, int w)
{
    if (w < 3) {
        gi__jpeg_recon_generic.upsample_h2(out, in, w);
        return;
    }
    out[0] = in[0];
    out[1] = (uint8_t)((3 * in[0] + in[1] + 2) >> 2);
    for (int i = 1; i < w - 1; i++) {
        int n = 3 * in[i] + 2;
        out[2 * i] = (uint8_t)((n + in[i - 1]) >> 2);
        out[2 * i + 1] = (uint8_t)((n + in[i + 1]) >> 2);
    }
    out[2 * w - 2] = (uint8_t)((3 * in[w - 2] + in[w - 1] + 2) >> 2);
    out[2 * w - 1] = in[w - 1];
}

/* t(i) = 3 near[i] + far[i] recomputed on both sides rather than carried */
static void upsample_hv2(uint8_t *restrict out, const uint8_t *restrict near,
                         const uint8_t *restrict far, int w)
{
    if (w < 2) {
        gi__jpeg_recon_generic.upsample_hv2(out, near, far, w);
        return;
    }
    out[0] = (uint8_t)((3 * near[0] + far[0] + 2) >> 2);
    for (int i = 1; i < w; i++) {
        int t0 = 3 * near[i - 1] + far[i - 1], t1 = 3 * near[i] + far[i];
        out[2 * i - 1] = (uint8_t)((3 * t0 + t1 + 8) >> 4);
        out[2 * i] = (uint8_t)((3 * t1 + t0 + 8) >> 4);
    }
    out[2 * w - 1] = (uint8_t)((3 * near[w - 1] + far[w - 1] + 2) >> 2);
}

/* ---- Colour: 16 pixels at a time in 16-bit lanes ----
 *
 * stb's sums are multiples of 2^8 (jpeg_recon_scalar.c); divided out, and
 * with Y's term a multiple of 2^12, each channel is Y plus a chroma term
 * that 16-bit high-half products give exactly (floor(a b / 2^16)):
 *   R: (vr * CR_R + 2^11) >> 12  =  (mulhi(vr << 5, CR_R) + 1) >> 1
 *   B: likewise with vb and CB_B
 *   G: (floor(-vr CR_G / 2^8) + floor(-vb CB_G / 2^8) + 8) >> 4, each
 *      floor a mulhi(v << 8, -C); the second is stb's truncated Cb term.
 * (floor((floor(x / 2^k) + 1) / 2) = floor((x + 2^k) / 2^(k+1)).) The test
 * compares every (Y, Cb, Cr) with stb's. */
#if VBYTES >= 32
#define PX 16 /* pixels at a time: a 256-bit register of 16-bit lanes */
#else
#define PX 8
#endif
typedef int16_t c16 __attribute__((vector_size(2 * PX)));
typedef int32_t c32 __attribute__((vector_size(4 * PX)));
typedef uint8_t c8 __attribute__((vector_size(PX)));

static inline c16 mulhi(c16 a, c16 b)
{
#if PX == 16
    return (c16)_mm256_mulhi_epi16((__m256i)a, (__m256i)b);
#elif defined(__SSE2__)
    return (c16)_mm_mulhi_epi16((__m128i)a, (__m128i)b);
#else
    return __builtin_convertvector(
        (__builtin_convertvector(a, c32) * __builtin_convertvector(b, c32)) >> 16, c16);
#endif
}

/* Saturated to bytes, and bytes widened: x86 and NEON do each in an
 * instruction or two, where GCC's generic code takes several. */
static inline c8 to_bytes(c16 v)
{
#if PX == 16
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16((__m256i)v, (__m256i)v), 0xD8);
    return (c8)_mm256_castsi256_si128(packed);
#elif defined(__SSE2__)
    return (c8)(uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16((__m128i)v, (__m128i)v));
#elif defined(__ARM_NEON) && defined(__aarch64__)
    return (c8)vqmovun_s16((int16x8_t)v);
#else
    c16 below = v < 0, above = v > 255;
    return __builtin_convertvector((v & ~(below | above)) | (above & 255), c8);
#endif
}

static inline c16 load_px(const uint8_t *p)
{
#if PX == 16
    return (c16)_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
#else
    c8 b;
    memcpy(&b, p, sizeof b);
    return __builtin_convertvector(b, c16);
#endif
}

/* PX pixels' R, G, B bytes to 3 PX interleaved ones. */
static inline void store_rgb(uint8_t *out, c8 r, c8 g, c8 b)
{
#if PX == 16
    /* each output vector: R and G bytes placed first, then B's (16 + i) */
    c8 rg0 = GI_SHUFFLE(r, g, c8, 0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5);
    c8 o0 = GI_SHUFFLE(rg0, b, c8, 0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15);
    c8 rg1 = GI_SHUFFLE(r, g, c8, 21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26);
    c8 o1 = GI_SHUFFLE(rg1, b, c8, 0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15);
    c8 rg2 = GI_SHUFFLE(r, g, c8, 0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0);
    c8 o2 = GI_SHUFFLE(rg2, b, c8, 26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31);
    memcpy(out, &o0, 16);
    memcpy(out + 16, &o1, 16);
    memcpy(out + 32, &o2, 16);
#elif defined(__ARM_NEON) && defined(__aarch64__)
    const uint8x8x3_t rgb = {{(uint8x8_t)r, (uint8x8_t)g, (uint8x8_t)b}};
    vst3_u8(out, rgb);
#elif defined(__SSE2__)
    /* no byte shuffle (GCC's would go byte by byte): pixels as R, G, B, 0
     * words, each 64-bit half's two packed to 6 bytes by shifts, the
     * halves joined; each 16-byte store leaves 4 bytes past its 12 that
     * the next store, or the caller's tail, writes over */
    __m128i zero = _mm_setzero_si128();
    __m128i rg = _mm_unpacklo_epi8((__m128i)(__v2di){(long long)(uint64_t)r, 0},
                                   (__m128i)(__v2di){(long long)(uint64_t)g, 0});
    __m128i b0 = _mm_unpacklo_epi8((__m128i)(__v2di){(long long)(uint64_t)b, 0}, zero);
    __m128i quads[2] = {_mm_unpacklo_epi16(rg, b0), _mm_unpackhi_epi16(rg, b0)};
    const __m128i first = _mm_set1_epi64x(0xFFFFFF), second = _mm_set1_epi64x(0xFFFFFF000000);
    const __m128i low6 = _mm_set_epi64x(0, 0xFFFFFFFFFFFF);
    const __m128i next6 = _mm_set_epi64x(0xFFFFFFFF, 0xFFFF000000000000);
    for (int h = 0; h < 2; h++) {
        __m128i x = _mm_or_si128(_mm_and_si128(quads[h], first),
                                 _mm_and_si128(_mm_srli_epi64(quads[h], 8), second));
        x = _mm_or_si128(_mm_and_si128(x, low6), _mm_and_si128(_mm_srli_si128(x, 2), next6));
        _mm_storeu_si128((__m128i *)(out + 12 * h), x);
    }
#else
    uint8_t rgb[3][PX];
    memcpy(rgb[0], &r, PX);
    memcpy(rgb[1], &g, PX);
    memcpy(rgb[2], &b, PX);
    for (int i = 0; i < PX; i++) {
        out[3 * i] = rgb[0][i];
        out[3 * i + 1] = rgb[1][i];
        out[3 * i + 2] = rgb[2][i];
    }
#endif
}

/* Pixels store_rgb may write into past its own: the loop leaves at least
 * these to the scalar tail. */
#if PX == 8 && defined(__SSE2__)
#define STORE_SPILL 2
#else
#define STORE_SPILL 0
#endif

static void ycc_to_rgb(uint8_t *restrict out, const uint8_t *restrict y,
                       const uint8_t *restrict cb, const uint8_t *restrict cr, int count)
{
    const c16 cr_r = (c16){0} + (int16_t)JPEG_YCC_CR_R, cb_b = (c16){0} + (int16_t)JPEG_YCC_CB_B;
    const c16 cr_g = (c16){0} - (int16_t)JPEG_YCC_CR_G, cb_g = (c16){0} - (int16_t)JPEG_YCC_CB_G;
    int i = 0;
    for (; i + PX + STORE_SPILL <= count; i += PX) {
        c16 luma = load_px(y + i), vr = load_px(cr + i) - 128, vb = load_px(cb + i) - 128;
        c16 r = luma + ((mulhi(vr << 5, cr_r) + 1) >> 1);
        c16 b = luma + ((mulhi(vb << 5, cb_b) + 1) >> 1);
        c16 g = luma + ((mulhi(vr << 8, cr_g) + mulhi(vb << 8, cb_g) + 8) >> 4);
        store_rgb(out + 3 * i, to_bytes(r), to_bytes(g), to_bytes(b));
    }
    gi__jpeg_recon_generic.ycc_to_rgb(out + 3 * i, y + i, cb + i, cr + i, count - i);
}

const jpeg_recon_kernels GI_JPEG_RECON = {
#if defined(__AVX512BW__)
    .name = "avx512",
#elif defined(__AVX2__)
    .name = "avx2",
#elif defined(__ARM_NEON)
    .name = "neon",
#elif defined(__SSE2__)
    .name = "sse2",
#else
    .name = "portable",
#endif
    .idct_blocks = idct_blocks,
    .upsample_v2 = upsample_v2,
    .upsample_h2 = upsample_h2,
    .upsample_hv2 = upsample_hv2,
    .ycc_to_rgb = ycc_to_rgb,
};
