/* CPU blur: the fixed-point separable filter defined in gpuimg.h.
 *
 * Each thread owns a band of output rows and walks it top to bottom,
 * keeping the last 2R+1 horizontally filtered rows in a ring, so every
 * input row is filtered horizontally about once. Wide radii on wide images
 * would make that ring huge, so the band is cut into column strips whose
 * ring fits RING_BUDGET bytes. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"
#include "blur_finish.h"

/* Half of a 512 KiB L2 per core: the ring, read 2R+1 times per row, stays
 * there next to the padded row and the sums (32 MiB, the old budget, let a
 * 4-channel 3840-pixel ring of 13 rows reach 800 KB and every vertical tap
 * came from L3). */
#define RING_BUDGET (256u << 10)

#define MIN_STRIP 16

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const int32_t *w;
    int radius;
    gi_border border;
    int premultiplied; /* 2 or 4 channels: colour is blurred as c * alpha */
    int strip;         /* columns per strip */
} blur_job;

typedef struct {
    uint32_t *pad;  /* one input row as u values, with R columns each side */
    uint32_t *ring; /* 2R+1 horizontally filtered rows of one strip */
    uint32_t *acc;    /* vertical sums of one output row of one strip;
                         premultiplied: the sums of h >> 9 */
    uint32_t *acc_lo; /* and of the low 9 bits of h (see sums_split) */
    const uint32_t **rows; /* the ring rows of one output row, tap order */
} blur_buffers;

/* The value u the filter sees for channel c of pixel p (see gpuimg.h). */
static inline uint32_t sample_u(const uint8_t *p, int c, int channels, int premultiplied)
{
    if (premultiplied && c < channels - 1) return (uint32_t)p[c] * p[channels - 1];
    return p[c];
}

/* Border columns [from, to) of a padded row whose first column is lo. */
static void fill_border_columns(const blur_job *j, const uint8_t *row, long lo, long from, long to,
                                uint32_t *pad)
{
    const int ch = j->src->channels;
    uint8_t outside[4];
    memset(outside, j->border.value, sizeof outside);
    for (long vx = from; vx < to; vx++) {
        long sx = row ? gi_border_index(vx, j->src->width, j->border.mode) : -1;
        const uint8_t *p = sx >= 0 ? row + sx * ch : outside;
        for (int c = 0; c < ch; c++) pad[(vx - lo) * ch + c] = sample_u(p, c, ch, j->premultiplied);
    }
}

/* Colour times alpha, alpha as it is: the u of premultiplied pixels.
 * Sixteen bytes at a time: each byte times its pixel's alpha (times 1 for
 * alpha itself), 16-bit products (<= 65025), widened to 32 bits. */
typedef uint8_t bytes16 __attribute__((vector_size(16)));
typedef uint16_t u16x16 __attribute__((vector_size(32)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));

GI_VECTOR_CLONES
static void premultiply(const uint8_t *in, uint32_t *out, size_t pixels, int ch)
{
    const size_t n = pixels * ch;
    const bytes16 ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        bytes16 v;
        memcpy(&v, in + i, sizeof v);
        /* index 16 picks a 1 from ones */
        const bytes16 a = ch == 4 ? GI_SHUFFLE(v, ones, bytes16, 3, 3, 3, 16, 7, 7, 7, 16, 11, 11, 11,
                                               16, 15, 15, 15, 16)
                                  : GI_SHUFFLE(v, ones, bytes16, 1, 16, 3, 16, 5, 16, 7, 16, 9, 16,
                                               11, 16, 13, 16, 15, 16);
        const u16x16 product = __builtin_convertvector(v, u16x16) * __builtin_convertvector(a, u16x16);
        const u32x16 wide = __builtin_convertvector(product, u32x16);
        memcpy(out + i, &wide, sizeof wide);
    }
    for (; i < n; i += ch) {
        const uint32_t a = in[i + ch - 1];
        for (int c = 0; c < ch - 1; c++) out[i + c] = in[i + c] * a;
        out[i + ch - 1] = a;
    }
}

GI_VECTOR_CLONES
static void widen(const uint8_t *in, uint32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = in[i];
}

/* Fills pad with u for virtual columns [x0 - R, x1 + R) of source row sy,
 * or of an outside row (sy < 0, zero mode). Columns inside the image are
 * a straight copy (times alpha when premultiplied); only those past an
 * edge go through the border rule. */
static void fill_padded_row(const blur_job *j, long sy, int x0, int x1, uint32_t *pad)
{
    const int ch = j->src->channels, width = j->src->width;
    const long lo = (long)x0 - j->radius, hi = (long)x1 + j->radius;
    if (sy < 0) {
        fill_border_columns(j, NULL, lo, lo, hi, pad);
        return;
    }
    const uint8_t *row = j->src->data + (size_t)sy * j->src->stride;
    const long a = lo > 0 ? lo : 0, b = hi < width ? hi : width; /* a < b: x0 < width */
    fill_border_columns(j, row, lo, lo, a, pad);
    fill_border_columns(j, row, lo, b, hi, pad);
    if (j->premultiplied) premultiply(row + a * ch, pad + (a - lo) * ch, (size_t)(b - a), ch);
    else widen(row + a * ch, pad + (a - lo) * ch, (size_t)(b - a) * ch);
}

/* h = (sum_k w[k] * u[x + k] + 128) >> 8, using w's symmetry to halve the
 * multiplies. The sum never exceeds 65536 * 65025, so uint32 holds it.
 * Like the vertical sums, BLOCK outputs at a time keep their sums in
 * registers over all taps. */
#define BLOCK 16

GI_VECTOR_CLONES
static void filter_row(const blur_job *j, const uint32_t *pad, int n, uint32_t *out)
{
    const int ch = j->src->channels, R = j->radius;
    const int32_t *w = j->w + R; /* w[k] for k in [-R, R] */
    const size_t len = (size_t)n * ch;
    const uint32_t *centre = pad + (size_t)R * ch, w0 = (uint32_t)w[0];
    size_t i0 = 0;
    for (; i0 + BLOCK <= len; i0 += BLOCK) {
        uint32_t a[BLOCK];
        for (int t = 0; t < BLOCK; t++) a[t] = w0 * centre[i0 + t];
        for (int k = 1; k <= R; k++) {
            const uint32_t *left = centre + i0 - (size_t)k * ch, *right = centre + i0 + (size_t)k * ch;
            const uint32_t wk = (uint32_t)w[k];
            for (int t = 0; t < BLOCK; t++) a[t] += wk * (left[t] + right[t]);
        }
        for (int t = 0; t < BLOCK; t++) out[i0 + t] = (a[t] + 128) >> 8;
    }
    for (; i0 < len; i0++) {
        const uint32_t *at = centre + i0; /* the left taps lie before it, in the padding */
        uint32_t a = w0 * at[0];
        for (int k = 1; k <= R; k++) {
            const ptrdiff_t d = (ptrdiff_t)k * ch;
            a += (uint32_t)w[k] * (at[-d] + at[d]);
        }
        out[i0] = (a + 128) >> 8;
    }
}

static void horizontal_row(const blur_job *j, long vy, int x0, int x1, blur_buffers *b)
{
    long sy = gi_border_index(vy, j->src->height, j->border.mode);
    long slots = 2L * j->radius + 1;
    long slot = ((vy % slots) + slots) % slots;
    size_t row_len = (size_t)j->strip * j->src->channels;
    fill_padded_row(j, sy, x0, x1, b->pad);
    filter_row(j, b->pad, x1 - x0, b->ring + (size_t)slot * row_len);
}

/* Pointers to the 2R+1 ring rows of output row y, tap order. */
static void tap_rows(const blur_job *j, int y, const blur_buffers *b, const uint32_t **rows)
{
    const int R = j->radius;
    const size_t row_len = (size_t)j->strip * j->src->channels;
    const long slots = 2L * R + 1;
    for (int k = -R; k <= R; k++) {
        long slot = (((long)y + k) % slots + slots) % slots;
        rows[k + R] = b->ring + (size_t)slot * row_len;
    }
}

static inline uint8_t finish_plain(uint32_t v)
{
    return (uint8_t)((v + (1u << 23)) >> 24);
}

/* v = sum_k w[k] * h(y + k). Plain channels fit uint32 (65280 * 65536 <
 * 2^32), and out = (v + 2^23) >> 24 (v + 2^23 still fits).
 * Premultiplied colour (h up to 2^24) would need 64 bits; instead
 * v = 512 * sum w (h >> 9) + sum w (h & 511), two sums that each fit 31
 * bits (65536 * 32512 < 2^31) and vectorize twice as wide; blur_finish.h
 * joins them.
 * The sums run over BLOCK values at a time with every tap in the inner
 * loop, so they stay in registers instead of making 2R+1 trips through
 * memory. The plain sums add the symmetric taps first (w[k] = w[2R - k];
 * h + h' <= 130560 still leaves the sum under 2^32). */
GI_VECTOR_CLONES
static void sums_plain(const uint32_t *const *rows, const int32_t *w, int R, size_t n,
                       uint32_t *acc)
{
    size_t i0 = 0;
    for (; i0 + BLOCK <= n; i0 += BLOCK) {
        uint32_t a[BLOCK];
        const uint32_t *centre = rows[R] + i0, wc = (uint32_t)w[R];
        for (int t = 0; t < BLOCK; t++) a[t] = wc * centre[t];
        for (int k = 0; k < R; k++) {
            const uint32_t *h1 = rows[k] + i0, *h2 = rows[2 * R - k] + i0, wk = (uint32_t)w[k];
            for (int t = 0; t < BLOCK; t++) a[t] += wk * (h1[t] + h2[t]);
        }
        memcpy(acc + i0, a, sizeof a);
    }
    for (; i0 < n; i0++) {
        uint32_t a = 0;
        for (int k = 0; k <= 2 * R; k++) a += (uint32_t)w[k] * rows[k][i0];
        acc[i0] = a;
    }
}

GI_VECTOR_CLONES
static void finish_row(const uint32_t *acc, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = finish_plain(acc[i]);
}

GI_VECTOR_CLONES
static void sums_split(const uint32_t *const *rows, const int32_t *w, int taps, size_t n,
                       uint32_t *acc, uint32_t *acc_lo)
{
    size_t i0 = 0;
    for (; i0 + BLOCK <= n; i0 += BLOCK) {
        uint32_t hi[BLOCK] = {0}, lo[BLOCK] = {0};
        for (int k = 0; k < taps; k++) {
            const uint32_t *h = rows[k] + i0, wk = (uint32_t)w[k];
            for (int t = 0; t < BLOCK; t++) {
                hi[t] += wk * (h[t] >> BLUR_SPLIT_SHIFT);
                lo[t] += wk * (h[t] & BLUR_SPLIT_MASK);
            }
        }
        memcpy(acc + i0, hi, sizeof hi);
        memcpy(acc_lo + i0, lo, sizeof lo);
    }
    for (; i0 < n; i0++) {
        uint32_t hi = 0, lo = 0;
        for (int k = 0; k < taps; k++) {
            hi += (uint32_t)w[k] * (rows[k][i0] >> BLUR_SPLIT_SHIFT);
            lo += (uint32_t)w[k] * (rows[k][i0] & BLUR_SPLIT_MASK);
        }
        acc[i0] = hi;
        acc_lo[i0] = lo;
    }
}

GI_VECTOR_CLONES
static void finish_rgba(const uint32_t *hi, const uint32_t *lo, size_t pixels, uint8_t *out)
{
    size_t p = 0;
    for (; p + 2 <= pixels; p += 2) blur_finish8(hi + 4 * p, lo + 4 * p, 4, out + 4 * p);
    if (p < pixels) blur_finish4(hi + 4 * p, lo + 4 * p, 4, out + 4 * p);
}

GI_VECTOR_CLONES
static void finish_gray_alpha(const uint32_t *hi, const uint32_t *lo, size_t pixels, uint8_t *out)
{
    size_t p = 0;
    for (; p + 4 <= pixels; p += 4) blur_finish8(hi + 2 * p, lo + 2 * p, 2, out + 2 * p);
    for (; p + 2 <= pixels; p += 2) blur_finish4(hi + 2 * p, lo + 2 * p, 2, out + 2 * p);
    if (p < pixels) blur_finish_pixel(hi + 2 * p, lo + 2 * p, 2, out + 2 * p);
}

static void vertical_row(const blur_job *j, int y, int x0, int x1, blur_buffers *b)
{
    const int ch = j->src->channels, R = j->radius;
    const size_t n = (size_t)(x1 - x0) * ch;
    uint8_t *out = j->dst->data + (size_t)y * j->dst->stride + (size_t)x0 * ch;
    tap_rows(j, y, b, b->rows);
    if (!j->premultiplied) {
        sums_plain(b->rows, j->w, R, n, b->acc);
        finish_row(b->acc, n, out);
        return;
    }
    sums_split(b->rows, j->w, 2 * R + 1, n, b->acc, b->acc_lo);
    if (ch == 4) finish_rgba(b->acc, b->acc_lo, (size_t)(x1 - x0), out);
    else finish_gray_alpha(b->acc, b->acc_lo, (size_t)(x1 - x0), out);
}

static void blur_strip(const blur_job *j, int y0, int y1, int x0, int x1, blur_buffers *b)
{
    const int R = j->radius;
    for (long vy = (long)y0 - R; vy < (long)y0 + R; vy++) horizontal_row(j, vy, x0, x1, b);
    for (int y = y0; y < y1; y++) {
        horizontal_row(j, (long)y + R, x0, x1, b);
        vertical_row(j, y, x0, x1, b);
    }
}

static int blur_band(void *arg, int y0, int y1)
{
    const blur_job *j = arg;
    const size_t ch = (size_t)j->src->channels, R = (size_t)j->radius, strip = (size_t)j->strip;
    blur_buffers b;
    b.pad = malloc((strip + 2 * R) * ch * sizeof *b.pad);
    b.ring = malloc((2 * R + 1) * strip * ch * sizeof *b.ring);
    b.acc = malloc(strip * ch * sizeof *b.acc);
    b.acc_lo = malloc(strip * ch * sizeof *b.acc_lo);
    b.rows = malloc((2 * R + 1) * sizeof *b.rows);
    int ok = b.pad && b.ring && b.acc && b.acc_lo && b.rows;
    for (int x0 = 0; ok && x0 < j->src->width; x0 += j->strip) {
        int x1 = x0 + j->strip < j->src->width ? x0 + j->strip : j->src->width;
        blur_strip(j, y0, y1, x0, x1, &b);
    }
    free(b.pad);
    free(b.ring);
    free(b.acc);
    free(b.acc_lo);
    free(b.rows);
    return ok ? 0 : -1;
}

gi_status gi__cpu_blur(void *state, const gi_image *src, gi_image *dst, const int32_t *weights,
                       int radius, gi_border border)
{
    blur_job j = {src, dst, weights, radius, border, src->channels == 2 || src->channels == 4, 0};
    size_t per_column = (2 * (size_t)radius + 1) * (size_t)src->channels * sizeof(uint32_t);
    size_t strip = RING_BUDGET / per_column;
    if (strip < MIN_STRIP) strip = MIN_STRIP;
    j.strip = strip < (size_t)src->width ? (int)strip : src->width;
    if (gi__parallel_rows(gi__cpu_threads(state), src->height, blur_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur buffers (radius %d)", radius);
    return GI_OK;
}
