/* A PNG's image data as stb takes it, once stb_impl.c has inflated it and
 * checked its Adler-32 (stb 2.27 checks no checksum, and inflates and
 * unfilters in one call, so the check has to come first; stb_impl.c says
 * how): the zlib stream stb inflates, the bytes stb keeps of what it
 * inflates, and a copy of the file with that data in stored deflate
 * blocks, which stb copies instead of inflating it again. */
#ifndef GPUIMG_PNG_STORED_H
#define GPUIMG_PNG_STORED_H

#include <stddef.h>
#include <stdint.h>

/* The zlib stream of the image data: the data of the IDAT chunks up to
 * IEND, joined, as stb joins them. Returns 0 with *stream (n bytes) inside
 * bytes where there is one IDAT, else in *joined (from the pixel
 * allocator; the caller frees it); 1 where there is no stream with a
 * checksum to check: no IDAT, no IEND after chunks that lie inside the
 * file (stb refuses both), or a CgBI chunk (Apple's PNG: raw deflate
 * without zlib's header and checksum, which stb reads); -1 without
 * memory. */
int gi__png_idat_stream(const uint8_t *bytes, size_t size, const uint8_t **stream, size_t *n,
                        uint8_t **joined);

/* The bytes stb reads of the inflated data: each Adam7 pass's filtered
 * rows (or the image's), 1 + the row's bytes a row, as
 * stbi__create_png_image counts them; the rest it ignores. 0 where IHDR is
 * not first or not one stb takes (stb refuses the file first). Under 2^51:
 * sides over 2^24 are not taken. */
uint64_t gi__png_filtered_size(const uint8_t *bytes, size_t size);

/* A copy of the PNG whose first IDAT holds `data` (n bytes) as a zlib
 * stream of stored blocks and whose later IDATs are empty, every other
 * chunk where it was: stb meets the chunks it meets in the file, and
 * makes the same checks at each IDAT. Stored blocks because stb copies
 * them. The new chunks' CRCs and checksum are not computed: stb reads
 * neither, and the copy goes nowhere but to stb. Returns the copy (from
 * the pixel allocator) of *out_size bytes; NULL without memory, or when it
 * would be over INT_MAX bytes (stb counts in int). */
uint8_t *gi__png_with_stored_data(const uint8_t *bytes, size_t size, const uint8_t *data,
                                  size_t n, size_t *out_size);

#endif
