/* The fast PNG decoder: libdeflate's inflate and vector unfiltering for the
 * common PNG, everything else left to stb. */
#ifndef GPUIMG_PNG_FAST_H
#define GPUIMG_PNG_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* Decodes the PNG in bytes into img and returns 1, or returns 0 and leaves
 * img alone: the file is not one this decoder takes, or it is damaged in
 * any way, and stb decides (decodes it, or refuses it with its reason).
 * What it decodes it decodes to stb's very bytes and channel count: 8-bit,
 * not interlaced, gray, gray+alpha, RGB, RGBA, or a palette (with or
 * without tRNS, as RGB or RGBA; an index past the palette is opaque
 * black, png_palette.h). The
 * caller has checked the header's size against its limits. Without
 * libdeflate it always returns 0. */
int gi__png_fast_load(gi_image *img, const uint8_t *bytes, size_t size);

#endif
