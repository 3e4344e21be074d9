/* checks.h - the groups of test_reference, one file each, and the case
 * space they share (sizes and border settings). */
#ifndef TESTS_REF_CHECKS_H
#define TESTS_REF_CHECKS_H

#include <gpuimg.h>
#include <stddef.h>

/* 1x1, a single column, a single row, odd sizes, a wide short strip. */
#define REF_NSIZES 5
extern const int ref_sizes[REF_NSIZES][2];

/* Every mode, with zero twice: border value 0 and a random nonzero value. */
#define REF_NBORDERS 6
gi_border ref_border(int k);
/* "mirror", "zero(value=37)": for failure messages. */
const char *ref_border_label(gi_border b, char *buf, size_t size);

void check_blur(gi_context *ctx);
void check_blur_transparency(gi_context *ctx);
void check_sobel(gi_context *ctx);
void check_transform(gi_context *ctx);
void check_hist(gi_context *ctx);
void check_convolve(gi_context *ctx);
void check_compare(gi_context *ctx);
void check_resize(gi_context *ctx);
void check_resize_size(gi_context *ctx);
void check_crop(gi_context *ctx);
/* 16-bit images, on CPU contexts of 1 and 3 threads of their own. */
void check_transform16(gi_context *ctx);
void check_crop16(gi_context *ctx);
void check_resize16(gi_context *ctx);
void check_compare16(gi_context *ctx);
void check_hist16(gi_context *ctx);
/* Makes its own contexts with 1, 2, 3 and 7 threads; ignores ctx. */
void check_threads(gi_context *ctx);
/* 16-bit images (check_filter16.c); threads16 makes its own contexts. */
void check_blur16(gi_context *ctx);
void check_sobel16(gi_context *ctx);
void check_convolve16(gi_context *ctx);
void check_threads16(gi_context *ctx);

#endif
