/* Convolution mask quantization (gi_convolve_quantize) against gpuimg.h:
 * q = round(m * 2^S) with the largest S in 0..24 such that
 * 255 * sum|q| <= 2^30, normalize dividing by the sum first; shapes, values
 * and sums outside the documented ranges are refused with a reason.
 */
#include "harness.h"

#include <fenv.h>
#include <gpuimg.h>
#include <math.h>
#include <stdio.h>

#define MAX_TAPS (GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE)
#define LIMIT 1073741824.0 /* 2^30 */

static double mask[MAX_TAPS];
static gi_convolve_weights weights;

static gi_convolve_params params(int w, int h, int normalize)
{
    return (gi_convolve_params){w, h, mask, normalize, {GI_BORDER_MIRROR, 0}};
}

static void fill(int n, double v)
{
    for (int k = 0; k < n; k++) mask[k] = v;
}

/* 255 * sum|round(m' 2^s)| fits, with m' the (normalized) mask. */
static int fits(const gi_convolve_params *p, int s)
{
    int n = p->width * p->height;
    double total = 0, bound = 0;
    for (int k = 0; k < n; k++) total += p->mask[k];
    for (int k = 0; k < n; k++)
        bound += fabs(round(ldexp(p->normalize ? p->mask[k] / total : p->mask[k], s)));
    return 255 * bound <= LIMIT;
}

/* Quantizes and checks everything gpuimg.h promises about the result;
 * returns S, or -1 when quantizing failed. */
static int quantize(const gi_convolve_params *p, const char *what)
{
    int n = p->width * p->height;
    double total = 0, bound = 0;
    if (!th_check(gi_convolve_quantize(p, &weights) == GI_OK, "%s: refused: %s", what,
                  gi_last_error()))
        return -1;
    int s = weights.shift;
    th_check(weights.width == p->width && weights.height == p->height,
             "%s: weights are %dx%d", what, weights.width, weights.height);
    if (!th_check(s >= 0 && s <= 24, "%s: S = %d", what, s)) return -1;
    for (int k = 0; k < n; k++) total += p->mask[k];
    for (int k = 0; k < n; k++) {
        double want = ldexp(p->normalize ? p->mask[k] / total : p->mask[k], s);
        bound += fabs((double)weights.q[k]);
        /* round(): within 1/2 (ties may go either way); 1e-6 covers the
         * library dividing by the sum as a multiplication. */
        th_check(fabs(weights.q[k] - want) <= 0.5 + 1e-6, "%s: q[%d] = %d, m * 2^%d = %.6f",
                 what, k, weights.q[k], s, want);
    }
    th_check(255 * bound <= LIMIT, "%s: S = %d gives 255 * sum|q| = %.0f > 2^30", what, s,
             255 * bound);
    th_check(s == 24 || !fits(p, s + 1), "%s: S = %d, but S = %d fits too", what, s, s + 1);
    return s;
}

/* Shifts worked out by hand: sum|m'| * 255 * 2^S <= 2^30. */
static void check_known_shifts(void)
{
    static const double sharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
    gi_convolve_params p;
    int s;

    fill(25, 1); /* 5x5 ones normalized: sum|m'| = 1, 255 * 2^22 <= 2^30 < 255 * 2^23 */
    p = params(5, 5, 1);
    s = quantize(&p, "5x5 ones normalized");
    th_check(s == 22 && weights.q[0] == 167772 && weights.q[12] == 167772,
             "5x5 ones normalized: S = %d, q = %d (want 22, round(2^22 / 25) = 167772)", s,
             weights.q[0]);

    fill(1, 1); /* 1x1 identity: the same bound */
    p = params(1, 1, 0);
    s = quantize(&p, "1x1 identity");
    th_check(s == 22 && weights.q[0] == 1 << 22, "1x1 identity: S = %d, q = %d", s, weights.q[0]);

    fill(1, 1e-9); /* tiny: S stops at 24, q rounds to 0 */
    s = quantize(&p, "1x1 of 1e-9");
    th_check(s == 24 && weights.q[0] == 0, "1x1 of 1e-9: S = %d, q = %d", s, weights.q[0]);

    fill(MAX_TAPS, 1); /* 31x31 ones: 961 * 255 * 2^12 <= 2^30 < 961 * 255 * 2^13 */
    p = params(31, 31, 0);
    s = quantize(&p, "31x31 ones");
    th_check(s == 12 && weights.q[0] == 4096 && weights.q[MAX_TAPS - 1] == 4096,
             "31x31 ones: S = %d, q = %d (want 12, 4096)", s, weights.q[0]);

    for (int k = 0; k < 9; k++) mask[k] = sharpen[k]; /* sum|m| = 9: S = 18 */
    p = params(3, 3, 0);
    s = quantize(&p, "sharpen 3x3");
    th_check(s == 18 && weights.q[4] == 5 << 18 && weights.q[1] == -(1 << 18) && weights.q[0] == 0,
             "sharpen 3x3: S = %d, q = %d %d %d", s, weights.q[0], weights.q[1], weights.q[4]);

    /* the largest accepted magnitude: 255 * 4210752 <= 2^30 < 255 * 4210753 */
    fill(1, 4210752);
    p = params(1, 1, 0);
    s = quantize(&p, "1x1 of 4210752");
    th_check(s == 0 && weights.q[0] == 4210752, "1x1 of 4210752: S = %d, q = %d", s, weights.q[0]);
    fill(3, -1403584); /* the same sum spread over three negative taps */
    p = params(3, 1, 0);
    s = quantize(&p, "1x3 of -1403584");
    th_check(s == 0 && weights.q[1] == -1403584, "1x3 of -1403584: S = %d, q = %d", s,
             weights.q[1]);
}

/* Every odd shape, random values: the generic promises of quantize(). */
static void check_random_masks(void)
{
    char what[64];
    for (int h = 1; h <= GI_CONVOLVE_MAX_SIZE; h += 2)
        for (int w = 1; w <= GI_CONVOLVE_MAX_SIZE; w += 6) {
            double scale = ldexp(1, th_rand_int(-8, 12));
            for (int k = 0; k < w * h; k++) mask[k] = th_rand_double(-scale, scale);
            for (int normalize = 0; normalize < 2; normalize++) {
                gi_convolve_params p = params(w, h, normalize);
                snprintf(what, sizeof what, "random %dx%d scale %g normalize %d", w, h, scale,
                         normalize);
                double total = 0;
                for (int k = 0; k < w * h; k++) total += mask[k];
                if (normalize && fabs(total) < 1e-3 * scale) continue; /* may not fit */
                quantize(&p, what);
            }
        }
}

/* A mask symmetric under mirroring gives mirrored q; negating m negates q. */
static void check_symmetry(void)
{
    const int w = 7, h = 5;
    for (int y = 0; y < h; y++)
        for (int x = 0; x <= w / 2; x++)
            mask[y * w + x] = mask[y * w + w - 1 - x] = th_rand_double(-3, 3);
    for (int y = 0; y < h / 2; y++)
        for (int x = 0; x < w; x++) mask[(h - 1 - y) * w + x] = mask[y * w + x];
    for (int normalize = 0; normalize < 2; normalize++) {
        gi_convolve_params p = params(w, h, normalize);
        if (quantize(&p, "symmetric 7x5") < 0) continue;
        long asym = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int32_t q = weights.q[y * w + x];
                asym += q != weights.q[y * w + w - 1 - x] || q != weights.q[(h - 1 - y) * w + x];
            }
        th_check(asym == 0, "symmetric 7x5 normalize %d: %ld taps break the symmetry",
                 normalize, asym);
    }
    /* antisymmetric, with m * 2^24 = -2.5, 0, 2.5: the halves must round to
     * opposite values (floor(x + 1/2) would give -2 and 3) */
    const double halves[3] = {-2.5 / (1 << 24), 0, 2.5 / (1 << 24)};
    for (int k = 0; k < 3; k++) mask[k] = halves[k];
    gi_convolve_params p = params(3, 1, 0);
    if (quantize(&p, "antisymmetric 3x1") >= 0)
        th_check(weights.q[0] == -weights.q[2] && weights.q[1] == 0,
                 "antisymmetric 3x1: q = %d %d %d", weights.q[0], weights.q[1], weights.q[2]);
}

/* The bytes are the same for every caller (gpuimg.h, DETERMINISM), so q
 * must not follow the floating-point rounding mode the caller has set. */
static void check_rounding_mode(void)
{
    const int modes[3] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    const char *names[3] = {"FE_UPWARD", "FE_DOWNWARD", "FE_TOWARDZERO"};
    gi_convolve_weights nearest;
    for (int k = 0; k < 15; k++) mask[k] = th_rand_double(-1, 1);
    gi_convolve_params p = params(5, 3, 0);
    if (!th_check(gi_convolve_quantize(&p, &nearest) == GI_OK, "5x3: %s", gi_last_error())) return;
    for (int m = 0; m < 3; m++) {
        int differ = 0;
        fesetround(modes[m]);
        gi_status st = gi_convolve_quantize(&p, &weights);
        fesetround(FE_TONEAREST);
        for (int k = 0; k < 15; k++) differ += weights.q[k] != nearest.q[k];
        th_check(st == GI_OK && weights.shift == nearest.shift && differ == 0,
                 "quantizing under %s: S = %d, %d of 15 q differ from FE_TONEAREST", names[m],
                 weights.shift, differ);
    }
}

static void expect_refused(const gi_convolve_params *p, const char *what)
{
    gi_status st = gi_convolve_quantize(p, &weights);
    th_check(st == GI_ERR_INVALID_ARGUMENT && gi_last_error()[0] != '\0',
             "%s: status %d (%s), message \"%s\"; want GI_ERR_INVALID_ARGUMENT with a reason",
             what, (int)st, gi_strerror(st), gi_last_error());
}

static void check_refused(void)
{
    static const int shapes[][2] = {{2, 3}, {3, 2}, {2, 2}, {0, 1}, {1, 0}, {0, 0}, {-1, 1},
                                    {1, -3}, {33, 1}, {1, 33}, {33, 33}, {32, 31}};
    char what[64];
    gi_convolve_params p;
    fill(MAX_TAPS, 1);
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        p = params(shapes[k][0], shapes[k][1], 0);
        snprintf(what, sizeof what, "a %dx%d mask", shapes[k][0], shapes[k][1]);
        expect_refused(&p, what);
    }
    p = params(3, 3, 0);
    p.mask = NULL;
    expect_refused(&p, "no mask values");

    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        fill(9, 1);
        mask[4] = bad[k];
        for (int normalize = 0; normalize < 2; normalize++) {
            p = params(3, 3, normalize);
            snprintf(what, sizeof what, "a 3x3 mask holding %g, normalize %d", bad[k], normalize);
            expect_refused(&p, what);
        }
    }

    const double zero_sum[3] = {1, 0, -1};
    for (int k = 0; k < 3; k++) mask[k] = zero_sum[k];
    p = params(3, 1, 1);
    expect_refused(&p, "normalize 1 0 -1");
    p.normalize = 0; /* a zero-sum mask is fine as it is (edge detectors) */
    quantize(&p, "1 0 -1 not normalized");

    fill(1, 4210753);
    p = params(1, 1, 0);
    expect_refused(&p, "1x1 of 4210753 (255 * 4210753 > 2^30)");
    fill(1, 1e300);
    expect_refused(&p, "1x1 of 1e300");
    fill(1, -1e10);
    expect_refused(&p, "1x1 of -1e10");
    fill(MAX_TAPS, 4400); /* each fits, the sum does not: 961 * 4400 * 255 > 2^30 */
    p = params(31, 31, 0);
    expect_refused(&p, "31x31 of 4400");
    const double tiny_sum[3] = {1, -1, 1e-9}; /* normalized: values near 1e9 */
    for (int k = 0; k < 3; k++) mask[k] = tiny_sum[k];
    p = params(3, 1, 1);
    expect_refused(&p, "normalize 1 -1 1e-9");
}

/* At 16 bits: S is the largest in 0..30 with every |q| < 2^31 and
 * 65535 * sum|q| <= 2^52; every mask 8 bits accepts is accepted; other
 * depths are refused. */
static void check_depth16(void)
{
    gi_convolve_weights w16 = {0};
    gi_convolve_params p = params(3, 3, 1);
    fill(9, 1);
    th_check(gi_convolve_quantize_depth(&p, 16, &w16) == GI_OK && w16.shift == 30 &&
                 w16.q[4] == 119304647, /* round(2^30 / 9) */
             "ones 3x3 normalized at 16 bits: S = %d, q = %d", w16.shift, w16.q[4]);
    p = params(1, 1, 0);
    fill(1, 2.5);
    th_check(gi_convolve_quantize_depth(&p, 16, &w16) == GI_OK && w16.shift == 29,
             "1x1 of 2.5 at 16 bits: S = %d (|q| < 2^31 keeps it below 30)", w16.shift);
    fill(1, 4210752); /* the largest 8 bits accepts */
    th_check(gi_convolve_quantize_depth(&p, 16, &w16) == GI_OK && w16.shift == 8 &&
                 w16.q[0] == 4210752 << 8,
             "1x1 of 4210752 at 16 bits: S = %d, q = %d (%s)", w16.shift, w16.q[0], gi_last_error());
    fill(MAX_TAPS, 4400);
    p = params(31, 31, 0);
    th_check(gi_convolve_quantize_depth(&p, 16, &w16) == GI_OK && w16.shift >= 0,
             "31x31 of 4400 at 16 bits: refused (%s)", gi_last_error());
    for (int k = 0; k < MAX_TAPS; k++) mask[k] = th_rand_double(-3, 3);
    for (int trial = 0; trial < 50; trial++) {
        const int w = 2 * th_rand_int(0, 15) + 1, h = 2 * th_rand_int(0, 15) + 1;
        p = params(w, h, 0);
        if (!th_check(gi_convolve_quantize_depth(&p, 16, &w16) == GI_OK, "%dx%d: %s", w, h,
                      gi_last_error()))
            continue;
        double sum = 0;
        for (int k = 0; k < w * h; k++) sum += fabs((double)w16.q[k]);
        const double next = 2 * sum + w * h; /* sum|q| at S + 1, at most */
        th_check(65535 * sum <= 0x1p52 && (w16.shift == 30 || 65535 * next > 0x1p52 ||
                                           2 * 3.0 * ldexp(1, w16.shift) >= 0x1p31),
                 "%dx%d at 16 bits: S = %d, sum|q| = %g", w, h, w16.shift, sum);
    }
    p = params(3, 3, 0);
    fill(9, 1);
    th_check(gi_convolve_quantize_depth(&p, 12, &w16) == GI_ERR_INVALID_ARGUMENT,
             "depth 12 accepted");
    th_check(gi_convolve_quantize_depth(&p, 8, &w16) == GI_OK &&
                 gi_convolve_quantize(&p, &weights) == GI_OK && w16.shift == weights.shift &&
                 w16.q[0] == weights.q[0],
             "depth 8 differs from gi_convolve_quantize");
}

int main(void)
{
    th_seed();
    check_known_shifts();
    check_random_masks();
    check_symmetry();
    check_rounding_mode();
    check_refused();
    check_depth16();
    return th_finish();
}
