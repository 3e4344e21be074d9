/* A baseline JPEG's scan kept for the device to Huffman-decode.
 *
 * On a GPU server the CPU's Huffman decoding is what bounds a JPEG folder
 * (docs/gpu-jpeg-path.md): 16 cores decode 9 MP photos at 48-55 ms each.
 * So the entropy half may leave a baseline file's one scan (every component
 * interleaved, the usual photo) undecoded: it only takes the byte stuffing
 * and the restart markers out, and the CUDA backend decodes the rest
 * (kernels/jpeg_entropy.cu) into the coefficients this file's layout
 * describes, the ones the CPU's decoder gives.
 *
 * The data is cut into segments (restart intervals; one without them),
 * each of which starts afresh on a byte boundary, and each segment into
 * subsequences of GI_JPEG_SUBSEQ_BYTES bytes, which the device decodes in
 * parallel, each thread finding where its codes begin from where its
 * neighbour's end (self-synchronisation). A file the device cannot finish
 * the CPU's way (damaged data, which the CPU decoder leaves to stb) is
 * decoded again from `file` on the CPU: gi__jpeg_read_coeffs without
 * defer, which gives the CPU's answer, stb and all. */
#ifndef GI_JPEG_DEFERRED_H
#define GI_JPEG_DEFERRED_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_coeffs.h"
#include "jpeg_entropy.h"

/* JPEG's limit on the blocks of an MCU. */
#define GI_JPEG_MAX_UNIT_BLOCKS 10
/* Bytes of a subsequence: one thread's share of the data. */
#define GI_JPEG_SUBSEQ_BYTES 512
/* Zero bytes after the data: the device reads whole words past it. */
#define GI_JPEG_DATA_PAD 32

/* A block of the scan's unit (an MCU; a block alone in a one-component
 * scan): its plane, its place in the MCU, its tables (indices into
 * tables[]). */
typedef struct gi_jpeg_unit_block {
    uint8_t comp, x, y, dc, ac;
} gi_jpeg_unit_block;

typedef struct gi_jpeg_deferred {
    const uint8_t *file; /* borrowed: the whole file, for a decode on the CPU */
    size_t file_size;
    /* One upload, `bytes` long (pixel_alloc.h's, page-locked once CUDA
     * runs): tables, then segment_start and subseq_first, then data. */
    uint8_t *upload;
    size_t bytes;
    gi_jpeg_huff *tables; /* ntables of them */
    int ntables;
    uint32_t *segment_start; /* segments + 1 byte offsets into data */
    uint32_t *subseq_first;  /* segments + 1: each segment's first subsequence; the last
                                entry, their count */
    uint8_t *data;           /* the data unstuffed, without restart markers, then
                                GI_JPEG_DATA_PAD zeros */
    size_t tables_at, segment_start_at, subseq_first_at, data_at; /* offsets in upload */
    int segments;
    long units;     /* MCUs; blocks of a one-component scan */
    int units_x;    /* units a row */
    long interval;  /* units a segment (all of them without restarts) */
    int unit_blocks;
    gi_jpeg_unit_block block[GI_JPEG_MAX_UNIT_BLOCKS];
} gi_jpeg_deferred;

/* The bytes a device route uploads for c: its deferred scan's, or its
 * coefficients'. */
static inline size_t gi__jpeg_upload_bytes(const gi_jpeg_coeffs *c)
{
    return c->deferred ? c->deferred->bytes : c->storage_bytes;
}

/* Takes the scan whose data starts at bytes + at as c's deferred scan,
 * with *end at the 0xFF of the marker after it; or returns -1 (nothing
 * kept) for a scan whose data the CPU decoder must judge (fill bytes, the
 * wrong count of restart markers, no marker after it) or when memory runs
 * out. sc is baseline and reads every component. */
int gi__jpeg_defer_scan(gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, const uint8_t *bytes,
                        size_t size, size_t at, size_t *end);

void gi__jpeg_deferred_free(gi_jpeg_deferred *d);

#endif
