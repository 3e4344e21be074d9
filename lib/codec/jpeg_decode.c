/* The exact JPEG decoder's two halves (jpeg_decode.h): one after the
 * other, or, for a single-scan baseline file on more than one thread, the
 * arithmetic half following the entropy half row by row
 * (jpeg_progress.h): on 2 cores the decode takes about max(E, (E + R) / 2)
 * instead of E + R / 2 (E the entropy half's time, R the arithmetic
 * half's). */
#include "jpeg_decode.h"

#include "jpeg_parse.h"
#include "jpeg_progress.h"
#include "jpeg_recon_plan.h"
#include "pixel_alloc.h"

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

/* The arithmetic half after the entropy half. */
static int reconstruct(const gi_jpeg_target *t, const gi_jpeg_coeffs *c, int threads)
{
    gi_jpeg_rows_out out;
    return t->begin(t->arg, c, &out) == 0 && gi__jpeg_reconstruct(c, &out, threads) == 0;
}

int gi__jpeg_decode_rows(const uint8_t *bytes, size_t size, uint64_t max_pixels, int threads,
                         const gi_jpeg_target *t)
{
    gi_jpeg_coeffs c;
    /* One thread has nothing to overlap. */
    if (threads < 2) {
        if (gi__jpeg_read_coeffs(bytes, size, max_pixels, 1, NULL, &c) != GI_JPEG_OK) return 0;
        int ok = reconstruct(t, &c, 1);
        gi__jpeg_coeffs_free(&c);
        return ok;
    }
    pipeline pl = {.target = t, .threads = threads};
    if (gi__jpeg_progress_init(&pl.progress, start_pipeline, &pl) != 0) return 0;
    int r = gi__jpeg_read_coeffs(bytes, size, max_pixels, threads, &pl.progress, &c);
    gi__jpeg_progress_close(&pl.progress); /* a worker still waiting gives up */
    int ok = r == GI_JPEG_OK;
    if (pl.recon) {
        ok = gi__jpeg_recon_finish(pl.recon) == 0 && ok;
        /* An APP0 JFIF or APP14 Adobe segment after the scan changes the
         * colour conversion (stb reads them wherever they are): the rows
         * are made again, from the start. */
        if (ok && gi__jpeg_colour_mode(&c) != pl.mode) ok = reconstruct(t, &c, threads);
    } else if (ok) {
        ok = reconstruct(t, &c, threads);
    }
    gi__jpeg_progress_destroy(&pl.progress);
    if (r == GI_JPEG_OK || pl.recon) gi__jpeg_coeffs_free(&c); /* jpeg_parse.h */
    return ok;
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
