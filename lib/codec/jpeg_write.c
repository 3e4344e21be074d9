/* Baseline JPEG encoding with stb_image_write's exact output (jpeg_write.h).
 *
 * Why the bytes match: every float value is computed by the same IEEE
 * single-precision operations, in the same order, as stb computes it; only
 * the lanes differ (8 at once). Lane order changes nothing, since no
 * operation mixes lanes except exact moves (transposes, picking even and
 * odd columns). The project compiles with -ffp-contract=off, so a*b+c
 * stays two roundings here as in stb, and no -ffast-math. The integer
 * parts (rounding to int, the tables, the Huffman coding) are the same
 * functions of those floats.
 *
 * Where the time went in stb: a callback per output byte, a function call
 * per DCT row, pixels fetched with two clamps each. Here the rows of a
 * band of blocks are split into planes once (edge pixels replicated there),
 * the colour conversion, DCT and quantization run on vectors of 8 floats,
 * and the bits go 32 at a time into a buffer reserved per block group. */
#include "jpeg_write.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef uint8_t v8b __attribute__((vector_size(8)));

/* Every function here is static, so no vector crosses an ABI boundary;
 * GCC's note that 32-byte vectors are passed differently with AVX does
 * not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

/* A shuffle of the 16 lanes of a and b with constant indices (GCC and
 * clang spell it differently). */
#ifdef __clang__
#define SHUF(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define SHUF(a, b, ...) __builtin_shuffle(a, b, (v8i){__VA_ARGS__})
#endif

/* ---- Tables of the JPEG standard (ITU T.81, annex K) ---- */

/* Natural (row-major) index of each zigzag position. */
static const uint8_t natural_order[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

/* Quantizers at quality 50, natural order: luma (K.1), chroma (K.2). */
static const uint8_t base_quant[2][64] = {
    {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
     14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
     18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
     49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99},
    {17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
     24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
     99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
     99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99}};

/* Huffman tables (K.3-K.6): the count of codes of each length 1..16, then
 * the symbols in code order. Order here: luma DC, luma AC, chroma DC,
 * chroma AC, as they are written. */
static const uint8_t huff_counts[4][16] = {
    {0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d},
    {0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
    {0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77}};
static const uint8_t dc_symbols[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const uint8_t luma_ac_symbols[162] = {
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61,
    0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52,
    0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25,
    0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45,
    0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64,
    0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83,
    0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99,
    0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
    0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3,
    0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8,
    0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa};
static const uint8_t chroma_ac_symbols[162] = {
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61,
    0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33,
    0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18,
    0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44,
    0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63,
    0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
    0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97,
    0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4,
    0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca,
    0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7,
    0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa};
static const uint8_t *const huff_symbols[4] = {dc_symbols, luma_ac_symbols, dc_symbols,
                                               chroma_ac_symbols};

/* The AAN DCT leaves coefficient (u, v) scaled by s[u] * s[v]; stb folds
 * 1 / (8 s[u] s[v]) into the quantizer with these float products, and the
 * same float constants give the same reciprocals. */
static const float aan_scale[8] = {
    1.0f * 2.828427125f,         1.387039845f * 2.828427125f, 1.306562965f * 2.828427125f,
    1.175875602f * 2.828427125f, 1.0f * 2.828427125f,         0.785694958f * 2.828427125f,
    0.541196100f * 2.828427125f, 0.275899379f * 2.828427125f};

/* ---- Setup: quantizers and Huffman codes for one quality ---- */

/* A symbol's code in its low len bits; symbols a table lacks have len 0,
 * and stb writes those as no bits at all (only value bits follow), which
 * is kept so that out-of-range values give stb's bytes too. */
typedef struct {
    uint16_t code[256];
    uint8_t len[256];
} huff_codes;

typedef struct {
    uint8_t quant_zigzag[2][64]; /* as written in DQT */
    float scale[2][64];          /* natural order: multiply, then round */
    huff_codes huff[4];          /* order of huff_counts */
    int subsample;               /* 4:2:0, else 4:4:4 */
} jpeg_setup;

/* Annex C: codes of each length are consecutive, lengths ascending. */
static void make_codes(const uint8_t counts[16], const uint8_t *symbols, huff_codes *h)
{
    memset(h, 0, sizeof *h);
    unsigned code = 0, k = 0;
    for (int len = 1; len <= 16; len++, code <<= 1)
        for (int i = 0; i < counts[len - 1]; i++, k++, code++) {
            h->code[symbols[k]] = (uint16_t)code;
            h->len[symbols[k]] = (uint8_t)len;
        }
}

static void make_setup(int quality, jpeg_setup *s)
{
    /* stb's order: 0 means 90, the subsampling is chosen before the clamp. */
    quality = quality ? quality : 90;
    s->subsample = quality <= 90;
    quality = quality < 1 ? 1 : quality > 100 ? 100 : quality;
    int scale = quality < 50 ? 5000 / quality : 200 - quality * 2;
    for (int t = 0; t < 2; t++) {
        int q[64];
        for (int k = 0; k < 64; k++) {
            int v = (base_quant[t][k] * scale + 50) / 100;
            q[k] = v < 1 ? 1 : v > 255 ? 255 : v;
            /* int times float, times float, then 1 over it: stb's roundings */
            s->scale[t][k] = 1 / ((float)q[k] * aan_scale[k / 8] * aan_scale[k % 8]);
        }
        for (int j = 0; j < 64; j++) s->quant_zigzag[t][j] = (uint8_t)q[natural_order[j]];
    }
    for (int t = 0; t < 4; t++) make_codes(huff_counts[t], huff_symbols[t], &s->huff[t]);
}

/* ---- Output: a growing buffer and a bit writer ---- */

typedef struct {
    uint8_t *data, *p, *end; /* p: next byte */
    uint64_t acc;            /* the latest bits, the n pending ones in the low end */
    int n;                   /* < 32 between calls */
} writer;

/* Room for count more bytes; 0 when out of memory. */
static int reserve(writer *w, size_t count)
{
    if ((size_t)(w->end - w->p) >= count) return 1;
    size_t used = (size_t)(w->p - w->data), cap = (size_t)(w->end - w->data) * 2;
    if (cap < used + count) cap = used + count;
    uint8_t *bigger = realloc(w->data, cap);
    if (!bigger) return 0;
    w->data = bigger;
    w->p = bigger + used;
    w->end = bigger + cap;
    return 1;
}

static void put_bytes(writer *w, const void *bytes, size_t count)
{
    memcpy(w->p, bytes, count);
    w->p += count;
}

/* A byte of entropy-coded data; 0xFF is followed by a stuffed 0. */
static inline void put_coded_byte(writer *w, unsigned byte)
{
    *w->p++ = (uint8_t)byte;
    if (byte == 0xFF) *w->p++ = 0;
}

/* Four bytes, big-endian; the common case has no 0xFF in it (a zero byte
 * of ~word, found by the carry test) and is stored without looking at
 * each byte. */
static inline void put_word(writer *w, uint32_t word)
{
    if (((~word - 0x01010101u) & word & 0x80808080u) == 0) {
        w->p[0] = (uint8_t)(word >> 24);
        w->p[1] = (uint8_t)(word >> 16);
        w->p[2] = (uint8_t)(word >> 8);
        w->p[3] = (uint8_t)word;
        w->p += 4;
        return;
    }
    for (int shift = 24; shift >= 0; shift -= 8) put_coded_byte(w, (word >> shift) & 0xFF);
}

/* len <= 32 bits, most significant first; bits has no bit at or above len. */
static inline void put_bits(writer *w, uint32_t bits, int len)
{
    w->acc = w->acc << len | bits;
    w->n += len;
    if (w->n >= 32) {
        w->n -= 32;
        put_word(w, (uint32_t)(w->acc >> w->n));
    }
}

/* The end of the scan: stb pads the last byte with 1 bits and drops
 * nothing else. */
static void put_padding(writer *w)
{
    put_bits(w, 0x7F, 7);
    for (; w->n >= 8; w->n -= 8) put_coded_byte(w, (unsigned)(w->acc >> (w->n - 8)) & 0xFF);
}

/* A symbol (run << 4 | size) and the size low bits of value (its one's
 * complement when negative), in one write. */
static inline void put_value(writer *w, const huff_codes *h, int run, int value)
{
    unsigned magnitude = value < 0 ? -(unsigned)value : (unsigned)value;
    int size = magnitude ? 32 - __builtin_clz(magnitude) : 0;
    unsigned bits = (unsigned)(value < 0 ? value - 1 : value) & ((1u << size) - 1);
    int symbol = run << 4 | size;
    put_bits(w, (uint32_t)h->code[symbol] << size | bits, h->len[symbol] + size);
}

/* ---- One block: DCT, quantization, Huffman coding ---- */

/* 8 rows to 8 columns (exact moves). */
static inline void transpose(const v8f in[8], v8f out[8])
{
    v8f t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = SHUF(in[i], in[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[i + 1] = SHUF(in[i], in[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 4)
        for (int k = 0; k < 2; k++) {
            u[i + k * 2] = SHUF(t[i + k], t[i + k + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            u[i + k * 2 + 1] = SHUF(t[i + k], t[i + k + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        }
    for (int k = 0; k < 4; k++) {
        out[k] = SHUF(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        out[k + 4] = SHUF(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

/* The AAN forward DCT of 8 points (Arai, Agui, Nakajima; the jpeglib
 * float version), one transform per lane, each operation as stb orders it. */
static inline void fdct8(v8f d[8])
{
    v8f t0 = d[0] + d[7], t7 = d[0] - d[7], t1 = d[1] + d[6], t6 = d[1] - d[6];
    v8f t2 = d[2] + d[5], t5 = d[2] - d[5], t3 = d[3] + d[4], t4 = d[3] - d[4];
    /* even part */
    v8f t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2;
    d[0] = t10 + t11;
    d[4] = t10 - t11;
    v8f z1 = (t12 + t13) * 0.707106781f;
    d[2] = t13 + z1;
    d[6] = t13 - z1;
    /* odd part */
    v8f o10 = t4 + t5, o11 = t5 + t6, o12 = t6 + t7;
    v8f z5 = (o10 - o12) * 0.382683433f;
    v8f z2 = o10 * 0.541196100f + z5;
    v8f z4 = o12 * 1.306562965f + z5;
    v8f z3 = o11 * 0.707106781f;
    v8f z11 = t7 + z3, z13 = t7 - z3;
    d[5] = z13 + z2;
    d[3] = z13 - z2;
    d[1] = z11 + z4;
    d[7] = z11 - z4;
}

/* 2-D DCT (stb: rows first, then columns), scaled and rounded half away
 * from zero by truncating v +- 0.5 (stb's (int)(v < 0 ? v - .5f : v + .5f);
 * at -0 both give 0). out: natural order. */
static inline void transform(const v8f rows[8], const float scale[64], int32_t out[64])
{
    v8f cols[8], d[8];
    transpose(rows, cols);
    fdct8(cols); /* cols[k], lane r: coefficient k of row r */
    transpose(cols, d);
    fdct8(d); /* d[u], lane v: coefficient (u, v) */
    const v8i sign = (v8i){0} + INT32_MIN, half = (v8i){0} + 0x3F000000;
    for (int u = 0; u < 8; u++) {
        v8f s, v;
        memcpy(&s, scale + u * 8, sizeof s);
        v = d[u] * s;
        v8f r = v + (v8f)(((v8i)v & sign) | half);
        v8i q = __builtin_convertvector(r, v8i);
        memcpy(out + u * 8, &q, sizeof q);
    }
}

/* Codes one block and returns its DC (the next block's predictor). */
static int encode_block(writer *w, const int32_t coef[64], int predictor, const huff_codes *dc,
                        const huff_codes *ac)
{
    int32_t zz[64];
    uint64_t nonzero = 0;
    for (int j = 0; j < 64; j++) {
        zz[j] = coef[natural_order[j]];
        nonzero |= (uint64_t)(zz[j] != 0) << j;
    }
    put_value(w, dc, 0, zz[0] - predictor);
    int next = 1;
    for (uint64_t rest = nonzero & ~(uint64_t)1; rest; rest &= rest - 1) {
        int k = __builtin_ctzll(rest), run = k - next;
        for (; run >= 16; run -= 16) put_bits(w, ac->code[0xF0], ac->len[0xF0]);
        put_value(w, ac, run, zz[k]);
        next = k + 1;
    }
    if (next != 64) put_bits(w, ac->code[0], ac->len[0]); /* end of block */
    return zz[0];
}

/* ---- Pixels: planes of a band, colour conversion ---- */

/* The band's rows split into R, G, B planes of padded_width bytes, the
 * last column repeated to the padding (stb's edge rule); grey (1 or 2
 * channels) is R = G = B, one plane. */
static void split_row(const uint8_t *src, int width, int channels, int padded_width, uint8_t *r,
                      uint8_t *g, uint8_t *b)
{
    if (channels <= 2) {
        for (int x = 0; x < width; x++) r[x] = src[x * channels];
    } else {
        for (int x = 0; x < width; x++) {
            r[x] = src[x * channels];
            g[x] = src[x * channels + 1];
            b[x] = src[x * channels + 2];
        }
    }
    int planes = channels <= 2 ? 1 : 3;
    uint8_t *plane[3] = {r, g, b};
    for (int p = 0; p < planes; p++)
        memset(plane[p] + width, plane[p][width - 1], (size_t)(padded_width - width));
}

static inline v8f load8(const uint8_t *p)
{
    v8b b;
    memcpy(&b, p, sizeof b);
    return __builtin_convertvector(b, v8f);
}

/* stb's conversion, e.g. Y = ((0.299 r + 0.587 g) + 0.114 b) - 128. */
static inline void to_ycbcr(const uint8_t *rp, const uint8_t *gp, const uint8_t *bp, v8f *y,
                            v8f *cb, v8f *cr)
{
    v8f r = load8(rp), g = load8(gp), b = load8(bp);
    *y = ((0.29900f * r + 0.58700f * g) + 0.11400f * b) - 128.0f;
    *cb = (-0.16874f * r - 0.33126f * g) + 0.50000f * b;
    *cr = (0.50000f * r - 0.41869f * g) - 0.08131f * b;
}

/* 2x2 means of a 16x16 chroma block, ((a + b) + c + d) * 0.25 as stb sums. */
static void subsample(v8f full[16][2], v8f half[8])
{
    for (int y = 0; y < 8; y++) {
        v8f *top = full[2 * y], *bottom = full[2 * y + 1];
        v8f te = SHUF(top[0], top[1], 0, 2, 4, 6, 8, 10, 12, 14);
        v8f to = SHUF(top[0], top[1], 1, 3, 5, 7, 9, 11, 13, 15);
        v8f be = SHUF(bottom[0], bottom[1], 0, 2, 4, 6, 8, 10, 12, 14);
        v8f bo = SHUF(bottom[0], bottom[1], 1, 3, 5, 7, 9, 11, 13, 15);
        half[y] = (((te + to) + be) + bo) * 0.25f;
    }
}

/* ---- The scan ---- */

typedef struct {
    const jpeg_setup *s;
    writer *w;
    int dc[3];
} scan;

static void code_block(scan *sc, const v8f rows[8], int component)
{
    int32_t coef[64];
    int table = component ? 1 : 0;
    transform(rows, sc->s->scale[table], coef);
    sc->dc[component] = encode_block(sc->w, coef, sc->dc[component], &sc->s->huff[2 * table],
                                     &sc->s->huff[2 * table + 1]);
}

/* Bytes one block can take: 64 codes of up to 16 + 11 bits, every byte
 * possibly stuffed, and a flushed word. */
#define BLOCK_MAX_BYTES (64 * 27 / 8 * 2 + 8)

/* One MCU of 4:2:0: four luma blocks, then Cb and Cr from 2x2 means. */
static void code_mcu_420(scan *sc, uint8_t *rows[3][16], int x)
{
    v8f y[16][2], cb[16][2], cr[16][2], block[8];
    for (int r = 0; r < 16; r++)
        for (int h = 0; h < 2; h++)
            to_ycbcr(rows[0][r] + x + 8 * h, rows[1][r] + x + 8 * h, rows[2][r] + x + 8 * h,
                     &y[r][h], &cb[r][h], &cr[r][h]);
    for (int by = 0; by < 16; by += 8)
        for (int h = 0; h < 2; h++) {
            for (int r = 0; r < 8; r++) block[r] = y[by + r][h];
            code_block(sc, block, 0);
        }
    subsample(cb, block);
    code_block(sc, block, 1);
    subsample(cr, block);
    code_block(sc, block, 2);
}

static void code_mcu_444(scan *sc, uint8_t *rows[3][16], int x)
{
    v8f y[8], cb[8], cr[8];
    for (int r = 0; r < 8; r++)
        to_ycbcr(rows[0][r] + x, rows[1][r] + x, rows[2][r] + x, &y[r], &cb[r], &cr[r]);
    code_block(sc, y, 0);
    code_block(sc, cb, 1);
    code_block(sc, cr, 2);
}

/* Every MCU, bands of mcu rows top to bottom; rows past the bottom repeat
 * the last one (stb's edge rule), by pointing at its planes. */
static int code_scan(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                     const jpeg_setup *s, writer *w)
{
    int mcu = s->subsample ? 16 : 8, planes = channels <= 2 ? 1 : 3;
    size_t padded = ((size_t)width + (size_t)mcu - 1) / (size_t)mcu * (size_t)mcu;
    uint8_t *buf = malloc(padded * (size_t)mcu * (size_t)planes);
    if (!buf) return 0;
    uint8_t *rows[3][16];
    scan sc = {s, w, {0, 0, 0}};
    for (int y0 = 0; y0 < height; y0 += mcu) {
        for (int r = 0; r < mcu; r++) {
            for (int p = 0; p < 3; p++)
                rows[p][r] = buf + ((size_t)(p % planes) * (size_t)mcu + (size_t)r) * padded;
            if (y0 + r < height)
                split_row(pixels + (size_t)(y0 + r) * stride, width, channels, (int)padded,
                          rows[0][r], rows[1][r], rows[2][r]);
            else
                for (int p = 0; p < 3; p++) rows[p][r] = rows[p][r - 1];
        }
        for (size_t x = 0; x < padded; x += (size_t)mcu) {
            if (!reserve(w, (mcu == 16 ? 6 : 3) * BLOCK_MAX_BYTES)) {
                free(buf);
                return 0;
            }
            if (s->subsample) code_mcu_420(&sc, rows, (int)x);
            else code_mcu_444(&sc, rows, (int)x);
        }
    }
    free(buf);
    return 1;
}

/* ---- Markers ---- */

static void put_headers(writer *w, const jpeg_setup *s, int width, int height)
{
    /* JFIF 1.01, no units, 1:1 density, no thumbnail */
    static const uint8_t start[] = {0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0,
                                    1,    1,    0,    0,    1, 0,  1,   0,   0};
    static const uint8_t dqt[] = {0xFF, 0xDB, 0, 2 + 2 * 65};
    put_bytes(w, start, sizeof start);
    put_bytes(w, dqt, sizeof dqt);
    for (int t = 0; t < 2; t++) {
        *w->p++ = (uint8_t)t; /* 8-bit table t */
        put_bytes(w, s->quant_zigzag[t], 64);
    }
    /* SOF0: 8 bits, 3 components (Y 1 with table 0, Cb 2, Cr 3 with table
     * 1); sides as 16-bit fields, as stb truncates them */
    const uint8_t frame[] = {0xFF, 0xC0, 0, 17, 8,
                             (uint8_t)(height >> 8), (uint8_t)height,
                             (uint8_t)(width >> 8), (uint8_t)width,
                             3, 1, s->subsample ? 0x22 : 0x11, 0, 2, 0x11, 1, 3, 0x11, 1};
    put_bytes(w, frame, sizeof frame);
    /* DHT: all four tables in one segment */
    static const uint8_t dht[] = {0xFF, 0xC4, 0x01, 0xA2};
    static const uint8_t table_ids[4] = {0x00, 0x10, 0x01, 0x11};
    put_bytes(w, dht, sizeof dht);
    for (int t = 0; t < 4; t++) {
        size_t count = 0;
        for (int i = 0; i < 16; i++) count += huff_counts[t][i];
        *w->p++ = table_ids[t];
        put_bytes(w, huff_counts[t], 16);
        put_bytes(w, huff_symbols[t], count);
    }
    /* SOS: the three components, then spectral 0..63, no approximation */
    static const uint8_t sos[] = {0xFF, 0xDA, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0};
    put_bytes(w, sos, sizeof sos);
}

int gi__jpeg_write(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                   int quality, uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    if (!pixels || width <= 0 || height <= 0 || channels < 1 || channels > 4) return -1;
    jpeg_setup s;
    make_setup(quality, &s);
    writer w = {0};
    /* a first guess of a quarter of the pixels' bytes; it doubles as needed */
    if (!reserve(&w, (size_t)width * (size_t)height / 4 + 4096)) return -1;
    put_headers(&w, &s, width, height);
    if (!code_scan(pixels, width, height, channels, stride, &s, &w) || !reserve(&w, 16)) {
        free(w.data);
        return -1;
    }
    put_padding(&w);
    *w.p++ = 0xFF; /* EOI */
    *w.p++ = 0xD9;
    *bytes = w.data;
    *size = (size_t)(w.p - w.data);
    return 0;
}
