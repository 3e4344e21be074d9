/* A progressive file's scans Huffman-decoded once its markers are read:
 * on several threads, a scan a thread, each a row of MCUs at a time, or on
 * one thread a row of MCUs of every scan at a time
 * (gi__jpeg_decode_scans_by_rows), so that a row's blocks stay in the
 * caches from scan to scan.
 *
 * Each scan is serial, but many scans of a progressive file are
 * independent of each other: a scan writes (and an AC refinement reads)
 * only its components' coefficients of its band, Ss..Se (an AC first
 * scan's damaged runs may reach past Se), and the AC scans of a component
 * its masks of nonzero coefficients, so two scans whose components do not
 * meet, or a DC scan and an AC scan, may run at once (jpegtran's and
 * cjpeg's scripts: the DC scan, the chroma bands and the luma bands; a
 * component's AC scans run in the file's order).
 * The parser records the scans as it reads the markers, each with copies
 * of the tables it reads (a later DHT may redefine them), and the scans
 * then run on threads, a thread a scan in the file's order, each MCU row
 * of a scan as soon as the scans it depends on have decoded that row: a
 * component's scans follow each other down the image a few rows apart,
 * where each waited for the whole of the scans before it (a luma band's
 * first scans and its two refinements ran one after another).
 * (On several threads, a file with restart intervals splits each scan
 * over the threads instead: jpeg_entropy.h.)
 *
 * The values are the serial decoder's, since each coefficient sees the
 * same scans in the same order. Where a scan does not decode, or its data
 * does not end where the markers said, nothing is decided here: the
 * caller reads the file again serially, which gives the serial decoder's
 * answer for it, whatever it is. */
#ifndef GI_JPEG_SCANS_PARALLEL_H
#define GI_JPEG_SCANS_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_coeffs.h"
#include "jpeg_entropy.h"

/* Scans go to threads from this many bytes of coefficients (128 a block:
 * 1024 blocks, 256x256 pixels at 4:2:0): a thread starts in tens of
 * microseconds, and such a file's scans take a few hundred. */
#define GI_JPEG_SCANS_PARALLEL_MIN_BYTES (1024 * 128)

typedef struct gi_jpeg_scan_list gi_jpeg_scan_list;

/* An empty list, or NULL when out of memory. */
gi_jpeg_scan_list *gi__jpeg_scan_list_new(void);

/* Records the scan whose data starts at bytes + at, with *end at the 0xFF
 * of the marker after the data (restart markers within it skipped). -1
 * (nothing recorded) where that marker is not plain (fill bytes before
 * it, or no marker), where the list is full (a file of very many scans is
 * decoded serially), or when memory runs out. */
int gi__jpeg_scan_list_add(gi_jpeg_scan_list *l, const gi_jpeg_scan *sc, const uint8_t *bytes,
                           size_t size, size_t at, size_t *end);

/* Decodes the recorded scans of c's progressive frame into c's
 * coefficients on up to `threads` threads, a scan a thread, row by row
 * (storage and masks allocated, the scans' zero_blocks 0: the threads
 * zero both first, but for the planes of c->dc_only). On one thread, a
 * row of MCUs of every scan at a time instead
 * (gi__jpeg_decode_scans_by_rows: the storage as allocated, the first DC
 * scan zeroing its blocks; the masks zeroed). 0, or -1 where a scan did
 * not decode or ended elsewhere than recorded. */
int gi__jpeg_scan_list_decode(gi_jpeg_scan_list *l, gi_jpeg_coeffs *c, const uint8_t *bytes,
                              size_t size, int threads);

void gi__jpeg_scan_list_free(gi_jpeg_scan_list *l);

/* Whether progressive scan b must wait for scan a, which comes before it
 * in the file: they share a component, and the coefficients they touch
 * meet (an AC first scan's reach past its band: jpeg_scans_parallel.c) or
 * both are AC scans (which keep the component's masks of nonzero
 * coefficients, one word a block). */
int gi__jpeg_scan_waits_for(const gi_jpeg_scan *b, const gi_jpeg_scan *a);

#endif
