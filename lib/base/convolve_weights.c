/* Quantizing a convolution mask to the fixed point every backend uses. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gi_error.h"

/* Per depth: the largest sample, the bound on peak * sum|q| that keeps the
 * sums exact (int32 at 8 bits; 64-bit integers or doubles at 16), and the
 * largest shift tried. */
typedef struct {
    long long peak, limit;
    int max_shift;
} quant_range;
static const quant_range range8 = {255, 1LL << 30, 24};
static const quant_range range16 = {65535, 1LL << 52, 30};

static gi_status check_shape(const gi_convolve_params *p)
{
    if (p->width < 1 || p->height < 1 || p->width > GI_CONVOLVE_MAX_SIZE ||
        p->height > GI_CONVOLVE_MAX_SIZE || !(p->width & 1) || !(p->height & 1))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "a %dx%d mask: width and height must be odd, 1..%d",
                        p->width, p->height, GI_CONVOLVE_MAX_SIZE);
    return GI_OK;
}

/* peak * sum|round(m * scale * 2^shift)|, or -1 once it passes the limit
 * or a value leaves int32. */
static long long quantized_bound(const double *m, int n, double scale, int shift,
                                 const quant_range *r)
{
    long long sum = 0;
    for (int i = 0; i < n; i++) {
        double q = fabs(round(ldexp(m[i] * scale, shift)));
        if (q > (double)INT32_MAX || q * (double)r->peak > (double)r->limit) return -1;
        sum += r->peak * (long long)q;
        if (sum > r->limit) return -1;
    }
    return sum;
}

gi_status gi_convolve_quantize(const gi_convolve_params *p, gi_convolve_weights *out)
{
    GI__REFUSE_NULL(p, out);
    GI__REFUSE_NULL(p->mask);
    return gi_convolve_quantize_depth(p, 8, out);
}

gi_status gi_convolve_quantize_depth(const gi_convolve_params *p, int depth,
                                     gi_convolve_weights *out)
{
    GI__REFUSE_NULL(p, out);
    GI__REFUSE_NULL(p->mask);
    if (depth != 8 && depth != 16)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "convolution at depth %d: 8 or 16 bits", depth);
    const quant_range *range = depth == 16 ? &range16 : &range8;
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
    int shift = range->max_shift;
    while (shift >= 0 && quantized_bound(p->mask, n, scale, shift, range) < 0) shift--;
    if (shift < 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "mask values too large: the sum of their "
                        "magnitudes must be at most %lld", range->limit / range->peak);
    memset(out, 0, sizeof *out);
    out->width = p->width;
    out->height = p->height;
    out->shift = shift;
    for (int i = 0; i < n; i++) out->q[i] = (int32_t)round(ldexp(p->mask[i] * scale, shift));
    return GI_OK;
}
