/* CPU comparison (gpuimg.h, compare) in two passes over row bands.
 *
 * Pass 1 counts the integer measures per band (added under a lock: integer
 * sums do not care about order) and marks the rows where the images are
 * not byte-equal. Pass 2 computes SSIM row by row: the rows filtered
 * horizontally sit in a ring of 2R+1 slots, each output row filters them
 * vertically and adds S in the fixed order gpuimg.h gives. An output row
 * whose whole window of rows is equal has S = 1 at every pixel (the
 * formula then divides two equal products), so its sum is the count of
 * its columns and nothing is filtered. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

#define TAPS (2 * GI_SSIM_RADIUS + 1)
/* The filtered quantities: e, a, e*e, a*a, e*a. */
enum { Q_E, Q_A, Q_EE, Q_AA, Q_EA, Q_COUNT };

typedef struct {
    const gi__compare_call *c;
    int tolerance;
    gi__compare_sums *sums;
    uint8_t *row_differs; /* height flags: some sample differs at all */
    pthread_mutex_t lock;
} stats_job;

static int stats_band(void *arg, int y0, int y1)
{
    stats_job *j = arg;
    const gi_image *e = j->c->expected, *a = j->c->actual;
    const int ch = e->channels;
    gi__compare_sums s = {0};
    for (int y = y0; y < y1; y++) {
        const uint8_t *re = e->data + (size_t)y * e->stride, *ra = a->data + (size_t)y * a->stride;
        uint64_t row_abs = 0;
        /* Equal rows, the usual case in golden tests, add nothing. */
        const int equal = memcmp(re, ra, (size_t)e->width * ch) == 0;
        for (int x = 0; x < e->width && !equal; x++) {
            int over = 0;
            for (int c = 0; c < ch; c++) {
                const int d = abs(re[x * ch + c] - ra[x * ch + c]);
                row_abs += (unsigned)d;
                s.sum_sq += (uint64_t)(d * d);
                if (d > s.max_abs[c]) s.max_abs[c] = d;
                over |= d > j->tolerance;
            }
            s.different_pixels += (uint64_t)over;
        }
        s.sum_abs += row_abs;
        j->row_differs[y] = row_abs != 0;
    }
    pthread_mutex_lock(&j->lock);
    j->sums->different_pixels += s.different_pixels;
    j->sums->sum_abs += s.sum_abs;
    j->sums->sum_sq += s.sum_sq;
    for (int c = 0; c < ch; c++)
        if (s.max_abs[c] > j->sums->max_abs[c]) j->sums->max_abs[c] = s.max_abs[c];
    pthread_mutex_unlock(&j->lock);
    return 0;
}

typedef struct {
    const gi__compare_call *c;
    const uint8_t *row_differs;
    int x0, x1, y0;
} ssim_job;

/* One band's working memory: the ring of horizontally filtered rows (which
 * unmapped row each slot holds, or one no window reads), one source row
 * widened by the reflected halo (the five quantities as doubles), the
 * vertical sums and S of a row, and the column every widened position
 * reads. The loops run over the samples innermost, so they vectorize; each
 * sample still sees its taps added in order, from 0, as gpuimg.h says. */
typedef struct {
    size_t n;    /* samples of a counted row: (x1 - x0) * channels */
    size_t wide; /* samples of a widened row: n + 2R * channels */
    double *ring[TAPS][Q_COUNT];
    long slot_row[TAPS];
    double *src[Q_COUNT];
    double *m[Q_COUNT];
    double *s;
    int *col; /* col[i]: the column that x0 + i - R reads */
    void *block;
} ssim_band;

static int band_alloc(ssim_band *b, const ssim_job *j)
{
    const int ch = j->c->expected->channels;
    const size_t cols = (size_t)(j->x1 - j->x0) + 2 * GI_SSIM_RADIUS;
    b->n = (size_t)(j->x1 - j->x0) * ch;
    b->wide = cols * ch;
    const size_t doubles = b->n * (TAPS * Q_COUNT + Q_COUNT + 1) + b->wide * Q_COUNT;
    b->block = malloc(doubles * sizeof(double) + cols * sizeof(int));
    if (!b->block) return -1;
    double *p = b->block;
    for (int t = 0; t < TAPS; t++) {
        b->slot_row[t] = -1L - 4 * (long)GI_SSIM_RADIUS; /* no row maps there */
        for (int q = 0; q < Q_COUNT; q++, p += b->n) b->ring[t][q] = p;
    }
    for (int q = 0; q < Q_COUNT; q++, p += b->n) b->m[q] = p;
    for (int q = 0; q < Q_COUNT; q++, p += b->wide) b->src[q] = p;
    b->s = p;
    b->col = (int *)(p + b->n);
    for (size_t i = 0; i < cols; i++)
        b->col[i] = (int)gi_border_index(j->x0 + (long)i - GI_SSIM_RADIUS, j->c->expected->width,
                                         GI_BORDER_REFLECT);
    return 0;
}

/* out[i] = sum_k w[k] * in_k[i], the taps added in order from 0, where
 * in_k = in[k], or in[0] + k * step when step is not 0. The taps are
 * unrolled so the sum stays in a register while the samples vectorize. */
static void weighted_sum(const double *restrict w, const double *const in[TAPS], ptrdiff_t step, size_t n,
                         double *restrict out)
{
    const double *src[TAPS];
    for (int k = 0; k < TAPS; k++) src[k] = step ? in[0] + step * k : in[k];
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
#pragma GCC unroll 16
        for (int k = 0; k < TAPS; k++) sum += w[k] * src[k][i];
        out[i] = sum;
    }
}

/* Slot t of the ring gets row yy (unmapped) filtered horizontally. */
static void filter_row(ssim_band *b, const ssim_job *j, long yy, int t)
{
    const gi_image *e = j->c->expected, *a = j->c->actual;
    const int ch = e->channels;
    const long y = gi_border_index(yy, e->height, GI_BORDER_REFLECT);
    const uint8_t *re = e->data + (size_t)y * e->stride, *ra = a->data + (size_t)y * a->stride;
    for (size_t x = 0; x < b->wide / ch; x++)
        for (int c = 0; c < ch; c++) {
            const size_t at = (size_t)b->col[x] * ch + c, i = x * ch + c;
            const double ve = re[at], va = ra[at];
            b->src[Q_E][i] = ve, b->src[Q_A][i] = va;
            b->src[Q_EE][i] = ve * ve, b->src[Q_AA][i] = va * va, b->src[Q_EA][i] = ve * va;
        }
    for (int q = 0; q < Q_COUNT; q++) {
        const double *in[TAPS] = {b->src[q]};
        weighted_sum(j->c->weights, in, ch, b->n, b->ring[t][q]);
    }
    b->slot_row[t] = yy;
}

/* gpuimg.h's segment: 32 lanes added pairwise, lane i += lane i + h. */
static double segment_sum(double lanes[GI_SSIM_SEGMENT])
{
    for (int h = GI_SSIM_SEGMENT / 2; h >= 1; h /= 2)
        for (int i = 0; i < h; i++) lanes[i] += lanes[i + h];
    return lanes[0];
}

static void ssim_row(ssim_band *b, const ssim_job *j, int y)
{
    const gi__compare_call *c = j->c;
    const int ch = c->expected->channels, height = c->expected->height;
    const double *rows[Q_COUNT][TAPS];
    for (int k = 0; k < TAPS; k++) {
        const long yy = (long)y + k - GI_SSIM_RADIUS;
        const int t = (int)(((yy % TAPS) + TAPS) % TAPS);
        if (b->slot_row[t] != yy) filter_row(b, j, yy, t);
        for (int q = 0; q < Q_COUNT; q++) rows[q][k] = b->ring[t][q];
    }
    for (int q = 0; q < Q_COUNT; q++) weighted_sum(c->weights, rows[q], 0, b->n, b->m[q]);
    for (size_t i = 0; i < b->n; i++) {
        const double me = b->m[Q_E][i], ma = b->m[Q_A][i];
        const double ve = b->m[Q_EE][i] - me * me, va = b->m[Q_AA][i] - ma * ma;
        const double cov = b->m[Q_EA][i] - me * ma;
        const double a1 = 2 * me * ma + c->c1, a2 = 2 * cov + c->c2;
        const double b1 = me * me + ma * ma + c->c1, b2 = ve + va + c->c2;
        b->s[i] = (a1 * a2) / (b1 * b2);
    }
    const int width = j->x1 - j->x0;
    for (int ci = 0; ci < ch; ci++) {
        double row = 0;
        for (int x = 0; x < width; x += GI_SSIM_SEGMENT) {
            double lanes[GI_SSIM_SEGMENT];
            for (int l = 0; l < GI_SSIM_SEGMENT; l++)
                lanes[l] = x + l < width ? b->s[(size_t)(x + l) * ch + ci] : 0.0;
            row += segment_sum(lanes);
        }
        c->row_ssim[(size_t)ci * height + y] = row;
    }
}

/* Whether every row that output row y's window reads is byte-equal. */
static int window_equal(const ssim_job *j, int y)
{
    const int height = j->c->expected->height;
    for (long yy = (long)y - GI_SSIM_RADIUS; yy <= (long)y + GI_SSIM_RADIUS; yy++)
        if (j->row_differs[gi_border_index(yy, height, GI_BORDER_REFLECT)]) return 0;
    return 1;
}

static int ssim_band_rows(void *arg, int r0, int r1)
{
    const ssim_job *j = arg;
    const int ch = j->c->expected->channels, height = j->c->expected->height;
    ssim_band b = {0};
    for (int y = j->y0 + r0; y < j->y0 + r1; y++) {
        if (window_equal(j, y)) {
            for (int c = 0; c < ch; c++) j->c->row_ssim[(size_t)c * height + y] = j->x1 - j->x0;
            continue;
        }
        if (!b.block && band_alloc(&b, j)) return -1;
        ssim_row(&b, j, y);
    }
    free(b.block);
    return 0;
}

gi_status gi__cpu_compare(void *state, const gi__compare_call *c, gi__compare_sums *sums)
{
    const int threads = gi__cpu_threads(state), height = c->expected->height;
    stats_job st = {c, c->tolerance, sums, malloc((size_t)height), PTHREAD_MUTEX_INITIALIZER};
    if (!st.row_differs) return gi__fail(GI_ERR_NO_MEMORY, "compare: cannot allocate row flags");
    memset(sums, 0, sizeof *sums);
    gi__parallel_rows(threads, height, stats_band, &st);
    pthread_mutex_destroy(&st.lock);
    int failed = 0;
    if (c->weights) {
        ssim_job sj = {c, st.row_differs, 0, 0, 0};
        int y1;
        gi__ssim_span(c->expected->width, &sj.x0, &sj.x1);
        gi__ssim_span(height, &sj.y0, &y1);
        failed = gi__parallel_rows(threads, y1 - sj.y0, ssim_band_rows, &sj);
    }
    free(st.row_differs);
    return failed ? gi__fail(GI_ERR_NO_MEMORY, "compare: cannot allocate SSIM rows") : GI_OK;
}
