/* The arithmetic of stb_image 2.27's IDCT on x86-64 (stbi__idct_simd) and
 * of its colour conversion, written once for the scalar and the vector
 * kernels (jpeg_recon_kernels.h). */
#ifndef GI_JPEG_RECON_IDCT_H
#define GI_JPEG_RECON_IDCT_H

#include <stdint.h>

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

/* One 1-D IDCT of eight 16-bit inputs s0..s7 into o0..o7, as
 * stbi__idct_simd's dct_pass computes it: sums of two inputs in 16 bits
 * (wrapping: ADD16), products and the rest in 32 bits (T, from W(s)),
 * each output (x + bias +- y) >> shift put through SAT (stb saturates to
 * 16 bits; the row pass's final clamp to 0..255 may stand in for both).
 * The 32-bit values stay below 2^31 in magnitude for any input: |t0e| <=
 * 2^27, each product pair < 2^15 * 2^14.
 *
 * Each pair of products is one pmaddwd in stb, with the constants summed
 * in 16 bits (they fit): t2e, t3e from rows 2, 6; y0o, y2o from 7, 3;
 * y1o, y3o from 5, 1; y4o, y5o from the sums 1+7 and 3+5. */
#define jpeg_idct_lanes(T, W, ADD16, SUB16, SAT, s0, s1, s2, s3, s4, s5, s6, s7, bias, shift,  \
                        o0, o1, o2, o3, o4, o5, o6, o7)                                         \
    do {                                                                                        \
        T t2e_ = W(s2) * JPEG_C054 + W(s6) * (JPEG_C054 + JPEG_CM185);                          \
        T t3e_ = W(s2) * (JPEG_C054 + JPEG_C077) + W(s6) * JPEG_C054;                           \
        T t0e_ = W(ADD16(s0, s4)) * 4096, t1e_ = W(SUB16(s0, s4)) * 4096;                       \
        T x0_ = t0e_ + t3e_ + (bias), x3_ = t0e_ - t3e_ + (bias);                               \
        T x1_ = t1e_ + t2e_ + (bias), x2_ = t1e_ - t2e_ + (bias);                               \
        T y0o_ = W(s7) * (JPEG_CM196 + JPEG_C030) + W(s3) * JPEG_CM196;                         \
        T y2o_ = W(s7) * JPEG_CM196 + W(s3) * (JPEG_CM196 + JPEG_C307);                         \
        T y1o_ = W(s5) * (JPEG_CM039 + JPEG_C205) + W(s1) * JPEG_CM039;                         \
        T y3o_ = W(s5) * JPEG_CM039 + W(s1) * (JPEG_CM039 + JPEG_C150);                         \
        T s17_ = W(ADD16(s1, s7)), s35_ = W(ADD16(s3, s5));                                     \
        T y4o_ = s17_ * (JPEG_C117 + JPEG_CM090) + s35_ * JPEG_C117;                            \
        T y5o_ = s17_ * JPEG_C117 + s35_ * (JPEG_C117 + JPEG_CM256);                            \
        T x4_ = y0o_ + y4o_, x5_ = y1o_ + y5o_, x6_ = y2o_ + y5o_, x7_ = y3o_ + y4o_;           \
        o0 = SAT((x0_ + x7_) >> (shift));                                                       \
        o7 = SAT((x0_ - x7_) >> (shift));                                                       \
        o1 = SAT((x1_ + x6_) >> (shift));                                                       \
        o6 = SAT((x1_ - x6_) >> (shift));                                                       \
        o2 = SAT((x2_ + x5_) >> (shift));                                                       \
        o5 = SAT((x2_ - x5_) >> (shift));                                                       \
        o3 = SAT((x3_ + x4_) >> (shift));                                                       \
        o4 = SAT((x3_ - x4_) >> (shift));                                                       \
    } while (0)

/* stb's colour constants (stbi__float2fixed without its << 8, and the
 * same values its SIMD code uses), scaled by 4096. */
#define JPEG_YCC_FIX(x) ((int)((x) * 4096.0f + 0.5f))
#define JPEG_YCC_CR_R JPEG_YCC_FIX(1.40200f)
#define JPEG_YCC_CR_G JPEG_YCC_FIX(0.71414f)
#define JPEG_YCC_CB_G JPEG_YCC_FIX(0.34414f)
#define JPEG_YCC_CB_B JPEG_YCC_FIX(1.77200f)

#endif
