/* What a file is, from its first bytes, before stb sees it. */
#ifndef GI_FORMAT_SNIFF_H
#define GI_FORMAT_SNIFF_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* GI_FORMAT_PNG, GI_FORMAT_JPEG, GI_FORMAT_PNM (any Netpbm, PAM too) or
 * GI_FORMAT_TIFF (BigTIFF too) by signature, else GI_FORMAT_AUTO. */
gi_format gi__sniff_format(const uint8_t *bytes, size_t size);

/* Reads a PNG's IHDR size and whether a tRNS chunk (transparency that stb
 * turns into an alpha channel) comes before the image data. Returns 0, or
 * -1 when the chunks before IDAT cannot be walked. */
int gi__png_header(const uint8_t *bytes, size_t size, uint32_t *w, uint32_t *h, int *has_trns);

/* 0, or -1 when a PNG chunk claims more bytes than the file holds, -2
 * when the file ends before IEND's length and type (cut at a chunk's
 * end or inside a chunk's header). stb 2.27 grows its buffer to the
 * claimed IDAT length before reading, so a 1 KB file could make it
 * allocate gigabytes; and it reads a missing chunk as one of type 0,
 * which it refuses as "PNG not supported: unknown PNG chunk type", a
 * reason that hides a cut download. */
int gi__png_chunks_fit(const uint8_t *bytes, size_t size);

/* 0, or -1 with the reason in why when the JPEG defines a Huffman table
 * that stb 2.27 would index past its arrays with (more than 256 symbols, a
 * DC symbol over 15), or has a scan that uses an undefined Huffman table
 * or a component whose quantization table is not defined ("quantization
 * table N not defined", as djpeg says: stb would read memory it never set,
 * in a batch the previous file's tables). The segments and scans are
 * walked as stb walks them, so every table stb builds or uses is checked. */
int gi__jpeg_check_tables(const uint8_t *bytes, size_t size, char *why, size_t why_size);

/* 1 when the JPEG ends before its end-of-image marker (EOI), walked as
 * stb walks it: stb refuses such a file, cut short on the way, with no
 * more than "Corrupt JPEG". Else 0. */
int gi__jpeg_cut_before_eoi(const uint8_t *bytes, size_t size);

/* 1 with a line in note when a scan's entropy-coded data is shorter than
 * the fewest bytes its blocks can be coded in (2 bits a block): the file
 * ends, or the next marker comes, long before the image does, and stb
 * decodes the rest from zeros, as libjpeg does after its warning
 * "Premature end of JPEG file". Else 0. */
int gi__jpeg_data_short(const uint8_t *bytes, size_t size, char *note, size_t note_size);

/* stbi_zlib_compress: stb's own deflate (png_write.c's, in a library
 * without libdeflate), from the pixel allocator; NULL past INT_MAX bytes. */
uint8_t *gi__stb_zlib_compress(const uint8_t *data, size_t size, int level, size_t *out_size);

/* The decoder stb would pick, asked alone, so that its failure reason is
 * about this file (see stb_impl.c). Pixels come from pixel_alloc.c, at
 * the file's depth: *depth is 16 for a 16-bit PNG (uint16_t samples in the
 * machine's byte order), else 8. */
int gi__stb_info_as(const void *bytes, int size, gi_format format, int *w, int *h, int *comp);
uint8_t *gi__stb_load_as(const void *bytes, int size, gi_format format, int *w, int *h,
                         int req_comp, int *depth);

/* stb reads no checksum of a PNG, so a PNG it decodes has its image data
 * inflated and checked first (stb_impl.c says how): GI__PNG_DATA_OK with
 * *out the copy of the file to give stb instead (from the pixel allocator;
 * NULL where stb is to read the file as it is: a file stb refuses whatever
 * its data, one whose data has no checksum, a CgBI file), BAD when the
 * Adler-32 does not match the inflated data, CUT when the stream ends
 * before its Adler-32, NO_MEMORY. */
typedef enum {
    GI__PNG_DATA_OK,
    GI__PNG_DATA_BAD,
    GI__PNG_DATA_CUT,
    GI__PNG_DATA_NO_MEMORY
} gi__png_data;
gi__png_data gi__stb_png_check_data(const uint8_t *bytes, size_t size, uint8_t **out,
                                    size_t *out_size);

#endif
