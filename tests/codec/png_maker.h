/* png_maker.h - PNG files written byte by byte for the decoders' tests:
 * every colour type, 8 and 16 bits, every filter or a random one a row,
 * Adam7, the image data over several IDATs with ancillary chunks between
 * (a tEXt before the data, a tIME after the first IDAT), streams of more
 * or fewer rows than the header says, compressed or stored; and the
 * chunks found and their CRCs made right again after a test has damaged
 * them. */
#ifndef TESTS_CODEC_PNG_MAKER_H
#define TESTS_CODEC_PNG_MAKER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *data;
    size_t size, cap;
} bytes_out;

typedef struct {
    int w, h, color; /* 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA */
    int filter;      /* 0..4, or -1: a random one per row */
    int palette_len, trns_len;
    int idat_parts;  /* the zlib stream split over this many IDATs */
    int extra_rows;  /* rows more (or fewer) in the stream than the header says */
    int depth;       /* bits a sample: 0 (8) or 16 */
    int interlace;   /* 1: Adam7 */
    int sbit;        /* 1: an sBIT chunk (significant bits 12) */
    int stored;      /* 1: the zlib stream in stored blocks, not compressed */
} png_spec;

/* Samples a pixel of a colour type (a palette index is one), and bytes a
 * sample of a spec. */
int samples_of(int color);
int sample_bytes(const png_spec *s);

/* The file of spec s with pixels px (w * h pixels of samples_of(color)
 * samples, 16-bit ones big-endian; palette indices for colour 3); PLTE
 * and tRNS entries come from a fixed table (entry k of PLTE is
 * (3k + c) * 37 + 11, of tRNS (100 + k) * 37 + 11). */
bytes_out write_png(const png_spec *s, const uint8_t *px);

/* Random pixels for s with runs, so every Paeth branch and tie occurs
 * (malloc'ed; indices below palette_len for a palette). */
uint8_t *random_pixels(const png_spec *s);

/* The offset of the n-th chunk (from 0) of `type` in png, or 0 where
 * there is none. */
size_t png_chunk_at(const bytes_out *png, const char *type, int n);

/* Makes the CRC of the chunk at `at` right for its type and data. */
void png_fix_crc(bytes_out *png, size_t at);

#endif
