/* The sobel kernel's magnitude rules (gpuimg.h, sobel): the CPU's double
 * rule, and the default magnitude's fast forms at 8 and 16 bits, which
 * tests/gpu/sobel_edge_gpu.cu checks on the device for every pair of
 * gradients the kernel can form. */
#ifndef GI_SOBEL_EDGE_CUH
#define GI_SOBEL_EDGE_CUH

#include <stdint.h>

template <typename T> constexpr uint32_t SOBEL_MAX = sizeof(T) == 1 ? 255u : 65535u;

struct edge_rule {
    double scale;
    double threshold;
    int use_threshold;
};

/* The CPU's rule, operation for operation; s = gx^2 + gy^2, exact. */
template <typename T> __device__ __forceinline__ uint32_t edge_exact(double s, const edge_rule &e)
{
    const double m = __dmul_rn(e.scale, __dsqrt_rn(s));
    if (e.use_threshold) return m >= e.threshold ? SOBEL_MAX<T> : 0;
    const double rounded = floor(__dadd_rn(m, 0.5));
    return rounded >= (double)SOBEL_MAX<T> ? SOBEL_MAX<T> : (uint32_t)rounded;
}

/* 8 bits, scale 1, no threshold: min(255, round(sqrt(s))) without double
 * arithmetic. For s = gx^2 + gy^2 <= 64770, sqrt(s) is at least 0.25 / 509
 * ~ 4.9e-4 away from any k + 0.5 (|s - (k + 0.5)^2| >= 0.25), while
 * sqrt.approx.f32 is off by at most ~255 * 2^-20 ~ 2.4e-4, so rounding the
 * approximation to nearest gives the CPU's floor(sqrt(s) + 0.5); for
 * larger s both give 255 (sqrt >= 254.5005). */
__device__ __forceinline__ uint32_t edge_fast(float s)
{
    float m;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(m) : "f"(s));
    /* adding 1.5 * 2^23 rounds to an integer in the low mantissa bits: the
     * result's low byte (the caller reads only that) */
    return __float_as_uint(__fadd_rn(fminf(m, 255.f), 12582912.f));
}

/* 16 bits, scale 1, no threshold: min(65535, R), R the correctly rounded
 * root of s = gx^2 + gy^2, with one MUFU instruction (the XU pipe, 8
 * cycles a warp) and 32-bit integers. The estimate e is sqrt.approx of s
 * formed in floats (a product and a fused multiply-add): s within 2^-23,
 * relative, the root within 2^-20 more (edge_fast's bound), so e is within
 * 0.07 of the exact root where e < 65536. With k = floor(e): where k >=
 * 65536 the exact root passes 65535.9, and the output is 65535; else the
 * root lies within 0.07 of [k, k + 1), and R = k + (s > k^2 + k), as the
 * CPU's sobel16_unit_magnitude finds it (lib/cpu/sobel16_magnitude.h says
 * why; test_sobel_steps.c checks it at every rounding boundary). There
 * k^2 + k - s lies within 1.2 (k + 1) of 0, so its value modulo 2^32 read
 * as a signed integer is exact, whether or not s passes 32 bits or |gx| or
 * |gy| pass 65535 (the CPU tests those apart), and its sign bit is the 1
 * to add (one LEA.HI; the difference's other sign, or a compare, cost a
 * negation and a select more). |gx| and |gy| (< 2^18, exact floats)
 * become integers in the low mantissa bits of 2^23 + |g|, and k in those
 * of 2^23 + e added rounding down. */
__device__ __forceinline__ uint32_t edge_fast16(float gx, float gy)
{
    const uint32_t ax = __float_as_uint(__fadd_rn(fabsf(gx), 8388608.f)) - 0x4B000000u;
    const uint32_t ay = __float_as_uint(__fadd_rn(fabsf(gy), 8388608.f)) - 0x4B000000u;
    float m;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(m) : "f"(__fmaf_rn(gx, gx, __fmul_rn(gy, gy))));
    const uint32_t k = __float_as_uint(__fadd_rd(m, 8388608.f)) - 0x4B000000u;
    const uint32_t below = k * k + k - (ax * ax + ay * ay); /* negative where s > k^2 + k: above */
    return min(k + (below >> 31), 65535u);
}

#endif
