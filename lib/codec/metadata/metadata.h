/* What the metadata files share: the Exif walk, zlib through stb, and
 * big-endian byte access. See gpuimg.h's METADATA section. */
#ifndef GI_METADATA_H
#define GI_METADATA_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"
#include "base/byte_order.h"

/* Checks the Exif (TIFF) bytes as gpuimg.h describes. Returns 0 and sets
 * *orientation_at to the offset of IFD0's Orientation value (SIZE_MAX when
 * there is none), or -1 and sets *why to a phrase. */
int gi__exif_check(const uint8_t *exif, size_t size, size_t *orientation_at, const char **why);
/* The 16-bit value at `at` in the Exif's byte order. */
uint16_t gi__exif_u16(const uint8_t *exif, size_t at);
void gi__exif_put_u16(uint8_t *exif, size_t at, uint16_t value);
/* An Exif of IFD0 holding the Orientation tag alone (a TIFF's own tag,
 * carried into a PNG or JPEG): malloc'ed, its size in *size; NULL when out
 * of memory. */
uint8_t *gi__exif_of_orientation(int orientation, size_t *size);
/* 1 when the Exif is that form (IFD0 of the Orientation alone, no next
 * IFD): a TIFF's own tag holds all of it. */
int gi__exif_is_orientation_alone(const uint8_t *exif, size_t size);

/* zlib through stb (stb_impl.c). Inflate: 0 with a malloc'ed *out of at
 * most max_out bytes, or -1 for a damaged stream or a larger output.
 * Deflate: 0 with a malloc'ed *out, or -1 when out of memory. */
int gi__zlib_inflate(const uint8_t *in, size_t size, size_t max_out, uint8_t **out,
                     size_t *out_size);
int gi__zlib_deflate(const uint8_t *in, size_t size, uint8_t **out, size_t *out_size);


#endif
