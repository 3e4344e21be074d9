/* Blur weights (gi_blur_weights, gi_blur_radius, gi_blur_params_default)
 * against gpuimg.h: integers summing to exactly 65536, symmetric, close to
 * the exact normalised gaussian, box weights as documented.
 */
#include "harness.h"

#include <gpuimg.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int32_t weights[2 * GI_BLUR_MAX_RADIUS + 1];

static gi_blur_params params(gi_blur_kernel kernel, double sigma, int radius)
{
    gi_blur_params p;
    gi_blur_params_default(&p);
    p.kernel = kernel;
    p.sigma = sigma;
    p.radius = radius;
    return p;
}

/* Sum and symmetry hold for every kernel; returns R, or -1 on failure. */
static int fetch(const gi_blur_params *p, const char *what)
{
    int r = gi_blur_radius(p);
    int64_t sum = 0;
    int asym = 0;
    if (!th_check(r >= 0 && r <= GI_BLUR_MAX_RADIUS, "%s: radius %d", what, r)) return -1;
    if (!th_check(gi_blur_weights(p, weights) == GI_OK, "%s: gi_blur_weights failed: %s",
                  what, gi_last_error()))
        return -1;
    for (int k = -r; k <= r; k++) {
        sum += weights[k + r];
        asym += weights[k + r] != weights[r - k];
    }
    th_check(sum == GI_BLUR_WEIGHT_SUM, "%s: weights sum to %lld", what, (long long)sum);
    if (p->kernel == GI_BLUR_GAUSSIAN)
        th_check(asym == 0, "%s: gaussian weights not symmetric", what);
    return r;
}

/* Every tap is within 1 of 65536 * g_k, g the exact gaussian normalised
 * over the window: rounding alone gets within 1/2, and spreading the
 * rounding residual one unit per tap (never piling it on one tap) keeps
 * every tap within 1. */
static void check_gaussian(double sigma, int radius)
{
    char what[64];
    gi_blur_params p = params(GI_BLUR_GAUSSIAN, sigma, radius);
    long double g[2 * GI_BLUR_MAX_RADIUS + 1], total = 0, worst = 0;
    int r, worst_k = 0;
    snprintf(what, sizeof what, "gaussian sigma=%g radius=%d", sigma, radius);
    if ((r = fetch(&p, what)) < 0) return;
    for (int k = -r; k <= r; k++)
        total += g[k + r] = expl(-(long double)k * k / (2.0L * sigma * sigma));
    for (int k = -r; k <= r; k++) {
        long double dev = fabsl(weights[k + r] - 65536.0L * g[k + r] / total);
        if (dev > worst) worst = dev, worst_k = k;
    }
    th_check(worst <= 1.0L, "%s: w[%d] = %d is %.3Lf away from 65536*g", what, worst_k,
             weights[worst_k + r], worst);
    /* A gaussian never rises away from the centre. */
    for (int k = 1; k <= r; k++)
        th_check(weights[r + k] <= weights[r + k - 1], "%s: w[%d] > w[%d]", what, k, k - 1);
}

/* Box: q = 65536 / (2R+1) on every tap, and the remainder handed out from
 * the centre outwards keeping the kernel symmetric (which is always
 * possible: the tap count is odd): an odd remainder gives the centre one
 * unit, then the pairs +-1, +-2, ... take one unit each. */
static void check_box(int radius)
{
    char what[64];
    gi_blur_params p = params(GI_BLUR_BOX, 1.0, radius);
    int r, q, rest, pairs;
    snprintf(what, sizeof what, "box radius=%d", radius);
    if ((r = fetch(&p, what)) < 0) return;
    q = GI_BLUR_WEIGHT_SUM / (2 * r + 1);
    rest = GI_BLUR_WEIGHT_SUM % (2 * r + 1);
    pairs = rest / 2;
    for (int k = -r; k <= r; k++) {
        int want = q + (k == 0 ? rest % 2 : abs(k) <= pairs);
        th_check(weights[k + r] == want, "%s: w[%d] = %d, want %d (q %d, remainder %d)", what,
                 k, weights[k + r], want, q, rest);
    }
}

static void check_default_radius(void)
{
    const double sigmas[] = {0.1, 0.5, 1.0, 1.1, 1.5, 2.0, 2.4, 3.3, 10.0, 100.0};
    for (int kernel = 0; kernel < 2; kernel++)
        for (size_t s = 0; s < sizeof sigmas / sizeof *sigmas; s++) {
            gi_blur_params p = params((gi_blur_kernel)kernel, sigmas[s], -1);
            int want = (int)ceil(3 * sigmas[s]);
            th_check(gi_blur_radius(&p) == want, "kernel %d sigma %g: default radius %d, want %d",
                     kernel, sigmas[s], gi_blur_radius(&p), want);
        }
    gi_blur_params p = params(GI_BLUR_GAUSSIAN, 2.0, 7);
    th_check(gi_blur_radius(&p) == 7, "explicit radius 7 became %d", gi_blur_radius(&p));
}

static void check_defaults(void)
{
    gi_blur_params p;
    gi_blur_params_default(&p);
    th_check(p.kernel == GI_BLUR_GAUSSIAN && p.sigma == 1.0 && p.radius == -1 &&
                 p.border.mode == GI_BORDER_MIRROR && p.border.value == 0,
             "gi_blur_params_default: kernel %d sigma %g radius %d border %d/%d", (int)p.kernel,
             p.sigma, p.radius, (int)p.border.mode, p.border.value);
}

/* Out-of-range parameters are refused with a reason. */
static void check_invalid(void)
{
    const struct { gi_blur_kernel kernel; double sigma; int radius; } bad[] = {
        {GI_BLUR_GAUSSIAN, 0.0, 3},  {GI_BLUR_GAUSSIAN, -1.0, 3},
        {GI_BLUR_GAUSSIAN, NAN, 3},  {GI_BLUR_GAUSSIAN, INFINITY, 3},
        {GI_BLUR_GAUSSIAN, 1.0, -2}, {GI_BLUR_GAUSSIAN, 1.0, GI_BLUR_MAX_RADIUS + 1},
        {GI_BLUR_BOX, 1.0, GI_BLUR_MAX_RADIUS + 1},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        gi_blur_params p = params(bad[k].kernel, bad[k].sigma, bad[k].radius);
        gi_status st = gi_blur_weights(&p, weights);
        th_check(st == GI_ERR_INVALID_ARGUMENT && gi_last_error()[0] != '\0',
                 "gi_blur_weights(kernel %d, sigma %g, radius %d) = %d, want "
                 "GI_ERR_INVALID_ARGUMENT with a reason",
                 (int)bad[k].kernel, bad[k].sigma, bad[k].radius, (int)st);
    }
}

/* Weights computed on two threads at once must equal those computed alone
 * (a shared sort key once made concurrent batch workers differ). */
typedef struct {
    double sigma;
    int mismatches;
} concurrent_job;

static void *weights_repeatedly(void *arg)
{
    concurrent_job *j = arg;
    gi_blur_params p = params(GI_BLUR_GAUSSIAN, j->sigma, -1);
    int r = gi_blur_radius(&p);
    int32_t alone[2 * 64 + 1], again[2 * 64 + 1];
    gi_blur_weights(&p, alone);
    for (int i = 0; i < 20000; i++) {
        gi_blur_weights(&p, again);
        for (int k = 0; k <= 2 * r; k++) j->mismatches += again[k] != alone[k];
    }
    return NULL;
}

static void check_concurrent(void)
{
    concurrent_job jobs[2] = {{17.3, 0}, {19.1, 0}};
    pthread_t ids[2];
    for (int t = 0; t < 2; t++) pthread_create(&ids[t], NULL, weights_repeatedly, &jobs[t]);
    for (int t = 0; t < 2; t++) pthread_join(ids[t], NULL);
    for (int t = 0; t < 2; t++)
        th_check(jobs[t].mismatches == 0, "sigma %g: %d weights changed when computed concurrently",
                 jobs[t].sigma, jobs[t].mismatches);
}

int main(void)
{
    const double sigmas[] = {0.1, 0.3, 0.5, 0.8, 1.0, 1.3, 1.5, 2.0, 2.5, 3.7,
                             7.5, 20.0, 100.0, 300.0};
    const int box_radii[] = {0, 1, 2, 3, 4, 5, 7, 10, 31, 100, 1000, GI_BLUR_MAX_RADIUS};
    for (size_t s = 0; s < sizeof sigmas / sizeof *sigmas; s++)
        check_gaussian(sigmas[s], -1);
    check_gaussian(1.0, 0);
    check_gaussian(1.0, 1);
    check_gaussian(0.5, 12);
    check_gaussian(2.0, GI_BLUR_MAX_RADIUS);
    for (size_t r = 0; r < sizeof box_radii / sizeof *box_radii; r++)
        check_box(box_radii[r]);
    check_default_radius();
    check_defaults();
    check_invalid();
    check_concurrent();
    return th_finish();
}
