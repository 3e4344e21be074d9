/* The 16-bit Sobel magnitude at scale 1 (gpuimg.h: min(65535,
 * floor(sqrt(gx^2 + gy^2) + 0.5)) in double) in 32-bit integer and float
 * lanes, exactly; tests/cpu/test_sobel_steps.c checks it against the
 * double formula at every rounding boundary.
 *
 * For an integer s the root is never within 2^-20 of a half, so the
 * double formula gives the correctly rounded root R: the r with r^2 - r <
 * s <= r^2 + r (for r > 0; R = 0 where s = 0). When |gx| or |gy| > 65535,
 * or s >= 2^32 (its 32-bit sum wraps), the root passes 65535.5 and the
 * output is 65535. Otherwise s is exact in 32 bits and the float root e
 * within 0.01 of the exact one, and with k = floor(e), R = k + (s > k^2 +
 * k): where k <= sqrt(s) < k + 1 that compare is the rounding itself;
 * where e passed an integer the exact root has not reached (sqrt(s) < k),
 * or stayed below one it has (sqrt(s) >= k + 1), the root is within 0.01
 * of that integer, which is then R, and the compare gives it (s < k^2, s
 * >= (k + 1)^2). k is capped at 65535 first, so that k^2 + k fits 32
 * bits; an R over 65535 still comes out above it, and is capped. One
 * compare, where rounding e would need two (r off either way). */
#ifndef GI_SOBEL16_MAGNITUDE_H
#define GI_SOBEL16_MAGNITUDE_H

#include <math.h>
#include <stdint.h>

/* min(65535, R) for s < 2^32. */
static inline uint32_t sobel16_rounded_root(uint32_t s)
{
    const int32_t k0 = (int32_t)sqrtf((float)s); /* truncation: the floor, e >= 0 */
    const uint32_t k = (uint32_t)(k0 < 65535 ? k0 : 65535);
    const uint32_t rounded = k + (s > k * k + k);
    return rounded > 65535 ? 65535 : rounded;
}

static inline uint32_t sobel16_unit_magnitude(int32_t gx, int32_t gy)
{
    const uint32_t ax = (uint32_t)(gx < 0 ? -gx : gx), ay = (uint32_t)(gy < 0 ? -gy : gy);
    const uint32_t sx = ax * ax, s = sx + ay * ay;
    const int big = (ax | ay) > 65535 || s < sx;
    return big ? 65535 : sobel16_rounded_root(s);
}

#endif
