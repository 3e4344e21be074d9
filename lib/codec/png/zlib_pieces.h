/* One zlib stream compressed in pieces, on several threads, with bytes
 * that do not depend on the thread count (only with libdeflate).
 *
 * The data is cut into pieces of GI_ZLIB_PIECE_BYTES; each is compressed
 * alone with libdeflate's raw deflate (no dictionary from the piece
 * before), and the pieces are joined into one deflate stream: every piece
 * but the last has its final block's BFINAL bit cleared (deflate_walk.h
 * finds that block and where it ends) and is followed by an empty
 * non-final stored block (000, padding to a byte, 00 00 FF FF), so that
 * the next piece starts on a byte and is appended as it is. Then the zlib
 * header libdeflate writes for this level in front and the Adler-32 of the
 * whole data behind. Which thread compresses which piece changes nothing
 * in the bytes. Data of one piece or less is libdeflate_zlib_compress's
 * very stream. */
#ifndef GPUIMG_ZLIB_PIECES_H
#define GPUIMG_ZLIB_PIECES_H

#include <stddef.h>
#include <stdint.h>

/* Chosen by measurement (bench/results/2026-11-27-performance-log.md,
 * "Which PNG settings"): at
 * libdeflate level 4 on two 9 MP RGBA photos' filtered rows, 1 MiB pieces
 * cost 0.02-0.12% in size against one stream (4 MiB: 0.005-0.05%) and make
 * 34-36 pieces, enough for 16 threads to share evenly; the CPU time hardly
 * depends on the size. Changing it changes the bytes of every PNG of more
 * than this many filtered bytes. */
#define GI_ZLIB_PIECE_BYTES ((size_t)1 << 20)

/* The zlib stream of data[0..size) at libdeflate level `level` (clamped to
 * 1..12), in pieces of piece_bytes (GI_ZLIB_PIECE_BYTES outside tests),
 * compressed on up to `threads` threads (below 1: 1), the calling thread
 * one of them. Returns a buffer from gi__pixels_alloc (pixel_alloc.h;
 * released with gi__pixels_free) of *out_size bytes, or NULL when out of
 * memory. When the walker fails on a piece (it should not), the data is
 * compressed again as one stream, with libdeflate_zlib_compress;
 * *joined (when not NULL) says 1 where pieces were joined, 0 where the
 * stream is libdeflate_zlib_compress's (one piece, or that fallback). */
uint8_t *gi__zlib_compress_pieces(const uint8_t *data, size_t size, int level, int threads,
                                  size_t piece_bytes, size_t *out_size, int *joined);

#endif
