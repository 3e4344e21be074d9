/* The output size of one step (op_size.c); gi_apply_size, gi_sobel_size
 * and gi_transform_size are the public ones. */
#ifndef GI_OP_SIZE_H
#define GI_OP_SIZE_H

#include "gpuimg.h"

/* Width, height and channels of op's output image (not for hist). */
void gi__op_output_size(const gi_op *op, const gi_image *src, int *w, int *h, int *ch);

/* gi_apply_size; with any_source, checks only what holds for every source
 * (a crop that would start outside this one counts as 1x1): a batch's
 * check of its steps before it has read an image. */
gi_status gi__chain_size(const gi_image *src, const gi_op *steps, int n, int any_source,
                         int *width, int *height, int *channels);

#endif
