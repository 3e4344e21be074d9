/* The exact JPEG decoder: the entropy half (jpeg_parse.h) then the
 * arithmetic half (jpeg_reconstruct.h), giving stb_image 2.27's pixels as
 * gpuimg asks stb for them (3 channels for colour, 1 for gray). */
#ifndef GI_JPEG_DECODE_H
#define GI_JPEG_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* Decodes into *img (pixels from pixel_alloc.c, owned) and returns 1; or
 * returns 0 with *img untouched when the file is one to leave to stb (see
 * jpeg_parse.h; images over max_pixels too) or memory ran out, so that
 * stb decodes or refuses it with its own reason. Up to `threads` threads:
 * restart intervals in the entropy half, bands of rows in the arithmetic
 * half. */
int gi__jpeg_decode(gi_image *img, const uint8_t *bytes, size_t size, uint64_t max_pixels,
                    int threads);

#endif
