/* Baseline JPEG encoding with stb_image_write's exact output (jpeg_write.h):
 * the tables for a quality and the markers here, the scan itself in
 * jpeg_scan.c (which says why the bytes are stb's). */
#include "jpeg_write.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpu_isa.h"
#include "jpeg_scan.h"

/* ---- Tables of the JPEG standard (ITU T.81, annex K) ---- */

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

typedef struct {
    uint8_t quant_zigzag[2][64]; /* as written in DQT */
    jpeg_tables t;
} jpeg_setup;

/* Annex C: codes of each length are consecutive, lengths ascending. */
static void make_codes(const uint8_t counts[16], const uint8_t *symbols, jpeg_huff *h)
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
    s->t.subsample = quality <= 90;
    quality = quality < 1 ? 1 : quality > 100 ? 100 : quality;
    int scale = quality < 50 ? 5000 / quality : 200 - quality * 2;
    for (int t = 0; t < 2; t++) {
        int q[64];
        for (int k = 0; k < 64; k++) {
            int v = (base_quant[t][k] * scale + 50) / 100;
            q[k] = v < 1 ? 1 : v > 255 ? 255 : v;
            /* int times float, times float, then 1 over it: stb's roundings */
            s->t.scale[t][k] = 1 / ((float)q[k] * aan_scale[k / 8] * aan_scale[k % 8]);
        }
        for (int j = 0; j < 64; j++) s->quant_zigzag[t][j] = (uint8_t)q[gi__jpeg_natural_order[j]];
    }
    for (int t = 0; t < 4; t++) make_codes(huff_counts[t], huff_symbols[t], &s->t.huff[t]);
    uint8_t zigzag_of[64];
    for (int j = 0; j < 64; j++) zigzag_of[gi__jpeg_natural_order[j]] = (uint8_t)j;
    for (int u = 0; u < 8; u++)
        for (int b = 0; b < 256; b++) {
            uint64_t m = 0;
            for (int v = 0; v < 8; v++)
                if (b >> v & 1) m |= (uint64_t)1 << zigzag_of[8 * u + v];
            s->t.zigzag_bits[u][b] = m;
        }
}

/* ---- Output ---- */

static void put_bytes(jpeg_buffer *w, const void *bytes, size_t count)
{
    memcpy(w->p, bytes, count);
    w->p += count;
}

/* ---- Markers ---- */

static void put_headers(jpeg_buffer *w, const jpeg_setup *s, int width, int height)
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
                             3, 1, s->t.subsample ? 0x22 : 0x11, 0, 2, 0x11, 1, 3, 0x11, 1};
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

/* ---- A scan in pieces (jpeg_write.h) ----
 *
 * The scan is one bit stream, but its pieces are not tied together but
 * by the DC predictors: MCU rows [r0, r1) code the same bits wherever
 * they start, given the DCs of the MCU before r0 (which its blocks'
 * transforms alone give). So a piece is coded unstuffed from the DCs that
 * the MCU before it ends with; the pieces are then joined bit by bit,
 * padded, and stuffed into the file. */

int gi__jpeg_last_mcu_x(int width, const jpeg_tables *t)
{
    const int mcu = gi__jpeg_mcu_side(t);
    return (width - 1) / mcu * mcu;
}

int gi__jpeg_piece_start(gi_jpeg_piece *p, const jpeg_tables *t, const uint8_t *last_mcu,
                         int mcu_width, int channels, size_t stride)
{
    *p = (gi_jpeg_piece){{0}, 0, {0, 0, 0}, {0}};
    if (!last_mcu) return 1;
    /* that MCU coded alone, as an image cut to its columns (whose edge is
     * the image's) and its rows (all inside the image), for its DCs */
    const int mcu = gi__jpeg_mcu_side(t);
    jpeg_buffer scratch = {0};
    uint64_t bits = 0;
    int ok = gi__jpeg_reserve(&scratch, 4096) &&
             gi__jpeg_scan()(last_mcu, mcu_width, mcu, channels, stride, t, 0, 1, p->dc, 1,
                             &scratch, &bits, NULL);
    free(scratch.data);
    return ok;
}

int gi__jpeg_piece_code(gi_jpeg_piece *p, const jpeg_tables *t, const uint8_t *pixels, int width,
                        int rows, int channels, size_t stride)
{
    const int mcu = gi__jpeg_mcu_side(t);
    /* at first a guess of a quarter of the pixels' bytes; it doubles as needed */
    return gi__jpeg_reserve(&p->out, (size_t)rows * (size_t)width / 4 + 4096) &&
           gi__jpeg_scan()(pixels, width, rows, channels, stride, t, 0, (rows + mcu - 1) / mcu,
                           p->dc, 1, &p->out, &p->bits, &p->scratch);
}

void gi__jpeg_piece_free(gi_jpeg_piece *p)
{
    free(p->out.data);
    free(p->scratch.floats);
    p->out = (jpeg_buffer){0};
    p->scratch = (jpeg_scratch){0};
}

/* Appends `bits` bits of src (most significant first) to dst at bit `at`;
 * dst is zero from there on. */
static void append_bits(uint8_t *dst, uint64_t at, const uint8_t *src, uint64_t bits)
{
    uint8_t *d = dst + at / 8;
    const int s = (int)(at % 8);
    size_t n = (size_t)((bits + 7) / 8);
    if (s == 0) {
        memcpy(d, src, n);
        return;
    }
    size_t i = 0;
    for (; i + 8 <= n; i += 8) { /* 8 bytes at a time, big-endian */
        uint64_t v;
        memcpy(&v, src + i, 8);
        v = __builtin_bswap64(v);
        uint64_t head;
        memcpy(&head, d + i, 8);
        head = __builtin_bswap64(head) | v >> s;
        head = __builtin_bswap64(head);
        memcpy(d + i, &head, 8);
        d[i + 8] = (uint8_t)(v << (8 - s)); /* the low s bits of v, at the top */
    }
    for (; i < n; i++) {
        d[i] |= (uint8_t)(src[i] >> s);
        d[i + 1] = (uint8_t)(src[i] << (8 - s));
    }
}

int gi__jpeg_pieces_file(const gi_jpeg_piece *pieces, int count, int width, int height,
                         int quality, uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    uint64_t total = 0;
    for (int k = 0; k < count; k++) total += pieces[k].bits;
    if (total / 8 > SIZE_MAX / 4) return -1;
    uint8_t *all = calloc((size_t)((total + 7) / 8) + 9, 1);
    if (!all) return -1;
    uint64_t at = 0;
    for (int k = 0; k < count; k++) {
        append_bits(all, at, pieces[k].out.data, pieces[k].bits);
        at += pieces[k].bits;
    }
    /* stb's padding: seven 1 bits, whole bytes kept */
    append_bits(all, at, (const uint8_t[]){0xFE}, 7);
    int r = gi__jpeg_write_around_scan(width, height, quality, all, (size_t)((at + 7) / 8), bytes,
                                       size);
    free(all);
    return r;
}

/* ---- One image on several threads: a piece of MCU rows each ---- */

/* Pieces of at least this many MCU rows (a thread's start and the join
 * are small beside them). */
#define PIECE_MIN_ROWS 8
#define MAX_PIECES 64

typedef struct {
    const uint8_t *pixels;
    int width, height, channels;
    size_t stride;
    const jpeg_tables *t;
    int row0, row1;
    gi_jpeg_piece *piece;
    int ok;
} piece_job;

static void *code_piece(void *arg)
{
    piece_job *pj = arg;
    const int mcu = gi__jpeg_mcu_side(pj->t), y0 = pj->row0 * mcu;
    const int y1 = (long)pj->row1 * mcu < pj->height ? pj->row1 * mcu : pj->height;
    pj->ok = gi__jpeg_piece_code(pj->piece, pj->t, pj->pixels + (size_t)y0 * pj->stride,
                                 pj->width, y1 - y0, pj->channels, pj->stride);
    return NULL;
}

/* The file coded in `count` pieces on threads. 0, or -1 when out of memory. */
static int write_in_pieces(const uint8_t *pixels, int width, int height, int channels,
                           size_t stride, int quality, const jpeg_tables *t, int rows, int count,
                           uint8_t **bytes, size_t *size)
{
    piece_job pj[MAX_PIECES];
    gi_jpeg_piece pieces[MAX_PIECES];
    pthread_t tid[MAX_PIECES];
    int started[MAX_PIECES] = {0}, ok = 1;
    const int mcu = gi__jpeg_mcu_side(t), last_x = gi__jpeg_last_mcu_x(width, t);
    for (int k = 0; k < count; k++) {
        pj[k] = (piece_job){pixels, width, height, channels, stride, t,
                            (int)((long)rows * k / count), (int)((long)rows * (k + 1) / count),
                            &pieces[k], 0};
        const uint8_t *last_mcu = k == 0 ? NULL
                                         : pixels + (size_t)(pj[k].row0 - 1) * mcu * stride +
                                               (size_t)last_x * (size_t)channels;
        ok &= gi__jpeg_piece_start(&pieces[k], t, last_mcu, width - last_x, channels, stride);
    }
    for (int k = 1; k < count && ok; k++)
        started[k] = pthread_create(&tid[k], NULL, code_piece, &pj[k]) == 0;
    if (ok) code_piece(&pj[0]);
    for (int k = 0; k < count; k++) {
        if (started[k]) pthread_join(tid[k], NULL);
        else if (ok && k > 0) code_piece(&pj[k]); /* no thread to be had */
        ok &= pj[k].ok;
    }
    int r = ok ? gi__jpeg_pieces_file(pieces, count, width, height, quality, bytes, size) : -1;
    for (int k = 0; k < count; k++) gi__jpeg_piece_free(&pieces[k]);
    return r;
}

int gi__jpeg_write(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                   int quality, int threads, uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    if (!pixels || width <= 0 || height <= 0 || channels < 1 || channels > 4) return -1;
    jpeg_setup s;
    make_setup(quality, &s);
    int mcu = gi__jpeg_mcu_side(&s.t), rows = (height + mcu - 1) / mcu;
    int pieces = threads < 1 ? 1 : threads > MAX_PIECES ? MAX_PIECES : threads;
    if (pieces > rows / PIECE_MIN_ROWS) pieces = rows / PIECE_MIN_ROWS;
    if (pieces > 1)
        return write_in_pieces(pixels, width, height, channels, stride, quality, &s.t, rows,
                               pieces, bytes, size);
    jpeg_buffer out = {0};
    /* a first guess of a quarter of the pixels' bytes; it doubles as needed */
    if (!gi__jpeg_reserve(&out, (size_t)width * (size_t)height / 4 + 4096)) return -1;
    put_headers(&out, &s, width, height);
    int dc[3] = {0, 0, 0};
    uint64_t bits = 0;
    if (!gi__jpeg_scan()(pixels, width, height, channels, stride, &s.t, 0, rows, dc, 0, &out,
                         &bits, NULL) ||
        !gi__jpeg_reserve(&out, 2)) {
        free(out.data);
        return -1;
    }
    *out.p++ = 0xFF; /* EOI */
    *out.p++ = 0xD9;
    *bytes = out.data;
    *size = (size_t)(out.p - out.data);
    return 0;
}

void gi__jpeg_write_tables(int quality, jpeg_tables *t)
{
    jpeg_setup s;
    make_setup(quality, &s);
    *t = s.t;
}

/* Copies the scan's bytes with a 0 stuffed after each 0xFF (T.81, F.1.2.3). */
static void put_stuffed(jpeg_buffer *w, const uint8_t *scan, size_t n)
{
    const uint8_t *end = scan + n;
    while (scan < end) {
        const uint8_t *ff = memchr(scan, 0xFF, (size_t)(end - scan));
        size_t run = (size_t)((ff ? ff + 1 : end) - scan);
        put_bytes(w, scan, run);
        if (ff) *w->p++ = 0;
        scan += run;
    }
}

int gi__jpeg_write_around_scan(int width, int height, int quality, const uint8_t *scan, size_t n,
                               uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    if (width <= 0 || height <= 0 || n > (SIZE_MAX - 4096) / 2) return -1;
    jpeg_setup s;
    make_setup(quality, &s);
    jpeg_buffer out = {0};
    if (!gi__jpeg_reserve(&out, 1024 + 2 * n)) return -1; /* headers, every byte stuffed, EOI */
    put_headers(&out, &s, width, height);
    put_stuffed(&out, scan, n);
    *out.p++ = 0xFF; /* EOI */
    *out.p++ = 0xD9;
    *bytes = out.data;
    *size = (size_t)(out.p - out.data);
    return 0;
}

/* The widest set this CPU has, up to GPUIMG_CPU_ISA's cap (cpu_isa.h:
 * the blur's rule). */
jpeg_scan_fn *gi__jpeg_scan(void)
{
#if defined(__x86_64__) && defined(__GNUC__) /* meson builds the sets there */
    if (gi__cpu_isa() >= GI__ISA_AVX512) return gi__jpeg_scan_avx512;
    if (gi__cpu_isa() >= GI__ISA_AVX2) return gi__jpeg_scan_avx2;
#endif
    return gi__jpeg_scan_base;
}
