/* An axis's resize weights (gpuimg.h, gi_resize_axis_weights) in two
 * steps, so that a caller with threads can compute the positions' weights
 * on all of them: each position's are independent of the others', and a
 * reduction's (lanczos3 to a third of a 9 MP photo: 45 thousand taps, two
 * sines each) took as long as a tenth of the resize on one thread. */
#ifndef GI_RESIZE_AXIS_H
#define GI_RESIZE_AXIS_H

#include "gpuimg.h"

/* Checks the sizes and the filter and allocates axis for n_in -> n_out
 * (its taps, first, count and q, zeroed); GI_OK, or an error with axis
 * empty. */
gi_status gi__resize_axis_alloc(int n_in, int n_out, gi_resize_filter filter, gi_resize_axis *axis);

/* The weights of positions [x0, x1) of an allocated axis: GI_RESIZE_FILL_OK,
 * GI_RESIZE_FILL_NO_MEMORY, or the first position whose real weights sum
 * to nothing or whose integer weights pass the int32 bounds
 * (gi_resize_axis_weights then fails). Sets no error: it runs on any
 * thread. */
#define GI_RESIZE_FILL_OK (-1)
#define GI_RESIZE_FILL_NO_MEMORY (-2)
int gi__resize_axis_fill(gi_resize_axis *axis, gi_resize_filter filter, int x0, int x1);

/* The error of a fill that returned `failed` (not GI_RESIZE_FILL_OK). */
gi_status gi__resize_axis_failed(const gi_resize_axis *axis, int failed);

/* A copy of `from` into *to, with arrays of its own: 0, or -1 with *to
 * empty where memory is short. Sets no error: the copies that recent
 * resizes keep only save work. */
int gi__resize_axis_copy(const gi_resize_axis *from, gi_resize_axis *to);
/* Whether a and b hold the same sizes and the same weights. */
int gi__resize_axis_same(const gi_resize_axis *a, const gi_resize_axis *b);

#endif
