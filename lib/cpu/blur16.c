/* CPU blur of 16-bit images: gpuimg.h's 16-bit definition in 32-bit
 * integer lanes, with the 8-bit blur's kernels and taps (blur_kernels.h)
 * for the widest instruction set.
 *
 * The horizontal sum sum_k w[k] u is below 2^32, so the pairs of samples
 * (offset by -2^15 to fit int16) multiply as the 8-bit blur's do. Without
 * alpha (1 and 3 channels), h = (sum + 128) >> 8 is exact; the vertical
 * sum v = sum_k w[k] h reaches 2^40: h < 2^24 is kept as two pair rows,
 * its bits from 8 up and its low byte, whose weighted sums (below 2^32 and
 * 2^24) are each exact in 32 bits, and out = (v + 2^23) >> 24 is made
 * from the two (blur_kernels.c, finish16). With alpha (2 and 4 channels,
 * blurred premultiplied), u = c a < 2^32 goes in as its high and low 16
 * bits, two streams of pairs made from the samples in one pass, whose
 * sums make h (< 2^32) exactly; h goes into two pair rows, its high and
 * low 16 bits, and the vertical sums of the two, A and B, make v = 2^16 A
 * + B (< 2^48) exactly, which the colour's division and alpha's rounding
 * take as a double (blur16_finish.h, inside the vertical pass's
 * kernels). Every step is exact integer arithmetic (or an exact double),
 * so the results are the definition's on every set.
 *
 * As blur.c does for 8 bits: each thread walks its band down column
 * strips, keeping the pair rows of the last horizontally filtered rows
 * in a ring (rows y and y + 1, y even, in one pair row), and makes an
 * even output row and the row below it from the same pair rows. */
#include <stdlib.h>
#include <string.h>

#include "blur_kernels.h"
#include "cache_lines.h"
#include "cpu_backend.h"
#include "cpu_parallel.h"

#define MIN_STRIP 16

typedef struct {
    const gi_image *src;
    gi_image *dst;
    int alpha;                /* 2 or 4 channels: blurred premultiplied */
    int radius;
    gi_border_mode mode;
    uint16_t outside;         /* an outside sample in zero mode */
    int strip;                /* columns per strip */
    int pad_left, pad_right;  /* columns the pairs reach past the strip */
    size_t row_len;           /* values of one half (hi or lo) of a ring slot */
    blur_taps taps, taps_odd; /* even and odd output rows */
    const blur_kernels *k;
} blur16_job;

typedef struct {
    uint16_t *pad;   /* the border columns of one input row (and one inside column each side) */
    uint32_t *pairs; /* its pairs of samples (alpha: of their high halves) */
    uint32_t *pairs_low; /* alpha: the pairs of their low halves */
    uint32_t *ring;  /* slots of pair rows: hi, then lo row_len values on */
    const uint32_t **rows;
} blur16_buffers;

/* Pair rows in the ring: output rows y, y + 1 (y even) read taps_odd.pairs
 * of them (R + 1, or R + 2 for an odd R), the newest just written. */
static size_t ring_slots(int radius)
{
    return (size_t)radius + 2;
}

/* The ring slot of the pair row holding virtual row vy. */
static uint32_t *ring_slot(const blur16_job *j, const blur16_buffers *b, long vy)
{
    const long slots = (long)ring_slots(j->radius);
    const long pair = vy >= 0 ? vy / 2 : -((1 - vy) / 2); /* floor(vy / 2) */
    return b->ring + (size_t)(((pair % slots) + slots) % slots) * 2 * j->row_len;
}

/* Virtual columns [from, to) of row (NULL: an outside row) into pad,
 * whose first column is lo, through the border rule. */
static void fill_border_columns(const blur16_job *j, const uint16_t *row, long lo, long from,
                                long to, uint16_t *pad)
{
    const int ch = j->src->channels;
    uint16_t outside[4];
    for (int c = 0; c < 4; c++) outside[c] = j->outside;
    for (long vx = from; vx < to; vx++) {
        const long sx = row ? gi_border_index(vx, j->src->width, j->mode) : -1;
        memcpy(pad + (vx - lo) * ch, sx >= 0 ? row + sx * ch : outside, (size_t)ch * sizeof *pad);
    }
}

/* The pairs of count values from in into b's streams from value at on:
 * with alpha, two (blur_kernels.h, pairs16p), of the premultiplied
 * samples' high halves (b->pairs) and low (b->pairs_low). */
static void make_pairs(const blur16_job *j, const uint16_t *in, size_t count, size_t at, blur16_buffers *b)
{
    if (j->alpha)
        j->k->pairs16p(in, count, j->src->channels, b->pairs + at, b->pairs_low + at);
    else
        j->k->pairs16(in, count, j->src->channels, b->pairs + at);
}

/* The pairs of virtual columns [x0 - pad_left, x1 + pad_right) of source
 * row sy (sy < 0: an outside row). The kernels read a value's partner one
 * column on and nothing past it, so the inside's pairs are made from the
 * row in place; those that reach an edge from pad, which holds the
 * border columns and the inside column next to each. */
static void fill_pairs(const blur16_job *j, long sy, int x0, int x1, blur16_buffers *b)
{
    const int ch = j->src->channels, width = j->src->width;
    const long lo = (long)x0 - j->pad_left, hi = (long)x1 + j->pad_right;
    const size_t count = (size_t)(hi - lo - 1) * ch;
    if (sy < 0) {
        fill_border_columns(j, NULL, lo, lo, hi, b->pad);
        make_pairs(j, b->pad, count, 0, b);
        return;
    }
    const uint16_t *row = (const uint16_t *)(j->src->data + (size_t)sy * j->src->stride);
    const long a = lo > 0 ? lo : 0, c = hi < width ? hi : width; /* a < c: x0 < width */
    fill_border_columns(j, row, lo, lo, a, b->pad);
    fill_border_columns(j, row, lo, c, hi, b->pad);
    memcpy(b->pad + (a - lo) * ch, row + a * ch, (size_t)ch * sizeof *row);
    memcpy(b->pad + (c - 1 - lo) * ch, row + (c - 1) * ch, (size_t)ch * sizeof *row);
    /* values [0, d0) and [d1, count) from pad, [d0, d1) in place */
    const size_t d0 = (size_t)(a - lo) * ch, d1 = (size_t)(c - 1 - lo) * ch;
    if (d0) make_pairs(j, b->pad, d0, 0, b);
    if (d1 > d0) make_pairs(j, row + a * ch, d1 - d0, d0, b);
    make_pairs(j, b->pad + d1, count - d1, d1, b);
}

/* The lines of source row vy that fill_pairs will read for columns [x0,
 * x1), asked of the caches two rows ahead (a horizontal row and a
 * vertical pass before they are read): the hardware's prefetch starts
 * again at each row's strip and each page, and the first loads of the
 * pairs waited on memory, half of pairs16p's time. */
static void prefetch_row(const blur16_job *j, long vy, int x0, int x1)
{
    const long sy = gi_border_index(vy, j->src->height, j->mode);
    if (sy < 0) return;
    const long width = j->src->width, lo = (long)x0 - j->pad_left, hi = (long)x1 + j->pad_right;
    const size_t bytes = (size_t)j->src->channels * sizeof(uint16_t);
    const uint8_t *row = j->src->data + (size_t)sy * j->src->stride;
    const uint8_t *end = row + (size_t)(hi < width ? hi : width) * bytes;
    for (const uint8_t *p = row + (size_t)(lo > 0 ? lo : 0) * bytes; p < end; p += 64)
        __builtin_prefetch(p, 0, 1);
}

static void horizontal_row(const blur16_job *j, long vy, int x0, int x1, blur16_buffers *b)
{
    const int ch = j->src->channels, high = (int)(vy & 1); /* two's complement: rows above too */
    const long sy = gi_border_index(vy, j->src->height, j->mode);
    const size_t centre = (size_t)j->pad_left * ch, n = (size_t)(x1 - x0) * ch;
    uint32_t *slot = ring_slot(j, b, vy);
    fill_pairs(j, sy, x0, x1, b);
    prefetch_row(j, vy + 2, x0, x1);
    if (j->alpha)
        j->k->horizontal16p(&j->taps, b->pairs + centre, b->pairs_low + centre, ch, n, slot,
                            slot + j->row_len, high);
    else
        j->k->horizontal16(&j->taps, b->pairs + centre, ch, n, slot, slot + j->row_len, high);
}

/* Output rows y .. y + nrows - 1 (1, or 2 from an even y), columns
 * [x0, x1), their h rows in the ring. */
static void vertical_rows(const blur16_job *j, int y, int nrows, int x0, int x1,
                          blur16_buffers *b)
{
    const int ch = j->src->channels;
    const long even = (long)y - (y & 1);
    for (int p = 0; p < j->taps_odd.pairs; p++)
        b->rows[p] = ring_slot(j, b, even + j->taps.first + 2 * p);
    const size_t n = (size_t)(x1 - x0) * ch;
    uint16_t *out = (uint16_t *)(j->dst->data + (size_t)y * j->dst->stride) + (size_t)x0 * ch;
    if (j->alpha) {
        if (nrows == 2)
            j->k->vertical16px2(&j->taps, &j->taps_odd, b->rows, j->row_len, n, ch, out,
                                (uint16_t *)((uint8_t *)out + j->dst->stride));
        else
            j->k->vertical16p(y & 1 ? &j->taps_odd : &j->taps, b->rows, j->row_len, n, ch, out);
        return;
    }
    if (nrows == 2)
        j->k->vertical16x2(&j->taps, &j->taps_odd, b->rows, j->row_len, n, out,
                           (uint16_t *)((uint8_t *)out + j->dst->stride));
    else
        j->k->vertical16(y & 1 ? &j->taps_odd : &j->taps, b->rows, j->row_len, n, out);
}

static void free_buffers(blur16_buffers *b)
{
    free(b->pad);
    free(b->pairs);
    free(b->ring);
    free(b->rows);
    free(b->pairs_low);
}

/* Zeroed, so that the lanes past a row's end that the kernels read are
 * defined (their results are never stored). */
static int alloc_buffers(const blur16_job *j, blur16_buffers *b)
{
    const size_t ch = (size_t)j->src->channels;
    const size_t padded = ((size_t)j->strip + j->pad_left + j->pad_right) * ch + BLUR_SLACK;
    b->pad = calloc(padded, sizeof *b->pad);
    /* 16 more: horizontal16p's AVX-512 loads whole lines (blur_kernels.h) */
    b->pairs = gi__lines_alloc(padded + 16, sizeof *b->pairs);
    b->ring = gi__lines_alloc(ring_slots(j->radius) * 2 * j->row_len, sizeof *b->ring);
    b->rows = malloc((size_t)j->taps_odd.pairs * sizeof *b->rows);
    if (!j->alpha) return b->pad && b->pairs && b->ring && b->rows;
    b->pairs_low = gi__lines_alloc(padded + 16, sizeof *b->pairs_low);
    return b->pad && b->pairs && b->ring && b->rows && b->pairs_low;
}

/* Output rows a thread takes at once (as the 8-bit blur's, blur.c). */
#define BLUR16_CLAIM 32

/* The rows the cursor gives, strip by strip within each claim; each strip
 * keeps its ring from claim to claim, and a run's first rows fill it
 * again. */
static int blur16_band(void *arg, gi__row_cursor *rows)
{
    const blur16_job *j = arg;
    const int R = j->radius, width = j->src->width, strips = (width + j->strip - 1) / j->strip;
    blur16_buffers *bs = calloc((size_t)strips, sizeof *bs);
    int ok = bs != NULL;
    for (int s = 0; ok && s < strips; s++) ok = alloc_buffers(j, &bs[s]);
    for (int y0, y1, fresh; ok && (y0 = gi__rows_next(rows, BLUR16_CLAIM, &y1, &fresh)) >= 0;) {
        for (int s = 0; s < strips; s++) {
            const int x0 = s * j->strip, x1 = x0 + j->strip < width ? x0 + j->strip : width;
            blur16_buffers *b = &bs[s];
            if (fresh)
                for (long vy = (long)y0 + j->taps.first; vy < (long)y0 + R; vy++)
                    horizontal_row(j, vy, x0, x1, b);
            for (int y = y0; y < y1;) {
                /* an even row and the one below it, or one row alone */
                const int step = y & 1 ? 1 : 2, nrows = y1 - y < step ? y1 - y : step;
                for (int r = 0; r < nrows; r++) horizontal_row(j, (long)y + r + R, x0, x1, b);
                vertical_rows(j, y, nrows, x0, x1, b);
                y += nrows;
            }
        }
    }
    for (int s = 0; bs && s < strips; s++) free_buffers(&bs[s]);
    free(bs);
    return ok ? 0 : -1;
}

gi_status gi__cpu_blur16(void *state, const gi_image *src, gi_image *dst, const int32_t *weights,
                         int radius, gi_border border)
{
    const int threads = gi__cpu_threads_for(state, src, dst, 2 + radius / 4);
    blur16_job j = {src, dst, src->channels % 2 == 0, radius, border.mode,
                    (uint16_t)(border.value * 257), 0, 0, 0, 0, {0}, {0}, gi__blur_kernels()};
    uint32_t *pair_w = malloc(((size_t)radius + 2) * sizeof *pair_w);
    uint32_t *pair_w_odd = malloc(((size_t)radius + 2) * sizeof *pair_w_odd);
    if (!pair_w || !pair_w_odd) {
        free(pair_w);
        free(pair_w_odd);
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur weights (radius %d)", radius);
    }
    gi_status st = GI_OK;
    if (gi__blur_make_taps(weights, radius, 0, pair_w, &j.taps) |
        gi__blur_make_taps(weights, radius, 1, pair_w_odd, &j.taps_odd))
        st = gi__fail(GI_ERR_INVALID_ARGUMENT, "blur weights: each 0..32767, the centre up to 65536");
    j.pad_left = -j.taps.first;
    j.pad_right = j.taps.first + 2 * j.taps.pairs - 1; /* the last pair's high half */
    const size_t per_column = ring_slots(radius) * 2 * (size_t)src->channels * sizeof(uint32_t);
    size_t strip = gi__blur_ring_budget() / per_column;
    if (strip < MIN_STRIP) strip = MIN_STRIP;
    j.strip = strip < (size_t)src->width ? (int)strip : src->width;
    /* whole lines, so that every row of the ring starts on one */
    j.row_len = gi__lines_round((size_t)j.strip * src->channels + BLUR_SLACK, sizeof(uint32_t));
    /* rows shared as the 8-bit blur's (blur.c) */
    if (st == GI_OK &&
        gi__parallel_rows_shared(threads, src->height, 4 * radius + 4, blur16_band, &j))
        st = gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur buffers (radius %d)", radius);
    free(pair_w);
    free(pair_w_odd);
    return st;
}
