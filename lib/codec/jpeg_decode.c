/* The exact JPEG decoder's two halves in a row (jpeg_decode.h). */
#include "jpeg_decode.h"

#include "jpeg_parse.h"
#include "jpeg_reconstruct.h"
#include "pixel_alloc.h"

int gi__jpeg_image_from_coeffs(gi_image *img, const gi_jpeg_coeffs *c, int threads)
{
    size_t stride = (size_t)c->width * (size_t)c->out_channels;
    uint8_t *pixels = gi__pixels_alloc(stride * (size_t)c->height);
    if (!pixels || gi__jpeg_reconstruct(c, pixels, stride, threads) != 0) {
        gi__pixels_free(pixels);
        return 0;
    }
    img->width = c->width;
    img->height = c->height;
    img->channels = c->out_channels;
    img->stride = stride;
    img->data = pixels;
    img->owns_data = 1;
    return 1;
}

int gi__jpeg_decode(gi_image *img, const uint8_t *bytes, size_t size, uint64_t max_pixels,
                    int threads)
{
    gi_jpeg_coeffs c;
    if (gi__jpeg_read_coeffs(bytes, size, max_pixels, threads, &c) != GI_JPEG_OK) return 0;
    int ok = gi__jpeg_image_from_coeffs(img, &c, threads);
    gi__jpeg_coeffs_free(&c);
    return ok;
}
