/* What the JPEG writer and decoder share: the zigzag order of the JPEG
 * standard (ITU T.81, figure A.6) and the writer's growing output buffer. In
 * a file of its own so that neither the writer's scan and its tables
 * (jpeg_scan.c, jpeg_write.c) nor the decoder's halves depend on each
 * other. */
#ifndef GI_JPEG_TABLES_H
#define GI_JPEG_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* Natural (row-major) index of each zigzag position, then 16 entries of
 * 63, as stb_image's table has, so that a corrupt run past a block's end
 * lands on the last coefficient (stb's values are the decoder's contract). */
extern const uint8_t gi__jpeg_natural_order[64 + 16];

/* The zigzag positions of the coefficients of block row u (natural index
 * 8 u + v, for bit v of b): table[u][b]. A block's mask of coefficients
 * in natural order becomes the same mask in zigzag order in 8 look-ups
 * (the writer codes the nonzero ones in that order; the decoder's AC
 * refinement walks them so). Built once, on the first call. */
typedef uint64_t gi_jpeg_zigzag_masks[8][256];
const gi_jpeg_zigzag_masks *gi__jpeg_zigzag_masks(void);

/* The output: bytes in [data, p), room up to end. */
typedef struct {
    uint8_t *data, *p, *end;
} jpeg_buffer;

/* Room for count more bytes; 0 when out of memory (the bytes stay). */
int gi__jpeg_reserve(jpeg_buffer *b, size_t count);

#endif
