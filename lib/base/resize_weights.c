/* Resampling's sizes and integer weights (gpuimg.h, resize).
 *
 * The weights are computed once on the host and shared by every backend,
 * which is what makes CPU and GPU results identical. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gi_error.h"
#include "resize_axis.h"

static const char *const filter_names[] = {"lanczos3", "lanczos2", "cubic",
                                           "linear",   "area",     "nearest"};

void gi_resize_params_default(gi_resize_params *p)
{
    memset(p, 0, sizeof *p);
    p->fit = GI_FIT_INSIDE;
    p->filter = GI_RESIZE_LANCZOS3;
}

int gi_resize_filter_parse(const char *name, gi_resize_filter *filter)
{
    for (int f = 0; f <= GI_RESIZE_NEAREST; f++)
        if (strcmp(name, filter_names[f]) == 0) return *filter = (gi_resize_filter)f, 0;
    return -1;
}

/* round(v), halves up, within 1..GI_RESIZE_MAX_SIDE (NaN gives 1). */
static int side(double v)
{
    v = floor(v + 0.5);
    return !(v >= 1) ? 1 : v > GI_RESIZE_MAX_SIDE ? GI_RESIZE_MAX_SIDE : (int)v;
}

void gi_resize_size(const gi_image *src, const gi_resize_params *p, int *width, int *height)
{
    const double w0 = src->width, h0 = src->height;
    *width = *height = 0;
    if (p->scale > 0) {
        *width = side(w0 * p->scale);
        *height = side(h0 * p->scale);
    } else if (p->width > 0 && p->height > 0) {
        const double sx = p->width / w0, sy = p->height / h0;
        const int by_width = p->fit == GI_FIT_COVER ? sx >= sy : sx <= sy;
        *width = p->fit == GI_FIT_FILL || by_width ? p->width : side(w0 * sy);
        *height = p->fit == GI_FIT_FILL || !by_width ? p->height : side(h0 * sx);
    } else if (p->width > 0) {
        *width = p->width;
        *height = side(h0 * p->width / w0);
    } else if (p->height > 0) {
        *width = side(w0 * p->height / h0);
        *height = p->height;
    }
}

static double sinc(double t)
{
    if (t == 0) return 1;
    t *= M_PI;
    return sin(t) / t;
}

/* The filter at t (in input samples over f) and how far it reaches. */
static double kernel(gi_resize_filter filter, double t)
{
    const double a = fabs(t);
    switch (filter) {
    case GI_RESIZE_LANCZOS3: return a < 3 ? sinc(t) * sinc(t / 3) : 0;
    case GI_RESIZE_LANCZOS2: return a < 2 ? sinc(t) * sinc(t / 2) : 0;
    case GI_RESIZE_CUBIC: /* Keys, a = -0.5 */
        if (a < 1) return (1.5 * a - 2.5) * a * a + 1;
        if (a < 2) return ((-0.5 * a + 2.5) * a - 4) * a + 2;
        return 0;
    default: return a < 1 ? 1 - a : 0; /* linear */
    }
}

static double support(gi_resize_filter filter)
{
    static const double s[] = {3, 2, 2, 1, 0.5, 0.5};
    return s[filter];
}

/* The real weights of output x into w[0..*count) from input *first. */
static void exact_weights(int n_in, gi_resize_filter filter, double scale_in, int x, double *w,
                          int *first, int *count)
{
    const double c = (x + 0.5) * scale_in, f = scale_in > 1 ? scale_in : 1;
    if (filter == GI_RESIZE_NEAREST) {
        const int i = (int)floor(c);
        *first = i < n_in ? i : n_in - 1;
        *count = 1;
        w[0] = 1;
        return;
    }
    const double reach = support(filter) * f;
    int lo = (int)floor(c - reach - 0.5), hi = (int)ceil(c + reach - 0.5);
    if (lo < 0) lo = 0;
    if (hi > n_in - 1) hi = n_in - 1;
    *first = lo;
    *count = 0;
    for (int i = lo; i <= hi; i++) {
        const double d = i + 0.5 - c;
        double v;
        if (filter == GI_RESIZE_AREA) {
            const double a = fmax(i, c - f / 2), b = fmin(i + 1.0, c + f / 2);
            v = b > a ? b - a : 0;
        } else {
            v = fabs(d) < reach ? kernel(filter, d / f) : 0;
        }
        w[(*count)++] = v;
    }
}

/* The integer weights of gpuimg.h from real ones: rounded, the remainder
 * to the largest. Returns -1 when the real weights sum to nothing, or
 * when sum |q| passes 32767, past which 65025 * sum |q| (a premultiplied
 * row's sum) would not fit the int32 the backends add it in (no filter
 * comes near: lanczos3's is below 1.3 * 2^14). */
static int quantize(const double *w, int count, int32_t *q)
{
    double sum = 0;
    int largest = 0;
    for (int k = 0; k < count; k++) {
        sum += w[k];
        if (w[k] > w[largest]) largest = k;
    }
    if (!(sum > 1e-12)) return -1;
    long total = 0;
    for (int k = 0; k < count; k++) total += q[k] = (int32_t)lround(GI_RESIZE_WEIGHT_SUM * w[k] / sum);
    q[largest] += (int32_t)(GI_RESIZE_WEIGHT_SUM - total);
    long magnitude = 0;
    for (int k = 0; k < count; k++) magnitude += labs((long)q[k]);
    return magnitude <= 32767 ? 0 : -1;
}

void gi_resize_axis_free(gi_resize_axis *axis)
{
    free(axis->first);
    free(axis->count);
    free(axis->q);
    memset(axis, 0, sizeof *axis);
}

/* The bytes of an axis's per-position arrays (first, count) and of q. */
static size_t position_bytes(const gi_resize_axis *a)
{
    return sizeof(int32_t) * (size_t)a->n_out;
}

static size_t weight_bytes(const gi_resize_axis *a)
{
    return sizeof(int32_t) * (size_t)a->n_out * (size_t)a->taps;
}

int gi__resize_axis_copy(const gi_resize_axis *from, gi_resize_axis *to)
{
    *to = (gi_resize_axis){from->n_in, from->n_out, from->taps, malloc(position_bytes(from)),
                           malloc(position_bytes(from)), malloc(weight_bytes(from))};
    if (!to->first || !to->count || !to->q) {
        gi_resize_axis_free(to);
        return -1;
    }
    memcpy(to->first, from->first, position_bytes(from));
    memcpy(to->count, from->count, position_bytes(from));
    memcpy(to->q, from->q, weight_bytes(from));
    return 0;
}

int gi__resize_axis_same(const gi_resize_axis *a, const gi_resize_axis *b)
{
    return a->n_in == b->n_in && a->n_out == b->n_out && a->taps == b->taps &&
           memcmp(a->first, b->first, position_bytes(a)) == 0 &&
           memcmp(a->count, b->count, position_bytes(a)) == 0 && memcmp(a->q, b->q, weight_bytes(a)) == 0;
}

/* The most taps any output position can have. */
static int max_taps(int n_in, int n_out, gi_resize_filter filter)
{
    const double scale_in = (double)n_in / n_out, f = scale_in > 1 ? scale_in : 1;
    const double taps = filter == GI_RESIZE_NEAREST ? 1 : ceil(2 * support(filter) * f) + 3;
    return taps < n_in ? (int)taps : n_in;
}

gi_status gi__resize_axis_alloc(int n_in, int n_out, gi_resize_filter filter, gi_resize_axis *axis)
{
    memset(axis, 0, sizeof *axis);
    if (n_in < 1 || n_out < 1 || n_out > GI_RESIZE_MAX_SIDE || (unsigned)filter > GI_RESIZE_NEAREST)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "resize from %d to %d samples with filter %d",
                        n_in, n_out, (int)filter);
    const int taps = max_taps(n_in, n_out, filter);
    axis->n_in = n_in;
    axis->n_out = n_out;
    axis->taps = taps;
    axis->first = malloc(sizeof(int32_t) * (size_t)n_out);
    axis->count = malloc(sizeof(int32_t) * (size_t)n_out);
    axis->q = calloc((size_t)n_out * (size_t)taps, sizeof(int32_t));
    if (axis->first && axis->count && axis->q) return GI_OK;
    gi_resize_axis_free(axis);
    return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate resize weights (%d x %d)", n_out, taps);
}

int gi__resize_axis_fill(gi_resize_axis *axis, gi_resize_filter filter, int x0, int x1)
{
    const double scale_in = (double)axis->n_in / axis->n_out;
    double *w = malloc(sizeof(double) * (size_t)axis->taps);
    if (!w) return GI_RESIZE_FILL_NO_MEMORY;
    int failed = GI_RESIZE_FILL_OK;
    for (int x = x0; x < x1 && failed == GI_RESIZE_FILL_OK; x++) {
        int first, count;
        exact_weights(axis->n_in, filter, scale_in, x, w, &first, &count);
        axis->first[x] = first;
        axis->count[x] = count;
        if (count > axis->taps || quantize(w, count, axis->q + (size_t)x * axis->taps) != 0)
            failed = x;
    }
    free(w);
    return failed;
}

gi_status gi__resize_axis_failed(const gi_resize_axis *axis, int failed)
{
    if (failed == GI_RESIZE_FILL_NO_MEMORY)
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate resize weights (%d taps)", axis->taps);
    return gi__fail(GI_ERR_INVALID_ARGUMENT, "resize weights of sample %d of %d -> %d", failed,
                    axis->n_in, axis->n_out);
}

gi_status gi_resize_axis_weights(int n_in, int n_out, gi_resize_filter filter,
                                 gi_resize_axis *axis)
{
    gi_status st = gi__resize_axis_alloc(n_in, n_out, filter, axis);
    if (st != GI_OK) return st;
    const int failed = gi__resize_axis_fill(axis, filter, 0, n_out);
    if (failed == GI_RESIZE_FILL_OK) return GI_OK;
    st = gi__resize_axis_failed(axis, failed);
    gi_resize_axis_free(axis);
    return st;
}
