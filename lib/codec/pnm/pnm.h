/* Netpbm images: PBM, PGM, PPM (P1-P6) and PAM (P7), read and written
 * without stb. Read as netpbm reads them, one image at a time, so that a
 * stream of concatenated images (ffmpeg's image2pipe) can be split. */
#ifndef GI_PNM_H
#define GI_PNM_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* 1 when the bytes start like a Netpbm image: 'P' and a digit 1..7. */
int gi__pnm_sniff(const uint8_t *bytes, size_t size);

typedef struct {
    int kind;                  /* the digit of the magic number, 1..7 */
    int plain;                 /* P1-P3: ASCII samples, whose length the header cannot tell */
    uint32_t width, height, depth, maxval;
    size_t header_bytes;       /* where the samples start */
    size_t image_bytes;        /* header and samples of a binary image (0 when plain) */
} gi_pnm_header;

/* Reads the header at the start of `bytes` and checks it against the
 * limits: width * height against max_pixels and, for a binary image, its
 * bytes against max_input_bytes, with overflow-checked arithmetic.
 * *short_header is set to 1 (and GI_ERR_DECODE returned) when the bytes
 * end inside the header, so a reader knows to read more. */
gi_status gi__pnm_header(const uint8_t *bytes, size_t size, const char *name,
                         const gi_load_limits *limits, gi_pnm_header *h, int *short_header);

/* Decodes the image at the start of `bytes` (maxval scaled, see gpuimg.h:
 * 8 bits a sample up to maxval 255, 16 bits past it) and sets *used to the
 * bytes it took, samples included. Bytes after them are left alone. */
gi_status gi__pnm_decode(gi_image *img, const uint8_t *bytes, size_t size, size_t *used,
                         const char *name, const gi_load_limits *limits);

/* Writes `img` as P5/P6 (GI_FORMAT_PNM: gray or RGB, alpha dropped) or P7
 * (GI_FORMAT_PAM, every channel), maxval 255 or, for a 16-bit image, 65535
 * (big-endian samples), through `emit`, which returns 0 or -1.
 * Returns 0, or -1 as soon as emit fails or memory runs out. */
typedef int (*gi_pnm_emit)(void *context, const void *bytes, size_t size);
int gi__pnm_write(const gi_image *img, gi_format format, gi_pnm_emit emit, void *context);

#endif
