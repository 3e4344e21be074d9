/* The exact JPEG decoder's arithmetic half: quantized coefficients
 * (jpeg_coeffs.h) to stb_image 2.27's very pixels. Dequantization in 16
 * bits, stb's integer IDCT, its chroma upsamplers (the "fancy" 2x
 * filters, nearest for other factors), its fixed-point YCbCr to RGB, and
 * its handling of RGB (component ids R, G, B, or Adobe transform 0
 * without JFIF), CMYK (Adobe 0) and YCCK (Adobe 2) files, and of one
 * channel from colour (its luma for RGB and CMYK; the Y plane otherwise).
 *
 * The work goes by rows of MCUs: each output row is a function of the
 * coefficient rows around it alone, so bands of MCU rows run on threads
 * (or, later, as GPU blocks) independently. */
#ifndef GI_JPEG_RECONSTRUCT_H
#define GI_JPEG_RECONSTRUCT_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_coeffs.h"

/* Writes c->width x c->height pixels of c->out_channels (1 or 3) bytes,
 * rows stride bytes apart, on up to `threads` threads (bands of MCU
 * rows). Returns 0, or -1 when out of memory. */
int gi__jpeg_reconstruct(const gi_jpeg_coeffs *c, uint8_t *pixels, size_t stride, int threads);

#endif
