/* The size of each operation's output, and of a chain's: what a caller
 * allocates before running it, and what the checks (ops.c) and the cost
 * model's view of a job (plan_job.c) compute with. */
#include "gi_error.h"
#include "op_size.h"

void gi__op_output_size(const gi_op *op, const gi_image *src, int *w, int *h, int *ch)
{
    *w = src->width;
    *h = src->height;
    *ch = src->channels;
    if (op->kind == GI_OP_SOBEL) gi_sobel_size(src, &op->sobel, w, h, ch);
    if (op->kind == GI_OP_TRANSFORM) gi_transform_size(src, op->transform, w, h);
    if (op->kind == GI_OP_RESIZE) gi_resize_size(src, &op->resize, w, h);
    if (op->kind == GI_OP_CROP) {
        int x0, y0;
        gi_crop_rect(src, &op->crop, &x0, &y0, w, h);
    }
}

gi_status gi__resize_scale_check(int w, int h, double scale)
{
    if (scale > 0 && (w * scale >= GI_RESIZE_MAX_SIDE + 0.5 || h * scale >= GI_RESIZE_MAX_SIDE + 0.5))
        return gi__fail(GI_ERR_TOO_LARGE, "resize of %dx%d by %g: sides are at most %d", w, h, scale,
                        GI_RESIZE_MAX_SIDE);
    return GI_OK;
}

/* The part of [at, at + want) inside [0, n) (want 0: up to n); its start
 * past the end gives a size of 0, which ops.c refuses. */
static void cut(int n, int at, int want, int *start, int *size)
{
    *start = at < 0 ? 0 : at;
    long end = want > 0 ? (long)*start + want : n;
    *size = *start >= n ? 0 : (int)((end < n ? end : n) - *start);
}

void gi_crop_rect(const gi_image *src, const gi_crop_params *p, int *x0, int *y0, int *width,
                  int *height)
{
    if (!src || !p || !x0 || !y0 || !width || !height) return;
    int x = p->x, y = p->y;
    if (p->centre) {
        x = p->width > 0 && p->width < src->width ? (src->width - p->width) / 2 : 0;
        y = p->height > 0 && p->height < src->height ? (src->height - p->height) / 2 : 0;
    }
    cut(src->width, x, p->width, x0, width);
    cut(src->height, y, p->height, y0, height);
}

void gi_sobel_size(const gi_image *src, const gi_sobel_params *p, int *width, int *height,
                   int *channels)
{
    if (!src || !p || !width || !height || !channels) return;
    *width = src->width;
    *height = src->height;
    *channels = p->gray ? 1 : src->channels;
}

void gi_transform_size(const gi_image *src, gi_transform t, int *width, int *height)
{
    if (!src || !width || !height) return;
    int swaps = t == GI_TRANSPOSE || t == GI_ROTATE_90 || t == GI_ROTATE_270;
    *width = swaps ? src->height : src->width;
    *height = swaps ? src->width : src->height;
}

gi_status gi__chain_size(const gi_image *src, const gi_op *steps, int n, int any_source,
                         int *width, int *height, int *channels)
{
    if (n < 1 || n > GI_MAX_STEPS)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%d steps: a chain has 1..%d", n, GI_MAX_STEPS);
    gi_image size = {.width = src->width, .height = src->height, .channels = src->channels};
    for (int i = 0; i < n; i++) {
        if (steps[i].kind == GI_OP_HIST && i + 1 < n)
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "step %d (hist): hist can only be the last step",
                            i + 1);
        if (steps[i].kind == GI_OP_RESIZE && !(steps[i].resize.scale > 0) &&
            steps[i].resize.width <= 0 && steps[i].resize.height <= 0)
            return gi__fail(GI_ERR_INVALID_ARGUMENT,
                            "step %d (resize): give a width, a height or a scale", i + 1);
        if (steps[i].kind == GI_OP_RESIZE && !any_source) {
            const gi_status st = gi__resize_scale_check(size.width, size.height, steps[i].resize.scale);
            if (st != GI_OK) return st;
        }
        int w, h, ch; /* not straight into size, which the call reads */
        gi__op_output_size(&steps[i], &size, &w, &h, &ch);
        if (any_source && (w < 1 || h < 1)) w = h = 1; /* a crop outside this source */
        if (w < 1 || h < 1)
            return gi__fail(GI_ERR_INVALID_ARGUMENT,
                            "step %d (crop): the rectangle starts at %d,%d, outside the %dx%d "
                            "image: x must be below %d and y below %d", i + 1, steps[i].crop.x,
                            steps[i].crop.y, size.width, size.height, size.width, size.height);
        size.width = w;
        size.height = h;
        size.channels = ch;
    }
    *width = size.width;
    *height = size.height;
    *channels = size.channels;
    return GI_OK;
}

gi_status gi_apply_size(const gi_image *src, const gi_op *steps, int n, int *width, int *height,
                        int *channels)
{
    GI__REFUSE_NULL(src, steps, width, height, channels);
    return gi__chain_size(src, steps, n, 0, width, height, channels);
}
