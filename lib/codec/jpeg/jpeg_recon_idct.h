/* The constants of stb_image 2.27's IDCT (stbi__idct_simd, the one it runs
 * on x86-64) and of its colour conversion, for the scalar and the vector
 * kernels (jpeg_recon_kernels.h). */
#ifndef GI_JPEG_RECON_IDCT_H
#define GI_JPEG_RECON_IDCT_H

#include <stdint.h>

#include "jpeg_coeffs.h"

/* stb's fixed-point constants, with its roundings (stbi__f2f). */
#define JPEG_F2F(x) ((int)((x) * 4096 + 0.5))
#define JPEG_C054 JPEG_F2F(0.5411961f)
#define JPEG_CM185 JPEG_F2F(-1.847759065f)
#define JPEG_C077 JPEG_F2F(0.765366865f)
#define JPEG_C117 JPEG_F2F(1.175875602f)
#define JPEG_C030 JPEG_F2F(0.298631336f)
#define JPEG_C205 JPEG_F2F(2.053119869f)
#define JPEG_C307 JPEG_F2F(3.072711026f)
#define JPEG_C150 JPEG_F2F(1.501321110f)
#define JPEG_CM090 JPEG_F2F(-0.899976223f)
#define JPEG_CM256 JPEG_F2F(-2.562915447f)
#define JPEG_CM196 JPEG_F2F(-1.961570560f)
#define JPEG_CM039 JPEG_F2F(-0.390180644f)

/* The column pass keeps 2 more bits than the samples (>> 10, rounded);
 * the row pass removes the rest (>> 17) and adds 128 before the shift. */
#define JPEG_IDCT_BIAS_COLUMNS 512
#define JPEG_IDCT_BIAS_ROWS (65536 + (128 << 17))

/* stb's colour constants (stbi__float2fixed without its << 8, and the
 * same values its SIMD code uses), scaled by 4096. */
#define JPEG_YCC_FIX(x) ((int)((x) * 4096.0f + 0.5f))
#define JPEG_YCC_CR_R JPEG_YCC_FIX(1.40200f)
#define JPEG_YCC_CR_G JPEG_YCC_FIX(0.71414f)
#define JPEG_YCC_CB_G JPEG_YCC_FIX(0.34414f)
#define JPEG_YCC_CB_B JPEG_YCC_FIX(1.77200f)

/* ---- The IDCT's definition, shared by the scalar kernels and the GPU's ---- */

static inline GI_JPEG_HOST_DEVICE int16_t gi__jpeg_sat16(int32_t x)
{
    return (int16_t)(x < -32768 ? -32768 : x > 32767 ? 32767 : x);
}

/* One 1-D IDCT of s[0], s[step], ... s[7 step] into out[0 .. 7 ostep], as
 * stbi__idct_simd's dct_pass computes it: sums of two inputs in 16 bits,
 * wrapping (paddw), products and the rest in 32 bits, where no value
 * reaches 2^31 (|t0e| <= 2^27, each product pair < 2^15 * 2^14), each
 * output (x + bias +- y) >> shift saturated to 16 bits (packssdw). stb
 * multiplies each pair of inputs that shares products by a pair of
 * constants in one pmaddwd, with the constants summed in 16 bits (they
 * fit): t2e, t3e from inputs 2, 6; y0o, y2o from 7, 3; y1o, y3o from 5,
 * 1; y4o, y5o from the sums 1+7 and 3+5. */
static inline GI_JPEG_HOST_DEVICE void gi__jpeg_idct_1d(const int16_t *s, int step, int32_t bias,
                                                        int shift, int16_t *out, int ostep)
{
    int32_t s0 = s[0], s1 = s[step], s2 = s[2 * step], s3 = s[3 * step];
    int32_t s4 = s[4 * step], s5 = s[5 * step], s6 = s[6 * step], s7 = s[7 * step];
    int32_t t2e = s2 * JPEG_C054 + s6 * (JPEG_C054 + JPEG_CM185);
    int32_t t3e = s2 * (JPEG_C054 + JPEG_C077) + s6 * JPEG_C054;
    int32_t t0e = (int16_t)(uint16_t)(s0 + s4) * 4096, t1e = (int16_t)(uint16_t)(s0 - s4) * 4096;
    int32_t x0 = t0e + t3e + bias, x3 = t0e - t3e + bias;
    int32_t x1 = t1e + t2e + bias, x2 = t1e - t2e + bias;
    int32_t y0o = s7 * (JPEG_CM196 + JPEG_C030) + s3 * JPEG_CM196;
    int32_t y2o = s7 * JPEG_CM196 + s3 * (JPEG_CM196 + JPEG_C307);
    int32_t y1o = s5 * (JPEG_CM039 + JPEG_C205) + s1 * JPEG_CM039;
    int32_t y3o = s5 * JPEG_CM039 + s1 * (JPEG_CM039 + JPEG_C150);
    int32_t s17 = (int16_t)(uint16_t)(s1 + s7), s35 = (int16_t)(uint16_t)(s3 + s5);
    int32_t y4o = s17 * (JPEG_C117 + JPEG_CM090) + s35 * JPEG_C117;
    int32_t y5o = s17 * JPEG_C117 + s35 * (JPEG_C117 + JPEG_CM256);
    int32_t x4 = y0o + y4o, x5 = y1o + y5o, x6 = y2o + y5o, x7 = y3o + y4o;
    out[0] = gi__jpeg_sat16((x0 + x7) >> shift);
    out[7 * ostep] = gi__jpeg_sat16((x0 - x7) >> shift);
    out[ostep] = gi__jpeg_sat16((x1 + x6) >> shift);
    out[6 * ostep] = gi__jpeg_sat16((x1 - x6) >> shift);
    out[2 * ostep] = gi__jpeg_sat16((x2 + x5) >> shift);
    out[5 * ostep] = gi__jpeg_sat16((x2 - x5) >> shift);
    out[3 * ostep] = gi__jpeg_sat16((x3 + x4) >> shift);
    out[4 * ostep] = gi__jpeg_sat16((x3 - x4) >> shift);
}

#endif
