/* The output size of one step (op_size.c); gi_apply_size, gi_sobel_size
 * and gi_transform_size are the public ones. */
#ifndef GI_OP_SIZE_H
#define GI_OP_SIZE_H

#include "gpuimg.h"

/* Width, height and channels of op's output image (not for hist). */
void gi__op_output_size(const gi_op *op, const gi_image *src, int *w, int *h, int *ch);

/* GI_OK when a resize of a w x h image by scale (0: by a size) keeps its
 * sides within GI_RESIZE_MAX_SIDE, else GI_ERR_TOO_LARGE with a message:
 * gpuimg.h's size rule would clamp them, which a scale must not do in
 * silence. */
gi_status gi__resize_scale_check(int w, int h, double scale);

/* gi_apply_size for the library's own chains, whose source and steps are
 * there (the public calls refused NULL): the count of steps is checked
 * first, so a job of no steps hears of that. With any_source, checks only
 * what holds for every source
 * (a crop that would start outside this one counts as 1x1): a batch's
 * check of its steps before it has read an image. */
gi_status gi__chain_size(const gi_image *src, const gi_op *steps, int n, int any_source,
                         int *width, int *height, int *channels);

#endif
