/* Operation entry points: validate, resolve parameters, run a chain of
 * steps on the context's backend, and under AUTO rerun it on the CPU when
 * the GPU is out of memory. The one-operation calls are chains of one. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "context.h"
#include "base/gi_error.h"
#include "codec/jpeg/jpeg_deferred.h"
#include "base/op_size.h"
#include "ops.h"
#include "plan_job.h"
#include "resize_axes.h"
#include "route.h"

/* Runs call on one backend and records where the time went. */
static gi_status run_timed(gi_context *ctx, const gi__backend_ops *ops, void *state,
                           gi__backend_call call, const void *arg)
{
    double start = gi__now_ms();
    gi_status st = call(ops, state, arg);
    ctx->last_backend = ops->name;
    double wall = gi__now_ms() - start;
    gi_op_times t = {0, 0, wall, 0};
    if (ops->last_times) ops->last_times(state, &t);
    t.startup_ms = ctx->last_times.startup_ms;
    ctx->last_times = t;
    return st;
}

gi_status gi__dispatch(gi_context *ctx, const char *name, const gi__plan_job *work,
                       gi__backend_call call, const void *arg)
{
    const gi__backend_ops *ops = NULL;
    void *state;
    ctx->last_fallback[0] = '\0';
    memset(&ctx->last_times, 0, sizeof ctx->last_times);
    gi_status st = gi__context_backend_for(ctx, work, &ops, &state);
    /* The start-up is reported once, by the operation that paid for it. */
    ctx->last_times.startup_ms = ctx->startup_ms;
    ctx->startup_ms = 0;
    if (st == GI_OK) st = run_timed(ctx, ops, state, call, arg);
    if (!gi__route_retries_on_cpu(ctx->requested, st, ops == ctx->cpu_ops)) return st;
    snprintf(ctx->last_fallback, sizeof ctx->last_fallback, "%s: %s; ran on the CPU", name,
             gi_last_error());
    const gi__backend_ops *cpu;
    void *cpu_state;
    st = gi__context_cpu(ctx, &cpu, &cpu_state);
    return st == GI_OK ? run_timed(ctx, cpu, cpu_state, call, arg) : st;
}

static gi_status call_chain(const gi__backend_ops *ops, void *state, const void *chain)
{
    return ops->run_chain(state, chain);
}

gi_status gi__check_image(const gi_image *img, const char *role)
{
    if (!img || !img->data)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s image has no pixels", role);
    if (img->width < 1 || img->height < 1 || img->channels < 1 || img->channels > 4)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s image is %dx%d with %d channels", role,
                        img->width, img->height, img->channels);
    if (img->depth != 0 && img->depth != 8 && img->depth != 16)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s image has depth %d: 8 or 16 bits per sample",
                        role, img->depth);
    const size_t sample = (size_t)gi_image_sample_bytes(img);
    if (img->stride / sample / (size_t)img->channels < (size_t)img->width)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s image stride %zu is shorter than a row", role,
                        img->stride);
    if (sample == 2 && (img->stride % 2 || (uintptr_t)img->data % 2))
        return gi__fail(GI_ERR_INVALID_ARGUMENT,
                        "%s image is 16-bit with an odd stride or address", role);
    return GI_OK;
}

static size_t span_bytes(const gi_image *img)
{
    return img->stride * (size_t)(img->height - 1) +
           (size_t)img->width * img->channels * (size_t)gi_image_sample_bytes(img);
}

/* dst must be w x h x ch at the source's depth... */
static gi_status check_result_size(const gi_image *src, const gi_image *dst, int w, int h, int ch)
{
    if (dst->width != w || dst->height != h || dst->channels != ch)
        return gi__fail(GI_ERR_INVALID_ARGUMENT,
                        "destination is %dx%d with %d channels; this operation writes %dx%d with %d",
                        dst->width, dst->height, dst->channels, w, h, ch);
    if (gi_image_sample_bytes(dst) != gi_image_sample_bytes(src))
        return gi__fail(GI_ERR_INVALID_ARGUMENT,
                        "destination is %d-bit and the source %d-bit: operations keep the depth"
                        " (gi_convert_depth changes it)",
                        8 * gi_image_sample_bytes(dst), 8 * gi_image_sample_bytes(src));
    return GI_OK;
}

/* ...with pixels... */
static gi_status check_output_size(const gi_image *src, const gi_image *dst, int w, int h,
                                   int ch)
{
    gi_status st = gi__check_image(dst, "destination");
    return st == GI_OK ? check_result_size(src, dst, w, h, ch) : st;
}

/* ...and not overlap src. */
static gi_status check_destination(const gi_image *src, const gi_image *dst, int w, int h, int ch)
{
    gi_status st = check_output_size(src, dst, w, h, ch);
    if (st != GI_OK) return st;
    uintptr_t s0 = (uintptr_t)src->data, d0 = (uintptr_t)dst->data;
    if (s0 < d0 + span_bytes(dst) && d0 < s0 + span_bytes(src))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "source and destination overlap");
    return GI_OK;
}

/* A step's call and what resolving it allocated. */
typedef struct {
    gi__op_call call;
    int32_t *weights;         /* owned: blur weights */
    gi_convolve_weights *mask; /* owned: quantized convolution mask */
    gi_resize_axis axis_x, axis_y; /* owned: resize weights */
    gi_op op;                 /* the parameters the call points into */
} resolved_op;

static gi_status check_border(gi_border b)
{
    if ((unsigned)b.mode > GI_BORDER_WRAP)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "unknown border mode %d", (int)b.mode);
    return GI_OK;
}

static gi_status resolve_blur(resolved_op *r)
{
    const gi_blur_params *p = &r->op.blur;
    int radius = gi_blur_radius(p);
    if (radius < 0 || radius > GI_BLUR_MAX_RADIUS)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "blur radius must be 0..%d (sigma %g)",
                        GI_BLUR_MAX_RADIUS, p->sigma);
    r->weights = malloc(sizeof(int32_t) * (2 * (size_t)radius + 1));
    if (!r->weights) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate blur weights");
    r->call.weights = r->weights;
    r->call.radius = radius;
    r->call.border = p->border;
    return gi_blur_weights(p, r->weights);
}

static gi_status resolve_sobel(resolved_op *r)
{
    const gi_sobel_params *p = &r->op.sobel;
    r->call.sobel = p;
    r->call.border = p->border;
    return GI_OK;
}

static gi_status resolve_convolve(resolved_op *r)
{
    r->mask = malloc(sizeof *r->mask);
    if (!r->mask) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate convolution weights");
    r->call.mask = r->mask;
    r->call.border = r->op.convolve.border;
    const int depth = r->call.src && r->call.src->depth == 16 ? 16 : 8;
    return gi_convolve_quantize_depth(&r->op.convolve, depth, r->mask);
}

/* threads: the CPU threads its weights may take; axes: the context's
 * recent axes */
static gi_status resolve_resize(resolved_op *r, int threads, gi__axis_cache *axes)
{
    const gi_resize_params *p = &r->op.resize;
    const gi_image *src = r->call.src, *dst = r->call.dst;
    if (p->width < 0 || p->height < 0 || p->width > GI_RESIZE_MAX_SIDE ||
        p->height > GI_RESIZE_MAX_SIDE || !(p->scale >= 0) || !isfinite(p->scale) ||
        (p->scale > 0 && (p->width || p->height)) || (!p->scale && !p->width && !p->height))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "resize to %dx%d, scale %g: give a size "
                        "(sides 1..%d) or a scale > 0", p->width, p->height, p->scale,
                        GI_RESIZE_MAX_SIDE);
    gi_status st = gi__resize_scale_check(src->width, src->height, p->scale);
    if (st != GI_OK) return st;
    st = gi__resize_axes(src, dst, p->filter, threads, axes, &r->axis_x, &r->axis_y);
    r->call.axis_x = &r->axis_x;
    r->call.axis_y = &r->axis_y;
    return st;
}

static gi_status resolve_crop(resolved_op *r)
{
    const gi_crop_params *p = &r->op.crop;
    const gi_image *src = r->call.src;
    int w, h;
    gi_crop_rect(src, p, &r->call.crop_x, &r->call.crop_y, &w, &h);
    if (w < 1 || h < 1)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "crop at %d,%d lies outside the %dx%d image",
                        p->x, p->y, src->width, src->height);
    return GI_OK;
}

static gi_status resolve_kind(resolved_op *r, int threads, gi__axis_cache *axes)
{
    static const char *const names[] = {"blur", "sobel", "transform", "hist", "convolve",
                                        "resize", "crop"};
    r->call.name = (unsigned)r->op.kind <= GI_OP_CROP ? names[r->op.kind] : "?";
    switch (r->op.kind) {
    case GI_OP_BLUR: return resolve_blur(r);
    case GI_OP_SOBEL: return resolve_sobel(r);
    case GI_OP_CONVOLVE: return resolve_convolve(r);
    case GI_OP_RESIZE: return resolve_resize(r, threads, axes);
    case GI_OP_CROP: return resolve_crop(r);
    case GI_OP_TRANSFORM:
        r->call.transform = r->op.transform;
        return GI_OK;
    case GI_OP_HIST: {
        /* one bin per value at most (gpuimg.h, hist) */
        const int values = r->call.src && r->call.src->depth == 16 ? 65536 : 256;
        if (r->op.bins < 1 || r->op.bins > values)
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "%d bins: must be 1..%d for %s image",
                            r->op.bins, values, values == 256 ? "an 8-bit" : "a 16-bit");
        r->call.bins = r->op.bins;
        return GI_OK;
    }
    }
    return gi__fail(GI_ERR_INVALID_ARGUMENT, "unknown operation %d", (int)r->op.kind);
}

/* Every single-valued parameter of the step against the table of
 * parameters (op_params.c), the one statement of each range, which the
 * command line, Python and the server check with too. A value at its
 * default (which may mean "none given", as blur's radius -1) or marked not
 * given (sobel's threshold) is left alone; what depends on the image or on
 * other parameters (a 16-bit image's bins, resize's size against its
 * scale, crop's rectangle) the operation's own resolve checks. */
static gi_status check_params(const gi_op *op)
{
    int n = 0;
    const gi_op_param *p = gi_op_params(op->kind, &n);
    for (int i = 0; p && i < n; i++) {
        if (p[i].type == GI_PARAM_BORDER || p[i].type == GI_PARAM_MASK) continue;
        if (p[i].given_offset && !*(const int *)((const char *)op + p[i].given_offset)) continue;
        const double v = gi_op_param_get(&p[i], op);
        if (v == p[i].default_value) continue;
        char shown[32];
        snprintf(shown, sizeof shown, "%g", v);
        gi_status st = gi_op_param_check(&p[i], v, shown);
        if (st != GI_OK) return st;
    }
    return GI_OK;
}

static void release_op(resolved_op *r)
{
    free(r->weights);
    free(r->mask);
    gi_resize_axis_free(&r->axis_x);
    gi_resize_axis_free(&r->axis_y);
    r->weights = NULL;
    r->mask = NULL;
}

/* Resolves op's parameters for a step whose images are already checked,
 * on up to `threads` CPU threads, resize's axes through the context's
 * recent ones (`axes`). */
static gi_status resolve_step(const gi_op *op, const gi_image *src, gi_image *dst,
                              gi_histogram *hist, int threads, gi__axis_cache *axes,
                              resolved_op *r)
{
    memset(r, 0, sizeof *r);
    r->op = *op;
    r->call.kind = op->kind;
    r->call.src = src;
    r->call.dst = dst;
    r->call.hist = hist;
    gi_status st = check_border(op->kind == GI_OP_BLUR       ? op->blur.border
                                : op->kind == GI_OP_SOBEL    ? op->sobel.border
                                : op->kind == GI_OP_CONVOLVE ? op->convolve.border
                                                             : (gi_border){0, 0});
    if (st == GI_OK) st = check_params(op);
    if (st == GI_OK) st = resolve_kind(r, threads, axes);
    if (st != GI_OK) release_op(r);
    return st;
}

/* ---------------------------------------------------------------- steps */

/* The steps of a chain, resolved, and the sizes of the images between them. */
typedef struct {
    resolved_op resolved[GI_MAX_STEPS];
    gi__op_call calls[GI_MAX_STEPS];
    gi_image between[GI_MAX_STEPS]; /* sizes only: the backend holds the pixels */
    int n;
} chain_plan;

static void release_plan(chain_plan *p)
{
    for (int i = 0; i < p->n; i++) release_op(&p->resolved[i]);
}

/* Checks the chain's ends and resolves every step; src and dst are in the
 * caller's memory, but for a source whose pixels the backend will make
 * (a JPEG's coefficients) and a result that comes back as a file
 * (jpeg_out): they give their sizes only. threads: the CPU threads the
 * steps' own host work may take (the context's); axes: the context's
 * recent resize axes. */
static gi_status plan_chain(const gi_image *src, int src_pixels_later, const gi_op *steps, int n,
                            gi_image *dst, int dst_size_only, gi_histogram *hist, int threads,
                            gi__axis_cache *axes, chain_plan *p)
{
    int w, h, ch;
    p->n = 0;
    gi_status st = gi__chain_size(src, steps, n, 0, &w, &h, &ch);
    if (st == GI_OK && !src_pixels_later) st = gi__check_image(src, "source");
    int ends_in_hist = st == GI_OK && steps[n - 1].kind == GI_OP_HIST;
    if (st == GI_OK && ends_in_hist && !hist)
        st = gi__fail(GI_ERR_INVALID_ARGUMENT, "no histogram to fill");
    if (st == GI_OK && !ends_in_hist)
        st = dst_size_only      ? check_result_size(src, dst, w, h, ch)
             : src_pixels_later ? check_output_size(src, dst, w, h, ch)
                                : check_destination(src, dst, w, h, ch);
    const gi_image *in = src;
    for (int i = 0; i < n && st == GI_OK; i++) {
        gi_image *out = i + 1 == n ? dst : &p->between[i];
        if (i + 1 < n) {
            memset(out, 0, sizeof *out);
            gi__op_output_size(&steps[i], in, &out->width, &out->height, &out->channels);
            out->depth = in->depth == 16 ? 16 : 8;
            out->stride = (size_t)out->width * out->channels * (size_t)gi_image_sample_bytes(out);
        }
        st = resolve_step(&steps[i], in, steps[i].kind == GI_OP_HIST ? NULL : out,
                          steps[i].kind == GI_OP_HIST ? hist : NULL, threads, axes, &p->resolved[i]);
        if (st == GI_OK) p->calls[p->n++] = p->resolved[i].call;
        in = out;
    }
    if (st != GI_OK) release_plan(p);
    return st;
}

/* Whether a chain of `steps` on the host leaves as a JPEG file: asked for
 * (jpeg_out), and not ending in a histogram. */
static int result_as_jpeg(const gi__chain_jpeg_out *jpeg_out, const gi_op *steps, int n)
{
    return jpeg_out && n >= 1 && n <= GI_MAX_STEPS && steps[n - 1].kind != GI_OP_HIST;
}

/* The plan's view of a chain whose result leaves as a JPEG file. */
static void weigh_jpeg_out(const gi__chain *chain, gi__plan_job *work)
{
    if (!chain->jpeg_out) return;
    const gi_image *out = chain->steps[chain->n - 1].dst;
    work->jpeg_out_pixels = (double)out->width * out->height;
}

static gi_status apply_between(gi_context *ctx, const gi_image *src, gi__where src_where,
                               const gi_op *steps, int n, gi_image *dst, gi__where dst_where,
                               gi_histogram *hist, gi__chain_jpeg_out *jpeg_out)
{
    const int to_jpeg = dst_where == GI__HOST && result_as_jpeg(jpeg_out, steps, n);
    chain_plan plan;
    gi_status st = plan_chain(src, 0, steps, n, dst, to_jpeg, hist, gi__context_cpu_threads(ctx),
                              &ctx->resize_axes, &plan);
    if (st != GI_OK) return st;
    const gi__chain chain = {plan.calls, plan.n, src_where, dst_where, to_jpeg ? jpeg_out : NULL};
    gi__plan_job work = gi__plan_job_of_chain(&chain);
    weigh_jpeg_out(&chain, &work);
    st = gi__dispatch(ctx, plan.calls[plan.n - 1].name, &work, call_chain, &chain);
    release_plan(&plan);
    return st;
}

/* Whether a chain ends in hist: then it fills hist and leaves dst alone
 * (a chain of a wrong length is refused later, naming its length). */
static int ends_in_hist(const gi_op *steps, int n)
{
    return n >= 1 && n <= GI_MAX_STEPS && steps[n - 1].kind == GI_OP_HIST;
}

gi_status gi_apply(gi_context *ctx, const gi_image *src, const gi_op *steps, int n, gi_image *dst,
                   gi_histogram *hist)
{
    GI__REFUSE_NULL(ctx, src, steps);
    if (ends_in_hist(steps, n)) GI__REFUSE_NULL(hist);
    else GI__REFUSE_NULL(dst);
    return apply_between(ctx, src, GI__HOST, steps, n, dst, GI__HOST, hist, NULL);
}

gi_status gi__apply_to_jpeg(gi_context *ctx, const gi_image *src, const gi_op *steps, int n,
                            gi_image *dst, gi_histogram *hist, gi__chain_jpeg_out *jpeg_out)
{
    return apply_between(ctx, src, GI__HOST, steps, n, dst, GI__HOST, hist, jpeg_out);
}

/* A chain from a JPEG's coefficients, as gi__dispatch calls it. */
typedef struct {
    const gi_jpeg_coeffs *c;
    const gi__chain *chain;
} jpeg_chain;

static gi_status call_jpeg_chain(const gi__backend_ops *ops, void *state, const void *arg)
{
    const jpeg_chain *j = arg;
    return ops->run_chain_from_jpeg(state, j->c, j->chain);
}

gi_image gi__jpeg_decoded_size(const gi_jpeg_coeffs *c)
{
    int w, h;
    gi__jpeg_output_size(c, &w, &h);
    return (gi_image){.width = w, .height = h, .channels = c->out_channels,
                      .stride = (size_t)w * (size_t)c->out_channels};
}

gi_status gi__apply_jpeg(gi_context *ctx, const gi_jpeg_coeffs *c, const gi_op *steps, int n,
                         gi_image *dst, gi_histogram *hist, gi__chain_jpeg_out *jpeg_out)
{
    const gi_image size = gi__jpeg_decoded_size(c);
    const int to_jpeg = result_as_jpeg(jpeg_out, steps, n);
    chain_plan plan;
    gi_status st = plan_chain(&size, 1, steps, n, dst, to_jpeg, hist, gi__context_cpu_threads(ctx),
                              &ctx->resize_axes, &plan);
    if (st != GI_OK) return st;
    const gi__chain chain = {plan.calls, plan.n, GI__HOST, GI__HOST, to_jpeg ? jpeg_out : NULL};
    gi__plan_job work = gi__plan_job_of_chain(&chain);
    /* the arithmetic half's pixels (fewer when shrunk), the Huffman decoding's frame */
    work.jpeg_pixels = (double)size.width * size.height;
    work.jpeg_coeff_bytes = (double)gi__jpeg_upload_bytes(c);
    work.jpeg_entropy_pixels = c->deferred ? (double)c->width * c->height : 0;
    weigh_jpeg_out(&chain, &work);
    const jpeg_chain arg = {c, &chain};
    st = gi__dispatch(ctx, plan.calls[plan.n - 1].name, &work, call_jpeg_chain, &arg);
    release_plan(&plan);
    return st;
}

static gi_status check_device_end(const gi_image *img, const char *role)
{
    if ((uintptr_t)img->data % GI_DEVICE_ALIGN || img->stride % GI_DEVICE_ALIGN)
        return gi__fail(GI_ERR_INVALID_ARGUMENT,
                        "%s in device memory: its address and stride (%zu) must be multiples "
                        "of %d", role, img->stride, GI_DEVICE_ALIGN);
    return GI_OK;
}

gi_status gi_apply_device(gi_context *ctx, const gi_image *src, const gi_op *steps, int n,
                          gi_image *dst, gi_histogram *hist)
{
    GI__REFUSE_NULL(ctx, src, steps);
    if (ends_in_hist(steps, n)) GI__REFUSE_NULL(hist);
    else GI__REFUSE_NULL(dst);
    gi_status st = check_device_end(src, "source");
    if (st == GI_OK && !ends_in_hist(steps, n)) st = check_device_end(dst, "destination");
    if (st != GI_OK) return st;
    if (ctx->requested != GI_DEVICE_CUDA)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "a source in device memory needs a CUDA context");
    return apply_between(ctx, src, GI__DEVICE, steps, n, dst, GI__DEVICE, hist, NULL);
}

static gi_status run_op(gi_context *ctx, const gi_op *op, const gi_image *src, gi_image *dst,
                        gi_histogram *hist)
{
    return gi_apply(ctx, src, op, 1, dst, hist);
}

gi_status gi_blur(gi_context *ctx, const gi_image *src, gi_image *dst, const gi_blur_params *p)
{
    GI__REFUSE_NULL(ctx, src, dst, p);
    gi_op op = {.kind = GI_OP_BLUR, .blur = *p};
    return run_op(ctx, &op, src, dst, NULL);
}

void gi_sobel_params_default(gi_sobel_params *p)
{
    if (!p) return;
    p->scale = 1.0;
    p->use_threshold = 0;
    p->threshold = 0;
    p->gray = 0;
    p->border.mode = GI_BORDER_MIRROR;
    p->border.value = 0;
}

gi_status gi_sobel(gi_context *ctx, const gi_image *src, gi_image *dst, const gi_sobel_params *p)
{
    GI__REFUSE_NULL(ctx, src, dst, p);
    gi_op op = {.kind = GI_OP_SOBEL, .sobel = *p};
    return run_op(ctx, &op, src, dst, NULL);
}

gi_status gi_transform_image(gi_context *ctx, const gi_image *src, gi_image *dst, gi_transform t)
{
    GI__REFUSE_NULL(ctx, src, dst);
    gi_op op = {.kind = GI_OP_TRANSFORM, .transform = t};
    return run_op(ctx, &op, src, dst, NULL);
}

gi_status gi_hist(gi_context *ctx, const gi_image *src, int bins, gi_histogram *out)
{
    GI__REFUSE_NULL(ctx, src, out);
    gi_op op = {.kind = GI_OP_HIST, .bins = bins};
    return run_op(ctx, &op, src, NULL, out);
}

gi_status gi_convolve(gi_context *ctx, const gi_image *src, gi_image *dst,
                      const gi_convolve_params *p)
{
    GI__REFUSE_NULL(ctx, src, dst, p);
    GI__REFUSE_NULL(p->mask);
    gi_op op = {.kind = GI_OP_CONVOLVE, .convolve = *p};
    return run_op(ctx, &op, src, dst, NULL);
}

gi_status gi_resize(gi_context *ctx, const gi_image *src, gi_image *dst, const gi_resize_params *p)
{
    GI__REFUSE_NULL(ctx, src, dst, p);
    gi_op op = {.kind = GI_OP_RESIZE, .resize = *p};
    return run_op(ctx, &op, src, dst, NULL);
}

gi_status gi_crop(gi_context *ctx, const gi_image *src, gi_image *dst, const gi_crop_params *p)
{
    GI__REFUSE_NULL(ctx, src, dst, p);
    gi_op op = {.kind = GI_OP_CROP, .crop = *p};
    return run_op(ctx, &op, src, dst, NULL);
}
