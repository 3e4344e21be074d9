/* The resize weights on the CPU's threads, and a context's recent axes
 * (resize_axes.h).
 *
 * A position's weights take a few multiplications and a division a tap,
 * and with lanczos two sines: a reduction of a 9 MP photo to a third took
 * 0.1 ms (cubic) to 0.66 ms (lanczos3) on one Zen core, 1-10% of the
 * resize itself on one thread and, left on one thread, a third of the
 * call on 16. */
#include "resize_axes.h"

#include <stdatomic.h>
#include <string.h>

#include "base/gi_error.h"
#include "base/resize_axis.h"
#include "cpu/cpu_parallel.h"

typedef struct {
    gi_resize_axis *axis[2]; /* the axes to fill, in order; NULL: none */
    gi_resize_filter filter;
    atomic_int failed; /* a fill's failure (GI_RESIZE_FILL_OK: none), and its axis */
    atomic_int failed_in;
} axes_job;

static int positions_of(const gi_resize_axis *a)
{
    return a ? a->n_out : 0;
}

/* Positions [begin, end) of the axes to fill in a row: the first's, then
 * the second's. */
static int fill_positions(void *arg, int begin, int end)
{
    axes_job *j = arg;
    int offset = 0;
    for (int i = 0; i < 2; i++) {
        gi_resize_axis *a = j->axis[i];
        const int n = positions_of(a);
        int x0 = begin - offset, x1 = end - offset;
        offset += n;
        if (x0 < 0) x0 = 0;
        if (x1 > n) x1 = n;
        if (x0 >= x1) continue;
        const int r = gi__resize_axis_fill(a, j->filter, x0, x1);
        if (r != GI_RESIZE_FILL_OK) {
            int none = GI_RESIZE_FILL_OK;
            if (atomic_compare_exchange_strong(&j->failed, &none, r)) atomic_store(&j->failed_in, i);
            return -1;
        }
    }
    return 0;
}

static size_t axis_taps(const gi_resize_axis *a)
{
    return (size_t)a->n_out * (size_t)a->taps;
}

/* The cache's axis for n_in -> n_out with filter, or NULL. */
static const gi_resize_axis *cached(gi__axis_cache *cache, int n_in, int n_out,
                                    gi_resize_filter filter)
{
    for (int i = 0; cache && i < GI_AXIS_CACHE_ENTRIES; i++) {
        const gi_resize_axis *a = &cache->entry[i].axis;
        if (a->n_out == n_out && a->n_in == n_in && cache->entry[i].filter == filter) {
            cache->entry[i].used = ++cache->clock;
            return a;
        }
    }
    return NULL;
}

/* A copy of a computed axis into the cache, in place of its oldest entry;
 * none where memory is short (the cache only saves work). */
static void keep(gi__axis_cache *cache, const gi_resize_axis *a, gi_resize_filter filter)
{
    if (!cache || axis_taps(a) > GI_AXIS_CACHE_MAX_TAPS) return;
    int oldest = 0;
    for (int i = 1; i < GI_AXIS_CACHE_ENTRIES; i++)
        if (cache->entry[i].used < cache->entry[oldest].used) oldest = i;
    gi_resize_axis copy;
    if (gi__resize_axis_copy(a, &copy) != 0) return;
    gi_resize_axis_free(&cache->entry[oldest].axis);
    cache->entry[oldest].axis = copy;
    cache->entry[oldest].filter = filter;
    cache->entry[oldest].used = ++cache->clock;
}

/* The error of an axis like a that could not be copied: as
 * gi__resize_axis_alloc's. */
static gi_status no_memory(const gi_resize_axis *a)
{
    return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate resize weights (%d x %d)", a->n_out, a->taps);
}

void gi__axis_cache_free(gi__axis_cache *cache)
{
    for (int i = 0; i < GI_AXIS_CACHE_ENTRIES; i++) gi_resize_axis_free(&cache->entry[i].axis);
    memset(cache, 0, sizeof *cache);
}

gi_status gi__resize_axes(const gi_image *src, const gi_image *dst, gi_resize_filter filter,
                          int threads, gi__axis_cache *cache, gi_resize_axis *ax, gi_resize_axis *ay)
{
    gi_resize_axis *const out[2] = {ax, ay};
    const int n_in[2] = {src->width, src->height}, n_out[2] = {dst->width, dst->height};
    axes_job j = {.filter = filter, .failed = GI_RESIZE_FILL_OK};
    int to_fill = 0;
    gi_status st = GI_OK;
    memset(ay, 0, sizeof *ay);
    /* a square's (or any equal sides') y axis is its x axis: copied from
     * it once that is made */
    const int y_is_x = n_in[1] == n_in[0] && n_out[1] == n_out[0];
    for (int i = 0; i < (y_is_x ? 1 : 2) && st == GI_OK; i++) {
        const gi_resize_axis *hit = cached(cache, n_in[i], n_out[i], filter);
        if (hit && gi__resize_axis_copy(hit, out[i]) != 0)
            st = no_memory(hit);
        else if (!hit && (st = gi__resize_axis_alloc(n_in[i], n_out[i], filter, out[i])) == GI_OK)
            j.axis[to_fill++] = out[i];
    }
    if (st != GI_OK) {
        gi_resize_axis_free(ax);
        gi_resize_axis_free(ay);
        return st;
    }
    const int positions = positions_of(j.axis[0]) + positions_of(j.axis[1]);
    size_t taps = 0;
    for (int i = 0; i < to_fill; i++) taps += axis_taps(j.axis[i]);
    if (taps < GI_TAPS_ON_THREADS) threads = 1;
    if (positions) gi__parallel_rows(threads, positions, fill_positions, &j);
    const int failed = atomic_load(&j.failed);
    if (failed == GI_RESIZE_FILL_OK) {
        for (int i = 0; i < to_fill; i++) keep(cache, j.axis[i], filter);
        if (!y_is_x || gi__resize_axis_copy(ax, ay) == 0) return GI_OK;
        st = no_memory(ax);
        gi_resize_axis_free(ax);
        return st;
    }
    st = gi__resize_axis_failed(j.axis[atomic_load(&j.failed_in)], failed);
    gi_resize_axis_free(ax);
    gi_resize_axis_free(ay);
    return st;
}
