/* The 16-bit premultiplied blur's colour and alpha (gpuimg.h) from exact
 * vertical sums held in doubles, without 64-bit integers, so that
 * blur16.c's loops vectorize; tests/cpu/test_blur16_finish.c checks the
 * colour against the integer formula where the estimate is off by one
 * either way. */
#ifndef GI_BLUR16_FINISH_H
#define GI_BLUR16_FINISH_H

#include <math.h>

/* min(65535, floor((vc 2^16 + floor(va / 2)) / va)), 0 where va = 0, all
 * in doubles so that it vectorizes; inv_va is 1 / va (rounded; the caller
 * divides once for a pixel's colours). vc, va < 2^48 are exact; the
 * estimate e of the quotient Q is within 2^-35 of it (n = vc 2^16 +
 * floor(va / 2) rounds once, 1 / va once, the product once: a relative
 * error below 3.01 2^-53, times at most 65536 where e < 65536), so where e
 * < 65536, q = floor(e) is Q - 1, Q or Q + 1, and the exact remainder r =
 * n - q va says which: with va = vh + vl (vh its bits from 2^24 up), q vh
 * and q vl are exact (40 bits at most), vc 2^16 - q vh is an integer below
 * 2^50 (so exact), and so are the other terms. Where e >= 65536, Q >=
 * 65535 (within 2^-35), and the output is 65535 either way. */
static inline double blur16_finish_colour(double vc, double va, double inv_va)
{
    const double t = vc * 65536.0, hv = floor(va * 0.5);
    const double e = (t + hv) * inv_va;
    const double q = floor(e < 65536.0 ? e : 65536.0);
    const double vh = floor(va * 0x1p-24) * 0x1p24, vl = va - vh;
    const double r = (t - q * vh) + (hv - q * vl);
    const double exact = q + (r >= va ? 1.0 : 0.0) - (r < 0 ? 1.0 : 0.0);
    return va == 0 ? 0.0 : e >= 65536.0 || exact > 65535.0 ? 65535.0 : exact;
}

/* Alpha's output, (va + 2^31) >> 32, from its exact sum va < 2^48. */
static inline double blur16_finish_alpha(double va)
{
    return floor((va + 0x1p31) * 0x1p-32);
}

#endif
