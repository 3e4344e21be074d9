/* Integer blur weights that sum to exactly GI_BLUR_WEIGHT_SUM.
 *
 * The weights are computed once on the host and shared by every backend,
 * which is what makes CPU and GPU results identical. */
#include <math.h>
#include <stdlib.h>

#include "gi_error.h"

void gi_blur_params_default(gi_blur_params *p)
{
    if (!p) return;
    p->kernel = GI_BLUR_GAUSSIAN;
    p->sigma = 1.0;
    p->radius = -1;
    p->border.mode = GI_BORDER_MIRROR;
    p->border.value = 0;
}

int gi_blur_radius(const gi_blur_params *p)
{
    if (!p) return -1;
    if (p->radius >= 0) return p->radius;
    if (p->radius != -1) return -1;
    if (!(p->sigma > 0) || !isfinite(p->sigma) || 3.0 * p->sigma > GI_BLUR_MAX_RADIUS)
        return -1;
    return (int)ceil(3.0 * p->sigma);
}

/* Hands out `residual` extra units, one per tap, keeping the weights
 * symmetric: the centre takes one when the residual is odd, then pairs of
 * taps take one each, in the order given by pair_order. */
static void spread_residual(int32_t *w, int radius, long residual, const int *pair_order)
{
    if (residual & 1) {
        w[radius] += 1;
        residual -= 1;
    }
    for (int i = 0; residual > 0 && i < radius; i++, residual -= 2) {
        int k = pair_order[i];
        w[radius - k] += 1;
        w[radius + k] += 1;
    }
}

/* A tap and its rounding remainder. qsort has no context argument, so
 * each element carries its own key (a shared global would race between
 * threads blurring at once). */
typedef struct {
    double remainder;
    int tap;
} ranked_tap;

static int by_remainder_descending(const void *a, const void *b)
{
    const ranked_tap *x = a, *y = b;
    if (x->remainder != y->remainder) return x->remainder < y->remainder ? 1 : -1;
    return x->tap - y->tap; /* ties: nearer the centre first */
}

/* Largest-remainder rounding of the normalized gaussian, so every weight is
 * the floor or the ceiling of its exact value. */
static gi_status gaussian_weights(double sigma, int radius, int32_t *w)
{
    double *exact = malloc(sizeof(double) * (size_t)(radius + 1));
    ranked_tap *ranked = malloc(sizeof *ranked * (size_t)(radius + 1));
    int *order = malloc(sizeof(int) * (size_t)(radius + 1));
    if (!exact || !ranked || !order) {
        free(exact);
        free(ranked);
        free(order);
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur weights");
    }
    double total = 0;
    for (int k = 0; k <= radius; k++) {
        /* (k / sigma)^2, not k^2 / sigma^2: a tiny sigma squared underflows
         * to 0 and would make the centre 0/0. */
        double z = (double)k / sigma;
        exact[k] = exp(-0.5 * z * z);
        total += k == 0 ? exact[k] : 2.0 * exact[k];
    }
    long used = 0;
    for (int k = 0; k <= radius; k++) {
        exact[k] *= GI_BLUR_WEIGHT_SUM / total;
        double base = floor(exact[k]);
        w[radius - k] = w[radius + k] = (int32_t)base;
        used += k == 0 ? (long)base : 2 * (long)base;
        exact[k] -= base; /* keep only the remainder, the sort key */
    }
    for (int i = 0; i < radius; i++) ranked[i] = (ranked_tap){exact[i + 1], i + 1};
    qsort(ranked, (size_t)radius, sizeof *ranked, by_remainder_descending);
    for (int i = 0; i < radius; i++) order[i] = ranked[i].tap;
    spread_residual(w, radius, GI_BLUR_WEIGHT_SUM - used, order);
    free(exact);
    free(ranked);
    free(order);
    return GI_OK;
}

/* Equal weights; the remainder goes to the taps nearest the centre. */
static gi_status box_weights(int radius, int32_t *w)
{
    int taps = 2 * radius + 1;
    int *order = malloc(sizeof(int) * (size_t)(radius + 1));
    if (!order) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur weights");
    for (int k = 0; k < taps; k++) w[k] = GI_BLUR_WEIGHT_SUM / taps;
    for (int i = 0; i < radius; i++) order[i] = i + 1;
    spread_residual(w, radius, GI_BLUR_WEIGHT_SUM % taps, order);
    free(order);
    return GI_OK;
}

gi_status gi_blur_weights(const gi_blur_params *p, int32_t *weights)
{
    GI__REFUSE_NULL(p, weights);
    if (p->kernel == GI_BLUR_GAUSSIAN && (!(p->sigma > 0) || !isfinite(p->sigma)))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "sigma %g: must be a finite number > 0", p->sigma);
    int radius = gi_blur_radius(p);
    if (radius < 0 || radius > GI_BLUR_MAX_RADIUS)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "blur radius must be 0..%d", GI_BLUR_MAX_RADIUS);
    switch (p->kernel) {
    case GI_BLUR_GAUSSIAN: return gaussian_weights(p->sigma, radius, weights);
    case GI_BLUR_BOX: return box_weights(radius, weights);
    }
    return gi__fail(GI_ERR_INVALID_ARGUMENT, "unknown blur kernel %d", (int)p->kernel);
}
