/* The two axes' resize weights of a resize step, on the CPU's threads,
 * and the recent axes a context keeps for the next resize of the same
 * geometry. */
#ifndef GI_RESIZE_AXES_H
#define GI_RESIZE_AXES_H

#include "gpuimg.h"

/* A context's most recent axes, each its own copy: a folder of one
 * camera's photos, or a training set's images brought to one size, asks
 * for the same axes image after image (a landscape photo's and a portrait
 * one's are the same two), and an axis's weights took a fifth of a small
 * resize's call (two sines a tap with lanczos). An axis of more than
 * GI_AXIS_CACHE_MAX_TAPS taps (256 KB of weights: a 9 MP photo doubled
 * with lanczos3 takes 46 thousand) is not kept, so that a context holds
 * about a megabyte at most: such an axis's weights cost little beside
 * its resize. */
#define GI_AXIS_CACHE_ENTRIES 4
#define GI_AXIS_CACHE_MAX_TAPS (1 << 16)
typedef struct gi__axis_cache {
    struct {
        gi_resize_filter filter;
        gi_resize_axis axis;   /* n_out 0: empty */
        unsigned long used;    /* the clock when last asked for: the oldest goes first */
    } entry[GI_AXIS_CACHE_ENTRIES];
    unsigned long clock;
} gi__axis_cache;

void gi__axis_cache_free(gi__axis_cache *cache);

/* ax and ay (gpuimg.h, gi_resize_axis_weights) for src -> dst with filter,
 * their positions shared by up to `threads` threads where there are taps
 * enough to pay for them; an axis found in `cache` (NULL: none) is copied
 * from it, and one computed is kept there; ay of the same sizes as ax is
 * ax's copy. GI_OK, or an error with both axes empty. */
gi_status gi__resize_axes(const gi_image *src, const gi_image *dst, gi_resize_filter filter,
                          int threads, gi__axis_cache *cache, gi_resize_axis *ax, gi_resize_axis *ay);

#endif
