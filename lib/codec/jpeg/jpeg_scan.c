/* The JPEG writer's scan (jpeg_scan.h): colour conversion, DCT,
 * quantization and Huffman coding, with stb_image_write 1.16's results.
 *
 * Why the bytes match stb's: every float value is computed by the same
 * IEEE single-precision operations, in the same order, as stb computes it;
 * only the lanes differ (4, 8 or more at once). Lane order changes
 * nothing, since no operation mixes lanes except exact moves (transposes,
 * gathering even and odd columns). The project compiles with
 * -ffp-contract=off, so a*b+c stays two roundings here as in stb, and
 * without -ffast-math the vectorizer reorders nothing. The integer parts
 * (rounding to int, the Huffman coding) are the same functions of those
 * floats.
 *
 * Where stb's time went: a callback per output byte, a function call per
 * DCT row, pixels fetched with two clamps each and converted one by one.
 * Here each band of MCU rows becomes Y, Cb and Cr planes (4:2:0 chroma at
 * half size) in plain loops the compiler vectorizes, edge pixels
 * replicated there; the DCT and quantization run on vectors of 4 or 8
 * floats; the bits go 32 at a time into a buffer reserved per MCU.
 *
 * Compiled once per instruction set (lib/codec/meson.build); GI_JPEG_SCAN
 * names this copy's entry. */
#include "jpeg_scan.h"
#include "base/vector_shuffle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef GI_JPEG_SCAN
#define GI_JPEG_SCAN gi__jpeg_scan_base
#endif

/* Lanes per vector: 8 where the set has 256-bit registers, else 4 (SSE2,
 * NEON), where GCC would split 8-float vectors, spill them and move
 * shuffled lanes one at a time (3x slower than 4 lanes). An 8x8 block is
 * blk[g][r]: row r, columns VL g to VL g + VL - 1. */
#ifdef __AVX__
#define VL 8
#else
#define VL 4
#endif
#define NV (8 / VL) /* vectors per row of a block */
typedef float vf __attribute__((vector_size(VL * 4)));
typedef int32_t vi __attribute__((vector_size(VL * 4)));
typedef uint32_t vu __attribute__((vector_size(VL * 4)));

/* Every function here but the entry is static and takes vectors only from
 * its own file, so GCC's note that 32-byte vectors are passed differently
 * with AVX does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

/* ---- The bit writer ---- */

/* Kept in locals while a block is coded: the output bytes are chars, which
 * may alias anything, so fields behind a pointer would be reloaded after
 * every byte stored. */
typedef struct {
    uint8_t *p;   /* next byte; room reserved by the caller */
    uint64_t acc; /* the latest bits, the n pending ones in the low end */
    int n;        /* < 32 between calls */
    int raw;      /* no byte stuffing: a piece of a scan coded in parts */
} writer;

/* A byte of entropy-coded data; 0xFF is followed by a stuffed 0. */
static inline void put_coded_byte(writer *w, unsigned byte)
{
    *w->p++ = (uint8_t)byte;
    if (byte == 0xFF && !w->raw) *w->p++ = 0;
}

/* Four bytes, big-endian; the common case has no 0xFF in it (no zero byte
 * in ~word, by the borrow test) and is stored without looking at each
 * byte. */
static inline void put_word(writer *w, uint32_t word)
{
    if (w->raw || ((~word - 0x01010101u) & word & 0x80808080u) == 0) {
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

/* The end of the scan: stb pads the last byte with 1 bits. */
static void put_padding(writer *w)
{
    put_bits(w, 0x7F, 7);
    for (; w->n >= 8; w->n -= 8) put_coded_byte(w, (unsigned)(w->acc >> (w->n - 8)) & 0xFF);
}

/* A symbol (run << 4 | size) and the size low bits of value (its one's
 * complement when negative), in one write. */
static inline void put_value(writer *w, const jpeg_huff *h, int run, int value)
{
    unsigned magnitude = value < 0 ? -(unsigned)value : (unsigned)value;
    int size = magnitude ? 32 - __builtin_clz(magnitude) : 0;
    unsigned bits = (unsigned)(value < 0 ? value - 1 : value) & ((1u << size) - 1);
    int symbol = run << 4 | size;
    put_bits(w, (uint32_t)h->code[symbol] << size | bits, h->len[symbol] + size);
}

/* ---- One block: DCT, quantization, Huffman coding ---- */

/* A block transposed (exact moves): out[g][k], lane i = in[k / VL][VL g + i],
 * lane k % VL. */
static inline void transpose(vf in[NV][8], vf out[NV][8])
{
#if VL == 8
    vf t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = GI_SHUFFLE(in[0][i], in[0][i + 1], vi, 0, 8, 1, 9, 4, 12, 5, 13);
        t[i + 1] = GI_SHUFFLE(in[0][i], in[0][i + 1], vi, 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 4)
        for (int k = 0; k < 2; k++) {
            u[i + k * 2] = GI_SHUFFLE(t[i + k], t[i + k + 2], vi, 0, 1, 8, 9, 4, 5, 12, 13);
            u[i + k * 2 + 1] = GI_SHUFFLE(t[i + k], t[i + k + 2], vi, 2, 3, 10, 11, 6, 7, 14, 15);
        }
    for (int k = 0; k < 4; k++) {
        out[0][k] = GI_SHUFFLE(u[k], u[k + 4], vi, 0, 1, 2, 3, 8, 9, 10, 11);
        out[0][k + 4] = GI_SHUFFLE(u[k], u[k + 4], vi, 4, 5, 6, 7, 12, 13, 14, 15);
    }
#else
    /* four 4x4 transposes, the off-diagonal ones trading places */
    for (int g = 0; g < 2; g++)
        for (int h = 0; h < 2; h++) {
            const vf *a = in[h] + 4 * g;
            vf t0 = GI_SHUFFLE(a[0], a[1], vi, 0, 4, 1, 5), t1 = GI_SHUFFLE(a[0], a[1], vi, 2, 6, 3, 7);
            vf t2 = GI_SHUFFLE(a[2], a[3], vi, 0, 4, 1, 5), t3 = GI_SHUFFLE(a[2], a[3], vi, 2, 6, 3, 7);
            vf *o = out[g] + 4 * h;
            o[0] = GI_SHUFFLE(t0, t2, vi, 0, 1, 4, 5);
            o[1] = GI_SHUFFLE(t0, t2, vi, 2, 3, 6, 7);
            o[2] = GI_SHUFFLE(t1, t3, vi, 0, 1, 4, 5);
            o[3] = GI_SHUFFLE(t1, t3, vi, 2, 3, 6, 7);
        }
#endif
}

/* The AAN forward DCT of 8 points (Arai, Agui, Nakajima; the jpeglib
 * float version), one transform per lane, each operation as stb orders it. */
static inline void fdct8(vf d[8])
{
    vf t0 = d[0] + d[7], t7 = d[0] - d[7], t1 = d[1] + d[6], t6 = d[1] - d[6];
    vf t2 = d[2] + d[5], t5 = d[2] - d[5], t3 = d[3] + d[4], t4 = d[3] - d[4];
    /* even part */
    vf t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2;
    d[0] = t10 + t11;
    d[4] = t10 - t11;
    vf z1 = (t12 + t13) * 0.707106781f;
    d[2] = t13 + z1;
    d[6] = t13 - z1;
    /* odd part */
    vf o10 = t4 + t5, o11 = t5 + t6, o12 = t6 + t7;
    vf z5 = (o10 - o12) * 0.382683433f;
    vf z2 = o10 * 0.541196100f + z5;
    vf z4 = o12 * 1.306562965f + z5;
    vf z3 = o11 * 0.707106781f;
    vf z11 = t7 + z3, z13 = t7 - z3;
    d[5] = z13 + z2;
    d[3] = z13 - z2;
    d[1] = z11 + z4;
    d[7] = z11 - z4;
}

/* 2-D DCT (stb: rows first, then columns), scaled and rounded half away
 * from zero by truncating v +- 0.5 (stb's (int)(v < 0 ? v - .5f : v + .5f);
 * at -0 both give 0). out: natural order; returns which of out are not 0,
 * bit i for out[i]. */
static inline uint64_t transform(vf rows[NV][8], const float scale[64], int32_t out[64])
{
    vf cols[NV][8], d[NV][8];
    transpose(rows, cols);
    for (int g = 0; g < NV; g++) fdct8(cols[g]); /* cols[g][k], lane i: coefficient k of row VL g + i */
    transpose(cols, d);
    for (int g = 0; g < NV; g++) fdct8(d[g]); /* d[g][u], lane i: coefficient (u, VL g + i) */
    const vi sign = (vi){0} + INT32_MIN, half = (vi){0} + 0x3F000000;
#if VL == 8
    const vu lane_bit = {1, 2, 4, 8, 16, 32, 64, 128};
#else
    const vu lane_bit = {1, 2, 4, 8};
#endif
    vu bits[2] = {{0}, {0}}; /* rows 0-3 and 4-7, bit 8 (u % 4) + v */
    for (int u = 0; u < 8; u++)
        for (int g = 0; g < NV; g++) {
            vf s, v;
            memcpy(&s, scale + u * 8 + g * VL, sizeof s);
            v = d[g][u] * s;
            vf r = v + (vf)(((vi)v & sign) | half);
            vi q = __builtin_convertvector(r, vi);
            memcpy(out + u * 8 + g * VL, &q, sizeof q);
            bits[u / 4] |= (vu)(q != 0) & (lane_bit << (8 * (u % 4) + VL * g));
        }
    for (int i = 0; i < 2; i++) { /* OR across the lanes */
#if VL == 8
        bits[i] |= GI_SHUFFLE(bits[i], bits[i], vi, 4, 5, 6, 7, 0, 1, 2, 3);
        bits[i] |= GI_SHUFFLE(bits[i], bits[i], vi, 2, 3, 0, 1, 6, 7, 4, 5);
        bits[i] |= GI_SHUFFLE(bits[i], bits[i], vi, 1, 0, 3, 2, 5, 4, 7, 6);
#else
        bits[i] |= GI_SHUFFLE(bits[i], bits[i], vi, 2, 3, 0, 1);
        bits[i] |= GI_SHUFFLE(bits[i], bits[i], vi, 1, 0, 3, 2);
#endif
    }
    return bits[0][0] | (uint64_t)bits[1][0] << 32;
}

/* Codes one block (natural order, nonzero: which coefficients are not 0)
 * and returns its DC, the next block's predictor. */
static int encode_block(writer *out, const jpeg_tables *t, const int32_t coef[64],
                        uint64_t nonzero, int predictor, const jpeg_huff *dc,
                        const jpeg_huff *ac)
{
    writer w = *out;
    uint64_t zigzag = 0; /* bit j: zigzag position j is not 0 */
    for (int u = 0; u < 8; u++) zigzag |= t->zigzag_bits[u][(nonzero >> 8 * u) & 0xFF];
    put_value(&w, dc, 0, coef[0] - predictor);
    int next = 1;
    for (uint64_t rest = zigzag & ~(uint64_t)1; rest; rest &= rest - 1) {
        int k = __builtin_ctzll(rest), run = k - next;
        for (; run >= 16; run -= 16) put_bits(&w, ac->code[0xF0], ac->len[0xF0]);
        put_value(&w, ac, run, coef[gi__jpeg_natural_order[k]]);
        next = k + 1;
    }
    if (next != 64) put_bits(&w, ac->code[0], ac->len[0]); /* end of block */
    *out = w;
    return coef[0];
}

/* ---- Pixels: Y, Cb, Cr planes of a band ---- */

/* width pixels in stb's colour conversion, e.g. Y = ((0.299 r + 0.587 g)
 * + 0.114 b) - 128, grey (1 or 2 channels) as r = g = b. A plain loop the
 * compiler vectorizes (no reassociation: same operations, same order),
 * called with a constant channel count so that each count gets its own
 * strides. */
static inline void convert(const uint8_t *restrict src, int width, int channels,
                           float *restrict y, float *restrict cb, float *restrict cr)
{
    const int gi = channels > 2 ? 1 : 0, bi = channels > 2 ? 2 : 0;
    for (int x = 0; x < width; x++) {
        float r = src[x * channels], g = src[x * channels + gi], b = src[x * channels + bi];
        y[x] = ((0.29900f * r + 0.58700f * g) + 0.11400f * b) - 128.0f;
        cb[x] = (-0.16874f * r - 0.33126f * g) + 0.50000f * b;
        cr[x] = (0.50000f * r - 0.41869f * g) - 0.08131f * b;
    }
}

/* Without SSSE3's byte shuffle GCC leaves the 3-byte stride scalar: the
 * SSE2 scan took 36 ms for an 8.7 MP RGB photo, 25 ms with the pixels
 * copied to 4 bytes first, a chunk at a time. (With AVX2 the copy costs
 * 15%, so it is for SSE2 alone.) The last pixel is copied bytewise, so
 * that no read passes the row. */
#if defined(__SSE2__) && !defined(__SSSE3__)
#define RGB_THROUGH_QUADS 1
static void convert_rgb(const uint8_t *src, int width, float *y, float *cb, float *cr)
{
    enum { CHUNK = 256 };
    uint32_t quad[CHUNK];
    for (int x0 = 0; x0 < width; x0 += CHUNK) {
        int n = width - x0 < CHUNK ? width - x0 : CHUNK;
        const uint8_t *p = src + (size_t)x0 * 3;
        int whole = x0 + n == width ? n - 1 : n; /* pixels with a 4th byte to read */
        for (int i = 0; i < whole; i++) memcpy(&quad[i], p + 3 * i, 4);
        if (whole < n) memcpy(&quad[n - 1], p + 3 * (n - 1), 3);
        convert((const uint8_t *)quad, n, 4, y + x0, cb + x0, cr + x0);
    }
}
#endif

/* One row of the band, the last column repeated to padded_width (stb's
 * edge rule). */
static void convert_row(const uint8_t *src, int width, int channels, int padded_width,
                        float *y, float *cb, float *cr)
{
    switch (channels) {
    case 1: convert(src, width, 1, y, cb, cr); break;
    case 2: convert(src, width, 2, y, cb, cr); break;
#ifdef RGB_THROUGH_QUADS
    case 3: convert_rgb(src, width, y, cb, cr); break;
#else
    case 3: convert(src, width, 3, y, cb, cr); break;
#endif
    default: convert(src, width, 4, y, cb, cr); break;
    }
    for (int x = width; x < padded_width; x++) {
        y[x] = y[width - 1];
        cb[x] = cb[width - 1];
        cr[x] = cr[width - 1];
    }
}

/* 4:2:0 chroma: the means of 2x2 samples, ((a + b) + c + d) * 0.25 in
 * stb's order, for n outputs. */
static void halve_rows(const float *restrict top, const float *restrict bottom, size_t n,
                       float *restrict out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (((top[2 * i] + top[2 * i + 1]) + bottom[2 * i]) + bottom[2 * i + 1]) * 0.25f;
}

/* The rows of one band of MCUs: luma at full width (padded), chroma at
 * full or, for 4:2:0, half width (8 rows). Rows past the bottom point at
 * the last one (stb's edge rule). */
typedef struct {
    float *y[16], *cb[16], *cr[16];
    float *store; /* 16 + 2 * 16 rows of padded floats (4:2:0 uses fewer) */
    size_t padded;
} band;

static void fill_band_444(band *b, const uint8_t *pixels, size_t stride, int width, int height,
                          int channels, int y0)
{
    for (int r = 0; r < 8; r++) {
        if (r > 0 && y0 + r >= height) { /* row 0 is in the image: y0 < height */
            b->y[r] = b->y[r - 1];
            b->cb[r] = b->cb[r - 1];
            b->cr[r] = b->cr[r - 1];
            continue;
        }
        b->y[r] = b->store + (size_t)r * b->padded;
        b->cb[r] = b->store + (size_t)(8 + r) * b->padded;
        b->cr[r] = b->store + (size_t)(16 + r) * b->padded;
        convert_row(pixels + (size_t)(y0 + r) * stride, width, channels, (int)b->padded,
                        b->y[r], b->cb[r], b->cr[r]);
    }
}

/* Full-width chroma of each row pair goes through two scratch rows per
 * component (even and odd rows); a row past the bottom takes the chroma
 * of the last row converted, the image's last, which stays in its scratch
 * row as nothing is converted after it. */
static void fill_band_420(band *b, const uint8_t *pixels, size_t stride, int width, int height,
                          int channels, int y0)
{
    size_t n = b->padded, half = n / 2;
    float *scratch_cb[2] = {b->store + 16 * n, b->store + 17 * n};
    float *scratch_cr[2] = {b->store + 18 * n, b->store + 19 * n};
    float *pair_cb[2] = {NULL, NULL}, *pair_cr[2] = {NULL, NULL};
    float *last_cb = NULL, *last_cr = NULL;
    for (int r = 0; r < 16; r++) {
        int odd = r & 1;
        if (y0 + r < height) {
            b->y[r] = b->store + (size_t)r * n;
            last_cb = scratch_cb[odd];
            last_cr = scratch_cr[odd];
            convert_row(pixels + (size_t)(y0 + r) * stride, width, channels, (int)n, b->y[r],
                            last_cb, last_cr);
        } else {
            b->y[r] = b->y[r - 1];
        }
        pair_cb[odd] = last_cb;
        pair_cr[odd] = last_cr;
        if (odd) {
            b->cb[r / 2] = b->store + 20 * n + (size_t)(r / 2) * half;
            b->cr[r / 2] = b->store + 20 * n + (size_t)(8 + r / 2) * half;
            halve_rows(pair_cb[0], pair_cb[1], half, b->cb[r / 2]);
            halve_rows(pair_cr[0], pair_cr[1], half, b->cr[r / 2]);
        }
    }
}

static inline vf load(const float *p)
{
    vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* ---- The scan ---- */

typedef struct {
    const jpeg_tables *t;
    writer w;
    int dc[3];
} scan;

/* The 8x8 block at column x of 8 rows. */
static void code_block(scan *sc, float *const rows[8], size_t x, int component)
{
    vf block[NV][8];
    for (int g = 0; g < NV; g++)
        for (int r = 0; r < 8; r++) block[g][r] = load(rows[r] + x + VL * g);
    int32_t coef[64];
    int table = component ? 1 : 0;
    uint64_t nonzero = transform(block, sc->t->scale[table], coef);
    sc->dc[component] = encode_block(&sc->w, sc->t, coef, nonzero, sc->dc[component],
                                     &sc->t->huff[2 * table], &sc->t->huff[2 * table + 1]);
}

/* Bytes one block can take: 64 codes of up to 16 + 11 bits, every byte
 * possibly stuffed, and a flushed word. */
#define BLOCK_MAX_BYTES (64 * 27 / 8 * 2 + 8)

/* One MCU: 4:2:0 has four luma blocks, then Cb and Cr at half width. */
static void code_mcu(scan *sc, const band *b, size_t x)
{
    if (sc->t->subsample) {
        for (int by = 0; by < 16; by += 8)
            for (size_t bx = 0; bx < 16; bx += 8) code_block(sc, b->y + by, x + bx, 0);
        code_block(sc, b->cb, x / 2, 1);
        code_block(sc, b->cr, x / 2, 2);
    } else {
        code_block(sc, b->y, x, 0);
        code_block(sc, b->cb, x, 1);
        code_block(sc, b->cr, x, 2);
    }
}

/* The MCUs of rows [row0, row1), in bands of MCU rows top to bottom. */
int GI_JPEG_SCAN(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                 const jpeg_tables *t, int row0, int row1, int dc[3], int raw,
                 jpeg_buffer *out, uint64_t *bits, jpeg_scratch *scratch)
{
    int mcu = gi__jpeg_mcu_side(t);
    band b = {.padded = ((size_t)width + (size_t)mcu - 1) / (size_t)mcu * (size_t)mcu};
    const size_t floats = 28 * b.padded;
    jpeg_scratch own = {0};
    if (!scratch) scratch = &own;
    if (scratch->count < floats) {
        free(scratch->floats);
        scratch->floats = malloc(floats * sizeof *scratch->floats);
        scratch->count = scratch->floats ? floats : 0;
        if (!scratch->floats) return 0;
    }
    b.store = scratch->floats;
    scan sc = {t, {out->p, 0, 0, raw}, {dc[0], dc[1], dc[2]}};
    /* raw: the piece's bits so far end at out->p, the last of them
     * pending in its last byte's high end: they continue from there */
    const uint64_t before = raw ? *bits : 0;
    const int pending = (int)(before % 8);
    if (pending) {
        sc.w.p = --out->p;
        sc.w.acc = (uint64_t)(*out->p >> (8 - pending));
        sc.w.n = pending;
    }
    int ok = 1;
    const size_t start = (size_t)(out->p - out->data); /* the buffer may move as it grows */
    const int y_end = (long)row1 * mcu < height ? row1 * mcu : height;
    for (int y0 = row0 * mcu; y0 < y_end && ok; y0 += mcu) {
        if (t->subsample) fill_band_420(&b, pixels, stride, width, height, channels, y0);
        else fill_band_444(&b, pixels, stride, width, height, channels, y0);
        for (size_t x = 0; x < b.padded && ok; x += (size_t)mcu) {
            out->p = sc.w.p;
            ok = gi__jpeg_reserve(out, (size_t)(mcu == 16 ? 6 : 3) * BLOCK_MAX_BYTES);
            sc.w.p = out->p;
            if (ok) code_mcu(&sc, &b, x);
        }
    }
    free(own.floats);
    out->p = sc.w.p;
    if (!ok || !gi__jpeg_reserve(out, 16)) return 0;
    sc.w.p = out->p;
    for (int i = 0; i < 3; i++) dc[i] = sc.dc[i];
    if (raw) { /* the pending bits, the last byte's low end zero */
        size_t whole = (size_t)(sc.w.p - out->data) - start;
        *bits = before - (uint64_t)pending + 8 * (uint64_t)whole + (uint64_t)sc.w.n;
        for (; sc.w.n > 0; sc.w.n -= 8)
            *sc.w.p++ = (uint8_t)(sc.w.n >= 8 ? sc.w.acc >> (sc.w.n - 8) : sc.w.acc << (8 - sc.w.n));
    } else {
        put_padding(&sc.w);
    }
    out->p = sc.w.p;
    return 1;
}
