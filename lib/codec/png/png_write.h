/* The PNG writer: stb_image_write 1.16's files (stbi_write_png_to_func),
 * byte for byte, with the rows filtered by vectorized code
 * (png_filter.h) and the deflate on several threads (zlib_pieces.h).
 *
 * A file is the signature, IHDR (8- or 16-bit gray, gray+alpha, RGB or
 * RGBA; stb writes only 8 bits, and 16 bits follow the same rules),
 * one IDAT holding the zlib stream of the filtered rows and IEND, as stb
 * writes them. The zlib stream is libdeflate's in pieces where the
 * library has libdeflate (whose bytes stb's writer also gets, through
 * its compression hook in stb_impl.c), stb's own deflate elsewhere. */
#ifndef GI_PNG_WRITE_H
#define GI_PNG_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* Encodes width x height pixels of channels samples (1-4) of depth bits
 * (8, or 16: uint16_t in the machine's byte order), rows stride bytes apart, at deflate level `level` (1-12) with filter `filter` (stb's
 * numbering: 0-4 for that filter on every row, -1 for stb's per-row
 * choice). The deflate runs on up to `threads` threads (below 2: the
 * calling thread alone); the bytes are the same for every count. Returns
 * 0 and a malloc'ed file in *bytes, or -1 (out of memory, or an image too
 * large for one IDAT chunk). */
int gi__png_write(const uint8_t *pixels, int width, int height, int channels, int depth,
                  size_t stride, int level, int filter, int threads, uint8_t **bytes,
                  size_t *size);

#endif
