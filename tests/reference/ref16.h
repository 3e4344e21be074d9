/* ref16.h - 16-bit images for the reference tests, and two independent
 * evaluations of blur, sobel and convolve at 16 bits for each of them:
 *
 *   ref16_*_exact   float64, the direct 2D sums of the unrounded filter
 *                   (what gpuimg.h's results are within 1 of);
 *   ref16_*_defined gpuimg.h's 16-bit integer definition, written as
 *                   plainly as it reads, scalar, per sample: the bytes the
 *                   library must give, exactly.
 *
 * Written from gpuimg.h, not from the library's code. */
#ifndef TESTS_REF16_H
#define TESTS_REF16_H

#include <gpuimg.h>

/* Random row padding filled with TI_SENTINEL, as testimg.h's images. */
gi_image r16_blank(int width, int height, int channels);
/* Samples: a quarter 0, a quarter 65535, the rest anything; full: all
 * 65535 (the sums' largest values). */
gi_image r16_random(int width, int height, int channels, int full);
void r16_free(gi_image *img);
int r16_padding_intact(const gi_image *img);
static inline uint16_t *r16_px(const gi_image *img, int x, int y)
{
    return (uint16_t *)(img->data + (size_t)y * img->stride) + (size_t)x * img->channels;
}
/* 1 when both have the same samples; else 0 and the first difference. */
int r16_same(const gi_image *a, const gi_image *b, char *why, size_t size);

/* Packed like ref_blur: width * height * channels doubles. */
void ref16_blur_exact(const gi_image *src, const int32_t *weights, int radius, gi_border border,
                      double *out);
void ref16_blur_defined(const gi_image *src, const int32_t *weights, int radius, gi_border border,
                        gi_image *dst);

/* Both the formula of gpuimg.h; dst: gi_sobel_size's shape. */
void ref16_sobel(const gi_image *src, const gi_sobel_params *p, gi_image *dst);

/* The correlation with mask (mh rows of mw) in double, unrounded; and the
 * definition from gi_convolve_quantize_depth's q and S in 64-bit integers. */
void ref16_convolve_exact(const gi_image *src, const double *mask, int mw, int mh,
                          gi_border border, double *out);
void ref16_convolve_defined(const gi_image *src, const gi_convolve_weights *w, gi_border border,
                            gi_image *dst);

#endif
