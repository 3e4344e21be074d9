/* The constants of stb_image 2.27's IDCT (stbi__idct_simd, the one it runs
 * on x86-64) and of its colour conversion, for the scalar and the vector
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

/* stb's colour constants (stbi__float2fixed without its << 8, and the
 * same values its SIMD code uses), scaled by 4096. */
#define JPEG_YCC_FIX(x) ((int)((x) * 4096.0f + 0.5f))
#define JPEG_YCC_CR_R JPEG_YCC_FIX(1.40200f)
#define JPEG_YCC_CR_G JPEG_YCC_FIX(0.71414f)
#define JPEG_YCC_CB_G JPEG_YCC_FIX(0.34414f)
#define JPEG_YCC_CB_B JPEG_YCC_FIX(1.77200f)

#endif
