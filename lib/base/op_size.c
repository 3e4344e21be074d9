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
}

void gi_sobel_size(const gi_image *src, const gi_sobel_params *p, int *width, int *height,
                   int *channels)
{
    *width = src->width;
    *height = src->height;
    *channels = p->gray ? 1 : src->channels;
}

void gi_transform_size(const gi_image *src, gi_transform t, int *width, int *height)
{
    int swaps = t == GI_TRANSPOSE || t == GI_ROTATE_90 || t == GI_ROTATE_270;
    *width = swaps ? src->height : src->width;
    *height = swaps ? src->width : src->height;
}

gi_status gi_apply_size(const gi_image *src, const gi_op *steps, int n, int *width, int *height,
                        int *channels)
{
    if (!src || !steps || n < 1 || n > GI_MAX_STEPS)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%d steps: a chain has 1..%d", n, GI_MAX_STEPS);
    gi_image size = {.width = src->width, .height = src->height, .channels = src->channels};
    for (int i = 0; i < n; i++) {
        if (steps[i].kind == GI_OP_HIST && i + 1 < n)
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "step %d (hist): hist can only be the last step",
                            i + 1);
        int w, h, ch; /* not straight into size, which the call reads */
        gi__op_output_size(&steps[i], &size, &w, &h, &ch);
        size.width = w;
        size.height = h;
        size.channels = ch;
    }
    *width = size.width;
    *height = size.height;
    *channels = size.channels;
    return GI_OK;
}
