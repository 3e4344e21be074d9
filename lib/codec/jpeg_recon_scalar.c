/* The arithmetic kernels' definition (jpeg_recon_kernels.h): plain C, one
 * sample at a time, in stb_image 2.27's terms. The vector set must give
 * these bytes; a GPU port mirrors these functions. */
#include "jpeg_recon_kernels.h"
#include "jpeg_recon_idct.h"

/* ---- Dequantization and IDCT (stbi__idct_simd's arithmetic) ---- */

static int16_t sat16(int32_t x)
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
static void idct_1d(const int16_t *s, int step, int32_t bias, int shift, int16_t *out, int ostep)
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
    out[0] = sat16((x0 + x7) >> shift);
    out[7 * ostep] = sat16((x0 - x7) >> shift);
    out[ostep] = sat16((x1 + x6) >> shift);
    out[6 * ostep] = sat16((x1 - x6) >> shift);
    out[2 * ostep] = sat16((x2 + x5) >> shift);
    out[5 * ostep] = sat16((x2 - x5) >> shift);
    out[3 * ostep] = sat16((x3 + x4) >> shift);
    out[4 * ostep] = sat16((x3 - x4) >> shift);
}

static void idct_block(const int16_t *coeffs, const uint16_t quant[64], uint8_t *out,
                       size_t stride)
{
    int16_t d[64], cols[64], rows[64];
    for (int k = 0; k < 64; k++) d[k] = (int16_t)(coeffs[k] * quant[k]);
    for (int x = 0; x < 8; x++) idct_1d(d + x, 8, JPEG_IDCT_BIAS_COLUMNS, 10, cols + x, 8);
    for (int y = 0; y < 8; y++) idct_1d(cols + 8 * y, 1, JPEG_IDCT_BIAS_ROWS, 17, rows + 8 * y, 1);
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            int v = rows[8 * y + x];
            out[y * stride + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
}

static void idct_blocks(const int16_t *coeffs, int n, const uint16_t quant[64], uint8_t *out,
                        size_t stride)
{
    for (int b = 0; b < n; b++) idct_block(coeffs + 64 * b, quant, out + 8 * b, stride);
}

/* ---- Upsampling ---- */

static void upsample_v2(uint8_t *out, const uint8_t *near, const uint8_t *far, int w)
{
    for (int i = 0; i < w; i++) out[i] = (uint8_t)((3 * near[i] + far[i] + 2) >> 2);
}

/* stb's last pair weighs in[w - 2] by 3 on the even side, where the
 * middle weighs the nearer sample: kept, it is stb's output. */
static void upsample_h2(uint8_t *out, const uint8_t *in, int w)
{
    if (w == 1) {
        out[0] = out[1] = in[0];
        return;
    }
    out[0] = in[0];
    out[1] = (uint8_t)((3 * in[0] + in[1] + 2) >> 2);
    for (int i = 1; i < w - 1; i++) {
        int n = 3 * in[i] + 2;
        out[2 * i] = (uint8_t)((n + in[i - 1]) >> 2);
        out[2 * i + 1] = (uint8_t)((n + in[i + 1]) >> 2);
    }
    out[2 * w - 2] = (uint8_t)((3 * in[w - 2] + in[w - 1] + 2) >> 2);
    out[2 * w - 1] = in[w - 1];
}

static void upsample_hv2(uint8_t *out, const uint8_t *near, const uint8_t *far, int w)
{
    int t1 = 3 * near[0] + far[0];
    if (w == 1) {
        out[0] = out[1] = (uint8_t)((t1 + 2) >> 2);
        return;
    }
    out[0] = (uint8_t)((t1 + 2) >> 2);
    for (int i = 1; i < w; i++) {
        int t0 = t1;
        t1 = 3 * near[i] + far[i];
        out[2 * i - 1] = (uint8_t)((3 * t0 + t1 + 8) >> 4);
        out[2 * i] = (uint8_t)((3 * t1 + t0 + 8) >> 4);
    }
    out[2 * w - 1] = (uint8_t)((t1 + 2) >> 2);
}

/* ---- Colour ---- */

/* stb computes in units of 2^-20 with constants shifted left 8 bits, all
 * multiples of 2^8: the same sums divided by 2^8 here. Its Cb term of G
 * keeps only bits 16 and up (bits 8 and up here), as its SIMD code does. */
static void ycc_to_rgb(uint8_t *out, const uint8_t *y, const uint8_t *cb, const uint8_t *cr,
                       int count)
{
    for (int i = 0; i < count; i++, out += 3) {
        int y_fixed = (y[i] << 12) + (1 << 11);
        int vr = cr[i] - 128, vb = cb[i] - 128;
        int r = (y_fixed + vr * JPEG_YCC_CR_R) >> 12;
        int g = (y_fixed - vr * JPEG_YCC_CR_G + ((vb * -JPEG_YCC_CB_G) & ~0xff)) >> 12;
        int b = (y_fixed + vb * JPEG_YCC_CB_B) >> 12;
        out[0] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        out[1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
        out[2] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
    }
}

const jpeg_recon_kernels gi__jpeg_recon_generic = {
    .name = "generic",
    .idct_blocks = idct_blocks,
    .upsample_v2 = upsample_v2,
    .upsample_h2 = upsample_h2,
    .upsample_hv2 = upsample_hv2,
    .ycc_to_rgb = ycc_to_rgb,
};
