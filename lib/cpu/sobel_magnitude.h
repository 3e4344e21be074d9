/* Sobel's output as a function of s = gx^2 + gy^2, the one integer it
 * depends on (0 <= s <= 2 * 1020^2). gpuimg.h defines it in double:
 *   magnitude  min(255, floor(scale * sqrt(s) + 0.5))
 *   threshold  scale * sqrt(s) >= threshold ? 255 : 0
 * Both are non-decreasing in s, so each is a step function of s with at
 * most 255 steps; the CPU backend finds the steps once per call with the
 * double formula itself and then compares integers. With scale 1 a float
 * square root is exact too (sobel_unit_magnitude); tests/test_sobel_steps.c
 * checks both against the double formula for every s. */
#ifndef GI_SOBEL_MAGNITUDE_H
#define GI_SOBEL_MAGNITUDE_H

#include <math.h>
#include <stdint.h>

#define SOBEL_MAX_S (2 * 1020 * 1020)
#define SOBEL_NEVER (SOBEL_MAX_S + 1) /* a step no s reaches */

/* The formula of gpuimg.h, as the CUDA kernel computes it. */
static inline uint8_t sobel_formula(int32_t s, double scale, int use_threshold, double threshold)
{
    double magnitude = scale * sqrt((double)s);
    if (use_threshold) return magnitude >= threshold ? 255 : 0;
    double rounded = floor(magnitude + 0.5);
    return rounded >= 255 ? 255 : (uint8_t)rounded;
}

/* The same for scale 1, without doubles: for s < 65281 the exact square
 * root is at least 0.25 / 512 away from every half-integer (s is an
 * integer, (k + 1/2)^2 is not), and a float square root is within 2^-16 of
 * it, so rounding the float gives floor(sqrt(s) + 0.5); from s = 65281 on
 * the float root is at least 255.5 and the result clamps to 255. */
static inline uint8_t sobel_unit_magnitude(int32_t s)
{
    int32_t rounded = (int32_t)(sqrtf((float)s) + 0.5f);
    return (uint8_t)(rounded > 255 ? 255 : rounded);
}

/* The smallest s in [lo, SOBEL_NEVER] whose output is at least `level`
 * (SOBEL_NEVER when none), by bisection on the monotone formula. */
static inline int32_t sobel_step(int32_t lo, uint8_t level, double scale, int use_threshold,
                                 double threshold)
{
    int32_t hi = SOBEL_NEVER;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (sobel_formula(mid, scale, use_threshold, threshold) >= level) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* steps[k] = the smallest s with output >= k, k = 1..255 (steps[0] = 0). */
static inline void sobel_steps(double scale, int use_threshold, double threshold,
                               int32_t steps[256])
{
    steps[0] = 0;
    for (int k = 1; k < 256; k++)
        steps[k] = sobel_step(steps[k - 1], (uint8_t)k, scale, use_threshold, threshold);
}

#endif
