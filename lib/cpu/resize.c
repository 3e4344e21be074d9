/* CPU resampling with the integer weights of gpuimg.h (resize).
 *
 * Each band of output rows keeps a ring of horizontally filtered source
 * rows, as many as a vertical window holds (axis_y.taps): the windows of
 * successive output rows start at non-decreasing source rows, so each
 * source row is filtered once per band, and memory stays at a few rows
 * however large the reduction or the enlargement. */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const gi_resize_axis *ax, *ay;
} resize_job;

/* One band's ring of filtered rows (h of gpuimg.h, int32), and the
 * premultiplied source row of an image with alpha. */
typedef struct {
    int32_t *rows;
    int32_t *premultiplied;
    int64_t *sums;
    int next; /* the next source row to filter */
} band_state;

/* h of one source row into out (dst->width * ch), ch a constant where
 * this is inlined; u is the row's samples, premultiplied where needed. */
static inline __attribute__((always_inline)) void filter_row_ch(const resize_job *j,
                                                                const int32_t *u, int32_t *out,
                                                                const int ch)
{
    const gi_resize_axis *ax = j->ax;
    for (int x = 0; x < ax->n_out; x++) {
        const int32_t *q = ax->q + (size_t)x * ax->taps;
        const int32_t *p = u + (size_t)ax->first[x] * ch;
        int32_t acc[4] = {0, 0, 0, 0};
        for (int k = 0; k < ax->count[x]; k++)
            for (int c = 0; c < ch; c++) acc[c] += q[k] * p[k * ch + c];
        if (ch == 2 || ch == 4) /* with alpha: the exact sums (gpuimg.h) */
            for (int c = 0; c < ch; c++) out[x * ch + c] = acc[c];
        else
            for (int c = 0; c < ch; c++) out[x * ch + c] = (acc[c] + 32) >> 6;
    }
}

/* The samples of source row y as int32, colour times alpha where the
 * image has alpha (gpuimg.h: u = c * a). */
static void row_samples(const gi_image *src, int y, int32_t *u)
{
    const uint8_t *row = src->data + (size_t)y * src->stride;
    const int ch = src->channels, n = src->width * ch;
    if (ch == 2 || ch == 4) {
        for (int i = 0; i < n; i += ch) {
            const int32_t a = row[i + ch - 1];
            for (int c = 0; c < ch - 1; c++) u[i + c] = row[i + c] * a;
            u[i + ch - 1] = a;
        }
    } else {
        for (int i = 0; i < n; i++) u[i] = row[i];
    }
}

static void filter_row(const resize_job *j, band_state *b, int y, int32_t *out)
{
    row_samples(j->src, y, b->premultiplied);
    switch (j->src->channels) {
    case 1: filter_row_ch(j, b->premultiplied, out, 1); break;
    case 2: filter_row_ch(j, b->premultiplied, out, 2); break;
    case 3: filter_row_ch(j, b->premultiplied, out, 3); break;
    default: filter_row_ch(j, b->premultiplied, out, 4); break;
    }
}

static uint8_t clamp_byte(int64_t v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* The output row from the vertical sums (gpuimg.h: plain and colour). */
static void finish_row(const int64_t *v, uint8_t *out, int width, int ch)
{
    const int n = width * ch;
    if (ch == 1 || ch == 3) {
        for (int i = 0; i < n; i++) out[i] = clamp_byte((v[i] + (1 << 21)) >> 22);
        return;
    }
    for (int i = 0; i < n; i += ch) {
        const int64_t va = v[i + ch - 1];
        for (int c = 0; c < ch - 1; c++)
            out[i + c] = va <= 0 || v[i + c] <= 0 ? 0 : clamp_byte((v[i + c] + va / 2) / va);
        out[i + ch - 1] = clamp_byte((va + (1 << 27)) >> 28);
    }
}

/* The ring's row for source row y, filtered now if it is new. */
static const int32_t *ring_row(const resize_job *j, band_state *b, int y)
{
    const size_t n = (size_t)j->dst->width * j->src->channels;
    int32_t *slot = b->rows + (size_t)(y % j->ay->taps) * n;
    if (y >= b->next) {
        filter_row(j, b, y, slot);
        b->next = y + 1;
    }
    return slot;
}

/* Samples of a row summed at a time in the vertical pass: their int64
 * sums stay in L1 while every tap's row adds to them (summing whole rows
 * of a 2x enlargement of a photo, 21840 samples, went through L2 for each
 * of the taps). */
#define SPAN 512

static void resize_row(const resize_job *j, band_state *b, int y)
{
    const gi_resize_axis *ay = j->ay;
    const size_t n = (size_t)j->dst->width * j->src->channels;
    const int32_t *q = ay->q + (size_t)y * ay->taps;
    const int first = ay->first[y], count = ay->count[y];
    /* rows a window starts past are never needed by this band */
    if (b->next < first) b->next = first;
    for (int k = 0; k < count; k++) ring_row(j, b, first + k);
    for (size_t i0 = 0; i0 < n; i0 += SPAN) {
        const size_t i1 = i0 + SPAN < n ? i0 + SPAN : n;
        int64_t *sums = b->sums;
        for (size_t i = i0; i < i1; i++) sums[i] = 0;
        for (int k = 0; k < count; k++) {
            const int32_t *h = b->rows + (size_t)((first + k) % ay->taps) * n;
            const int64_t w = q[k];
            for (size_t i = i0; i < i1; i++) sums[i] += w * h[i];
        }
    }
    finish_row(b->sums, j->dst->data + (size_t)y * j->dst->stride, j->dst->width,
               j->src->channels);
}

static int resize_band(void *arg, int y0, int y1)
{
    const resize_job *j = arg;
    const size_t n = (size_t)j->dst->width * j->src->channels;
    band_state b = {malloc(sizeof(int32_t) * n * (size_t)j->ay->taps),
                    malloc(sizeof(int32_t) * (size_t)j->src->width * j->src->channels),
                    malloc(sizeof(int64_t) * n), 0};
    int ok = b.rows && b.premultiplied && b.sums;
    for (int y = y0; y < y1 && ok; y++) resize_row(j, &b, y);
    free(b.rows);
    free(b.premultiplied);
    free(b.sums);
    return ok ? 0 : -1;
}

gi_status gi__cpu_resize(void *state, const gi_image *src, gi_image *dst, const gi_resize_axis *ax,
                         const gi_resize_axis *ay)
{
    resize_job j = {src, dst, ax, ay};
    if (gi__parallel_rows(gi__cpu_threads(state), dst->height, resize_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate resize row buffers");
    return GI_OK;
}
