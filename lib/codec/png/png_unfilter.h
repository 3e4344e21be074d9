/* Undoing PNG's row filters (PNG spec, section 9) for 8-bit samples, in
 * place in the inflated image data. */
#ifndef GPUIMG_PNG_UNFILTER_H
#define GPUIMG_PNG_UNFILTER_H

#include <stddef.h>
#include <stdint.h>

/* buf holds `rows` filtered rows of 1 + row_bytes bytes each (the filter
 * type, then the row), as inflated from IDAT; bpp is the bytes per pixel,
 * 1 to 4. On return its first rows * row_bytes bytes are the pixels, rows
 * packed. The first row reads a row of zeros above it, as the spec says.
 * Returns 0, or -1 at a filter type over 4 or out of memory (buf is then
 * partly undone). */
int gi__png_unfilter(uint8_t *buf, size_t row_bytes, uint32_t rows, int bpp);

#endif
