/* Operation entry points: validate, resolve parameters, run on the context's
 * backend, and under AUTO rerun on the CPU when the GPU is out of memory. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "context.h"
#include "gi_error.h"

typedef enum { OP_BLUR, OP_SOBEL, OP_TRANSFORM, OP_HIST } op_kind;

typedef struct {
    op_kind kind;
    const char *name;
    const gi_image *src;
    gi_image *dst;
    const int32_t *weights;
    int radius;
    gi_border border;
    const gi_sobel_params *sobel;
    gi_transform transform;
    int bins;
    gi_histogram *hist;
} op_call;

static gi_status call_backend(const gi__backend_ops *ops, void *state, const op_call *c)
{
    switch (c->kind) {
    case OP_BLUR: return ops->blur(state, c->src, c->dst, c->weights, c->radius, c->border);
    case OP_SOBEL: return ops->sobel(state, c->src, c->dst, c->sobel);
    case OP_TRANSFORM: return ops->transform(state, c->src, c->dst, c->transform);
    case OP_HIST: return ops->hist(state, c->src, c->bins, c->hist);
    }
    return gi__fail(GI_ERR_INVALID_ARGUMENT, "unknown operation");
}

static gi_status dispatch(gi_context *ctx, const op_call *c)
{
    ctx->last_fallback[0] = '\0';
    gi_status st = call_backend(ctx->ops, ctx->state, c);
    if (st != GI_ERR_NO_MEMORY || ctx->ops == ctx->cpu_ops || ctx->requested != GI_DEVICE_AUTO)
        return st;
    snprintf(ctx->last_fallback, sizeof ctx->last_fallback, "%s: %s; ran on the CPU",
             c->name, gi_last_error());
    const gi__backend_ops *cpu;
    void *cpu_state;
    st = gi__context_cpu(ctx, &cpu, &cpu_state);
    return st == GI_OK ? call_backend(cpu, cpu_state, c) : st;
}

static gi_status check_image(const gi_image *img, const char *role)
{
    if (!img || !img->data)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s image has no pixels", role);
    if (img->width < 1 || img->height < 1 || img->channels < 1 || img->channels > 4)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s image is %dx%d with %d channels", role,
                        img->width, img->height, img->channels);
    if (img->stride / (size_t)img->channels < (size_t)img->width)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s image stride %zu is shorter than a row", role,
                        img->stride);
    return GI_OK;
}

static size_t span_bytes(const gi_image *img)
{
    return img->stride * (size_t)(img->height - 1) + (size_t)img->width * img->channels;
}

static gi_status check_pair(const gi_image *src, const gi_image *dst, int width, int height,
                            int channels)
{
    gi_status st = check_image(src, "source");
    if (st == GI_OK) st = check_image(dst, "destination");
    if (st != GI_OK) return st;
    if (dst->width != width || dst->height != height || dst->channels != channels)
        return gi__fail(GI_ERR_INVALID_ARGUMENT,
                        "destination is %dx%d with %d channels; this operation writes %dx%d with %d",
                        dst->width, dst->height, dst->channels, width, height, channels);
    uintptr_t s0 = (uintptr_t)src->data, d0 = (uintptr_t)dst->data;
    if (s0 < d0 + span_bytes(dst) && d0 < s0 + span_bytes(src))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "source and destination overlap");
    return GI_OK;
}

static gi_status check_border(gi_border b)
{
    if ((unsigned)b.mode > GI_BORDER_WRAP)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "unknown border mode %d", (int)b.mode);
    return GI_OK;
}

gi_status gi_blur(gi_context *ctx, const gi_image *src, gi_image *dst, const gi_blur_params *p)
{
    gi_status st = check_pair(src, dst, src->width, src->height, src->channels);
    if (st == GI_OK) st = check_border(p->border);
    if (st != GI_OK) return st;
    int radius = gi_blur_radius(p);
    if (radius < 0 || radius > GI_BLUR_MAX_RADIUS)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "blur radius must be 0..%d (sigma %g)",
                        GI_BLUR_MAX_RADIUS, p->sigma);
    int32_t *weights = malloc(sizeof(int32_t) * (2 * (size_t)radius + 1));
    if (!weights) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur weights");
    st = gi_blur_weights(p, weights);
    if (st == GI_OK) {
        op_call c = {.kind = OP_BLUR, .name = "blur", .src = src, .dst = dst,
                     .weights = weights, .radius = radius, .border = p->border};
        st = dispatch(ctx, &c);
    }
    free(weights);
    return st;
}

void gi_sobel_params_default(gi_sobel_params *p)
{
    p->scale = 1.0;
    p->use_threshold = 0;
    p->threshold = 0;
    p->gray = 0;
    p->border.mode = GI_BORDER_MIRROR;
    p->border.value = 0;
}

void gi_sobel_size(const gi_image *src, const gi_sobel_params *p, int *width, int *height,
                   int *channels)
{
    *width = src->width;
    *height = src->height;
    *channels = p->gray ? 1 : src->channels;
}

gi_status gi_sobel(gi_context *ctx, const gi_image *src, gi_image *dst, const gi_sobel_params *p)
{
    int w, h, ch;
    gi_sobel_size(src, p, &w, &h, &ch);
    gi_status st = check_pair(src, dst, w, h, ch);
    if (st == GI_OK) st = check_border(p->border);
    if (st != GI_OK) return st;
    if (!isfinite(p->scale) || p->scale < 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "sobel scale %g: must be finite and >= 0", p->scale);
    if (p->use_threshold && !isfinite(p->threshold))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "sobel threshold must be finite");
    op_call c = {.kind = OP_SOBEL, .name = "sobel", .src = src, .dst = dst, .sobel = p};
    return dispatch(ctx, &c);
}

void gi_transform_size(const gi_image *src, gi_transform t, int *width, int *height)
{
    int swaps = t == GI_TRANSPOSE || t == GI_ROTATE_90 || t == GI_ROTATE_270;
    *width = swaps ? src->height : src->width;
    *height = swaps ? src->width : src->height;
}

gi_status gi_transform_image(gi_context *ctx, const gi_image *src, gi_image *dst, gi_transform t)
{
    if ((unsigned)t > GI_FLIP_V)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "unknown transform %d", (int)t);
    int w, h;
    gi_transform_size(src, t, &w, &h);
    gi_status st = check_pair(src, dst, w, h, src->channels);
    if (st != GI_OK) return st;
    op_call c = {.kind = OP_TRANSFORM, .name = "transform", .src = src, .dst = dst, .transform = t};
    return dispatch(ctx, &c);
}

gi_status gi_hist(gi_context *ctx, const gi_image *src, int bins, gi_histogram *out)
{
    gi_status st = check_image(src, "source");
    if (st != GI_OK) return st;
    if (bins < 1 || bins > GI_HIST_MAX_BINS)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%d bins: must be 1..%d", bins, GI_HIST_MAX_BINS);
    op_call c = {.kind = OP_HIST, .name = "hist", .src = src, .bins = bins, .hist = out};
    return dispatch(ctx, &c);
}
