/* The JPEG writer of the exact codec path: baseline, Huffman-coded, the
 * standard tables scaled by quality, and byte for byte what
 * stb_image_write 1.16's stbi_write_jpg_to_func writes for the same
 * pixels and quality (golden files made with stb stay valid). It does what
 * stb does, in the same float operations in the same order, but on 4 or
 * 8 lanes at a time and with a 64-bit bit writer into one growing buffer.
 *
 * pixels: height rows of width * channels bytes, stride bytes apart;
 * channels 1 (grey), 2 (grey, alpha ignored), 3 (RGB) or 4 (RGBA, alpha
 * ignored); always written as 3 components (stb does). quality as stb
 * takes it: 0 means 90; 4:2:0 chroma at quality <= 90, 4:4:4 above; then
 * clamped to 1..100. */
#ifndef GI_JPEG_WRITE_H
#define GI_JPEG_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_scan.h"

/* threads: up to this many code pieces of MCU rows at once (the bytes are
 * the same for any count). 0 with *bytes (malloc'd, the caller frees) and *size; -1 when out of
 * memory or for what stb refuses too (no pixels, a zero side, channels
 * outside 1..4), with *bytes NULL. */
int gi__jpeg_write(const uint8_t *pixels, int width, int height, int channels, size_t stride,
                   int quality, int threads, uint8_t **bytes, size_t *size);

/* The scan's tables for a quality (taken as above). */
void gi__jpeg_write_tables(int quality, jpeg_tables *t);

/* ---- The scan in pieces ----
 * For a writer whose rows come in bands: gi__jpeg_write's threads, and
 * a filter that codes its output rows while they are in cache (the CPU
 * backend's blur). A piece is the bits of consecutive MCU rows, coded
 * from the DC predictors that the MCU before them ends with; pieces of
 * all the rows, joined in order, are the scan gi__jpeg_write codes. */
typedef struct {
    jpeg_buffer out; /* the bits, unstuffed, the last byte's unused low bits zero */
    uint64_t bits;
    int dc[3];       /* the predictors after the last MCU coded */
    jpeg_scratch scratch;
} gi_jpeg_piece;

/* The first column of an image's last MCU column. */
int gi__jpeg_last_mcu_x(int width, const jpeg_tables *t);
/* An empty piece that starts after the MCU whose pixels last_mcu gives:
 * the last MCU of the row before (its mcu_width = width - last_mcu_x
 * columns and its MCU's height of rows, stride bytes apart), or NULL for
 * the image's first row. 1, or 0 when out of memory. */
int gi__jpeg_piece_start(gi_jpeg_piece *p, const jpeg_tables *t, const uint8_t *last_mcu,
                         int mcu_width, int channels, size_t stride);
/* Codes the MCU rows of `rows` pixel rows onto the piece: a multiple of
 * the MCU's height, but for the image's last rows (whose last row stands
 * for the rows below it, as in stb). 1, or 0 when out of memory. */
int gi__jpeg_piece_code(gi_jpeg_piece *p, const jpeg_tables *t, const uint8_t *pixels, int width,
                        int rows, int channels, size_t stride);
void gi__jpeg_piece_free(gi_jpeg_piece *p);
/* The file of width x height at quality from the pieces of all its MCU
 * rows, in order: gi__jpeg_write's bytes. 0 with *bytes (malloc'd) and
 * *size, or -1 when out of memory. */
int gi__jpeg_pieces_file(const gi_jpeg_piece *pieces, int count, int width, int height,
                         int quality, uint8_t **bytes, size_t *size);

/* The file gi__jpeg_write makes, around a scan coded elsewhere (the GPU's
 * writer, lib/cuda/jpeg_encode_device.h): scan holds its n entropy-coded
 * bytes before byte stuffing, padded as stb pads them; the headers are
 * those of width x height at quality. 0 with *bytes (malloc'd) and *size;
 * -1 when out of memory. */
int gi__jpeg_write_around_scan(int width, int height, int quality, const uint8_t *scan, size_t n,
                               uint8_t **bytes, size_t *size);

#endif
