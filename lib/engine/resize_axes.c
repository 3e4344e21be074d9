/* The resize weights on the CPU's threads (resize_axes.h).
 *
 * A position's weights take a few multiplications and a division a tap,
 * and with lanczos two sines: a reduction of a 9 MP photo to a third took
 * 0.1 ms (cubic) to 0.66 ms (lanczos3) on one Zen core, 1-10% of the
 * resize itself on one thread and, left on one thread, a third of the
 * call on 16. */
#include "resize_axes.h"

#include <stdatomic.h>

#include "base/resize_axis.h"
#include "cpu/cpu_parallel.h"

typedef struct {
    gi_resize_axis *ax, *ay;
    gi_resize_filter filter;
    atomic_int failed; /* a fill's failure (GI_RESIZE_FILL_OK: none), and its axis */
    atomic_int failed_in_y;
} axes_job;

/* Positions [begin, end) of the two axes in a row: ax's, then ay's. */
static int fill_positions(void *arg, int begin, int end)
{
    axes_job *j = arg;
    const int nx = j->ax->n_out;
    for (int axis = 0; axis < 2; axis++) {
        gi_resize_axis *a = axis ? j->ay : j->ax;
        const int offset = axis ? nx : 0;
        int x0 = begin - offset, x1 = end - offset;
        if (x0 < 0) x0 = 0;
        if (x1 > a->n_out) x1 = a->n_out;
        if (x0 >= x1) continue;
        const int r = gi__resize_axis_fill(a, j->filter, x0, x1);
        if (r != GI_RESIZE_FILL_OK) {
            int none = GI_RESIZE_FILL_OK;
            if (atomic_compare_exchange_strong(&j->failed, &none, r))
                atomic_store(&j->failed_in_y, axis);
            return -1;
        }
    }
    return 0;
}

gi_status gi__resize_axes(const gi_image *src, const gi_image *dst, gi_resize_filter filter,
                          int threads, gi_resize_axis *ax, gi_resize_axis *ay)
{
    gi_status st = gi__resize_axis_alloc(src->width, dst->width, filter, ax);
    if (st == GI_OK) st = gi__resize_axis_alloc(src->height, dst->height, filter, ay);
    if (st != GI_OK) {
        gi_resize_axis_free(ax);
        return st;
    }
    axes_job j = {.ax = ax, .ay = ay, .filter = filter, .failed = GI_RESIZE_FILL_OK};
    const int positions = ax->n_out + ay->n_out;
    const long taps = (long)ax->n_out * ax->taps + (long)ay->n_out * ay->taps;
    if (taps < GI_TAPS_ON_THREADS) threads = 1;
    gi__parallel_rows(threads, positions, fill_positions, &j);
    const int failed = atomic_load(&j.failed);
    if (failed == GI_RESIZE_FILL_OK) return GI_OK;
    st = gi__resize_axis_failed(atomic_load(&j.failed_in_y) ? ay : ax, failed);
    gi_resize_axis_free(ax);
    gi_resize_axis_free(ay);
    return st;
}
