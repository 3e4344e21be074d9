/* A zlib stream (RFC 1950; deflate, RFC 1951) for rows of predicted image
 * samples, made for speed: each byte is a literal, or starts a run that
 * repeats the bytes at one of a few fixed distances back (a sample, a
 * pixel: the caller's), found by comparing those places alone,
 * without the hashing of a general matcher. Each block of up to
 * GI_DEFLATE_RUNS_BLOCK input bytes gets its own dynamic Huffman codes, or
 * is stored where those would not be shorter.
 *
 * Why: with the horizontal predictor, the samples of a photo leave few
 * matches for a general LZ77 search, whose probing then costs most of the
 * time (libdeflate level 1: 238 MB/s on a 16-bit photo's strips), while
 * the runs of a smooth image (a render, a depth map: zeros, or a constant
 * step repeated a pixel apart) lie at those distances. Any inflater
 * decodes the stream. */
#ifndef GI_DEFLATE_RUNS_H
#define GI_DEFLATE_RUNS_H

#include <stddef.h>
#include <stdint.h>

/* Input bytes a block: large enough that a smooth image's block headers
 * (a few dozen bytes) stay small against its codes. */
#define GI_DEFLATE_RUNS_BLOCK ((size_t)1 << 18)

/* The most distances a stream's runs look at. */
#define GI_DEFLATE_RUNS_MAX_DISTANCES 4

/* Room enough for the stream of n bytes, whatever they are. */
size_t gi__deflate_runs_bound(size_t n);

/* The zlib stream of src[0..n) into dst (cap >= gi__deflate_runs_bound(n)),
 * runs looked for at the distances given (each 1..32768; up to
 * GI_DEFLATE_RUNS_MAX_DISTANCES, repeats and others ignored). Returns the
 * stream's length, or 0 when cap is too small or memory ran out. */
size_t gi__deflate_runs(const uint8_t *src, size_t n, const uint32_t *distances, int count,
                        uint8_t *dst, size_t cap);

#endif
