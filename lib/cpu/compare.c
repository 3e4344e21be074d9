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

gi_status gi__cpu_compare(void *state, const gi__compare_call *c, gi__compare_sums *sums)
{
    const int threads = gi__cpu_threads(state), height = c->expected->height;
    stats_job st = {c, c->tolerance, sums, malloc((size_t)height), PTHREAD_MUTEX_INITIALIZER};
    if (!st.row_differs) return gi__fail(GI_ERR_NO_MEMORY, "compare: cannot allocate row flags");
    memset(sums, 0, sizeof *sums);
    gi__parallel_rows(threads, height, stats_band, &st);
    pthread_mutex_destroy(&st.lock);
    const int failed = c->weights ? gi__cpu_ssim(threads, c, st.row_differs) : 0;
    free(st.row_differs);
    return failed ? gi__fail(GI_ERR_NO_MEMORY, "compare: cannot allocate SSIM rows") : GI_OK;
}
