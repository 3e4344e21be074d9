/* Quantizing a convolution mask to the fixed point every backend uses. */
#include <math.h>
#include <string.h>

#include "gi_error.h"

#define ACCUMULATOR_LIMIT (1L << 30) /* 255 * sum|q| stays under this */
#define MAX_SHIFT 24

static gi_status check_shape(const gi_convolve_params *p)
{
    if (p->width < 1 || p->height < 1 || p->width > GI_CONVOLVE_MAX_SIZE ||
        p->height > GI_CONVOLVE_MAX_SIZE || !(p->width & 1) || !(p->height & 1))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "a %dx%d mask: width and height must be odd, 1..%d",
                        p->width, p->height, GI_CONVOLVE_MAX_SIZE);
    if (!p->mask) return gi__fail(GI_ERR_INVALID_ARGUMENT, "no mask values");
    return GI_OK;
}

/* 255 * sum|round(m * scale * 2^shift)|, or -1 once it passes the limit. */
static long quantized_bound(const double *m, int n, double scale, int shift)
{
    long sum = 0;
    for (int i = 0; i < n; i++) {
        double q = fabs(round(ldexp(m[i] * scale, shift)));
        if (q > (double)ACCUMULATOR_LIMIT) return -1;
        sum += 255 * (long)q;
        if (sum > ACCUMULATOR_LIMIT) return -1;
    }
    return sum;
}

gi_status gi_convolve_quantize(const gi_convolve_params *p, gi_convolve_weights *out)
{
    gi_status st = check_shape(p);
    if (st != GI_OK) return st;
    const int n = p->width * p->height;
    double scale = 1.0, total = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(p->mask[i]))
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "mask value %d is not a finite number", i + 1);
        total += p->mask[i];
    }
    if (p->normalize) {
        if (total == 0)
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "cannot normalize a mask that sums to 0");
        scale = 1.0 / total;
    }
    /* round(), not nearbyint(): halves go away from zero whatever the
     * caller's floating-point rounding mode is. */
    int shift = MAX_SHIFT;
    while (shift >= 0 && quantized_bound(p->mask, n, scale, shift) < 0) shift--;
    if (shift < 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "mask values too large: the sum of their "
                        "magnitudes must be at most %ld", ACCUMULATOR_LIMIT / 255);
    memset(out, 0, sizeof *out);
    out->width = p->width;
    out->height = p->height;
    out->shift = shift;
    for (int i = 0; i < n; i++) out->q[i] = (int32_t)round(ldexp(p->mask[i] * scale, shift));
    return GI_OK;
}
