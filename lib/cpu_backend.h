/* The CPU backend's operations, one file each (cpu_*.c). */
#ifndef GI_CPU_BACKEND_H
#define GI_CPU_BACKEND_H

#include "backend.h"
#include "gi_error.h"

/* Worker threads configured for this backend state. */
int gi__cpu_threads(const void *state);

gi_status gi__cpu_blur(void *state, const gi_image *src, gi_image *dst, const int32_t *weights,
                       int radius, gi_border border);
gi_status gi__cpu_sobel(void *state, const gi_image *src, gi_image *dst,
                        const gi_sobel_params *p);
gi_status gi__cpu_transform(void *state, const gi_image *src, gi_image *dst, gi_transform t);
gi_status gi__cpu_hist(void *state, const gi_image *src, int bins, gi_histogram *out);

#endif
