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
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->fit = GI_FIT_INSIDE;
    p->filter = GI_RESIZE_LANCZOS3;
}

int gi_resize_filter_parse(const char *name, gi_resize_filter *filter)
{
    if (!name || !filter) return -1;
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
    if (!src || !p || !width || !height) return;
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

/* 2 n_out (i + 0.5 - c): input i's offset from output x's centre in whole
 * units of 1 / (2 n_out) of a sample. */
static int64_t offset_units(int n_in, int n_out, int x, int i)
{
    return (2 * (int64_t)i + 1) * n_out - (2 * (int64_t)x + 1) * n_in;
}

/* The real weights of output x into w[0..*count) from input *first. The
 * distances and the area's overlaps are whole numbers of 1 / (2 n_out) of
 * a sample (the centre c is (2x + 1) n_in of them, a pixel's edge i is
 * 2 i n_out), so that taps mirrored about c get the very same weight, and
 * the tie order of quantize sees their tie. */
static void exact_weights(int n_in, int n_out, gi_resize_filter filter, int x, double *w,
                          int *first, int *count)
{
    const double scale_in = (double)n_in / n_out, c = (x + 0.5) * scale_in;
    if (filter == GI_RESIZE_NEAREST) {
        const int i = (int)floor(c);
        *first = i < n_in ? i : n_in - 1;
        *count = 1;
        w[0] = 1;
        return;
    }
    const double reach = support(filter) * (scale_in > 1 ? scale_in : 1);
    int lo = (int)floor(c - reach - 0.5), hi = (int)ceil(c + reach - 0.5);
    if (lo < 0) lo = 0;
    if (hi > n_in - 1) hi = n_in - 1;
    *first = lo;
    *count = 0;
    /* in units of 1 / (2 n_out): a sample, the centre, f / 2, the reach */
    const int64_t unit = 2 * (int64_t)n_out, centre = (2 * (int64_t)x + 1) * n_in;
    const int64_t half = n_in > n_out ? n_in : n_out;
    const int64_t reach_units = (int64_t)(2 * support(filter)) * half;
    for (int i = lo; i <= hi; i++) {
        const int64_t d = offset_units(n_in, n_out, x, i);
        double v = 0;
        if (filter == GI_RESIZE_AREA) {
            const int64_t a = i * unit > centre - half ? i * unit : centre - half;
            const int64_t b = (i + 1) * unit < centre + half ? (i + 1) * unit : centre + half;
            if (b > a) v = (double)(b - a) / (double)unit;
        } else if ((d < 0 ? -d : d) < reach_units) {
            v = kernel(filter, (double)d / (double)(2 * half)); /* d / f in samples */
        }
        w[(*count)++] = v;
    }
}

/* A tap's claim on a unit of the remainder (gpuimg.h): its fraction of a
 * unit left by the floor, then its distance from the centre in units of
 * 1 / (2 n_out), exact, so that taps mirrored about c tie, then its index. */
typedef struct {
    double fraction;
    int64_t distance;
    int k;
} claim;

/* Whether a is served before b: a total order, as the indices differ. */
static int before(const claim *a, const claim *b)
{
    if (a->fraction != b->fraction) return a->fraction > b->fraction;
    if (a->distance != b->distance) return a->distance < b->distance;
    return a->k < b->k;
}

/* Moves the `units` claims served first to claims[0 .. units), in no
 * particular order among themselves: Wirth's selection (Hoare's
 * partition, narrowed to the side that holds place units - 1), in
 * average time linear in count (a qsort of the claims made a 65536:1
 * axis's weights 6 times as slow as rounding them). The pivots are drawn
 * by a xorshift, not taken at a fixed place: a large reduction's claims
 * come in a pattern (all fractions equal, the distances falling then
 * rising) on which a fixed place can pick the least every time. The
 * order being total, the set is the same whatever the pivots. */
static void select_served(claim *claims, int count, int units)
{
    const int target = units - 1;
    uint32_t state = 2463534242u;
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        const claim pivot = claims[lo + (int)(state % (uint32_t)(hi - lo + 1))];
        int i = lo, j = hi;
        do {
            while (before(&claims[i], &pivot)) i++;
            while (before(&pivot, &claims[j])) j--;
            if (i <= j) {
                const claim t = claims[i];
                claims[i++] = claims[j];
                claims[j--] = t;
            }
        } while (i <= j);
        if (j < target) lo = i;
        if (target < i) hi = j;
    }
}

/* The integer weights of gpuimg.h from real ones: each floored, then the
 * remainder a unit each to the largest fractions (before's order). Tap
 * k's offset from the centre is offset + k * step (offset_units); claims
 * has count places. Returns -1 when the real weights sum to nothing, or
 * when sum |q| passes 32767, past which 65025 * sum |q| (a premultiplied
 * row's sum) would not fit the int32 the backends add it in (no filter
 * comes near: lanczos3's is below 1.3 * 2^14). */
static int quantize(const double *w, int count, int64_t offset, int64_t step, claim *claims,
                    int32_t *q)
{
    double sum = 0;
    for (int k = 0; k < count; k++) sum += w[k];
    if (!(sum > 1e-12)) return -1;
    long total = 0;
    for (int k = 0; k < count; k++) {
        const double v = GI_RESIZE_WEIGHT_SUM * w[k] / sum, whole = floor(v);
        total += q[k] = (int32_t)whole;
        const int64_t d = offset + k * step;
        claims[k] = (claim){v - whole, d < 0 ? -d : d, k};
    }
    /* The floors fall short by the fractions' sum: below count, and not
     * below 0, up to the real weights' rounding. */
    const long units = GI_RESIZE_WEIGHT_SUM - total;
    if (units < 0 || units > count) return -1;
    if (units > 0) select_served(claims, count, (int)units);
    for (long r = 0; r < units; r++) q[claims[r].k]++;
    long magnitude = 0;
    for (int k = 0; k < count; k++) magnitude += labs((long)q[k]);
    return magnitude <= 32767 ? 0 : -1;
}

void gi_resize_axis_free(gi_resize_axis *axis)
{
    if (!axis) return;
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
    double *w = malloc(sizeof(double) * (size_t)axis->taps);
    claim *claims = malloc(sizeof(claim) * (size_t)axis->taps);
    int failed = w && claims ? GI_RESIZE_FILL_OK : GI_RESIZE_FILL_NO_MEMORY;
    for (int x = x0; x < x1 && failed == GI_RESIZE_FILL_OK; x++) {
        int first, count;
        exact_weights(axis->n_in, axis->n_out, filter, x, w, &first, &count);
        axis->first[x] = first;
        axis->count[x] = count;
        const int64_t offset = offset_units(axis->n_in, axis->n_out, x, first);
        if (count > axis->taps || quantize(w, count, offset, 2 * (int64_t)axis->n_out, claims,
                                           axis->q + (size_t)x * axis->taps) != 0)
            failed = x;
    }
    free(claims);
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
    GI__REFUSE_NULL(axis);
    /* gi_resize's axes start from a side of an image in memory; a
     * caller's n_in is bounded here, before its taps are allocated (an
     * n_in of 2^31 would ask for gigabytes) */
    if (n_in < 1 || n_in > GI_RESIZE_MAX_SIDE || n_out < 1 || n_out > GI_RESIZE_MAX_SIDE) {
        memset(axis, 0, sizeof *axis);
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "gi_resize_axis_weights: %d -> %d samples: n_in "
                        "and n_out must be 1..%d", n_in, n_out, GI_RESIZE_MAX_SIDE);
    }
    gi_status st = gi__resize_axis_alloc(n_in, n_out, filter, axis);
    if (st != GI_OK) return st;
    const int failed = gi__resize_axis_fill(axis, filter, 0, n_out);
    if (failed == GI_RESIZE_FILL_OK) return GI_OK;
    st = gi__resize_axis_failed(axis, failed);
    gi_resize_axis_free(axis);
    return st;
}
