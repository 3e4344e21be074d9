/* The entropy half of the exact JPEG decoder: a JPEG file's markers, read
 * as stb_image 2.27 reads them, and its scans Huffman-decoded
 * (jpeg_entropy.c) into quantized coefficients (jpeg_coeffs.h).
 *
 * It takes the files it can give stb's very values for: 8-bit baseline,
 * extended and progressive Huffman JPEGs with 1, 3 or 4 components, any
 * sampling stb accepts, restart intervals, JFIF and Adobe segments, ending
 * with an EOI marker. Everything else it leaves to stb ("not mine"):
 * arithmetic coding and 12-bit files (which stb refuses), markers stb
 * refuses or skips in its own ways (DNL, junk between segments, fill bytes
 * before the marker after a scan), a quantization table redefined after a
 * scan used it, a component some scan never reached (stb leaves its memory
 * uninitialised), and damaged data (truncated files, which stb refuses, or
 * a scan that needs bits past its marker, which stb decodes as zeros). So
 * whether a file decodes, and to which pixels, never depends on which
 * decoder took it. */
#ifndef GI_JPEG_PARSE_H
#define GI_JPEG_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_coeffs.h"

struct gi_jpeg_progress;

enum { GI_JPEG_OK = 0, GI_JPEG_NOT_MINE = 1, GI_JPEG_NO_MEMORY = -1 };

/* Decodes the file's coefficients into *c (release with
 * gi__jpeg_coeffs_free), a scan's restart intervals on up to `threads`
 * threads. With `defer`, the file's scans may be left undecoded
 * (c->deferred, jpeg_deferred.h) for the CUDA backend's Huffman decoder;
 * `bytes` must then outlive *c. With shrink_to > 0 (gi_load_limits), for
 * an image shrunk on load, the AC coefficients of components whose shrunk
 * planes read only the DC (c->dc_only) are not decoded: a progressive
 * file's AC scans of them are skipped, a baseline scan passes over their
 * AC codes; those coefficients stay as allocated (c->read_shrink_to;
 * jpeg_shrink.h). 0: every coefficient is decoded.
 * With `progress` (may be NULL), a single-pass baseline scan of
 * every component is published row by row as it is decoded
 * (jpeg_progress.h); *c's quantization tables are in place before it.
 * Returns GI_JPEG_OK; GI_JPEG_NOT_MINE (also for an image of more than
 * max_pixels pixels, which gpuimg refuses by the stb path's message) with
 * *c empty; or GI_JPEG_NO_MEMORY. Once progress->started, *c is the
 * caller's to free whatever the result, after the workers that read it
 * are done. */
int gi__jpeg_read_coeffs(const uint8_t *bytes, size_t size, uint64_t max_pixels, int threads,
                         int defer, int shrink_to, struct gi_jpeg_progress *progress,
                         gi_jpeg_coeffs *c);

/* The file of c's deferred scans (c->deferred) decoded on the CPU into
 * *out, as gi__jpeg_read_coeffs decodes it (GI_JPEG_OK, GI_JPEG_NOT_MINE:
 * stb's, GI_JPEG_NO_MEMORY): where the CUDA backend does not take it. */
int gi__jpeg_decode_deferred(const gi_jpeg_coeffs *c, int threads, gi_jpeg_coeffs *out);

#endif
