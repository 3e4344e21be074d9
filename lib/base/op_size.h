/* The output size of one step (op_size.c); gi_apply_size, gi_sobel_size
 * and gi_transform_size are the public ones. */
#ifndef GI_OP_SIZE_H
#define GI_OP_SIZE_H

#include "gpuimg.h"

/* Width, height and channels of op's output image (not for hist). */
void gi__op_output_size(const gi_op *op, const gi_image *src, int *w, int *h, int *ch);

/* The sides gpuimg.h's resize rule gives a w_in x h_in image before
 * rounding (0, 0 without a size or a scale). */
void gi__resize_real_size(int w_in, int h_in, const gi_resize_params *p, double *width,
                          double *height);

/* GI_OK when a resize of a w x h image keeps its sides within
 * GI_RESIZE_MAX_SIDE, else GI_ERR_TOO_LARGE with a message: a side the
 * aspect or a scale makes larger is refused, never clamped (which would
 * change the aspect in silence). */
gi_status gi__resize_size_check(int w, int h, const gi_resize_params *p);

/* gi_apply_size; with any_source, checks only what holds for every source
 * (a crop that would start outside this one counts as 1x1): a batch's
 * check of its steps before it has read an image. */
gi_status gi__chain_size(const gi_image *src, const gi_op *steps, int n, int any_source,
                         int *width, int *height, int *channels);

#endif
