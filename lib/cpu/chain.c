/* The CPU backend's chain: each step on its own operation file, the images
 * between steps in host memory, two of them at most, reused as the chain
 * goes (a step never writes the image it reads). */
#include <string.h>

#include "base/clock.h"
#include "cpu_backend.h"
#include "codec/jpeg/jpeg_write.h"

gi_status gi__cpu_run_step(void *state, const gi__op_call *c)
{
    const int deep = c->src->depth == 16;
    switch (c->kind) {
    case GI_OP_BLUR:
        return (deep ? gi__cpu_blur16 : gi__cpu_blur)(state, c->src, c->dst, c->weights, c->radius,
                                                      c->border);
    case GI_OP_SOBEL: return (deep ? gi__cpu_sobel16 : gi__cpu_sobel)(state, c->src, c->dst, c->sobel);
    case GI_OP_TRANSFORM: return gi__cpu_transform(state, c->src, c->dst, c->transform);
    case GI_OP_HIST:
        return c->src->depth == 16 ? gi__cpu_hist16(state, c->src, c->bins, c->hist)
                                   : gi__cpu_hist(state, c->src, c->bins, c->hist);
    case GI_OP_CONVOLVE:
        return (deep ? gi__cpu_convolve16 : gi__cpu_convolve)(state, c->src, c->dst, c->mask,
                                                              c->border);
    case GI_OP_RESIZE:
        return c->src->depth == 16 ? gi__cpu_resize16(state, c->src, c->dst, c->axis_x, c->axis_y)
                                   : gi__cpu_resize(state, c->src, c->dst, c->axis_x, c->axis_y);
    case GI_OP_CROP: return gi__cpu_crop(state, c->src, c->dst, c->crop_x, c->crop_y);
    }
    return gi__fail(GI_ERR_INVALID_ARGUMENT, "unknown operation %d", (int)c->kind);
}

/* Gives *img room for width x height x channels, reallocating only to grow. */
static gi_status fit(gi_image *img, size_t *capacity, const gi_image *size)
{
    const int depth = 8 * gi_image_sample_bytes(size);
    const size_t row = (size_t)size->width * size->channels * (size_t)(depth / 8);
    size_t need = row * (size_t)size->height;
    if (need > *capacity) {
        gi_image_free(img);
        *capacity = 0;
        gi_status st = gi_image_alloc_depth(img, size->width, size->height, size->channels, depth);
        if (st != GI_OK) return st;
        *capacity = need;
    }
    img->width = size->width;
    img->height = size->height;
    img->channels = size->channels;
    img->depth = depth;
    img->stride = row;
    return GI_OK;
}

/* Any chain but a lone blur into a JPEG file: into pixels of our own, then
 * the writer on the backend's threads. */
static gi_status run_then_encode(void *state, const gi__chain *chain)
{
    gi__chain_jpeg_out *out = chain->jpeg_out;
    const gi_image *size = chain->steps[chain->n - 1].dst;
    gi_image pixels;
    gi_status st = gi_image_alloc(&pixels, size->width, size->height, size->channels);
    if (st != GI_OK) return st;
    gi__op_call steps[GI_MAX_STEPS];
    memcpy(steps, chain->steps, sizeof *steps * (size_t)chain->n);
    steps[chain->n - 1].dst = &pixels;
    const gi__chain to_pixels = {steps, chain->n, GI__HOST, GI__HOST, NULL};
    st = gi__cpu_run_chain(state, &to_pixels);
    const double start = gi__now_ms();
    if (st == GI_OK && gi__jpeg_write(pixels.data, pixels.width, pixels.height, pixels.channels,
                                      pixels.stride, out->quality, gi__cpu_threads(state),
                                      &out->bytes, &out->size) != 0)
        st = gi__fail(GI_ERR_ENCODE, "cannot encode a %dx%d JPEG image", pixels.width,
                      pixels.height);
    out->encode_ms = gi__now_ms() - start;
    gi_image_free(&pixels);
    return st;
}

/* The chain's result as a JPEG file (backend.h, jpeg_out): a lone blur
 * coded as its rows come (blur_jpeg.c), any other chain run, then encoded. */
static gi_status run_to_jpeg(void *state, const gi__chain *chain)
{
    gi__chain_jpeg_out *out = chain->jpeg_out;
    out->bytes = NULL;
    out->size = 0;
    out->encode_ms = 0;
    gi_status st = chain->n == 1 && chain->steps[0].kind == GI_OP_BLUR
                       ? gi__cpu_blur_to_jpeg(state, &chain->steps[0], out)
                       : run_then_encode(state, chain);
    if (st == GI_OK) out->codec = "stb"; /* gi_encode's name for this writer */
    return st;
}

gi_status gi__cpu_run_chain(void *state, const gi__chain *chain)
{
    if (chain->src_where != GI__HOST || chain->dst_where != GI__HOST)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "the CPU backend computes in host memory only");
    if (chain->jpeg_out) return run_to_jpeg(state, chain);
    gi_image between[2] = {{0}};
    size_t capacity[2] = {0, 0};
    const gi_image *src = chain->steps[0].src;
    gi_status st = GI_OK;
    for (int i = 0; i < chain->n && st == GI_OK; i++) {
        gi__op_call step = chain->steps[i];
        step.src = src;
        if (i + 1 < chain->n) {
            gi_image *out = &between[i % 2];
            st = fit(out, &capacity[i % 2], step.dst);
            step.dst = out;
        }
        if (st == GI_OK) st = gi__cpu_run_step(state, &step);
        src = step.dst;
    }
    gi_image_free(&between[0]);
    gi_image_free(&between[1]);
    return st;
}
