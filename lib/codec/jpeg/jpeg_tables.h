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

/* The output: bytes in [data, p), room up to end. */
typedef struct {
    uint8_t *data, *p, *end;
} jpeg_buffer;

/* Room for count more bytes; 0 when out of memory (the bytes stay). */
int gi__jpeg_reserve(jpeg_buffer *b, size_t count);

#endif
