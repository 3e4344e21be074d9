/* CPU blur: the fixed-point separable filter defined in gpuimg.h.
 *
 * Each thread owns a band of output rows and walks it top to bottom,
 * keeping the last 2R+2 horizontally filtered rows in a ring (as the pairs
 * of rows y, y+1 that the vertical pass multiplies), so every input row is
 * filtered horizontally about once. Wide radii on wide images would make
 * that ring huge, so the band is cut into column strips whose ring fits
 * ring_budget() bytes. The inner loops are blur_kernels.c's, for the
 * widest instruction set the CPU has. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "blur_kernels.h"
#include "cpu_isa.h"

/* Half of the L2 per core: the ring, read once per tap pair and output
 * row, stays there next to the padded row. (32 MiB, an old budget, let a
 * 4-channel 3840-pixel ring reach 800 KB and every vertical tap came from
 * L3; on Zen 4's 1 MiB L2, 512 KiB was 4-7% faster than 256 KiB.) The
 * size is read where the C library tells it; else 256 KiB, half of the
 * smallest L2 of the machines in view. */
static size_t ring_budget(void)
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
    int pad_left, pad_right; /* columns the pairs reach past the strip */
    blur_taps taps;
    const blur_kernels *k;
} blur_job;

typedef struct {
    uint8_t *bytes;  /* one input row's bytes, padded */
    uint32_t *pairs; /* and its pairs of samples, the horizontal pass's operand */
    uint32_t *ring;    /* RING_ROWS rows of vertical pairs of one strip;
                          premultiplied: of the high parts (blur_finish.h) */
    uint32_t *ring_lo; /* premultiplied: and of the low parts */
    uint32_t *scratch; /* premultiplied: the vertical pass's (blur_kernels.h) */
    const uint32_t **rows, **lo_rows; /* the pair rows of one output row */
} blur_buffers;

/* Pair rows in the ring: output row y reads rows y + first .. y + R, and
 * the horizontal pass writes row y + R (and the high halves of the one
 * above it) before it. */
#define RING_ROWS(R) (2 * (size_t)(R) + 2)

static size_t row_len(const blur_job *j)
{
    return (size_t)j->strip * j->src->channels + BLUR_SLACK;
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

/* Fills the pairs for virtual columns [x0 - pad_left, x1 + pad_right) of
 * source row sy, or of an outside row (sy < 0, zero mode), from a padded
 * copy of its bytes: columns inside the image are copied straight; only
 * those past an edge go through the border rule. */
static void fill_pairs(const blur_job *j, long sy, int x0, int x1, blur_buffers *b)
{
    const int ch = j->src->channels, width = j->src->width;
    const long lo = (long)x0 - j->pad_left, hi = (long)x1 + j->pad_right;
    if (sy < 0) {
        fill_border_columns(j, NULL, lo, lo, hi, b->bytes);
    } else {
        const uint8_t *row = j->src->data + (size_t)sy * j->src->stride;
        const long a = lo > 0 ? lo : 0, c = hi < width ? hi : width; /* a < c: x0 < width */
        fill_border_columns(j, row, lo, lo, a, b->bytes);
        fill_border_columns(j, row, lo, c, hi, b->bytes);
        memcpy(b->bytes + (a - lo) * ch, row + a * ch, (size_t)(c - a) * ch);
    }
    j->k->pairs(b->bytes, (size_t)(hi - lo - 1) * ch, ch, j->premultiplied, b->pairs);
}

static uint32_t *ring_row(const blur_job *j, uint32_t *ring, long vy)
{
    const long slots = (long)RING_ROWS(j->radius);
    return ring + (size_t)(((vy % slots) + slots) % slots) * row_len(j);
}

static void horizontal_row(const blur_job *j, long vy, int x0, int x1, blur_buffers *b)
{
    const int ch = j->src->channels;
    fill_pairs(j, gi_border_index(vy, j->src->height, j->border.mode), x0, x1, b);
    j->k->horizontal(&j->taps, b->pairs + (size_t)j->pad_left * ch, ch, (size_t)(x1 - x0) * ch,
                     j->premultiplied, ring_row(j, b->ring, vy), ring_row(j, b->ring, vy - 1),
                     j->premultiplied ? ring_row(j, b->ring_lo, vy) : NULL,
                     j->premultiplied ? ring_row(j, b->ring_lo, vy - 1) : NULL);
}

static void vertical_row(const blur_job *j, int y, int x0, int x1, blur_buffers *b)
{
    const int ch = j->src->channels;
    uint8_t *out = j->dst->data + (size_t)y * j->dst->stride + (size_t)x0 * ch;
    for (int p = 0; p < j->taps.pairs; p++) {
        const long vy = (long)y + j->taps.first + 2 * p;
        b->rows[p] = ring_row(j, b->ring, vy);
        if (j->premultiplied) b->lo_rows[p] = ring_row(j, b->ring_lo, vy);
    }
    if (!j->premultiplied)
        j->k->vertical_plain(&j->taps, b->rows, (size_t)(x1 - x0) * ch, out);
    else
        j->k->vertical_split(&j->taps, b->rows, b->lo_rows, (size_t)(x1 - x0), ch, b->scratch, out);
}

static void blur_strip(const blur_job *j, int y0, int y1, int x0, int x1, blur_buffers *b)
{
    const int R = j->radius;
    for (long vy = (long)y0 + j->taps.first; vy < (long)y0 + R; vy++) horizontal_row(j, vy, x0, x1, b);
    for (int y = y0; y < y1; y++) {
        horizontal_row(j, (long)y + R, x0, x1, b);
        vertical_row(j, y, x0, x1, b);
    }
}

static void free_buffers(blur_buffers *b)
{
    free(b->bytes);
    free(b->pairs);
    free(b->ring);
    free(b->ring_lo);
    free(b->scratch);
    free(b->rows);
    free(b->lo_rows);
}

/* Zeroed, so that the lanes past a row's end that the kernels read are
 * defined (their results are never stored). */
static int alloc_buffers(const blur_job *j, blur_buffers *b)
{
    const size_t ch = (size_t)j->src->channels, split = (size_t)j->premultiplied;
    const size_t padded = ((size_t)j->strip + j->pad_left + j->pad_right) * ch + BLUR_SLACK;
    const size_t ring = RING_ROWS(j->radius) * row_len(j), pairs = (size_t)j->taps.pairs;
    b->bytes = calloc(padded, sizeof *b->bytes);
    b->pairs = calloc(padded, sizeof *b->pairs);
    b->ring = calloc(ring, sizeof *b->ring);
    b->ring_lo = split ? calloc(ring, sizeof *b->ring_lo) : NULL;
    b->scratch = split ? calloc(2 * row_len(j), sizeof *b->scratch) : NULL;
    b->rows = malloc(pairs * sizeof *b->rows);
    b->lo_rows = malloc(pairs * sizeof *b->lo_rows);
    return b->bytes && b->pairs && b->ring && b->rows && b->lo_rows &&
           (!split || (b->ring_lo && b->scratch));
}

static int blur_band(void *arg, int y0, int y1)
{
    const blur_job *j = arg;
    blur_buffers b;
    int ok = alloc_buffers(j, &b);
    for (int x0 = 0; ok && x0 < j->src->width; x0 += j->strip) {
        int x1 = x0 + j->strip < j->src->width ? x0 + j->strip : j->src->width;
        blur_strip(j, y0, y1, x0, x1, &b);
    }
    free_buffers(&b);
    return ok ? 0 : -1;
}

/* The taps of blur_kernels.h from w[-R..R] (weights[k + R]). Only w[0]
 * can reach 2^15: the weights are symmetric, at least 0 and sum to 2^16,
 * so a pair w[k] = w[-k] >= 2^15 would leave the larger centre nothing.
 * Returns -1 for weights outside that. */
static int make_taps(const int32_t *weights, int R, uint32_t *pair_w, blur_taps *t)
{
    t->first = -R - (R & 1);
    t->pairs = R + 1;
    t->centre_high = weights[R] >= 1 << 15;
    t->pair_w = pair_w;
    for (int p = 0; p < t->pairs; p++) {
        uint32_t half[2];
        for (int e = 0; e < 2; e++) {
            const int k = t->first + 2 * p + e;
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
    extern const blur_kernels gi__blur_kernels_avx2, gi__blur_kernels_avx512;
    switch (gi__cpu_isa()) {
    case GI__ISA_AVX512: return &gi__blur_kernels_avx512;
    case GI__ISA_AVX2: return &gi__blur_kernels_avx2;
    case GI__ISA_BASE: break;
    }
#endif
    return &gi__blur_kernels_base;
}

gi_status gi__cpu_blur(void *state, const gi_image *src, gi_image *dst, const int32_t *weights,
                       int radius, gi_border border)
{
    const int premultiplied = src->channels == 2 || src->channels == 4;
    blur_job j = {src, dst, radius, border, premultiplied, 0, 0, 0, {0}, gi__blur_kernels()};
    uint32_t *pair_w = malloc(((size_t)radius + 1) * sizeof *pair_w);
    if (!pair_w) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur weights (radius %d)", radius);
    if (make_taps(weights, radius, pair_w, &j.taps)) {
        free(pair_w);
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "blur weights: only the centre may exceed 32767");
    }
    j.pad_left = -j.taps.first;
    j.pad_right = j.taps.first + 2 * j.taps.pairs - 1; /* the last pair's high half */
    /* the ring of low parts is not counted: the vertical pass reads it for
     * about a tenth of the values (blur_kernels.c), and counting it made
     * 4-channel strips half as wide and the blur 3% slower (2 threads) */
    size_t per_column = RING_ROWS(radius) * (size_t)src->channels * sizeof(uint32_t);
    size_t strip = ring_budget() / per_column;
    if (strip < MIN_STRIP) strip = MIN_STRIP;
    j.strip = strip < (size_t)src->width ? (int)strip : src->width;
    int failed = gi__parallel_rows(gi__cpu_threads(state), src->height, blur_band, &j);
    free(pair_w);
    if (failed) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur buffers (radius %d)", radius);
    return GI_OK;
}
