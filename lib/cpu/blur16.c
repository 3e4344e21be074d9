/* CPU blur of 16-bit images with alpha (2 and 4 channels, blurred
 * premultiplied): gpuimg.h's 16-bit definition. (1 and 3 channels:
 * blur16_plain.c.)
 *
 * Each thread walks its band of output rows down column strips, keeping
 * the last 2R + 1 horizontally filtered rows of the strip in a ring, so
 * each input row is filtered horizontally once per strip. The strip is as
 * wide as the ring budget allows. Every value and sum is an integer held
 * in a double, exact because none reaches 2^53 (gpuimg.h's bounds: inputs
 * below 2^32, h below 2^32, sums below 2^48), so the loops vectorize
 * without changing a result and need no conversions between taps. The
 * weights are symmetric (gi_blur_weights), so each pair of taps is added
 * before its one multiplication; both passes go BLOCK values at a time, so
 * the sums stay in L1 across the taps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "blur16_finish.h"
#include "cpu_simd.h"

#define RING_BUDGET (512u << 10) /* bytes of ring per thread: about half an L2 */
#define MIN_STRIP 16
#define BLOCK 512 /* values summed across all taps at a time */

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const int32_t *w; /* w[-R..R] at w[k + R] */
    int radius;
    gi_border_mode mode;
    uint16_t outside;  /* an outside sample in zero mode */
    int strip;         /* columns per strip */
} blur16_job;

typedef struct {
    double *pad;  /* one input row's values, virtual columns [x0 - R, x1 + R) */
    double *sum;  /* a row's sums before rounding */
    double *ring; /* 2R + 1 rows of h */
} blur16_buffers;

static size_t ring_rows(const blur16_job *j)
{
    return 2 * (size_t)j->radius + 1;
}

/* The filter input of one sample: colour times alpha. */
static double input_value(const blur16_job *j, const uint16_t *px, int c)
{
    const int ch = j->src->channels;
    if (c == ch - 1) return px[c];
    return (double)px[c] * px[ch - 1];
}

/* Virtual columns [from, to) of row (NULL: an outside row) into pad,
 * whose first column is lo, through the border rule. */
static void fill_border_columns(const blur16_job *j, const uint16_t *row, long lo, long from,
                                long to, double *pad)
{
    const int ch = j->src->channels;
    uint16_t outside_px[4];
    for (int c = 0; c < 4; c++) outside_px[c] = j->outside;
    for (long vx = from; vx < to; vx++) {
        const long sx = row ? gi_border_index(vx, j->src->width, j->mode) : -1;
        const uint16_t *px = sx >= 0 ? row + sx * ch : outside_px;
        for (int c = 0; c < ch; c++) pad[(vx - lo) * ch + c] = input_value(j, px, c);
    }
}

/* Columns inside the image: colour times alpha. */
GI_VECTOR_CLONES
static void premultiply(const uint16_t *in, size_t pixels, int ch, double *out)
{
    for (size_t x = 0; x < pixels; x++) {
        const double a = in[x * ch + ch - 1];
        for (int c = 0; c < ch - 1; c++) out[x * ch + c] = in[x * ch + c] * a;
        out[x * ch + ch - 1] = a;
    }
}

/* pad: source row sy (sy < 0: an outside row) at virtual columns
 * [x0 - R, x1 + R); only those past an edge go through the border rule. */
static void fill_pad(const blur16_job *j, long sy, int x0, int x1, double *pad)
{
    const int ch = j->src->channels, width = j->src->width;
    const long lo = (long)x0 - j->radius, hi = (long)x1 + j->radius;
    if (sy < 0) {
        fill_border_columns(j, NULL, lo, lo, hi, pad);
        return;
    }
    const uint16_t *row = (const uint16_t *)(j->src->data + (size_t)sy * j->src->stride);
    const long a = lo > 0 ? lo : 0, c = hi < width ? hi : width; /* a < c: x0 < width */
    fill_border_columns(j, row, lo, lo, a, pad);
    fill_border_columns(j, row, lo, c, hi, pad);
    premultiply(row + a * ch, (size_t)(c - a), ch, pad + (a - lo) * ch);
}

/* sum[i] = sum_k w[k] rows[k + R][i] over k in [-R, R], for i < n: the
 * horizontal pass with rows[k + R] = pad + (k + R) ch, the vertical one
 * with the ring's rows. */
GI_VECTOR_CLONES
static void weighted_sum(const int32_t *w, int R, const double *const *rows, size_t n, double *sum)
{
    for (size_t i0 = 0; i0 < n; i0 += BLOCK) {
        const size_t m = n - i0 < BLOCK ? n - i0 : BLOCK;
        double *s = sum + i0;
        const double centre = (double)w[R], *mid = rows[R] + i0;
        for (size_t i = 0; i < m; i++) s[i] = centre * mid[i];
        int k = 1;
        /* four pairs of taps per pass over s: its loads and stores, not
         * the arithmetic, bounded one pair a pass (every order of the
         * additions gives the same exact sum) */
        for (; k + 3 <= R; k += 4) {
            const double w1 = (double)w[R + k], w2 = (double)w[R + k + 1];
            const double w3 = (double)w[R + k + 2], w4 = (double)w[R + k + 3];
            const double *a1 = rows[R - k] + i0, *b1 = rows[R + k] + i0;
            const double *a2 = rows[R - k - 1] + i0, *b2 = rows[R + k + 1] + i0;
            const double *a3 = rows[R - k - 2] + i0, *b3 = rows[R + k + 2] + i0;
            const double *a4 = rows[R - k - 3] + i0, *b4 = rows[R + k + 3] + i0;
            for (size_t i = 0; i < m; i++)
                s[i] += (w1 * (a1[i] + b1[i]) + w2 * (a2[i] + b2[i])) +
                        (w3 * (a3[i] + b3[i]) + w4 * (a4[i] + b4[i]));
        }
        for (; k <= R; k++) {
            const double wk = (double)w[R + k];
            const double *a = rows[R - k] + i0, *b = rows[R + k] + i0;
            for (size_t i = 0; i < m; i++) s[i] += wk * (a[i] + b[i]);
        }
    }
}

/* h from the horizontal sums: colour (sum + 2^15) >> 16 and alpha the
 * sum itself. */
GI_VECTOR_CLONES
static void round_premultiplied(const double *sum, size_t pixels, int ch, double *h)
{
    for (size_t x = 0; x < pixels; x++) {
        for (int c = 0; c < ch - 1; c++) h[x * ch + c] = floor((sum[x * ch + c] + 0x1p15) * 0x1p-16);
        h[x * ch + ch - 1] = sum[x * ch + ch - 1];
    }
}

static double *ring_row(const blur16_job *j, const blur16_buffers *b, long vy, size_t n)
{
    const long slots = (long)ring_rows(j);
    return b->ring + (size_t)(((vy % slots) + slots) % slots) * n;
}

/* h of virtual row vy, columns [x0, x1), into its ring slot. */
static void horizontal_row(const blur16_job *j, long vy, int x0, int x1, blur16_buffers *b,
                           const double **rows)
{
    const int ch = j->src->channels, R = j->radius;
    const size_t n = (size_t)(x1 - x0) * ch;
    fill_pad(j, gi_border_index(vy, j->src->height, j->mode), x0, x1, b->pad);
    for (int k = 0; k <= 2 * R; k++) rows[k] = b->pad + (size_t)k * ch;
    weighted_sum(j->w, R, rows, n, b->sum);
    round_premultiplied(b->sum, (size_t)(x1 - x0), ch, ring_row(j, b, vy, n));
}

/* The outputs of `pixels` premultiplied pixels of CH channels from their
 * vertical sums: colour as above, alpha (va + 2^31) >> 32. */
#define FINISH_PREMULTIPLIED(CH)                                                        \
    GI_VECTOR_CLONES                                                                    \
    static void finish_premultiplied##CH(const double *v, size_t pixels, uint16_t *out) \
    {                                                                                   \
        for (size_t p = 0; p < pixels; p++) {                                           \
            const double va = v[p * CH + CH - 1];                                       \
            for (int c = 0; c < CH - 1; c++)                                            \
                out[p * CH + c] = (uint16_t)blur16_finish_colour(v[p * CH + c], va);           \
            out[p * CH + CH - 1] = (uint16_t)floor((va + 0x1p31) * 0x1p-32);            \
        }                                                                               \
    }
FINISH_PREMULTIPLIED(2)
FINISH_PREMULTIPLIED(4)

static void finish_premultiplied(const double *v, int ch, size_t pixels, uint16_t *out)
{
    if (ch == 2) finish_premultiplied2(v, pixels, out);
    else finish_premultiplied4(v, pixels, out);
}

/* Output row y, columns [x0, x1), from the ring. */
static void vertical_row(const blur16_job *j, int y, int x0, int x1, blur16_buffers *b,
                         const double **rows)
{
    const int ch = j->src->channels, R = j->radius;
    const size_t n = (size_t)(x1 - x0) * ch;
    for (int k = -R; k <= R; k++) rows[k + R] = ring_row(j, b, (long)y + k, n);
    weighted_sum(j->w, R, rows, n, b->sum);
    uint16_t *out = (uint16_t *)(j->dst->data + (size_t)y * j->dst->stride) + (size_t)x0 * ch;
    finish_premultiplied(b->sum, ch, (size_t)(x1 - x0), out);
}

static void free_buffers(blur16_buffers *b)
{
    free(b->pad);
    free(b->sum);
    free(b->ring);
}

static int alloc_buffers(const blur16_job *j, blur16_buffers *b)
{
    const size_t ch = (size_t)j->src->channels, n = (size_t)j->strip * ch;
    b->pad = malloc(((size_t)j->strip + 2 * (size_t)j->radius) * ch * sizeof *b->pad);
    b->sum = malloc(n * sizeof *b->sum);
    b->ring = malloc(ring_rows(j) * n * sizeof *b->ring);
    return b->pad && b->sum && b->ring;
}

static int blur16_band(void *arg, int y0, int y1)
{
    const blur16_job *j = arg;
    const int R = j->radius, width = j->src->width;
    blur16_buffers b = {0};
    const double **rows = malloc(ring_rows(j) * sizeof *rows);
    int ok = rows && alloc_buffers(j, &b);
    for (int x0 = 0; ok && x0 < width; x0 += j->strip) {
        const int x1 = x0 + j->strip < width ? x0 + j->strip : width;
        for (long vy = (long)y0 - R; vy < (long)y0 + R; vy++) horizontal_row(j, vy, x0, x1, &b, rows);
        for (int y = y0; y < y1; y++) {
            horizontal_row(j, (long)y + R, x0, x1, &b, rows);
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
    if (src->channels == 1 || src->channels == 3)
        return gi__cpu_blur16_plain(gi__cpu_threads(state), src, dst, weights, radius, border);
    blur16_job j = {src, dst, weights, radius, border.mode, (uint16_t)(border.value * 257), 0};
    const size_t per_column = ring_rows(&j) * (size_t)src->channels * sizeof(double);
    size_t strip = RING_BUDGET / per_column;
    if (strip < MIN_STRIP) strip = MIN_STRIP;
    j.strip = strip < (size_t)src->width ? (int)strip : src->width;
    if (gi__parallel_rows(gi__cpu_threads(state), src->height, blur16_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur buffers (radius %d)", radius);
    return GI_OK;
}
