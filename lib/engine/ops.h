/* The operations' checks and dispatch that other engine files share (ops.c). */
#ifndef GI_OPS_H
#define GI_OPS_H

#include "backend/backend.h"
#include "device_plan.h"

/* GI_OK when img has pixels, a size, 1..4 channels and a long enough
 * stride; `role` ("source") names it in the error. */
gi_status gi__check_image(const gi_image *img, const char *role);

/* The samples gi_compare compares (gpuimg.h, compare): for an image with
 * alpha and p->straight_alpha 0, each colour sample v becomes
 * (v * A + 127) / 255, in place; else img stays as it is. */
void gi__compare_premultiply(gi_image *img, const gi_compare_params *p);

/* Runs `call` on ctx's backend for `work` (what AUTO's cost model weighs;
 * NULL for work it has no rates for, which runs on the CPU unless CUDA is
 * started already), records its times, and under AUTO reruns it on the
 * CPU when the GPU is out of memory. */
typedef gi_status (*gi__backend_call)(const gi__backend_ops *ops, void *state, const void *arg);
gi_status gi__dispatch(gi_context *ctx, const char *name, const gi__plan_job *work,
                       gi__backend_call call, const void *arg);

/* The image (its size, no pixels) that the arithmetic half makes of c:
 * the frame's, or the shrunk one (gi__jpeg_output_size). */
gi_image gi__jpeg_decoded_size(const gi_jpeg_coeffs *c);

/* gi_apply from a JPEG's coefficients (jpeg_coeffs.h): the backend that
 * runs the chain (AUTO's plan weighing the decoder's arithmetic half too)
 * reconstructs the pixels where it computes, then runs the steps; dst on
 * the host (none for hist). The same bytes as gi_apply on the decoded
 * pixels. jpeg_out (NULL, or backend.h's request) asks for the result as
 * a JPEG file, encoded where the chain ran: dst then gives the result's
 * size alone (its data may be NULL) and is not written. */
gi_status gi__apply_jpeg(gi_context *ctx, const gi_jpeg_coeffs *c, const gi_op *steps, int n,
                         gi_image *dst, gi_histogram *hist, gi__chain_jpeg_out *jpeg_out);
/* gi_apply with jpeg_out as gi__apply_jpeg takes it; src is 8-bit (the job
 * asks for no JPEG result of a 16-bit image: its save converts or refuses). */
gi_status gi__apply_to_jpeg(gi_context *ctx, const gi_image *src, const gi_op *steps, int n,
                            gi_image *dst, gi_histogram *hist, gi__chain_jpeg_out *jpeg_out);

#endif
