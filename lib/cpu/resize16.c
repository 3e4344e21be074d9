/* CPU resampling of 16-bit images with the integer weights of gpuimg.h
 * (resize, 16 bits); resize.c is the 8-bit twin, whose ring of filtered
 * rows this keeps: each band of output rows filters each source row it
 * needs once, into int64 sums (premultiplied 16-bit samples times the
 * weights pass 2^31). */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const gi_resize_axis *ax, *ay;
} resize16_job;

/* One band's ring of filtered rows (h), the source row's samples u
 * (premultiplied where the image has alpha) and the vertical sums. */
typedef struct {
    int64_t *rows;
    int64_t *u;
    int64_t *sums;
    int next; /* the next source row to filter */
} band16;

static int has_alpha(int ch)
{
    return ch == 2 || ch == 4;
}

/* u of source row y (gpuimg.h: c * a with alpha, else the sample). */
static void row_samples16(const gi_image *src, int y, int64_t *u)
{
    const uint16_t *row = (const uint16_t *)(src->data + (size_t)y * src->stride);
    const int ch = src->channels, n = src->width * ch;
    if (!has_alpha(ch)) {
        for (int i = 0; i < n; i++) u[i] = row[i];
        return;
    }
    for (int i = 0; i < n; i += ch) {
        const int64_t a = row[i + ch - 1];
        for (int c = 0; c < ch - 1; c++) u[i + c] = row[i + c] * a;
        u[i + ch - 1] = a;
    }
}

/* h of source row y into out (dst->width * ch). */
static void filter_row16(const resize16_job *j, band16 *b, int y, int64_t *out)
{
    const gi_resize_axis *ax = j->ax;
    const int ch = j->src->channels;
    row_samples16(j->src, y, b->u);
    for (int x = 0; x < ax->n_out; x++) {
        const int32_t *q = ax->q + (size_t)x * ax->taps;
        const int64_t *p = b->u + (size_t)ax->first[x] * ch;
        int64_t acc[4] = {0, 0, 0, 0};
        for (int k = 0; k < ax->count[x]; k++)
            for (int c = 0; c < ch; c++) acc[c] += q[k] * p[k * ch + c];
        for (int c = 0; c < ch; c++)
            out[x * ch + c] = has_alpha(ch) ? acc[c] : (acc[c] + 32) >> 6;
    }
}

static uint16_t clamp16(int64_t v)
{
    return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
}

/* The output row from the vertical sums (gpuimg.h: plain and colour). */
static void finish_row16(const int64_t *v, uint16_t *out, int width, int ch)
{
    const int n = width * ch;
    if (!has_alpha(ch)) {
        for (int i = 0; i < n; i++) out[i] = clamp16((v[i] + (1 << 21)) >> 22);
        return;
    }
    for (int i = 0; i < n; i += ch) {
        const int64_t va = v[i + ch - 1];
        for (int c = 0; c < ch - 1; c++)
            out[i + c] = va <= 0 || v[i + c] <= 0 ? 0 : clamp16((v[i + c] + va / 2) / va);
        out[i + ch - 1] = clamp16((va + (1 << 27)) >> 28);
    }
}

static void resize_row16(const resize16_job *j, band16 *b, int y)
{
    const gi_resize_axis *ay = j->ay;
    const size_t n = (size_t)j->dst->width * j->src->channels;
    const int32_t *q = ay->q + (size_t)y * ay->taps;
    const int first = ay->first[y], count = ay->count[y];
    /* rows a window starts past are never needed by this band */
    if (b->next < first) b->next = first;
    for (int k = 0; k < count; k++) {
        const int sy = first + k;
        if (sy >= b->next) {
            filter_row16(j, b, sy, b->rows + (size_t)(sy % ay->taps) * n);
            b->next = sy + 1;
        }
    }
    memset(b->sums, 0, sizeof(int64_t) * n);
    for (int k = 0; k < count; k++) {
        const int64_t *h = b->rows + (size_t)((first + k) % ay->taps) * n;
        for (size_t i = 0; i < n; i++) b->sums[i] += q[k] * h[i];
    }
    finish_row16(b->sums, (uint16_t *)(j->dst->data + (size_t)y * j->dst->stride), j->dst->width,
                 j->src->channels);
}

/* The output rows the cursor gives through one ring, filled again from
 * each run's first window. */
static int resize16_band(void *arg, gi__row_cursor *rows)
{
    const resize16_job *j = arg;
    const size_t n = (size_t)j->dst->width * j->src->channels;
    band16 b = {malloc(sizeof(int64_t) * n * (size_t)j->ay->taps),
                malloc(sizeof(int64_t) * (size_t)j->src->width * j->src->channels),
                malloc(sizeof(int64_t) * n), 0};
    int ok = b.rows && b.u && b.sums;
    for (int y, end, fresh; ok && (y = gi__rows_next(rows, 1, &end, &fresh)) >= 0;) {
        if (fresh) b.next = 0; /* rows taken from another band lie anywhere */
        resize_row16(j, &b, y);
    }
    free(b.rows);
    free(b.u);
    free(b.sums);
    return ok ? 0 : -1;
}

gi_status gi__cpu_resize16(void *state, const gi_image *src, gi_image *dst,
                           const gi_resize_axis *ax, const gi_resize_axis *ay)
{
    resize16_job j = {src, dst, ax, ay};
    if (gi__parallel_rows_shared(gi__cpu_threads_for(state, src, dst, 2), dst->height, gi__resize_rows_taken(ay),
                                 resize16_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate resize row buffers");
    return GI_OK;
}
