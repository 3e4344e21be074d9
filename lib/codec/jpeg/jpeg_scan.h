/* The JPEG writer's scan (jpeg_scan.c): pixels to entropy-coded bytes.
 * jpeg_write.c makes the tables and the markers; the scan is the part
 * that costs, so it is compiled once per x86 instruction set (like the
 * blur's kernels) and gi__jpeg_scan picks one at run time. Every set
 * gives the same bytes: the float operations and their order are fixed
 * in the source, and the project compiles with -ffp-contract=off. */
#ifndef GI_JPEG_SCAN_H
#define GI_JPEG_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_tables.h"

/* A symbol's Huffman code in its low len bits; symbols a table lacks have
 * len 0, and stb writes those as no bits (only the value bits follow),
 * which is kept so that out-of-range values give stb's bytes too. */
typedef struct {
    uint16_t code[256];
    uint8_t len[256];
} jpeg_huff;

typedef struct {
    float scale[2][64]; /* luma, chroma; natural order: multiply, then round */
    jpeg_huff huff[4];  /* luma DC, luma AC, chroma DC, chroma AC */
    int subsample;      /* 4:2:0 MCUs of 16x16, else 4:4:4 of 8x8 */
    /* The zigzag positions of the coefficients (8 u + v for v's bit in b)
     * of row u: a block's nonzero mask in natural order to zigzag order
     * in 8 look-ups. */
    uint64_t zigzag_bits[8][256];
} jpeg_tables;

/* The side of an MCU in pixels: 16 for 4:2:0, 8 for 4:4:4. */
static inline int gi__jpeg_mcu_side(const jpeg_tables *t)
{
    return t->subsample ? 16 : 8;
}

/* Appends the entropy-coded bytes of the MCU rows [row0, row1) of the
 * image (row1 past the last: to the end), the DC predictors starting at
 * dc[] (luma, Cb, Cr; 0 at the scan's start) and left there as the next
 * row's. raw 0: the whole scan, as stb writes it: 0xFF bytes stuffed, the
 * last byte padded with 1 bits (row0 0, row1 the end). raw 1: a piece of a
 * scan coded in parts: no stuffing, the last byte's unused low bits zero;
 * *bits, the count of the piece's bits already at the end of out (0 for
 * a new piece; these bits continue them), becomes the count with these.
 * 0 when out of memory. */
typedef struct {
    float *floats; /* the scan's band of Y, Cb and Cr rows (malloc'd), NULL at first */
    size_t count;
} jpeg_scratch;

/* scratch: NULL, or the floats a caller that codes many pieces keeps
 * from call to call (it frees them): a fresh block of 400 KB for each
 * band of rows faulted in anew. */
typedef int jpeg_scan_fn(const uint8_t *pixels, int width, int height, int channels,
                         size_t stride, const jpeg_tables *t, int row0, int row1, int dc[3],
                         int raw, jpeg_buffer *out, uint64_t *bits, jpeg_scratch *scratch);

jpeg_scan_fn gi__jpeg_scan_base, gi__jpeg_scan_avx2, gi__jpeg_scan_avx512;

/* The widest set this CPU has, capped by GPUIMG_CPU_ISA (base, avx2,
 * avx512). */
jpeg_scan_fn *gi__jpeg_scan(void);

#endif
