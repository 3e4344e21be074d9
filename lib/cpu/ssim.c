/* CPU SSIM (gpuimg.h, compare): the per-row sums of S, in row bands on the
 * thread pool, each band in strips of STRIP_COLS columns.
 *
 * A strip's source rows, with the reflected halo, are filtered
 * horizontally into a ring of 2R+1 slots (the five quantities e, a, e*e,
 * a*a, e*a); each output row filters the ring vertically, computes S and
 * adds it up in segments, all in one pass over the strip's samples. Why
 * strips: the ring of a whole 4096-pixel RGB row is 5.4 MB, which each
 * output row would read back from memory; a strip's ring, 64 columns,
 * stays near L1 (128 columns ran 1.5x slower, 256 2.3x, on a Zen 4 with
 * 32 KiB of L1; 32 as fast as 64). Output rows go in pairs, which share
 * 11 of their 12 ring rows' loads.
 * Strips start on segment boundaries, and a row's segment sums are added
 * to its total strip after strip, left to right: the order gpuimg.h fixes
 * (and kernels/compare.cu follows) is kept to the bit. Each sample sees
 * its taps added in order from 0 in both passes; the loops run over the
 * samples innermost, so they vectorize without reordering any sum.
 *
 * An output row whose whole window of rows is byte-equal has S = 1 at
 * every pixel (the formula then divides two equal products), so its sum
 * is the count of its columns and nothing is filtered. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cache_lines.h"
#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

#define R GI_SSIM_RADIUS
#define TAPS (2 * R + 1)
#define RING (TAPS + 1) /* two output rows' taps */
#define STRIP_COLS (2 * GI_SSIM_SEGMENT)
enum { Q_E, Q_A, Q_EE, Q_AA, Q_EA, Q_COUNT };

typedef struct {
    const gi__compare_call *c;
    const uint8_t *row_differs;
    int x0, x1, y0;
} ssim_job;

/* One band's working memory, sized for a full strip. */
typedef struct {
    double *ring[RING][Q_COUNT]; /* horizontally filtered rows */
    long slot_row[RING];         /* the unmapped row each slot holds */
    double *e, *a;               /* one source row's strip with its halo */
    double *s[2];                /* S of two strip rows, 0 past their columns */
    void *block;
} ssim_band;

/* The strip of columns [x, x + cols) being computed. */
typedef struct {
    int x, cols;
} strip;

static int band_alloc(ssim_band *b, int ch)
{
    const size_t n = (size_t)STRIP_COLS * ch, wide = (size_t)(STRIP_COLS + 2 * R) * ch;
    /* On a cache line: a strip's rows (n doubles, 64 * ch) then start on
     * one, so that the vertical pass's loads never straddle two. */
    b->block = gi__lines_alloc(n * (RING * Q_COUNT + 2) + 2 * wide, sizeof(double));
    if (!b->block) return -1;
    double *p = b->block;
    for (int t = 0; t < RING; t++)
        for (int q = 0; q < Q_COUNT; q++, p += n) b->ring[t][q] = p;
    b->s[0] = p;
    b->s[1] = p + n;
    b->e = p + 2 * n;
    b->a = b->e + wide;
    return 0;
}

/* Sample i of a row, 8-bit or (wide) 16-bit. */
static inline __attribute__((always_inline)) double sample_of(const uint8_t *row, size_t i,
                                                              const int wide)
{
    return wide ? ((const uint16_t *)row)[i] : row[i];
}

/* The samples of source row y that strip st reads, columns x - R to
 * x + cols + R - 1 by the reflect rule, as doubles; wide (16-bit) a
 * constant where this is inlined. */
static inline __attribute__((always_inline)) void load_row_as(ssim_band *b, const ssim_job *j,
                                                              const strip *st, int y,
                                                              const int wide)
{
    const gi_image *e = j->c->expected, *a = j->c->actual;
    const int ch = e->channels, first = st->x - R, count = st->cols + 2 * R;
    const uint8_t *re = e->data + (size_t)y * e->stride, *ra = a->data + (size_t)y * a->stride;
    if (first >= 0 && first + count <= e->width) { /* no column outside: one run */
        const size_t n = (size_t)count * ch, at = (size_t)first * ch;
        for (size_t i = 0; i < n; i++)
            b->e[i] = sample_of(re, at + i, wide), b->a[i] = sample_of(ra, at + i, wide);
        return;
    }
    for (int i = 0; i < count; i++) {
        const size_t at = (size_t)gi_border_index(first + i, e->width, GI_BORDER_REFLECT) * ch;
        for (int c = 0; c < ch; c++)
            b->e[i * ch + c] = sample_of(re, at + c, wide),
            b->a[i * ch + c] = sample_of(ra, at + c, wide);
    }
}

static void load_row(ssim_band *b, const ssim_job *j, const strip *st, int y)
{
    if (j->c->expected->depth == 16)
        load_row_as(b, j, st, y, 1);
    else
        load_row_as(b, j, st, y, 0);
}

/* out[q][i] = sum_k w[k] * q(i + k * ch), taps added in order from 0. The
 * products e*e, a*a and e*a of 8- and 16-bit samples are exact in doubles, so
 * forming them here gives the bits of forming them first (forming them
 * once per sample instead costs more in loads than it saves in
 * multiplies). The sums start at tap 0's product rather than at 0 + it:
 * every product is >= +0, so 0 + p is p to the bit. */
GI_VECTOR_CLONES
static void filter_horizontal(const double *restrict w, const double *restrict e,
                              const double *restrict a, size_t n, int ch,
                              double *restrict const out[Q_COUNT])
{
    for (size_t i = 0; i < n; i++) {
        double se = w[0] * e[i], sa = w[0] * a[i];
        double see = w[0] * (e[i] * e[i]), saa = w[0] * (a[i] * a[i]), sea = w[0] * (e[i] * a[i]);
#pragma GCC unroll 16
        for (int k = 1; k < TAPS; k++) {
            const double ve = e[i + (size_t)k * ch], va = a[i + (size_t)k * ch];
            se += w[k] * ve;
            sa += w[k] * va;
            see += w[k] * (ve * ve);
            saa += w[k] * (va * va);
            sea += w[k] * (ve * va);
        }
        out[Q_E][i] = se, out[Q_A][i] = sa;
        out[Q_EE][i] = see, out[Q_AA][i] = saa, out[Q_EA][i] = sea;
    }
}

static inline double ssim_of(const double m[Q_COUNT], double c1, double c2)
{
    const double me = m[Q_E], ma = m[Q_A];
    const double ve = m[Q_EE] - me * me, va = m[Q_AA] - ma * ma;
    const double cov = m[Q_EA] - me * ma;
    const double a1 = 2 * me * ma + c1, a2 = 2 * cov + c2;
    const double b1 = me * me + ma * ma + c1, b2 = ve + va + c2;
    return (a1 * a2) / (b1 * b2);
}

/* Two output rows at once, which read 12 ring rows where one reads 11:
 * rows[k][q] is quantity q of the row k - R below the first output row.
 * Vertical filter, then S, as gpuimg.h writes them. */
GI_VECTOR_CLONES
static void ssim_samples(const double *restrict w, const double *const rows[RING][Q_COUNT],
                         size_t n, double c1, double c2, double *restrict s0,
                         double *restrict s1)
{
    for (size_t i = 0; i < n; i++) {
        double m0[Q_COUNT], m1[Q_COUNT];
#pragma GCC unroll 8
        for (int q = 0; q < Q_COUNT; q++) {
            double sum0 = w[0] * rows[0][q][i], sum1 = w[0] * rows[1][q][i];
#pragma GCC unroll 16
            for (int k = 1; k < TAPS; k++) {
                sum0 += w[k] * rows[k][q][i];
                sum1 += w[k] * rows[k + 1][q][i];
            }
            m0[q] = sum0, m1[q] = sum1;
        }
        s0[i] = ssim_of(m0, c1, c2);
        s1[i] = ssim_of(m1, c1, c2);
    }
}

/* gpuimg.h's segment, for every channel at once: lane l of channel c is
 * s[l * ch + c], so "lane i += lane i + h" for i < h adds the block of
 * h * ch samples after the first such block to it. The sum lands in
 * s[0..ch). */
GI_VECTOR_CLONES
static void add_segment(double *s, int ch)
{
    for (int h = GI_SSIM_SEGMENT / 2; h >= 1; h /= 2)
        for (int i = 0; i < h * ch; i++) s[i] += s[i + h * ch];
}

/* Row y's S in s (strip st's samples), added up in segments to its sums. */
static void add_row(const ssim_job *j, const strip *st, int y, double *s)
{
    const gi__compare_call *c = j->c;
    const int ch = c->expected->channels, height = c->expected->height;
    const size_t n = (size_t)st->cols * ch;
    const int segments = (st->cols + GI_SSIM_SEGMENT - 1) / GI_SSIM_SEGMENT;
    const size_t padded = (size_t)segments * GI_SSIM_SEGMENT * ch;
    memset(s + n, 0, (padded - n) * sizeof(double)); /* missing lanes add 0 */
    for (int g = 0; g < segments; g++) {
        double *seg = s + (size_t)g * GI_SSIM_SEGMENT * ch;
        add_segment(seg, ch);
        for (int ci = 0; ci < ch; ci++) c->row_ssim[(size_t)ci * height + y] += seg[ci];
    }
}

/* Output rows y and y + 1 of strip st; the second is added to its sums
 * only when `both` (it is computed either way: the pair shares its loads). */
static void strip_rows(ssim_band *b, const ssim_job *j, const strip *st, int y, int both)
{
    const gi__compare_call *c = j->c;
    const int ch = c->expected->channels, height = c->expected->height;
    const size_t n = (size_t)st->cols * ch;
    const double *rows[RING][Q_COUNT];
    for (int k = 0; k < RING; k++) {
        const long yy = (long)y + k - R;
        const int t = (int)(((yy % RING) + RING) % RING);
        if (b->slot_row[t] != yy) {
            load_row(b, j, st, (int)gi_border_index(yy, height, GI_BORDER_REFLECT));
            filter_horizontal(c->weights, b->e, b->a, n, ch, b->ring[t]);
            b->slot_row[t] = yy;
        }
        for (int q = 0; q < Q_COUNT; q++) rows[k][q] = b->ring[t][q];
    }
    ssim_samples(c->weights, rows, n, c->c1, c->c2, b->s[0], b->s[1]);
    add_row(j, st, y, b->s[0]);
    if (both) add_row(j, st, y + 1, b->s[1]);
}

/* Whether every row that output row y's window reads is byte-equal. */
static int window_equal(const ssim_job *j, int y)
{
    const int height = j->c->expected->height;
    for (long yy = (long)y - R; yy <= (long)y + R; yy++)
        if (j->row_differs[gi_border_index(yy, height, GI_BORDER_REFLECT)]) return 0;
    return 1;
}

static int ssim_band_rows(void *arg, int r0, int r1)
{
    const ssim_job *j = arg;
    const int ch = j->c->expected->channels, height = j->c->expected->height;
    int filtered = 0;
    for (int y = j->y0 + r0; y < j->y0 + r1; y++) {
        const int equal = window_equal(j, y);
        for (int c = 0; c < ch; c++) j->c->row_ssim[(size_t)c * height + y] = equal ? j->x1 - j->x0 : 0;
        filtered |= !equal;
    }
    if (!filtered) return 0;
    ssim_band b;
    if (band_alloc(&b, ch)) return -1;
    for (strip st = {j->x0, 0}; st.x < j->x1; st.x += STRIP_COLS) {
        st.cols = j->x1 - st.x < STRIP_COLS ? j->x1 - st.x : STRIP_COLS;
        for (int t = 0; t < RING; t++) b.slot_row[t] = -1L - 4 * (long)R; /* no row maps there */
        for (int y = j->y0 + r0; y < j->y0 + r1; y++) {
            if (window_equal(j, y)) continue;
            const int both = y + 1 < j->y0 + r1 && !window_equal(j, y + 1);
            strip_rows(&b, j, &st, y, both);
            y += both;
        }
    }
    free(b.block);
    return 0;
}

int gi__cpu_ssim(int threads, const gi__compare_call *c, const uint8_t *row_differs)
{
    ssim_job j = {c, row_differs, 0, 0, 0};
    int y1;
    gi__ssim_span(c->expected->width, &j.x0, &j.x1);
    gi__ssim_span(c->expected->height, &j.y0, &y1);
    return gi__parallel_rows(threads, y1 - j.y0, ssim_band_rows, &j);
}
