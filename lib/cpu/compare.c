/* CPU comparison (gpuimg.h, compare) in two passes over row bands.
 *
 * Pass 1 counts the integer measures per band (added under a lock: integer
 * sums do not care about order) and marks the rows where the images are
 * not byte-equal. Pass 2, SSIM (ssim.c), filters only around those rows. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

typedef struct {
    const gi__compare_call *c;
    int tolerance;
    gi__compare_sums *sums;
    uint8_t *row_differs; /* height flags: some sample differs at all */
    pthread_mutex_t lock;
} stats_job;

/* d = |e - a| for a row's n samples; returns the sum of d and adds the
 * sum of d^2 to *sum_sq. One pass over bytes, which vectorizes. */
GI_VECTOR_CLONES
static uint64_t abs_diff_row(const uint8_t *e, const uint8_t *a, size_t n, uint8_t *restrict d,
                             uint64_t *sum_sq)
{
    uint64_t sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t v = (uint8_t)(e[i] > a[i] ? e[i] - a[i] : a[i] - e[i]);
        d[i] = v;
        sum += v;
        sq += (uint32_t)v * v;
    }
    *sum_sq += sq;
    return sum;
}

/* The maxima per channel of a row's d, and its pixels with a channel over
 * the tolerance, with ch a constant. */
static inline __attribute__((always_inline)) uint64_t pixel_stats(const uint8_t *d, int width,
                                                                  int ch, int tolerance,
                                                                  int max_abs[4])
{
    uint64_t over = 0;
    for (int x = 0; x < width; x++) {
        int any = 0;
        for (int c = 0; c < ch; c++) {
            const int v = d[x * ch + c];
            max_abs[c] = v > max_abs[c] ? v : max_abs[c];
            any |= v > tolerance;
        }
        over += (uint64_t)any;
    }
    return over;
}

static uint64_t pixel_stats_ch(const uint8_t *d, int width, int ch, int tolerance, int max_abs[4])
{
    switch (ch) {
    case 1: return pixel_stats(d, width, 1, tolerance, max_abs);
    case 2: return pixel_stats(d, width, 2, tolerance, max_abs);
    case 3: return pixel_stats(d, width, 3, tolerance, max_abs);
    default: return pixel_stats(d, width, 4, tolerance, max_abs);
    }
}

/* The measures of a 16-bit row (d up to 65535, d^2 up to 2^32): one
 * pass over the samples, for rows that differ. */
static void row_stats16(const uint16_t *e, const uint16_t *a, int width, int ch, int tolerance,
                        gi__compare_sums *s)
{
    for (int x = 0; x < width; x++) {
        int any = 0;
        for (int c = 0; c < ch; c++) {
            const size_t i = (size_t)x * ch + c;
            const int v = e[i] > a[i] ? e[i] - a[i] : a[i] - e[i];
            s->sum_abs += (uint64_t)v;
            s->sum_sq += (uint64_t)v * (uint64_t)v;
            s->max_abs[c] = v > s->max_abs[c] ? v : s->max_abs[c];
            any |= v > tolerance;
        }
        s->different_pixels += (uint64_t)any;
    }
}

static int stats_band(void *arg, int y0, int y1)
{
    stats_job *j = arg;
    const gi_image *e = j->c->expected, *a = j->c->actual;
    const int ch = e->channels;
    const size_t n = (size_t)e->width * ch, row_bytes = n * (size_t)gi_image_sample_bytes(e);
    gi__compare_sums s = {0};
    uint8_t *d = NULL;
    for (int y = y0; y < y1; y++) {
        const uint8_t *re = e->data + (size_t)y * e->stride, *ra = a->data + (size_t)y * a->stride;
        /* Equal rows, the usual case in golden tests, add nothing. */
        j->row_differs[y] = memcmp(re, ra, row_bytes) != 0;
        if (!j->row_differs[y]) continue;
        if (e->depth == 16) {
            row_stats16((const uint16_t *)re, (const uint16_t *)ra, e->width, ch, j->tolerance, &s);
            continue;
        }
        if (!d && !(d = malloc(n))) return -1;
        s.sum_abs += abs_diff_row(re, ra, n, d, &s.sum_sq);
        s.different_pixels += pixel_stats_ch(d, e->width, ch, j->tolerance, s.max_abs);
    }
    free(d);
    pthread_mutex_lock(&j->lock);
    j->sums->different_pixels += s.different_pixels;
    j->sums->sum_abs += s.sum_abs;
    j->sums->sum_sq += s.sum_sq;
    for (int c = 0; c < ch; c++)
        if (s.max_abs[c] > j->sums->max_abs[c]) j->sums->max_abs[c] = s.max_abs[c];
    pthread_mutex_unlock(&j->lock);
    return 0;
}

gi_status gi__cpu_compare(void *state, const gi__compare_call *c, gi__compare_sums *sums)
{
    const int threads = gi__cpu_threads_for(state, c->expected, c->actual, c->weights ? 4 : 1),
              height = c->expected->height;
    stats_job st = {c, c->tolerance, sums, malloc((size_t)height), PTHREAD_MUTEX_INITIALIZER};
    if (!st.row_differs) return gi__fail(GI_ERR_NO_MEMORY, "compare: cannot allocate row flags");
    memset(sums, 0, sizeof *sums);
    int failed = gi__parallel_rows(threads, height, stats_band, &st);
    pthread_mutex_destroy(&st.lock);
    if (!failed && c->weights) failed = gi__cpu_ssim(threads, c, st.row_differs);
    free(st.row_differs);
    return failed ? gi__fail(GI_ERR_NO_MEMORY, "compare: out of memory for the rows") : GI_OK;
}
