/* TIFF through libtiff, an optional dependency: read from bytes already
 * in memory (TIFFClientOpen over them, libtiff's messages routed into the
 * error, the limits checked before any large allocation) and written into
 * memory. A build without libtiff has tiff_absent.c instead, whose every
 * call fails saying so. gpuimg.h's TIFF section says what is read. */
#ifndef GI_TIFF_H
#define GI_TIFF_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* 1 when this build reads and writes TIFF. */
int gi__tiff_available(void);

/* Decodes the first page of the TIFF in `bytes` into *img (8 or 16 bits
 * a sample, as stored). Failures name `name`. */
gi_status gi__tiff_decode(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                          const gi_load_limits *limits);

/* 1 with a line in note when the TIFF holds more than one page (only the
 * first is read); else 0. */
int gi__tiff_pages_note(const uint8_t *bytes, size_t size, char *note, size_t note_size);

/* Encodes img (1-4 channels, 8 or 16 bits) as a TIFF into a malloc'ed
 * *bytes, as opts says: its tiff_compression, its metadata's ICC profile
 * and XMP packet (when not NULL), deflate strips compressed on up to its
 * encode_threads (with libdeflate; the bytes do not depend on them).
 * GI_OK or a failure with the reason. */
gi_status gi__tiff_encode(const gi_image *img, const gi_save_options *opts, uint8_t **bytes,
                          size_t *size);

/* Reads the ICC profile and XMP packet of a TIFF's first page, and the
 * count of its pages, into *out (already initialised and empty): 0, or -1
 * when out of memory. */
int gi__tiff_metadata_read(const uint8_t *bytes, size_t size, gi_metadata *out);

#endif
