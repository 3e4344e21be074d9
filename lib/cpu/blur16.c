/* CPU blur of 16-bit images: gpuimg.h's 16-bit definition.
 *
 * Each thread walks its band of output rows down column strips, keeping
 * the last 2R + 1 horizontally filtered rows of the strip in a ring of
 * uint32 (h < 2^24 plain; < 2^32 premultiplied), so each input row is
 * filtered horizontally once per strip. The strip is as wide as the ring
 * budget allows. Every sum is exact: the plain horizontal pass in uint32,
 * the premultiplied one and every vertical pass in doubles, whose integer
 * values stay below 2^53 (gpuimg.h's bounds), so the loops vectorize
 * without changing a result. The weights are symmetric (gi_blur_weights),
 * so each pair of taps is added before its one multiplication. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

#define RING_BUDGET (512u << 10) /* bytes of ring per thread: about half an L2 */
#define MIN_STRIP 16

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const int32_t *w; /* w[-R..R] at w[k + R] */
    int radius;
    gi_border_mode mode;
    uint16_t outside;  /* an outside sample in zero mode */
    int premultiplied; /* 2 or 4 channels */
    int strip;         /* columns per strip */
} blur16_job;

typedef struct {
    uint32_t *pad;  /* one input row's values, virtual columns [x0 - R, x1 + R) */
    uint32_t *hsum; /* plain: the horizontal sums */
    double *dsum;   /* premultiplied horizontal sums; vertical sums */
    uint32_t *ring; /* 2R + 1 rows of h */
} blur16_buffers;

static size_t ring_rows(const blur16_job *j)
{
    return 2 * (size_t)j->radius + 1;
}

/* The filter input of one sample: colour times alpha where premultiplied. */
static uint32_t input_value(const blur16_job *j, const uint16_t *px, int c)
{
    const int ch = j->src->channels;
    if (!j->premultiplied || c == ch - 1) return px[c];
    return (uint32_t)px[c] * px[ch - 1];
}

/* pad: source row sy (sy < 0: an outside row) at virtual columns
 * [x0 - R, x1 + R), through the border rule. */
static void fill_pad(const blur16_job *j, long sy, int x0, int x1, uint32_t *pad)
{
    const int ch = j->src->channels, width = j->src->width, R = j->radius;
    const uint16_t *row = sy >= 0 ? (const uint16_t *)(j->src->data + (size_t)sy * j->src->stride)
                                  : NULL;
    uint16_t outside_px[4];
    for (int c = 0; c < 4; c++) outside_px[c] = j->outside;
    for (long vx = (long)x0 - R; vx < (long)x1 + R; vx++) {
        const long sx = row ? gi_border_index(vx, width, j->mode) : -1;
        const uint16_t *px = sx >= 0 ? row + sx * ch : outside_px;
        uint32_t *o = pad + (vx - ((long)x0 - R)) * ch;
        for (int c = 0; c < ch; c++) o[c] = input_value(j, px, c);
    }
}

/* sum[i] = sum_k w[k] pad[i + (k + R) ch] for i < n, in uint32 (< 2^32). */
GI_VECTOR_CLONES
static void horizontal_u32(const int32_t *w, int R, const uint32_t *pad, size_t ch, size_t n,
                           uint32_t *sum)
{
    const uint32_t centre = (uint32_t)w[R];
    for (size_t i = 0; i < n; i++) sum[i] = centre * pad[i + (size_t)R * ch];
    for (int k = 1; k <= R; k++) {
        const uint32_t wk = (uint32_t)w[R + k];
        const uint32_t *a = pad + (size_t)(R - k) * ch, *b = pad + (size_t)(R + k) * ch;
        for (size_t i = 0; i < n; i++) sum[i] += wk * (a[i] + b[i]);
    }
}

/* The same in doubles, exact below 2^53 (premultiplied colour: < 2^48). */
GI_VECTOR_CLONES
static void horizontal_f64(const int32_t *w, int R, const uint32_t *pad, size_t ch, size_t n,
                           double *sum)
{
    const double centre = (double)w[R];
    for (size_t i = 0; i < n; i++) sum[i] = centre * (double)pad[i + (size_t)R * ch];
    for (int k = 1; k <= R; k++) {
        const double wk = (double)w[R + k];
        const uint32_t *a = pad + (size_t)(R - k) * ch, *b = pad + (size_t)(R + k) * ch;
        for (size_t i = 0; i < n; i++) sum[i] += wk * ((double)a[i] + (double)b[i]);
    }
}

/* h of virtual row vy, columns [x0, x1), into its ring slot. */
static void horizontal_row(const blur16_job *j, long vy, int x0, int x1, blur16_buffers *b)
{
    const int ch = j->src->channels;
    const size_t n = (size_t)(x1 - x0) * ch, slots = ring_rows(j);
    uint32_t *h = b->ring + (size_t)(((vy % (long)slots) + (long)slots) % (long)slots) * n;
    fill_pad(j, gi_border_index(vy, j->src->height, j->mode), x0, x1, b->pad);
    if (!j->premultiplied) {
        horizontal_u32(j->w, j->radius, b->pad, (size_t)ch, n, b->hsum);
        for (size_t i = 0; i < n; i++) h[i] = (b->hsum[i] + 128) >> 8;
        return;
    }
    horizontal_f64(j->w, j->radius, b->pad, (size_t)ch, n, b->dsum);
    for (size_t i = 0; i < n; i++) {
        const int alpha = i % (size_t)ch == (size_t)ch - 1;
        h[i] = alpha ? (uint32_t)b->dsum[i] : (uint32_t)floor((b->dsum[i] + 0x1p15) * 0x1p-16);
    }
}

/* sum[i] = sum_k w[k] rows[k + R][i] over k in [-R, R], exact in doubles. */
GI_VECTOR_CLONES
static void vertical_f64(const int32_t *w, int R, const uint32_t *const *rows, size_t n,
                         double *sum)
{
    const double centre = (double)w[R];
    const uint32_t *mid = rows[R];
    for (size_t i = 0; i < n; i++) sum[i] = centre * (double)mid[i];
    for (int k = 1; k <= R; k++) {
        const double wk = (double)w[R + k];
        const uint32_t *a = rows[R - k], *b = rows[R + k];
        for (size_t i = 0; i < n; i++) sum[i] += wk * ((double)a[i] + (double)b[i]);
    }
}

/* (v + 2^23) >> 24 of exact sums v < 2^40. */
GI_VECTOR_CLONES
static void finish_plain(const double *v, size_t n, uint16_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint16_t)floor((v[i] + 0x1p23) * 0x1p-24);
}

/* min(65535, (vc 2^16 + va / 2) / va), 0 where va = 0: the quotient from
 * a double estimate, within 2^-35 of the exact one (n < 2^64, va < 2^48
 * exact), so its truncation is off by at most 1, and one integer step
 * with the remainder corrects it. */
static uint16_t finish_colour(uint64_t vc, uint64_t va)
{
    if (!va) return 0;
    const uint64_t n = (vc << 16) + (va >> 1);
    const double e = (double)n / (double)va;
    if (e >= 65536.0) return 65535;
    uint64_t q = (uint64_t)e;
    const int64_t r = (int64_t)(n - q * va); /* the true remainder: |r| < 2 va */
    if (r < 0) q--;
    else if ((uint64_t)r >= va) q++;
    return (uint16_t)(q > 65535 ? 65535 : q);
}

static void finish_premultiplied(const double *v, int ch, size_t pixels, uint16_t *out)
{
    for (size_t p = 0; p < pixels; p++) {
        const double *s = v + p * ch;
        const uint64_t va = (uint64_t)s[ch - 1];
        for (int c = 0; c < ch - 1; c++) out[p * ch + c] = finish_colour((uint64_t)s[c], va);
        out[p * ch + ch - 1] = (uint16_t)((va + (1ull << 31)) >> 32);
    }
}

/* Output row y, columns [x0, x1), from the ring. */
static void vertical_row(const blur16_job *j, int y, int x0, int x1, blur16_buffers *b,
                         const uint32_t **rows)
{
    const int ch = j->src->channels, R = j->radius;
    const size_t n = (size_t)(x1 - x0) * ch, slots = ring_rows(j);
    for (int k = -R; k <= R; k++) {
        const long vy = (long)y + k;
        rows[k + R] = b->ring + (size_t)(((vy % (long)slots) + (long)slots) % (long)slots) * n;
    }
    vertical_f64(j->w, R, rows, n, b->dsum);
    uint16_t *out = (uint16_t *)(j->dst->data + (size_t)y * j->dst->stride) + (size_t)x0 * ch;
    if (j->premultiplied) finish_premultiplied(b->dsum, ch, (size_t)(x1 - x0), out);
    else finish_plain(b->dsum, n, out);
}

static void free_buffers(blur16_buffers *b)
{
    free(b->pad);
    free(b->hsum);
    free(b->dsum);
    free(b->ring);
}

static int alloc_buffers(const blur16_job *j, blur16_buffers *b)
{
    const size_t ch = (size_t)j->src->channels, n = (size_t)j->strip * ch;
    b->pad = malloc(((size_t)j->strip + 2 * (size_t)j->radius) * ch * sizeof *b->pad);
    b->hsum = malloc(n * sizeof *b->hsum);
    b->dsum = malloc(n * sizeof *b->dsum);
    b->ring = malloc(ring_rows(j) * n * sizeof *b->ring);
    return b->pad && b->hsum && b->dsum && b->ring;
}

static int blur16_band(void *arg, int y0, int y1)
{
    const blur16_job *j = arg;
    const int R = j->radius, width = j->src->width;
    blur16_buffers b = {0};
    const uint32_t **rows = malloc(ring_rows(j) * sizeof *rows);
    int ok = rows && alloc_buffers(j, &b);
    for (int x0 = 0; ok && x0 < width; x0 += j->strip) {
        const int x1 = x0 + j->strip < width ? x0 + j->strip : width;
        for (long vy = (long)y0 - R; vy < (long)y0 + R; vy++) horizontal_row(j, vy, x0, x1, &b);
        for (int y = y0; y < y1; y++) {
            horizontal_row(j, (long)y + R, x0, x1, &b);
            vertical_row(j, y, x0, x1, &b, rows);
        }
    }
    free(rows);
    free_buffers(&b);
    return ok ? 0 : -1;
}

gi_status gi__cpu_blur16(void *state, const gi_image *src, gi_image *dst, const int32_t *weights,
                         int radius, gi_border border)
{
    blur16_job j = {src, dst, weights, radius, border.mode, (uint16_t)(border.value * 257),
                    src->channels == 2 || src->channels == 4, 0};
    const size_t per_column = ring_rows(&j) * (size_t)src->channels * sizeof(uint32_t);
    size_t strip = RING_BUDGET / per_column;
    if (strip < MIN_STRIP) strip = MIN_STRIP;
    j.strip = strip < (size_t)src->width ? (int)strip : src->width;
    if (gi__parallel_rows(gi__cpu_threads(state), src->height, blur16_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur buffers (radius %d)", radius);
    return GI_OK;
}
