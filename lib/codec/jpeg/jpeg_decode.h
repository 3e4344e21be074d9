/* The exact JPEG decoder: the entropy half (jpeg_parse.h) then the
 * arithmetic half (jpeg_reconstruct.h), giving stb_image 2.27's pixels as
 * gpuimg asks stb for them (3 channels for colour, 1 for gray). */
#ifndef GI_JPEG_DECODE_H
#define GI_JPEG_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"
#include "jpeg_coeffs.h"
#include "jpeg_reconstruct.h"

/* Decodes into *img (pixels from pixel_alloc.c, owned) and returns 1; or
 * returns 0 with *img untouched when the file is one to leave to stb (see
 * jpeg_parse.h; images over max_pixels too) or memory ran out, so that
 * stb decodes or refuses it with its own reason. Up to `threads` threads:
 * restart intervals in the entropy half, chunks of rows in the arithmetic
 * half, which follows a single-scan baseline file's entropy half row by
 * row (jpeg_progress.h). */
int gi__jpeg_decode(gi_image *img, const uint8_t *bytes, size_t size, uint64_t max_pixels,
                    int threads);

/* Where the decoder's rows go, decided once the frame is known: begin()
 * fills *out (jpeg_reconstruct.h) for c's image and returns 0, or -1 when
 * out of memory. It may be called a second time for the same image, when
 * the rows must be made again from the first (rows already handed to a
 * sink are then void: count from zero). */
typedef struct gi_jpeg_target {
    int (*begin)(void *arg, const gi_jpeg_coeffs *c, gi_jpeg_rows_out *out);
    void *arg;
} gi_jpeg_target;

/* gi__jpeg_decode's decode, rows to a target: returns 1 when every row
 * went there, or 0 as gi__jpeg_decode does (rows the target got are then
 * void). */
int gi__jpeg_decode_rows(const uint8_t *bytes, size_t size, uint64_t max_pixels, int threads,
                         const gi_jpeg_target *t);

/* The arithmetic half alone, into *img as gi__jpeg_decode gives it (the
 * shrunk image where c->shrink is set: jpeg_shrink.h): returns 1, or 0
 * with *img untouched when memory ran out. */
int gi__jpeg_image_from_coeffs(gi_image *img, const gi_jpeg_coeffs *c, int threads);

/* The entropy half alone, for a caller that runs the arithmetic half
 * where its steps run (backend.h, run_chain_from_jpeg). Defined in
 * image_io.c, beside gi_load_memory, whose checks it makes: returns 1
 * with *c filled (release with gi__jpeg_coeffs_free) for a file that
 * gi_load_memory would hand to the exact decoder (the stb decoder asked
 * for, within the limits, a JPEG this decoder takes); else 0 with *c
 * empty and no error left: gi_load_memory then decodes or refuses the
 * file as it always does. Sets gi_last_codec. With defer, a baseline
 * file's scan may stay undecoded for the CUDA backend (c->deferred,
 * jpeg_deferred.h; `bytes` must outlive *c). With limits->shrink_to, the
 * coefficients are for gi__jpeg_plan_shrink with it (gi__jpeg_read_coeffs
 * does not decode the AC coefficients its shrunk planes do not read). */
int gi__load_jpeg_coeffs(const void *bytes, size_t size, const gi_load_limits *limits,
                         int defer, gi_jpeg_coeffs *c);

/* gi__load_jpeg_coeffs's choice, for the whole decode with rows to a
 * target (a streamed histogram: lib/batch/hist_stream.c), on
 * limits->decode_threads threads as gi_load_memory decodes: returns 1
 * when every row went to t; else 0 and no error left (rows t got are
 * void), and gi_load_memory then decodes or refuses the file as it
 * always does. Sets gi_last_codec. */
int gi__load_jpeg_rows(const void *bytes, size_t size, const gi_load_limits *limits,
                       const gi_jpeg_target *t);

#endif
