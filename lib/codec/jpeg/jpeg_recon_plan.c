/* jpeg_recon_plan.h: the choices stb_image 2.27's load_jpeg_image makes. */
#include "jpeg_recon_plan.h"

gi_jpeg_colour_mode gi__jpeg_colour_mode(const gi_jpeg_coeffs *c)
{
    static const int rgb_ids[3] = {'R', 'G', 'B'};
    int rgb = 0;
    for (int i = 0; i < 3 && c->ncomp == 3; i++) rgb += c->plane[i].id == rgb_ids[i];
    int is_rgb = c->ncomp == 3 && (rgb == 3 || (c->adobe_transform == 0 && !c->jfif));
    if (c->out_channels == 1) {
        if (is_rgb) return GI_JPEG_GRAY_RGB;
        if (c->ncomp == 4 && c->adobe_transform == 0) return GI_JPEG_GRAY_CMYK;
        if (c->ncomp == 4 && c->adobe_transform == 2) return GI_JPEG_GRAY_YCCK;
        return GI_JPEG_GRAY;
    }
    if (c->ncomp == 1) return GI_JPEG_GRAY;
    if (is_rgb) return GI_JPEG_RGB;
    if (c->ncomp == 4 && c->adobe_transform == 0) return GI_JPEG_CMYK;
    if (c->ncomp == 4 && c->adobe_transform == 2) return GI_JPEG_YCCK;
    return GI_JPEG_YCC;
}

int gi__jpeg_components_used(gi_jpeg_colour_mode mode)
{
    switch (mode) {
    case GI_JPEG_GRAY: return 1;
    case GI_JPEG_YCC:
    case GI_JPEG_RGB:
    case GI_JPEG_GRAY_RGB: return 3;
    default: return 4;
    }
}

gi_jpeg_upsampler gi__jpeg_upsampler(int hs, int vs)
{
    if (hs == 1 && vs == 1) return GI_JPEG_UP_NONE;
    if (hs == 1 && vs == 2) return GI_JPEG_UP_V2;
    if (hs == 2 && vs == 1) return GI_JPEG_UP_H2;
    if (hs == 2 && vs == 2) return GI_JPEG_UP_HV2;
    return GI_JPEG_UP_NEAREST;
}
