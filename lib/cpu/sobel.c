/* CPU Sobel: gradient magnitude or a binary edge map, per channel or on
 * luma (gpuimg.h gives the exact rounding).
 *
 * Each band keeps its last three input rows, padded with one border pixel
 * each side, as bytes (luma when gray), so every input row is read once.
 * The gradients of a whole row run as one vectorized loop over its
 * interleaved values, alpha included (its result is overwritten with the
 * copy), and the output comes from s = gx^2 + gy^2 alone without a double
 * per pixel (sobel_magnitude.h says why that is exact). */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"
#include "sobel_magnitude.h"

typedef enum {
    OUT_UNIT,      /* magnitude with scale 1: a float square root */
    OUT_THRESHOLD, /* 255 from one step on */
    OUT_STEPS      /* any other scale: search the 255 steps */
} output_kind;

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const gi_sobel_params *p;
    int values; /* bytes per padded column: 1 with gray, else the channels */
    output_kind kind;
    int32_t steps[256];
} sobel_job;

GI_VECTOR_CLONES
static void luma_row(const uint8_t *in, int ch, int width, uint8_t *out)
{
    for (int x = 0; x < width; x++, in += ch)
        out[x] = (uint8_t)((77 * in[0] + 150 * in[1] + 29 * in[2] + 128) >> 8);
}

/* The filter input of source column sx of row (NULL: an outside row). */
static void fill_column(const sobel_job *j, const uint8_t *row, long sx, uint8_t *out)
{
    const int ch = j->src->channels;
    if (!row || sx < 0) {
        memset(out, j->p->border.value, (size_t)j->values); /* luma of (v, v, v) is v */
        return;
    }
    const uint8_t *px = row + sx * ch;
    if (j->values == 1 && ch >= 3) out[0] = (uint8_t)((77 * px[0] + 150 * px[1] + 29 * px[2] + 128) >> 8);
    else memcpy(out, px, (size_t)j->values);
}

/* Source row sy (or an outside row, sy < 0) for virtual columns -1..width. */
static void fill_row(const sobel_job *j, long sy, uint8_t *out)
{
    const int ch = j->src->channels, w = j->src->width, k = j->values;
    const uint8_t *row = sy >= 0 ? j->src->data + (size_t)sy * j->src->stride : NULL;
    const gi_border_mode mode = j->p->border.mode;
    if (!row) memset(out + k, j->p->border.value, (size_t)w * k);
    else if (k == ch) memcpy(out + k, row, (size_t)w * k);
    else if (ch >= 3) luma_row(row, ch, w, out + 1);
    else /* gray of gray+alpha: the first byte of each pixel */
        for (int x = 0; x < w; x++) out[1 + x] = row[(size_t)x * ch];
    fill_column(j, row, gi_border_index(-1, w, mode), out);
    fill_column(j, row, gi_border_index(w, w, mode), out + (size_t)(w + 1) * k);
}

/* s = gx^2 + gy^2 of the n values of a row, from the rows above (a), at (m)
 * and below (b), each starting at virtual column -1; k values per column. */
#define SOBEL_S(i)                                                                             \
    int gx = (a[i + 2 * k] - a[i]) + 2 * (m[i + 2 * k] - m[i]) + (b[i + 2 * k] - b[i]);        \
    int gy = (b[i] - a[i]) + 2 * (b[i + k] - a[i + k]) + (b[i + 2 * k] - a[i + 2 * k]);        \
    int32_t s = gx * gx + gy * gy

GI_VECTOR_CLONES
static void unit_magnitudes(const uint8_t *a, const uint8_t *m, const uint8_t *b, size_t n,
                            size_t k, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        SOBEL_S(i);
        out[i] = sobel_unit_magnitude(s);
    }
}

GI_VECTOR_CLONES
static void squared_gradients(const uint8_t *a, const uint8_t *m, const uint8_t *b, size_t n,
                              size_t k, int32_t *out)
{
    for (size_t i = 0; i < n; i++) {
        SOBEL_S(i);
        out[i] = s;
    }
}

GI_VECTOR_CLONES
static void threshold_map(const int32_t *s, size_t n, int32_t step, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = s[i] >= step ? 255 : 0;
}

/* The largest k with steps[k] <= s, by a fixed eight-step search. */
static void steps_map(const int32_t *s, size_t n, const int32_t steps[256], uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        for (int half = 128; half; half >>= 1) k += s[i] >= steps[k + half] ? half : 0;
        out[i] = (uint8_t)k;
    }
}

static void sobel_row(const sobel_job *j, int y, const uint8_t *rows[3], int32_t *s)
{
    const int ch = j->src->channels, w = j->src->width, k = j->values;
    const size_t n = (size_t)w * k;
    uint8_t *out = j->dst->data + (size_t)y * j->dst->stride;
    if (j->kind == OUT_UNIT) unit_magnitudes(rows[0], rows[1], rows[2], n, k, out);
    else {
        squared_gradients(rows[0], rows[1], rows[2], n, k, s);
        if (j->kind == OUT_THRESHOLD) threshold_map(s, n, j->steps[255], out);
        else steps_map(s, n, j->steps, out);
    }
    if (k > 1 && (ch == 2 || ch == 4)) { /* alpha is copied through */
        const uint8_t *src_row = j->src->data + (size_t)y * j->src->stride;
        for (int x = 0; x < w; x++) out[x * ch + ch - 1] = src_row[x * ch + ch - 1];
    }
}

/* The rows the cursor gives, through a ring of three source rows that a
 * run's first row fills again. */
static int sobel_band(void *arg, gi__row_cursor *rows)
{
    const sobel_job *j = arg;
    const size_t row_len = ((size_t)j->src->width + 2) * (size_t)j->values;
    uint8_t *ring = malloc(3 * row_len);
    int32_t *s = j->kind == OUT_UNIT ? NULL : malloc(row_len * sizeof *s);
    if (!ring || (j->kind != OUT_UNIT && !s)) {
        free(ring);
        free(s);
        return -1;
    }
    const gi_border_mode mode = j->p->border.mode;
    long filled = 0; /* the last virtual row in the ring */
    for (int y0, y1, fresh; (y0 = gi__rows_next(rows, GI_ROWS_CLAIM, &y1, &fresh)) >= 0;) {
        /* slot (vy mod 3) holds virtual row vy; a run's rows y0-1 and y0 come first */
        if (fresh) filled = (long)y0 - 2;
        for (long vy = filled + 1; vy <= y1; vy++) {
            uint8_t *slot = ring + (size_t)(((vy % 3) + 3) % 3) * row_len;
            fill_row(j, gi_border_index(vy, j->src->height, mode), slot);
            if (vy < (long)y0 + 1) continue;
            const uint8_t *three[3];
            for (int t = 0; t < 3; t++) three[t] = ring + (size_t)((((vy - 2 + t) % 3) + 3) % 3) * row_len;
            sobel_row(j, (int)vy - 1, three, s);
        }
        filled = y1;
    }
    free(ring);
    free(s);
    return 0;
}

gi_status gi__cpu_sobel(void *state, const gi_image *src, gi_image *dst, const gi_sobel_params *p)
{
    sobel_job j = {src, dst, p, p->gray ? 1 : src->channels, OUT_STEPS, {0}};
    if (p->use_threshold) j.kind = OUT_THRESHOLD;
    else if (p->scale == 1.0) j.kind = OUT_UNIT;
    if (j.kind != OUT_UNIT) sobel_steps(p->scale, p->use_threshold, p->threshold, j.steps);
    if (gi__parallel_rows_shared(gi__cpu_threads_for(state, src, dst, 2), src->height, GI_ROWS_MIN_TAKE,
                                 sobel_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate sobel row buffers");
    return GI_OK;
}
