/* The exact JPEG decoder's arithmetic half: quantized coefficients
 * (jpeg_coeffs.h) to stb_image 2.27's very pixels. Dequantization in 16
 * bits, stb's integer IDCT, its chroma upsamplers (the "fancy" 2x
 * filters, nearest for other factors), its fixed-point YCbCr to RGB, and
 * its handling of RGB (component ids R, G, B, or Adobe transform 0
 * without JFIF), CMYK (Adobe 0) and YCCK (Adobe 2) files, and of one
 * channel from colour (its luma for RGB and CMYK; the Y plane otherwise).
 *
 * The work goes by rows of MCUs: each output row is a function of the
 * coefficient rows around it alone, so chunks of MCU rows run on threads
 * (or as GPU blocks) independently, and may start before the entropy half
 * has decoded the rows below them (jpeg_progress.h). */
#ifndef GI_JPEG_RECONSTRUCT_H
#define GI_JPEG_RECONSTRUCT_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"
#include "jpeg_coeffs.h"

/* Where the rows go: the whole image, or bands of rows handed to a sink
 * (a streamed histogram holds no image). */
typedef struct gi_jpeg_rows_out {
    uint8_t *pixels; /* c->width x c->height pixels of c->out_channels (1 or 3)
                        bytes, rows stride bytes apart; NULL: to sink */
    size_t stride;
    /* Rows y0 .. y0 + band->height - 1, in order within the band, bands in
     * no order; from worker `worker` (0 .. threads - 1: calls with
     * different workers may run at once), in a buffer of that worker's
     * that the next band reuses. Returns 0, or -1 to stop. */
    int (*sink)(void *arg, int worker, int y0, const gi_image *band);
    void *sink_arg;
    /* The kernel set; NULL: the one GPUIMG_CPU_ISA gives
     * (gi__jpeg_recon_kernels), as every caller but the tests of each set */
    const struct jpeg_recon_kernels *kernels;
} gi_jpeg_rows_out;

/* The arithmetic half of a whole image on up to `threads` threads
 * (chunks of MCU rows). Returns 0, or -1 when out of memory or the sink
 * stopped. */
int gi__jpeg_reconstruct(const gi_jpeg_coeffs *c, const gi_jpeg_rows_out *out, int threads);

/* The same, in two parts, for the pipelined decode (jpeg_progress.h):
 * start sets up and starts threads - 1 threads, whose every MCU row waits
 * until the coefficient rows it reads are final in `progress` (may be
 * NULL: they are); finish runs the caller's share, then joins. start
 * returns NULL when out of memory; finish returns 0, or -1 (out of
 * memory, the sink stopped, or the progress was closed short). */
typedef struct gi_jpeg_recon gi_jpeg_recon;
struct gi_jpeg_progress;
gi_jpeg_recon *gi__jpeg_recon_start(const gi_jpeg_coeffs *c, const gi_jpeg_rows_out *out,
                                    int threads, struct gi_jpeg_progress *progress);
int gi__jpeg_recon_finish(gi_jpeg_recon *r);
/* The caller's thread makes the next chunk now, if the coefficient rows
 * it reads are among the first `published` (the entropy half, its ring
 * full, helps rather than waits): 1 when it made one, else 0. */
int gi__jpeg_recon_help(gi_jpeg_recon *r, int published);

#endif
