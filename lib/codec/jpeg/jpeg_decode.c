/* The exact JPEG decoder's two halves (jpeg_decode.h): one after the
 * other, or, for a single-scan baseline file, the arithmetic half
 * following the entropy half row by row
 * (jpeg_progress.h): on 2 cores the decode takes about max(E, (E + R) / 2)
 * instead of E + R / 2 (E the entropy half's time, R the arithmetic
 * half's). There the coefficients are first kept in a ring of a few MCU
 * rows, and the entropy half makes rows itself while the ring is full;
 * a frame the ring does not suit is decoded again without it. */
#include "jpeg_decode.h"

#include "jpeg_parse.h"
#include "jpeg_progress.h"
#include "jpeg_recon_plan.h"
#include "jpeg_shrink.h"
#include "base/pixel_alloc.h"

/* The target as the entropy half starts a scan the arithmetic half may
 * follow: its rows, and the workers that make them. */
typedef struct {
    const gi_jpeg_target *target;
    int threads;
    gi_jpeg_progress progress;
    gi_jpeg_recon *recon;       /* started: the pipeline runs */
    gi_jpeg_colour_mode mode;   /* as the workers convert */
} pipeline;

static int start_pipeline(void *arg, const gi_jpeg_coeffs *c)
{
    pipeline *pl = arg;
    gi_jpeg_rows_out out;
    if (pl->target->begin(pl->target->arg, c, &out) != 0) return -1;
    pl->mode = gi__jpeg_colour_mode(c);
    pl->recon = gi__jpeg_recon_start(c, &out, pl->threads, &pl->progress);
    return pl->recon ? 0 : -1;
}

static int help_pipeline(void *arg, int published)
{
    pipeline *pl = arg;
    return gi__jpeg_recon_help(pl->recon, published);
}

/* The arithmetic half after the entropy half. */
static int reconstruct(const gi_jpeg_target *t, const gi_jpeg_coeffs *c, int threads)
{
    gi_jpeg_rows_out out;
    return t->begin(t->arg, c, &out) == 0 && gi__jpeg_reconstruct(c, &out, threads) == 0;
}

enum { DONE, LEFT, AGAIN };

/* One decode with the pipeline offered, the ring too when `ring`: DONE,
 * LEFT (stb's file, or out of memory), or AGAIN when the rows must be
 * made again without the ring: the ring was kept for a frame whose first
 * scan is not pipelined, or a segment after the scan changed the colour
 * conversion (stb reads APP0 JFIF and APP14 Adobe wherever they are) and
 * the coefficients are gone. */
static int decode_piped(const uint8_t *bytes, size_t size, uint64_t max_pixels, int threads,
                        const gi_jpeg_target *t, int ring)
{
    gi_jpeg_coeffs c;
    pipeline pl = {.target = t, .threads = threads};
    if (gi__jpeg_progress_init(&pl.progress, start_pipeline, &pl) != 0) return LEFT;
    /* the workers' chunks of output rows (jpeg_reconstruct.c: about 64
     * each), one more for the entropy half to decode into meanwhile */
    if (ring) pl.progress.ring_output_rows = (threads + 1) * 64;
    pl.progress.help = help_pipeline;
    int r = gi__jpeg_read_coeffs(bytes, size, max_pixels, threads, 0, 0, &pl.progress, &c);
    gi__jpeg_progress_close(&pl.progress); /* a worker still waiting gives up */
    int result = r == GI_JPEG_OK ? DONE : pl.progress.ring_used && !pl.recon ? AGAIN : LEFT;
    if (pl.recon) {
        if (gi__jpeg_recon_finish(pl.recon) != 0 && result == DONE) result = LEFT;
        if (result == DONE && gi__jpeg_colour_mode(&c) != pl.mode)
            result = pl.progress.ring_used ? AGAIN : reconstruct(t, &c, threads) ? DONE : LEFT;
    } else if (result == DONE) {
        result = reconstruct(t, &c, threads) ? DONE : LEFT;
    }
    gi__jpeg_progress_destroy(&pl.progress);
    if (r == GI_JPEG_OK || pl.recon) gi__jpeg_coeffs_free(&c); /* jpeg_parse.h */
    return result;
}

int gi__jpeg_decode_rows(const uint8_t *bytes, size_t size, uint64_t max_pixels, int threads,
                         const gi_jpeg_target *t)
{
    /* One thread has nothing to overlap, but the ring still pays: a batch's
     * codec worker decodes a few MCU rows, makes their pixels, and reuses
     * the coefficients' memory instead of writing and reading back the
     * whole frame's (50 MB for a 9 MP 4:4:4 photo). 40 photos on 2 cores:
     * 1.53-1.55 s against 1.61-1.75 (folder_vs_peers.py -r 5, same run). */
    if (threads < 1) threads = 1;
    int result = decode_piped(bytes, size, max_pixels, threads, t, 1);
    if (result == AGAIN) result = decode_piped(bytes, size, max_pixels, threads, t, 0);
    return result == DONE;
}

/* ---- into an image ---- */

static int begin_image(void *arg, const gi_jpeg_coeffs *c, gi_jpeg_rows_out *out)
{
    gi_image *img = arg;
    if (!img->data) { /* a second begin makes the same image again */
        size_t stride = (size_t)c->width * (size_t)c->out_channels;
        uint8_t *pixels = gi__pixels_alloc(stride * (size_t)c->height);
        if (!pixels) return -1;
        *img = (gi_image){.width = c->width, .height = c->height, .channels = c->out_channels,
                          .stride = stride, .data = pixels, .owns_data = 1};
    }
    *out = (gi_jpeg_rows_out){.pixels = img->data, .stride = img->stride};
    return 0;
}

int gi__jpeg_image_from_coeffs(gi_image *img, const gi_jpeg_coeffs *c, int threads)
{
    if (c->shrink > 1) return gi__jpeg_image_shrunk(img, c, c->shrink, threads);
    gi_image made = {0};
    gi_jpeg_target t = {begin_image, &made};
    if (!reconstruct(&t, c, threads)) {
        gi__pixels_free(made.data);
        return 0;
    }
    *img = made;
    return 1;
}

int gi__jpeg_decode(gi_image *img, const uint8_t *bytes, size_t size, uint64_t max_pixels,
                    int threads)
{
    gi_image made = {0};
    gi_jpeg_target t = {begin_image, &made};
    if (!gi__jpeg_decode_rows(bytes, size, max_pixels, threads, &t)) {
        gi__pixels_free(made.data);
        return 0;
    }
    *img = made;
    return 1;
}
