/* The two axes' resize weights of a resize step, on the CPU's threads. */
#ifndef GI_RESIZE_AXES_H
#define GI_RESIZE_AXES_H

#include "gpuimg.h"

/* ax and ay (gpuimg.h, gi_resize_axis_weights) for src -> dst with filter,
 * their positions shared by up to `threads` threads where there are taps
 * enough to pay for them. GI_OK, or an error with both axes empty. */
gi_status gi__resize_axes(const gi_image *src, const gi_image *dst, gi_resize_filter filter,
                          int threads, gi_resize_axis *ax, gi_resize_axis *ay);

#endif
