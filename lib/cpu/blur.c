/* CPU blur: the fixed-point separable filter defined in gpuimg.h.
 *
 * Each thread owns a band of output rows and walks it top to bottom,
 * keeping the last horizontally filtered rows in a ring, so every input
 * row is filtered horizontally about once. Plain, the ring holds the pairs
 * of rows y, y+1 (y even) that the vertical pass multiplies, and makes
 * output rows two at a time, an even row and the one below it from the
 * same pair rows with the weights shifted by one: each pair row comes
 * from L2 once for both, and each h row is stored once (into the low or
 * the high halves). One row at a time, every pair row was read from L2
 * for every output row, and every h row stored twice;
 * premultiplied, 2R+BLUR_ROWS rows of h as floats, for BLUR_ROWS output
 * rows at a time (blur_finish.h). Wide radii on wide images would make
 * that ring huge, so the band is cut into column strips whose ring fits
 * gi__blur_ring_budget() bytes. The inner loops are blur_kernels.c's, for the
 * widest instruction set the CPU has. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "blur_kernels.h"
#include "blur_rows.h"
#include "cache_lines.h"
#include "base/cpu_isa.h"

/* Half of the L2 per core: the ring, read once per tap pair and output
 * row, stays there next to the padded row. (32 MiB, an old budget, let a
 * 4-channel 3840-pixel ring reach 800 KB and every vertical tap came from
 * L3; on Zen 4's 1 MiB L2, 512 KiB was 4-7% faster than 256 KiB.) The
 * size is read where the C library tells it; else 256 KiB, half of the
 * smallest L2 of the machines in view. */
size_t gi__blur_ring_budget(void)
{
#ifdef _SC_LEVEL2_CACHE_SIZE
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l2 > 0) return (size_t)l2 / 2;
#endif
    return 256u << 10;
}

#define MIN_STRIP 16

typedef struct {
    const gi_image *src;
    gi_image *dst;
    int radius;
    gi_border border;
    int premultiplied; /* 2 or 4 channels: colour is blurred as c * alpha */
    int strip;         /* columns per strip */
    size_t row_len;    /* values of a ring row, and between rows: whole lines */
    int pad_left, pad_right; /* columns the pairs reach past the strip */
    blur_taps taps;           /* horizontal, and the vertical pass's even rows */
    blur_taps taps_odd;       /* the vertical pass's odd rows */
    blur_float_taps vertical; /* premultiplied */
    const blur_kernels *k;
} blur_job;

/* blur_rows.h: the job and the weights it points at */
struct gi__blur {
    blur_job job;
    uint32_t *pair_w, *pair_w_odd;
    float *float_w;
};

typedef struct {
    uint8_t *bytes;  /* one input row's bytes, padded */
    uint32_t *pairs; /* and its pairs of samples, the horizontal pass's operand */
    uint32_t *ring;  /* ring_rows() rows of one strip: plain, vertical pairs */
    float *hs;       /* premultiplied: h */
    const uint32_t **rows; /* the rows of one output row */
    const float **h_rows;
} blur_buffers;

/* Rows in the ring. Plain: output rows y, y + 1 (y even) read the pair
 * rows of y + first .. y + first + 2 taps_odd.pairs - 1 (y + R + 1, or
 * + R + 2 for an odd R, whose last high half weighs 0), the horizontal
 * pass writing rows up to y + R + 1 just before. Premultiplied: rows
 * y .. y + BLUR_ROWS - 1 read rows y - R .. y + BLUR_ROWS - 1 + R, written
 * just before. */
static size_t ring_rows(int radius, int premultiplied)
{
    return 2 * (size_t)radius + (premultiplied ? BLUR_ROWS : 4);
}

/* Border columns [from, to) of a padded row whose first column is lo. */
static void fill_border_columns(const blur_job *j, const uint8_t *row, long lo, long from, long to,
                                uint8_t *pad)
{
    const size_t ch = (size_t)j->src->channels;
    uint8_t outside[4];
    memset(outside, j->border.value, sizeof outside);
    for (long vx = from; vx < to; vx++) {
        long sx = row ? gi_border_index(vx, j->src->width, j->border.mode) : -1;
        memcpy(pad + (vx - lo) * ch, sx >= 0 ? row + sx * ch : outside, ch);
    }
}

/* Bytes past its last value's that the pairs kernel may read: a block of
 * 16 (blur_kernels.h). */
#define PAIRS_READ 16

/* Fills the pairs for virtual columns [x0 - pad_left, x1 + pad_right) of
 * source row sy, or of an outside row (sy < 0, zero mode). The pairs of
 * a row's inside are made from the row in place, but for its last PAIRS_READ
 * bytes and more, whose kernel reads could pass the row; the rest from a
 * padded copy of the bytes around the edges, only those past an edge
 * through the border rule. (A copy of the whole row was a tenth of the
 * RGBA blur's time.) */
static void fill_pairs(const blur_job *j, long sy, int x0, int x1, blur_buffers *b)
{
    const int ch = j->src->channels, width = j->src->width;
    const long lo = (long)x0 - j->pad_left, hi = (long)x1 + j->pad_right;
    const size_t count = (size_t)(hi - lo - 1) * ch;
    if (sy < 0) {
        fill_border_columns(j, NULL, lo, lo, hi, b->bytes);
        j->k->pairs(b->bytes, count, ch, j->premultiplied, b->pairs);
        return;
    }
    const uint8_t *row = j->src->data + (size_t)sy * j->src->stride;
    const long a = lo > 0 ? lo : 0, c = hi < width ? hi : width; /* a < c: x0 < width */
    const long margin = (PAIRS_READ + ch - 1) / ch; /* whole pixels of at least PAIRS_READ bytes */
    fill_border_columns(j, row, lo, lo, a, b->bytes);
    fill_border_columns(j, row, lo, c, hi, b->bytes);
    if (c - a < 4 * margin) { /* too short to split */
        memcpy(b->bytes + (a - lo) * ch, row + a * ch, (size_t)(c - a) * ch);
        j->k->pairs(b->bytes, count, ch, j->premultiplied, b->pairs);
        return;
    }
    /* values [0, d0) from the copy (which reads margin pixels on), [d0, d1)
     * in place, [d1, count) from the copy */
    const size_t d0 = (size_t)(a - lo) * ch, d1 = (size_t)(c - margin - lo) * ch;
    memcpy(b->bytes + d0, row + a * ch, (size_t)margin * ch);
    memcpy(b->bytes + d1, row + (c - margin) * ch, (size_t)margin * ch);
    if (d0) j->k->pairs(b->bytes, d0, ch, j->premultiplied, b->pairs);
    j->k->pairs(row + a * ch, d1 - d0, ch, j->premultiplied, b->pairs + d0);
    j->k->pairs(b->bytes + d1, count - d1, ch, j->premultiplied, b->pairs + d1);
}

/* The ring slot of virtual row vy, as an offset in elements. */
static size_t ring_at(const blur_job *j, long vy)
{
    const long slots = (long)ring_rows(j->radius, j->premultiplied);
    return (size_t)(((vy % slots) + slots) % slots) * j->row_len;
}

static void horizontal_row(const blur_job *j, long vy, int x0, int x1, blur_buffers *b)
{
    const int ch = j->src->channels;
    const uint32_t *centre = b->pairs + (size_t)j->pad_left * ch;
    const size_t n = (size_t)(x1 - x0) * ch;
    fill_pairs(j, gi_border_index(vy, j->src->height, j->border.mode), x0, x1, b);
    if (j->premultiplied) {
        j->k->horizontal_premultiplied(&j->taps, centre, ch, n, b->hs + ring_at(j, vy));
        return;
    }
    const int odd = (int)(vy & 1); /* two's complement: rows above the image too */
    j->k->horizontal_plain(&j->taps, centre, ch, n, b->ring + ring_at(j, vy - odd), odd);
}

/* Output rows y .. y + nrows - 1 (premultiplied: nrows <= BLUR_ROWS;
 * plain: 1, or 2 from an even y), their h rows in the ring, into `to`
 * (row y's column x0) and the rows stride bytes below it. */
static void vertical_rows(const blur_job *j, int y, int nrows, int x0, int x1, blur_buffers *b,
                          uint8_t *to, size_t stride)
{
    const int ch = j->src->channels;
    uint8_t *out[BLUR_ROWS];
    for (int r = 0; r < nrows; r++) out[r] = to + (size_t)r * stride;
    if (j->premultiplied) {
        for (int k = 0; k < j->vertical.taps + nrows - 1; k++)
            b->h_rows[k] = b->hs + ring_at(j, (long)y - j->radius + k);
        j->k->vertical_premultiplied(&j->vertical, b->h_rows, (size_t)(x1 - x0), ch, out, nrows);
        return;
    }
    /* the pair rows of the even row at or above y */
    const long even = (long)y - (y & 1);
    for (int p = 0; p < j->taps_odd.pairs; p++)
        b->rows[p] = b->ring + ring_at(j, even + j->taps.first + 2 * p);
    const size_t n = (size_t)(x1 - x0) * ch;
    if (nrows == 2)
        j->k->vertical_plain2(&j->taps, &j->taps_odd, b->rows, n, out[0], out[1]);
    else
        j->k->vertical_plain(y & 1 ? &j->taps_odd : &j->taps, b->rows, n, out[0]);
}

/* A strip's ring before its first output row y0: the h rows above it. */
static void strip_start(const blur_job *j, int y0, int x0, int x1, blur_buffers *b)
{
    const int R = j->radius;
    const long first = j->premultiplied ? -R : j->taps.first;
    for (long vy = (long)y0 + first; vy < (long)y0 + R; vy++) horizontal_row(j, vy, x0, x1, b);
}

/* A strip's output rows y0 .. y1 - 1, its ring started for y0 (and left
 * started for y1), into `to` (row y0's column x0) and the rows below. */
static void strip_rows(const blur_job *j, int y0, int y1, int x0, int x1, blur_buffers *b,
                       uint8_t *to, size_t stride)
{
    const int R = j->radius;
    for (int y = y0; y < y1;) {
        /* plain: an even row and the one below it, or one row alone */
        const int step = j->premultiplied ? BLUR_ROWS : y & 1 ? 1 : 2;
        const int nrows = y1 - y < step ? y1 - y : step;
        for (int r = 0; r < nrows; r++) horizontal_row(j, (long)y + r + R, x0, x1, b);
        vertical_rows(j, y, nrows, x0, x1, b, to + (size_t)(y - y0) * stride, stride);
        y += nrows;
    }
}

static void free_buffers(blur_buffers *b)
{
    free(b->bytes);
    free(b->pairs);
    free(b->ring);
    free(b->hs);
    free(b->rows);
    free(b->h_rows);
}

/* Zeroed, so that the lanes past a row's end that the kernels read are
 * defined (their results are never stored). */
static int alloc_buffers(const blur_job *j, blur_buffers *b)
{
    const size_t ch = (size_t)j->src->channels;
    const size_t padded = ((size_t)j->strip + j->pad_left + j->pad_right) * ch + BLUR_SLACK;
    const size_t ring = ring_rows(j->radius, j->premultiplied) * j->row_len;
    memset(b, 0, sizeof *b);
    b->bytes = calloc(padded, sizeof *b->bytes);
    b->pairs = gi__lines_alloc(padded, sizeof *b->pairs);
    if (j->premultiplied) {
        b->hs = gi__lines_alloc(ring, sizeof *b->hs);
        b->h_rows = malloc(((size_t)j->vertical.taps + BLUR_ROWS - 1) * sizeof *b->h_rows);
        return b->bytes && b->pairs && b->hs && b->h_rows;
    }
    b->ring = gi__lines_alloc(ring, sizeof *b->ring);
    b->rows = malloc((size_t)j->taps_odd.pairs * sizeof *b->rows);
    return b->bytes && b->pairs && b->ring && b->rows;
}

/* ---- Rows in order (blur_rows.h): a ring per strip ---- */

struct gi__blur_rows {
    const blur_job *j;
    int x0, x1, strips;
    int next; /* the next output row */
    blur_buffers b[];
};

gi__blur_rows *gi__blur_rows_open(const gi__blur *blur, int x0, int x1, int y0)
{
    const blur_job *j = &blur->job;
    const int strips = (x1 - x0 + j->strip - 1) / j->strip;
    gi__blur_rows *r = calloc(1, sizeof *r + (size_t)strips * sizeof r->b[0]);
    if (!r) return NULL;
    *r = (gi__blur_rows){j, x0, x1, 0, y0};
    for (; r->strips < strips; r->strips++)
        if (!alloc_buffers(j, &r->b[r->strips])) {
            free_buffers(&r->b[r->strips]);
            gi__blur_rows_close(r);
            return NULL;
        }
    for (int s = 0; s < strips; s++) {
        const int a = x0 + s * j->strip, c = a + j->strip < x1 ? a + j->strip : x1;
        strip_start(j, y0, a, c, &r->b[s]);
    }
    return r;
}

void gi__blur_rows_make(gi__blur_rows *r, int y1, uint8_t *to, size_t stride)
{
    const blur_job *j = r->j;
    const size_t ch = (size_t)j->src->channels;
    for (int s = 0; s < r->strips; s++) {
        const int a = r->x0 + s * j->strip, c = a + j->strip < r->x1 ? a + j->strip : r->x1;
        strip_rows(j, r->next, y1, a, c, &r->b[s], to + (size_t)(a - r->x0) * ch, stride);
    }
    r->next = y1;
}

void gi__blur_rows_close(gi__blur_rows *r)
{
    if (!r) return;
    for (int s = 0; s < r->strips; s++) free_buffers(&r->b[s]);
    free(r);
}

/* Output rows a thread takes at once: each strip's ring walks them before
 * the next strip's (the rings of all strips stay in memory meanwhile; 8,
 * 32, 128 and a whole band took the same time on one Zen core). */
#define BLUR_CLAIM 32

/* One thread's share of the whole image: the rows the cursor gives, in
 * order within each run (a run's first rows open the strips' rings). */
static int blur_band(void *arg, gi__row_cursor *rows)
{
    const gi__blur *blur = arg;
    const gi_image *dst = blur->job.dst;
    gi__blur_rows *r = NULL;
    int ok = 1;
    for (int y, end, fresh; ok && (y = gi__rows_next(rows, BLUR_CLAIM, &end, &fresh)) >= 0;) {
        if (fresh) {
            gi__blur_rows_close(r);
            ok = (r = gi__blur_rows_open(blur, 0, blur->job.src->width, y)) != NULL;
        }
        if (ok) gi__blur_rows_make(r, end, dst->data + (size_t)y * dst->stride, dst->stride);
    }
    gi__blur_rows_close(r);
    return ok ? 0 : -1;
}

/* The taps of blur_kernels.h from w[-R..R] (weights[k + R]), shifted by
 * shift (0 or 1; pair_w holds R + 2). Only w[0] can reach 2^15: the
 * weights are symmetric, at least 0 and sum to 2^16, so a pair w[k] =
 * w[-k] >= 2^15 would leave the larger centre nothing. Returns -1 for
 * weights outside that. */
int gi__blur_make_taps(const int32_t *weights, int R, int shift, uint32_t *pair_w, blur_taps *t)
{
    t->first = -R - (R & 1);
    /* shifted, the last pair must reach tap R in its low half: one more for an odd R */
    t->pairs = R + 1 + (shift & R & 1);
    t->centre_high = weights[R] >= 1 << 15;
    t->centre_half = shift;
    t->pair_w = pair_w;
    for (int p = 0; p < t->pairs; p++) {
        uint32_t half[2];
        for (int e = 0; e < 2; e++) {
            const int k = t->first + 2 * p + e - shift;
            int32_t w = k < -R || k > R ? 0 : weights[k + R];
            if (k == 0 && t->centre_high) w -= 1 << 16;
            if (w < INT16_MIN || w > INT16_MAX) return -1;
            half[e] = (uint16_t)w;
        }
        pair_w[p] = half[0] | half[1] << 16;
    }
    return 0;
}

/* The widest set this CPU has, up to GPUIMG_CPU_ISA's cap. */
const blur_kernels *gi__blur_kernels(void)
{
    extern const blur_kernels gi__blur_kernels_base;
#if defined(__x86_64__) && defined(__GNUC__) /* meson builds the sets there */
    extern const blur_kernels gi__blur_kernels_avx2, gi__blur_kernels_avxvnni, gi__blur_kernels_avx512;
    switch (gi__cpu_isa()) {
    case GI__ISA_AVX512: return &gi__blur_kernels_avx512;
    case GI__ISA_AVXVNNI: return &gi__blur_kernels_avxvnni;
    case GI__ISA_AVX2: return &gi__blur_kernels_avx2;
    case GI__ISA_BASE: break;
    }
#endif
    return &gi__blur_kernels_base;
}

gi_status gi__blur_setup(const gi_image *src, gi_image *dst, const int32_t *weights, int radius,
                         gi_border border, gi__blur **out)
{
    *out = NULL;
    const int premultiplied = src->channels == 2 || src->channels == 4, taps = 2 * radius + 1;
    gi__blur *b = calloc(1, sizeof *b);
    uint32_t *pair_w = malloc(((size_t)radius + 2) * sizeof *pair_w);
    uint32_t *pair_w_odd = malloc(((size_t)radius + 2) * sizeof *pair_w_odd);
    float *float_w = malloc((size_t)taps * sizeof *float_w);
    if (!b || !pair_w || !pair_w_odd || !float_w) {
        free(b);
        free(pair_w);
        free(pair_w_odd);
        free(float_w);
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur weights (radius %d)", radius);
    }
    blur_job j = {src, dst, radius, border, premultiplied, 0, 0, 0, 0, {0}, {0}, {0}, gi__blur_kernels()};
    int bad = gi__blur_make_taps(weights, radius, 0, pair_w, &j.taps) |
              gi__blur_make_taps(weights, radius, 1, pair_w_odd, &j.taps_odd);
    for (int k = 0; k < taps; k++) {
        bad |= weights[k] < 0; /* blur_finish.h's bound needs terms >= 0 */
        float_w[k] = (float)weights[k]; /* exact: at most 2^16 */
    }
    b->pair_w = pair_w;
    b->pair_w_odd = pair_w_odd;
    b->float_w = float_w;
    if (bad) {
        gi__blur_free(b);
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "blur weights: each 0..32767, the centre up to 65536");
    }
    int symmetric = taps <= BLUR_CHUNK;
    for (int k = 0; k < taps / 2; k++) symmetric &= weights[k] == weights[taps - 1 - k];
    j.vertical = (blur_float_taps){float_w, weights, taps, blur_float_bound(taps), symmetric,
                                   blur_symmetric_bound(taps)};
    j.pad_left = -j.taps.first;
    j.pad_right = j.taps.first + 2 * j.taps.pairs - 1; /* the last pair's high half */
    size_t per_column = ring_rows(radius, premultiplied) * (size_t)src->channels * sizeof(uint32_t);
    size_t strip = gi__blur_ring_budget() / per_column;
    if (strip < MIN_STRIP) strip = MIN_STRIP;
    j.strip = strip < (size_t)src->width ? (int)strip : src->width;
    /* every row of the ring on a line: the kernels load rows in vectors
     * of up to a line */
    j.row_len = gi__lines_round((size_t)j.strip * src->channels + BLUR_SLACK, sizeof(uint32_t));
    b->job = j;
    *out = b;
    return GI_OK;
}

void gi__blur_free(gi__blur *b)
{
    if (!b) return;
    free(b->pair_w);
    free(b->pair_w_odd);
    free(b->float_w);
    free(b);
}

gi_status gi__cpu_blur(void *state, const gi_image *src, gi_image *dst, const int32_t *weights,
                       int radius, gi_border border)
{
    gi__blur *b;
    gi_status st = gi__blur_setup(src, dst, weights, radius, border, &b);
    if (st != GI_OK) return st;
    /* bands shared: a thread done early takes the later half of one still
     * at work, where that is more than twice a run's first window */
    int failed = gi__parallel_rows_shared(gi__cpu_threads_for(state, src, dst, 2 + radius / 4),
                                          src->height, 4 * radius + 4,
                                          blur_band, b);
    gi__blur_free(b);
    if (failed) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur buffers (radius %d)", radius);
    return GI_OK;
}
