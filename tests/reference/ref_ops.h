/* ref_ops.h - float64 reference implementations of every operation.
 *
 * Written from the formulas in gpuimg.h, deliberately NOT the way the library
 * computes: blur is the direct 2D sum over the whole window in double (the
 * library runs two integer passes), sobel is the textbook double formula,
 * convolve is the direct sum over the mask in double,
 * transforms read the documented index maps, hist counts pixels one by one.
 * Border lookups use gi_border_index, which test_border checks on its own.
 */
#ifndef TESTS_REF_OPS_H
#define TESTS_REF_OPS_H

#include <gpuimg.h>

/* The exact result of the blur before any rounding, one double per sample
 * (width * height * channels, tightly packed). Colour of an alpha image is
 * sum(w w c a) / sum(w w a) (0 where that sum is 0); everything else is
 * sum(w w u) / 65536^2. `weights` holds 2R+1 integers (gi_blur_weights). */
void ref_blur(const gi_image *src, const int32_t *weights, int radius, gi_border border,
              double *out);

/* The correlation sum_{j,i} mask[j][i] * in(B(x + i - rx), B(y + j - ry)) of
 * every sample before any rounding or clamping (packed like ref_blur), with
 * `mask` holding mh rows of mw values. With the real mask values it is the
 * exact filter; with gi_convolve_quantize's q it is the library's integer
 * sum, which a double holds exactly (|sum| <= 2^30). */
void ref_convolve(const gi_image *src, const double *mask, int mw, int mh, gi_border border,
                  double *out);

/* dst: allocated by the caller with gi_sobel_size's shape. */
void ref_sobel(const gi_image *src, const gi_sobel_params *p, gi_image *dst);

/* dst: allocated by the caller with gi_transform_size's shape. */
void ref_transform(const gi_image *src, gi_transform t, gi_image *dst);

void ref_hist(const gi_image *src, int bins, uint64_t counts[4][GI_HIST_MAX_BINS]);

/* Statistics straight from the samples of channel c (sorting for the median). */
void ref_stats(const gi_image *src, int c, gi_channel_stats *stats);

#endif
