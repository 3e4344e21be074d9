/* The arithmetic kernels' definition (jpeg_recon_kernels.h): plain C, one
 * sample at a time, in stb_image 2.27's terms. The vector set must give
 * these bytes; a GPU port mirrors these functions. */
#include "jpeg_recon_kernels.h"
#include "jpeg_recon_idct.h"

/* ---- Dequantization and IDCT (stbi__idct_simd's arithmetic) ---- */

static void idct_block(const int16_t *coeffs, const uint16_t quant[64], uint8_t *out,
                       size_t stride)
{
    int16_t d[64], cols[64], rows[64];
    for (int k = 0; k < 64; k++) d[k] = (int16_t)(coeffs[k] * quant[k]);
    for (int x = 0; x < 8; x++) gi__jpeg_idct_1d(d + x, 8, JPEG_IDCT_BIAS_COLUMNS, 10, cols + x, 8);
    for (int y = 0; y < 8; y++) gi__jpeg_idct_1d(cols + 8 * y, 1, JPEG_IDCT_BIAS_ROWS, 17, rows + 8 * y, 1);
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
