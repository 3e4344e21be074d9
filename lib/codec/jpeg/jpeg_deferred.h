/* A JPEG's scans kept for the device to Huffman-decode.
 *
 * On a GPU server the CPU's Huffman decoding is what bounds a JPEG folder
 * (docs/gpu-jpeg-path.md): 16 cores decode 9 MP photos at 48-55 ms each,
 * and a progressive photo takes several times that. So the entropy half
 * may leave a file's scans undecoded: every scan of a baseline file (its
 * one interleaved scan, or one scan per component) or of a progressive
 * one (DC and AC, first and refinement scans). It only takes the byte
 * stuffing and the restart markers out, and the CUDA backend decodes the
 * scans in order (kernels/jpeg_entropy.cu) into the coefficients this
 * file's layout describes, the ones the CPU's decoder gives.
 *
 * Each scan's data is cut into segments (restart intervals; one without
 * them), each of which starts afresh on a byte boundary, and each segment
 * into subsequences of GI_JPEG_SUBSEQ_BYTES bytes, which the device decodes
 * in parallel, each thread finding where its codes begin from where its
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
/* An AC refinement scan goes to the device only where none of its
 * segments has more subsequences than this. Its steps depend on which
 * block they are in (the correction bits follow the coefficients already
 * nonzero), and a thread that starts from a wrong block never falls into
 * step: its rounds settle one subsequence at a time, so a long segment
 * costs a round a subsequence. The device took over 7 s for the-mouse.jpg
 * (8.7 MP) made progressive by jpegtran, whose refinement scans have one
 * segment each, where one CPU core takes 0.1 s. Short segments (restart
 * intervals) settle in as many rounds as they have subsequences, at most
 * this plus one. */
#define GI_JPEG_REFINE_MAX_SUBSEQS 8
/* ...and where none of its segments has more blocks than this. A block
 * of an end-of-band run still takes a correction bit for each of its
 * nonzero coefficients, so the thread that decodes a run visits every
 * block of it, reading its band: one thread walks all the blocks that a
 * few bytes cover. A nearly blank photo (2902x1611, 64 KB) made
 * progressive by libjpeg-turbo, whose luma refinement is 2 KB over 73,000
 * blocks, took the device 2.6-3.1 s, where the CPU decodes the file in a
 * few milliseconds. A segment this long (one MCU row of a 4000-pixel-wide
 * photo, as `-restart 1` makes it) costs a thread at most a few
 * milliseconds a round. */
#define GI_JPEG_REFINE_MAX_SEGMENT_BLOCKS 512
/* Zero bytes after the data: the device reads whole words past it. */
#define GI_JPEG_DATA_PAD 32

/* A block of the scan's unit (an MCU; a block alone in a one-component
 * scan): its plane, its place in the MCU, its tables (indices into
 * tables[]). */
typedef struct gi_jpeg_unit_block {
    uint8_t comp, x, y, dc, ac;
} gi_jpeg_unit_block;

/* One scan: what its blocks hold and where its parts lie in the upload. */
typedef struct gi_jpeg_deferred_scan {
    int kind;       /* GI_JPEG_BASELINE ... GI_JPEG_AC_REFINE (jpeg_entropy.h) */
    int n;          /* components in the scan: 1, its units are one plane's blocks */
    int ss, se, al; /* the band and the bit it starts at (baseline: 0, 63, 0) */
    /* offsets in the upload: ntables tables, segments + 1 byte offsets
     * into data where each segment starts (the last: the data's length),
     * segments + 1 first subsequences of each segment (the last: their
     * count), the data unstuffed without restart markers, then
     * GI_JPEG_DATA_PAD zeros */
    size_t tables_at, segment_start_at, subseq_first_at, data_at;
    int ntables, segments;
    uint32_t subseqs;          /* subsequences in all */
    uint32_t segment_subseqs;  /* the most subsequences a segment has */
    long units;     /* MCUs; blocks of a one-component scan */
    int units_x;    /* units a row */
    long interval;  /* units a segment (all of them without restarts) */
    int unit_blocks;
    gi_jpeg_unit_block block[GI_JPEG_MAX_UNIT_BLOCKS];
} gi_jpeg_deferred_scan;

typedef struct gi_jpeg_deferred {
    const uint8_t *file; /* borrowed: the whole file, for a decode on the CPU */
    size_t file_size;
    /* One upload, `bytes` long (pixel_alloc.h's, page-locked once CUDA
     * runs), every scan's parts (gi_jpeg_deferred_scan) in the file's order;
     * while the file is read, they gather in `build` (build_cap bytes) */
    uint8_t *upload;
    size_t bytes;
    uint8_t *build;
    size_t build_cap;
    gi_jpeg_deferred_scan *scan;
    int nscans, scans_cap;
} gi_jpeg_deferred;

/* The bytes a device route uploads for c: its deferred scans', or its
 * coefficients'. */
static inline size_t gi__jpeg_upload_bytes(const gi_jpeg_coeffs *c)
{
    return c->deferred ? c->deferred->bytes : c->storage_bytes;
}

/* Appends the scan whose data starts at bytes + at (of kind
 * gi__jpeg_scan_kind) to c's deferred scans, with *end at the 0xFF of the
 * marker after it; or returns -1 (nothing kept) for a scan whose data the
 * CPU decoder must judge (fill bytes, the wrong count of restart markers,
 * no marker after it), for an AC refinement whose segments are too long
 * (GI_JPEG_REFINE_MAX_SUBSEQS, GI_JPEG_REFINE_MAX_SEGMENT_BLOCKS), or when
 * memory runs out. */
int gi__jpeg_defer_scan(gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, int kind, const uint8_t *bytes,
                        size_t size, size_t at, size_t *end);

/* Once the file is read: the scans gathered into the one upload. -1: out
 * of memory. */
int gi__jpeg_deferred_finish(gi_jpeg_deferred *d);

void gi__jpeg_deferred_free(gi_jpeg_deferred *d);

#endif
