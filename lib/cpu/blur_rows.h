/* The CPU blur (blur.c) as rows in order: a thread walks down a band of
 * columns, each strip of them keeping its ring of horizontally filtered
 * rows from call to call, so a consumer can take a few output rows at a
 * time while they are in cache (the blur coded into a JPEG as it goes,
 * blur_jpeg.c) at the cost of one whole-band call. */
#ifndef GI_BLUR_ROWS_H
#define GI_BLUR_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "base/gi_error.h"
#include "gpuimg.h"

/* A blur of src, set up once: its taps from weights[0 .. 2 radius]
 * (gpuimg.h), its border, its strips. dst: where gi__cpu_blur writes
 * (NULL for rows only). Keeps pointers to src and dst. */
typedef struct gi__blur gi__blur;
gi_status gi__blur_setup(const gi_image *src, gi_image *dst, const int32_t *weights, int radius,
                         gi_border border, gi__blur **out);
void gi__blur_free(gi__blur *b);

/* Output rows from y0 down, columns [x0, x1), in order. NULL when out of
 * memory. */
typedef struct gi__blur_rows gi__blur_rows;
gi__blur_rows *gi__blur_rows_open(const gi__blur *b, int x0, int x1, int y0);
/* The next rows up to y1 - 1 (y1 at most the image's height), into `to`
 * (the first of them, column x0) and the rows stride bytes below it. */
void gi__blur_rows_make(gi__blur_rows *r, int y1, uint8_t *to, size_t stride);
void gi__blur_rows_close(gi__blur_rows *r);

#endif
