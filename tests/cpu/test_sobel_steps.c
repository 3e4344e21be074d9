/* The CPU backend's Sobel output comes from s = gx^2 + gy^2 without a
 * double per pixel (lib/cpu/sobel_magnitude.h). This checks, for every s
 * the gradients can give, that the float path for scale 1 and the step
 * search for other scales and thresholds equal the double formula of
 * gpuimg.h. At 16 bits (lib/cpu/sobel16_magnitude.h), scale 1: the
 * integer root at every rounding boundary, r^2 - r, r^2 and r^2 + r and
 * their neighbours for every r, and random gradients. */
#include "harness.h"
#include "cpu/sobel16_magnitude.h"
#include "cpu/sobel_magnitude.h"

/* gpuimg.h's 16-bit formula at scale 1. */
static uint32_t formula16(double s)
{
    const double rounded = floor(sqrt(s) + 0.5);
    return rounded >= 65535.0 ? 65535 : (uint32_t)rounded;
}

static long root16_mismatches(void)
{
    long bad = 0;
    for (uint64_t r = 0; r <= 65536; r++) {
        /* the rounding's ends, and the squares, where the float root's
         * floor may fall on either side */
        const uint64_t edges[3] = {r * r - r, r * r, r * r + r};
        for (int e = 0; e < 3; e++)
            for (int d = -1; d <= 1; d++) {
                const int64_t s = (int64_t)edges[e] + d;
                if (s < 0 || s > UINT32_MAX) continue;
                bad += sobel16_rounded_root((uint32_t)s) != formula16((double)s);
            }
    }
    for (int i = 0; i < 1000000; i++) {
        const int32_t gx = th_rand_int(-(1 << 18), 1 << 18), gy = th_rand_int(-70000, 70000);
        const int32_t small = th_rand_int(-65535, 65535);
        bad += sobel16_unit_magnitude(gx, gy) != formula16((double)gx * gx + (double)gy * gy);
        bad += sobel16_unit_magnitude(small, gy / 2) != formula16((double)small * small + (double)(gy / 2) * (gy / 2));
    }
    return bad;
}

static uint8_t by_steps(int32_t s, const int32_t steps[256])
{
    int k = 0;
    for (int half = 128; half; half >>= 1) k += s >= steps[k + half] ? half : 0;
    return (uint8_t)k;
}

/* Every s against the formula, through the steps; returns the mismatches. */
static long steps_mismatches(double scale, int use_threshold, double threshold)
{
    int32_t steps[256];
    long bad = 0;
    sobel_steps(scale, use_threshold, threshold, steps);
    for (int32_t s = 0; s <= SOBEL_MAX_S; s++)
        bad += by_steps(s, steps) != sobel_formula(s, scale, use_threshold, threshold);
    return bad;
}

int main(void)
{
    th_seed();
    long bad = 0;
    for (int32_t s = 0; s <= SOBEL_MAX_S; s++) bad += sobel_unit_magnitude(s) != sobel_formula(s, 1, 0, 0);
    th_check(bad == 0, "scale 1 float path: %ld values of s differ from the double formula", bad);

    static const double scales[] = {0, 1e-3, 0.05, 0.25, 0.5, 1, 1.0 / 3, 0.7071067811865476, 2,
                                    3.999, 4, 255, 1e6};
    for (unsigned i = 0; i < sizeof scales / sizeof *scales; i++) {
        long m = steps_mismatches(scales[i], 0, 0);
        th_check(m == 0, "magnitude steps, scale %g: %ld values of s differ", scales[i], m);
    }
    static const double thresholds[][2] = {{1, 0}, {1, 1}, {1, 100}, {1, 255.5}, {0.5, 127},
                                           {1, 1442.5}, {1, 1443}, {0.3, 0.3}, {0, 0}, {2, 1e9}};
    for (unsigned i = 0; i < sizeof thresholds / sizeof *thresholds; i++) {
        long m = steps_mismatches(thresholds[i][0], 1, thresholds[i][1]);
        th_check(m == 0, "threshold steps, scale %g threshold %g: %ld values of s differ",
                 thresholds[i][0], thresholds[i][1], m);
    }
    for (int r = 0; r < 10; r++) { /* random scales and thresholds */
        double scale = th_rand_double(0.0, 8.0), threshold = th_rand_double(0.0, 600.0);
        long m = steps_mismatches(scale, 0, 0) + steps_mismatches(scale, 1, threshold);
        th_check(m == 0, "scale %.17g threshold %.17g: %ld values of s differ", scale, threshold, m);
    }
    long m16 = root16_mismatches();
    th_check(m16 == 0, "16-bit scale 1: %ld values differ from the double formula", m16);
    return th_finish();
}
