/* The chunks' CRCs, checked before any decoder sees a PNG: stb 2.27 reads
 * none of them (nor the image data's Adler-32, which stb_impl.c checks),
 * so a file damaged on a disk or on the way decoded to wrong pixels
 * without a word. A critical chunk (IHDR, PLTE, IDAT, IEND, or any other
 * whose type starts with a capital) that fails its CRC refuses the file,
 * as libpng refuses it. An ancillary one is dropped, as libpng drops it by
 * default, and the image decodes without it: of those, only tRNS changes
 * the pixels; the metadata reader drops the ones it reads itself
 * (metadata_read.c). */
#ifndef GPUIMG_PNG_CHECK_H
#define GPUIMG_PNG_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Checks the CRC of each chunk from IHDR to IEND. Returns 0 when every
 * critical chunk's matches, with *damaged the number of ancillary chunks
 * whose does not; -1 with the first critical chunk that fails in why
 * ("chunk IDAT at byte 33 fails its CRC"). The walk stops at a chunk that
 * runs past the end of the file, or whose CRC does: the caller has refused
 * the first (gi__png_chunks_fit), and the second can only be the last
 * chunk, where a decoder refuses a file without IEND and decodes one cut
 * inside IEND's CRC, whose image data is whole. */
int gi__png_check_crcs(const uint8_t *bytes, size_t size, int *damaged, char *why,
                       size_t why_size);

/* A copy of the PNG without its ancillary chunks that fail their CRC
 * (malloc'ed, in *out, *out_size bytes), for the decoders. Returns 0, or
 * -1 without memory. */
int gi__png_drop_damaged(const uint8_t *bytes, size_t size, uint8_t **out, size_t *out_size);

#endif
