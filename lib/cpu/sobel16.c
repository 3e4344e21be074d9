/* CPU Sobel of 16-bit images: gpuimg.h's double formula, decided in
 * floats where that is sure and in doubles where it is not.
 *
 * The double formula: s = gx^2 + gy^2 < 2^38 is exact in a double and the
 * square root, the product and the sum each round once (no fused
 * multiply-add: the build turns contraction off), as the CUDA kernel
 * computes it. Eight float lanes estimate it first: with gx and gy exact
 * in floats, s, its root, scale and their product each rounded once, the
 * estimate e and t = e + 0.5 are within t 2^-21 of the exact values (for
 * scale up to 2^20), and the double formula within t 2^-51 of them. So
 * where floor(t - d) = floor(t + d) with d = t 2^-20, that floor is the
 * double formula's (the threshold alike: e farther than (e + |threshold|)
 * 2^-20 from it). The rest, the few values that close to a half (or to
 * the threshold), take the double formula itself. Scale 1, the default,
 * needs no doubles at all (unit_magnitude).
 *
 * With gray, each band keeps its last three input rows padded with one
 * border column each side, as uint16 (luma); else the rows are read in
 * place, all but the two edge columns (direct_row). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"
#include "sobel16_magnitude.h"

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const gi_sobel_params *p;
    int values; /* samples per padded column: 1 with gray, else the channels */
    uint16_t outside;
} sobel16_job;

static uint16_t luma16(const uint16_t *px)
{
    return (uint16_t)((77u * px[0] + 150u * px[1] + 29u * px[2] + 128) >> 8);
}

/* The filter input of source column sx of row (NULL or sx < 0: outside). */
static void fill_column(const sobel16_job *j, const uint16_t *row, long sx, uint16_t *out)
{
    const int ch = j->src->channels;
    if (!row || sx < 0) {
        for (int c = 0; c < j->values; c++) out[c] = j->outside; /* luma of (v, v, v) is v */
        return;
    }
    const uint16_t *px = row + sx * ch;
    if (j->values == 1 && ch >= 3) out[0] = luma16(px);
    else memcpy(out, px, (size_t)j->values * sizeof *out);
}

GI_VECTOR_CLONES
static void luma_row16(const uint16_t *in, int ch, int width, uint16_t *out)
{
    for (int x = 0; x < width; x++, in += ch)
        out[x] = (uint16_t)((77u * in[0] + 150u * in[1] + 29u * in[2] + 128) >> 8);
}

/* Source row sy (sy < 0: an outside row) for virtual columns -1..width:
 * the inside copied (or its luma), the two border columns by the rule. */
static void fill_row(const sobel16_job *j, long sy, uint16_t *out)
{
    const int w = j->src->width, k = j->values, ch = j->src->channels;
    const uint16_t *row = sy >= 0 ? (const uint16_t *)(j->src->data + (size_t)sy * j->src->stride)
                                  : NULL;
    const gi_border_mode mode = j->p->border.mode;
    if (!row)
        for (size_t i = 0; i < (size_t)w * k; i++) out[k + i] = j->outside;
    else if (k == ch)
        memcpy(out + k, row, (size_t)w * k * sizeof *out);
    else if (ch >= 3)
        luma_row16(row, ch, w, out + 1);
    else /* gray and alpha: the gray channel */
        for (int x = 0; x < w; x++) out[1 + x] = row[(size_t)x * ch];
    fill_column(j, row, gi_border_index(-1, w, mode), out);
    fill_column(j, row, gi_border_index(w, w, mode), out + (size_t)(w + 1) * k);
}

/* gpuimg.h's formula for value i of a row from the rows above (a), at
 * (m) and below (b), each from virtual column -1; k values per column. */
static inline int32_t gradient_x(const uint16_t *a, const uint16_t *m, const uint16_t *b, size_t i,
                                 size_t k)
{
    return (a[i + 2 * k] - a[i]) + 2 * (m[i + 2 * k] - m[i]) + (b[i + 2 * k] - b[i]);
}

static inline int32_t gradient_y(const uint16_t *a, const uint16_t *b, size_t i, size_t k)
{
    return (b[i] - a[i]) + 2 * (b[i + k] - a[i + k]) + (b[i + 2 * k] - a[i + 2 * k]);
}

static uint16_t formula(const sobel16_job *j, int32_t gx, int32_t gy)
{
    const double s = (double)gx * (double)gx + (double)gy * (double)gy;
    const double magnitude = j->p->scale * sqrt(s);
    if (j->p->use_threshold) return magnitude >= j->p->threshold ? 65535 : 0;
    const double rounded = floor(magnitude + 0.5);
    return rounded >= 65535.0 ? 65535 : (uint16_t)rounded;
}

/* The largest scale and |threshold| the float estimate's bound covers. */
#define MAX_SCALE 0x1p20
#define MAX_THRESHOLD 0x1p60
#define SEGMENT 1024 /* values estimated before the unsure ones are redone */

/* Scale 1: exactly, in 32-bit lanes (sobel16_magnitude.h). */
GI_VECTOR_CLONES
static void unit_magnitude(const uint16_t *a, const uint16_t *m, const uint16_t *b, size_t n, size_t k,
                           uint16_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint16_t)sobel16_unit_magnitude(gradient_x(a, m, b, i, k), gradient_y(a, b, i, k));
}

/* The float estimate of the outputs of values i < n into v[i], with
 * unsure[i] set (1) where it cannot decide. int32 outputs, not uint16,
 * and a compare for the clamp: so GCC vectorizes the loops at the full
 * width of AVX2 (it did not at all with uint16 stores and fminf). */
GI_VECTOR_CLONES
static void estimate_magnitude(const uint16_t *a, const uint16_t *m, const uint16_t *b, size_t n,
                               size_t k, float scale, int32_t *v, int32_t *unsure)
{
    for (size_t i = 0; i < n; i++) {
        const float gx = (float)gradient_x(a, m, b, i, k), gy = (float)gradient_y(a, b, i, k);
        const float t0 = scale * sqrtf(gx * gx + gy * gy) + 0.5f;
        const float t = t0 < 131072.0f ? t0 : 131072.0f, d = t * 0x1p-20f;
        const int32_t lo = (int32_t)(t - d), hi = (int32_t)(t + d); /* floors: t - d > 0 */
        v[i] = lo < 65535 ? lo : 65535;
        unsure[i] = (lo != hi) & (lo < 65535);
    }
}

GI_VECTOR_CLONES
static void estimate_threshold(const uint16_t *a, const uint16_t *m, const uint16_t *b, size_t n,
                               size_t k, float scale, float threshold, int32_t *v, int32_t *unsure)
{
    for (size_t i = 0; i < n; i++) {
        const float gx = (float)gradient_x(a, m, b, i, k), gy = (float)gradient_y(a, b, i, k);
        const float e = scale * sqrtf(gx * gx + gy * gy);
        const float d = (e + fabsf(threshold)) * 0x1p-20f;
        v[i] = e >= threshold ? 65535 : 0;
        unsure[i] = fabsf(e - threshold) <= d;
    }
}

GI_VECTOR_CLONES
static int32_t narrow(const int32_t *v, const int32_t *unsure, size_t n, uint16_t *out)
{
    int32_t any = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = (uint16_t)v[i];
        any |= unsure[i];
    }
    return any;
}

/* The outputs of the n values of a row from the rows above (a), at (m)
 * and below (b). */
static void sobel16_values(const sobel16_job *j, const uint16_t *a, const uint16_t *m, const uint16_t *b,
                           size_t n, size_t k, uint16_t *out)
{
    const gi_sobel_params *p = j->p;
    if (!p->use_threshold && p->scale == 1.0) {
        unit_magnitude(a, m, b, n, k, out);
        return;
    }
    if (!(p->scale <= MAX_SCALE) || !(fabs(p->threshold) <= MAX_THRESHOLD)) {
        for (size_t i = 0; i < n; i++) out[i] = formula(j, gradient_x(a, m, b, i, k), gradient_y(a, b, i, k));
        return;
    }
    int32_t v[SEGMENT], unsure[SEGMENT];
    for (size_t i0 = 0; i0 < n; i0 += SEGMENT) {
        const size_t count = n - i0 < SEGMENT ? n - i0 : SEGMENT;
        if (p->use_threshold)
            estimate_threshold(a + i0, m + i0, b + i0, count, k, (float)p->scale, (float)p->threshold, v,
                               unsure);
        else
            estimate_magnitude(a + i0, m + i0, b + i0, count, k, (float)p->scale, v, unsure);
        if (!narrow(v, unsure, count, out + i0)) continue;
        for (size_t i = 0; i < count; i++)
            if (unsure[i])
                out[i0 + i] = formula(j, gradient_x(a, m, b, i0 + i, k), gradient_y(a, b, i0 + i, k));
    }
}

/* Without gray the filter input is the samples themselves: the columns
 * inside (1 .. width - 2) read the source rows in place, and only the two
 * edge columns go through a padded copy of their three columns, for the
 * rows above, at and below (an outside row: `outside`, a row of the
 * border value). */
static void direct_row(const sobel16_job *j, int y, const uint16_t *outside, uint16_t *edges)
{
    const int w = j->src->width, k = j->values, h = j->src->height;
    const gi_border_mode mode = j->p->border.mode;
    const uint16_t *rows[3];
    for (int t = 0; t < 3; t++) {
        const long sy = gi_border_index((long)y - 1 + t, h, mode);
        rows[t] = sy >= 0 ? (const uint16_t *)(j->src->data + (size_t)sy * j->src->stride) : outside;
    }
    uint16_t *out = (uint16_t *)(j->dst->data + (size_t)y * j->dst->stride);
    if (w > 2) sobel16_values(j, rows[0], rows[1], rows[2], (size_t)(w - 2) * k, (size_t)k, out + k);
    /* the edge columns x = 0 and w - 1 (the same one when w = 1) */
    for (int e = 0; e < 2 && (e == 0 || w > 1); e++) {
        const int x = e ? w - 1 : 0;
        for (int t = 0; t < 3; t++)
            for (int c = 0; c < 3; c++) {
                const long sx = gi_border_index((long)x - 1 + c, w, mode);
                fill_column(j, rows[t] == outside ? NULL : rows[t], sx, edges + (size_t)(t * 3 + c) * k);
            }
        sobel16_values(j, edges, edges + 3 * k, edges + 6 * k, (size_t)k, (size_t)k, out + (size_t)x * k);
    }
}

/* The rows the cursor gives, each from its own neighbours. */
static int sobel16_band_direct(const sobel16_job *j, gi__row_cursor *rows)
{
    const int w = j->src->width, k = j->values, ch = j->src->channels;
    uint16_t *outside = malloc((size_t)w * k * sizeof *outside);
    uint16_t edges[9 * 4];
    if (!outside) return -1;
    for (size_t i = 0; i < (size_t)w * k; i++) outside[i] = j->outside;
    for (int y0, y1, fresh; (y0 = gi__rows_next(rows, GI_ROWS_CLAIM, &y1, &fresh)) >= 0;) {
        for (int y = y0; y < y1; y++) {
            direct_row(j, y, outside, edges);
            if (ch == 2 || ch == 4) { /* alpha is copied through */
                const uint16_t *in = (const uint16_t *)(j->src->data + (size_t)y * j->src->stride);
                uint16_t *out = (uint16_t *)(j->dst->data + (size_t)y * j->dst->stride);
                for (int x = 0; x < w; x++) out[x * ch + ch - 1] = in[x * ch + ch - 1];
            }
        }
    }
    free(outside);
    return 0;
}

/* The rows the cursor gives, through a ring of three source rows that a
 * run's first row fills again (gray of colour); else each row directly. */
static int sobel16_band(void *arg, gi__row_cursor *rows)
{
    const sobel16_job *j = arg;
    const int ch = j->src->channels, w = j->src->width, k = j->values;
    if (k == ch) return sobel16_band_direct(j, rows);
    const size_t row_len = ((size_t)w + 2) * (size_t)k;
    uint16_t *ring = malloc(3 * row_len * sizeof *ring);
    if (!ring) return -1;
    long filled = 0; /* the last virtual row in the ring */
    for (int y0, y1, fresh; (y0 = gi__rows_next(rows, GI_ROWS_CLAIM, &y1, &fresh)) >= 0;) {
        /* slot (vy mod 3) holds virtual row vy; a run's rows y0 - 1 and y0 come first */
        if (fresh) filled = (long)y0 - 2;
        for (long vy = filled + 1; vy <= y1; vy++) {
            fill_row(j, gi_border_index(vy, j->src->height, j->p->border.mode),
                     ring + (size_t)(((vy % 3) + 3) % 3) * row_len);
            if (vy < (long)y0 + 1) continue;
            const uint16_t *three[3];
            for (int t = 0; t < 3; t++) three[t] = ring + (size_t)((((vy - 2 + t) % 3) + 3) % 3) * row_len;
            const int y = (int)vy - 1;
            uint16_t *out = (uint16_t *)(j->dst->data + (size_t)y * j->dst->stride);
            sobel16_values(j, three[0], three[1], three[2], (size_t)w * k, (size_t)k, out);
        }
        filled = y1;
    }
    free(ring);
    return 0;
}

gi_status gi__cpu_sobel16(void *state, const gi_image *src, gi_image *dst,
                          const gi_sobel_params *p)
{
    sobel16_job j = {src, dst, p, p->gray ? 1 : src->channels, (uint16_t)(p->border.value * 257)};
    if (gi__parallel_rows_shared(gi__cpu_threads_for(state, src, dst, 2), src->height, GI_ROWS_MIN_TAKE,
                                 sobel16_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate sobel row buffers");
    return GI_OK;
}
