/* How the arithmetic half turns the components of a JPEG into its output
 * (stb_image 2.27's load_jpeg_image): the colour conversion a file takes
 * and each component's upsampler. One decision for the CPU's row walk
 * (jpeg_reconstruct.c) and the GPU's kernels (kernels/jpeg_decode.cu), so
 * the two cannot pick differently. Plain C, included by CUDA code too. */
#ifndef GI_JPEG_RECON_PLAN_H
#define GI_JPEG_RECON_PLAN_H

#include "jpeg_coeffs.h"

typedef enum {
    GI_JPEG_GRAY,      /* component 0 as it is (gray files; Y of colour ones) */
    GI_JPEG_YCC,       /* stbi__YCbCr_to_RGB_row */
    GI_JPEG_RGB,       /* components as R, G, B */
    GI_JPEG_CMYK,      /* Adobe transform 0: each of C, M, Y times K */
    GI_JPEG_YCCK,      /* Adobe transform 2: YCbCr to RGB, inverted, times K */
    GI_JPEG_GRAY_RGB,  /* 1 channel: stb's luma of R, G, B */
    GI_JPEG_GRAY_CMYK, /* 1 channel: luma of the CMYK conversion */
    GI_JPEG_GRAY_YCCK, /* 1 channel: inverted Y times K */
} gi_jpeg_colour_mode;

/* stb's resamplers: 1x1 none, 1x2 v2, 2x1 h2, 2x2 hv2 ("fancy"), else
 * nearest (stbi__resample_row_generic). */
typedef enum {
    GI_JPEG_UP_NONE,
    GI_JPEG_UP_V2,
    GI_JPEG_UP_H2,
    GI_JPEG_UP_HV2,
    GI_JPEG_UP_NEAREST,
} gi_jpeg_upsampler;

gi_jpeg_colour_mode gi__jpeg_colour_mode(const gi_jpeg_coeffs *c);

/* Components the mode reads: the first 1, 3 or 4. */
int gi__jpeg_components_used(gi_jpeg_colour_mode mode);

/* hs = hmax / h, vs = vmax / v of one component. */
gi_jpeg_upsampler gi__jpeg_upsampler(int hs, int vs);

/* The component row beside row `near` that stb's 2x vertical filters read
 * for output row j (its ystep/ypos walk, followed through): the row above
 * for the first of the two output rows, the one below for the second,
 * clamped to the plane's `height` rows. */
static inline GI_JPEG_HOST_DEVICE int gi__jpeg_far_row(int j, int vs, int near, int height)
{
    int upper = ((vs >> 1) + j) % vs >= (vs >> 1);
    return upper ? (near > 0 ? near - 1 : 0) : (near + 1 < height ? near + 1 : near);
}

#endif
