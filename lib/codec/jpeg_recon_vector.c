/* The arithmetic kernels (jpeg_recon_kernels.h) for one instruction set:
 * meson compiles this file once per set, each with GI_JPEG_RECON naming
 * its table (SSE2 or NEON as the base, AVX2, AVX-512). The IDCT is
 * written in GCC vector code, a block row per vector of eight 32-bit
 * lanes; the upsamplers and the colour conversion are plain loops without
 * a carried dependency, which GCC vectorizes at -O3 for the set it
 * compiles for. Integer arithmetic throughout: every set gives the scalar
 * set's bytes (jpeg_recon_scalar.c, the definition). */
#include <string.h>

#include "jpeg_recon_idct.h"
#include "jpeg_recon_kernels.h"
#include "vector_shuffle.h"

#ifndef GI_JPEG_RECON
#define GI_JPEG_RECON gi__jpeg_recon_base
#endif

/* Every function here but the table is static and takes vectors only from
 * its own file, so GCC's note that 32-byte vectors are passed differently
 * with AVX does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef int16_t v8s16 __attribute__((vector_size(16)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));
typedef int32_t v8s32 __attribute__((vector_size(32)));
typedef uint8_t v8u8 __attribute__((vector_size(8)));

/* ---- IDCT: vectors are the eight rows (or columns) of a block ---- */

/* The 16-bit steps wrap as stb's paddw does: done in unsigned lanes. */
#define ADD16(a, b) ((v8s16)((v8u16)(a) + (v8u16)(b)))
#define SUB16(a, b) ((v8s16)((v8u16)(a) - (v8u16)(b)))
#define WIDEN(a) __builtin_convertvector(a, v8s32)

static inline v8s32 clamp32(v8s32 x, int lo, int hi)
{
    v8s32 below = x < lo, above = x > hi;
    return (x & ~(below | above)) | (below & lo) | (above & hi);
}

/* 16-bit saturation (packssdw) of the column pass, back to 16 bits */
#define SAT16(x) __builtin_convertvector(clamp32(x, -32768, 32767), v8s16)
/* the row pass: stb saturates to 16 bits, then to bytes: one clamp */
#define SAT8(x) clamp32(x, 0, 255)

typedef int32_t s32x8 __attribute__((vector_size(32)));
typedef s32x8 mask8;

/* The 8x8 transpose of 32-bit lanes in three rounds of shuffles. */
static inline void transpose(v8s32 r[8])
{
    v8s32 a[8], b[8];
    for (int i = 0; i < 8; i += 2) {
        a[i] = GI_SHUFFLE(r[i], r[i + 1], mask8, 0, 8, 1, 9, 4, 12, 5, 13);
        a[i + 1] = GI_SHUFFLE(r[i], r[i + 1], mask8, 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 4)
        for (int j = 0; j < 2; j++) {
            b[i + 2 * j] = GI_SHUFFLE(a[i + j], a[i + j + 2], mask8, 0, 1, 8, 9, 4, 5, 12, 13);
            b[i + 2 * j + 1] = GI_SHUFFLE(a[i + j], a[i + j + 2], mask8, 2, 3, 10, 11, 6, 7, 14, 15);
        }
    /* b[0..3] hold rows 0-3 of columns (0,4), (1,5), (2,6), (3,7); b[4..7] rows 4-7 */
    for (int i = 0; i < 4; i++) {
        r[i] = GI_SHUFFLE(b[i], b[i + 4], mask8, 0, 1, 2, 3, 8, 9, 10, 11);
        r[i + 4] = GI_SHUFFLE(b[i], b[i + 4], mask8, 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

static inline void idct_block(const int16_t *coeffs, const v8u16 q[8], uint8_t *out, size_t stride)
{
    v8s16 d[8], c[8];
    v8s32 w[8];
    for (int u = 0; u < 8; u++) {
        v8u16 row;
        memcpy(&row, coeffs + 8 * u, sizeof row);
        d[u] = (v8s16)(row * q[u]); /* the low 16 bits of the product */
    }
    jpeg_idct_lanes(v8s32, WIDEN, ADD16, SUB16, SAT16, d[0], d[1], d[2], d[3], d[4], d[5], d[6],
                    d[7], JPEG_IDCT_BIAS_COLUMNS, 10, c[0], c[1], c[2], c[3], c[4], c[5], c[6],
                    c[7]);
    for (int y = 0; y < 8; y++) w[y] = WIDEN(c[y]);
    transpose(w); /* w[v]: lane y holds column v of the column pass's row y */
    for (int v = 0; v < 8; v++) c[v] = __builtin_convertvector(w[v], v8s16);
    jpeg_idct_lanes(v8s32, WIDEN, ADD16, SUB16, SAT8, c[0], c[1], c[2], c[3], c[4], c[5], c[6],
                    c[7], JPEG_IDCT_BIAS_ROWS, 17, w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]);
    transpose(w); /* w[y]: the samples of row y */
    for (int y = 0; y < 8; y++) {
        v8u8 bytes = __builtin_convertvector(w[y], v8u8);
        memcpy(out + y * stride, &bytes, sizeof bytes);
    }
}

static void idct_blocks(const int16_t *coeffs, int n, const uint16_t quant[64], uint8_t *out,
                        size_t stride)
{
    v8u16 q[8];
    memcpy(q, quant, sizeof q);
    for (int b = 0; b < n; b++) idct_block(coeffs + 64 * b, q, out + 8 * b, stride);
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

/* ---- Colour ---- */

static inline uint8_t clamp_byte(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static void ycc_to_rgb(uint8_t *restrict out, const uint8_t *restrict y,
                       const uint8_t *restrict cb, const uint8_t *restrict cr, int count)
{
    for (int i = 0; i < count; i++) {
        int y_fixed = (y[i] << 12) + (1 << 11);
        int vr = cr[i] - 128, vb = cb[i] - 128;
        out[3 * i] = clamp_byte((y_fixed + vr * JPEG_YCC_CR_R) >> 12);
        out[3 * i + 1] =
            clamp_byte((y_fixed - vr * JPEG_YCC_CR_G + ((vb * -JPEG_YCC_CB_G) & ~0xff)) >> 12);
        out[3 * i + 2] = clamp_byte((y_fixed + vb * JPEG_YCC_CB_B) >> 12);
    }
}

const jpeg_recon_kernels GI_JPEG_RECON = {
#if defined(__AVX512BW__)
    .name = "avx512",
#elif defined(__AVX2__)
    .name = "avx2",
#elif defined(__ARM_NEON)
    .name = "neon",
#else
    .name = "sse2",
#endif
    .idct_blocks = idct_blocks,
    .upsample_v2 = upsample_v2,
    .upsample_h2 = upsample_h2,
    .upsample_hv2 = upsample_hv2,
    .ycc_to_rgb = ycc_to_rgb,
};
