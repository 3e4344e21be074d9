/* The interface every backend implements. lib/engine/ops.c validates arguments,
 * resolves parameters (blur weights) and then calls one of these; a backend
 * may assume sizes and channels are consistent and parameters in range. */
#ifndef GI_BACKEND_H
#define GI_BACKEND_H

#include <string.h>

#include "gpuimg.h"
#include "codec/jpeg/jpeg_coeffs.h"

/* One resolved operation: parameters checked, weights computed. */
typedef struct gi__op_call {
    gi_op_kind kind;
    const char *name;
    const gi_image *src;
    gi_image *dst;                 /* NULL for hist */
    const int32_t *weights;        /* blur */
    int radius;
    gi_border border;              /* blur, sobel, convolve */
    const gi_sobel_params *sobel;
    gi_transform transform;
    int bins;                      /* hist */
    gi_histogram *hist;
    const gi_convolve_weights *mask;
    const gi_resize_axis *axis_x, *axis_y; /* resize: the rows' and columns' weights */
    int crop_x, crop_y;                    /* crop: the rectangle's corner (dst: its size) */
} gi__op_call;

/* The integer measures of a comparison (gpuimg.h, compare); lib/engine/compare.c
 * derives the rest. */
typedef struct gi__compare_sums {
    uint64_t different_pixels;
    uint64_t sum_abs, sum_sq;
    int max_abs[4];
} gi__compare_sums;

/* The columns [first, end) of a row, or rows of a column, whose S counts
 * towards SSIM: all of them when n is shorter than the window. */
static inline void gi__ssim_span(int n, int *first, int *end)
{
    const int crop = n >= 2 * GI_SSIM_RADIUS + 1 ? GI_SSIM_RADIUS : 0;
    *first = crop;
    *end = n - crop;
}

/* A comparison as lib/engine/compare.c hands it to a backend: images of the same
 * shape and depth, tolerance 0..255 (0..65535 at 16 bits), and for SSIM the 2 * GI_SSIM_RADIUS + 1 weights
 * (NULL: no SSIM) with the constants C1 and C2, and row_ssim, channels *
 * height doubles: row y of channel c (y in its gi__ssim_span) gets at
 * [c * height + y] the sum of S over the row's counted columns, added in
 * gpuimg.h's order. */
typedef struct gi__compare_call {
    const gi_image *expected, *actual;
    int tolerance;
    const double *weights;
    double c1, c2;
    double *row_ssim;
} gi__compare_call;

/* Where an end of a chain lives. */
typedef enum gi__where {
    GI__HOST = 0, /* host memory: a gi_image as gpuimg.h describes it */
    GI__DEVICE    /* memory of the backend's device (data is a device pointer, stride
                   * its pitch): a source decoded there, or a destination to be
                   * encoded there */
} gi__where;

/* Resolved steps that run one after another on one image: steps[i]'s
 * output is steps[i + 1]'s source. steps[0].src and the last step's dst
 * (or hist) are the chain's ends; the images in between carry their sizes
 * in steps[i].dst and no pixels: the backend keeps them where it computes,
 * so the CPU backend never copies and the CUDA backend uploads the source
 * once and downloads the result once (neither, for an end on the device).
 * Only the last step may be hist. */
typedef struct gi__chain {
    const gi__op_call *steps;
    int n;
    gi__where src_where, dst_where;
    struct gi__chain_jpeg_out *jpeg_out; /* NULL, or see below */
} gi__chain;

/* A request that the chain's result (dst_where GI__HOST, not hist) come
 * back as the file the exact JPEG writer makes of it (jpeg_write.h) at
 * `quality`, encoded where the backend computes, instead of as pixels.
 * Every backend honours it: on success it sets bytes (malloc'd; the
 * caller frees them), size and codec, and never writes the last step's
 * dst, which gives the result's size alone (its data may be NULL: the
 * caller allocates no pixels it will not see). The CUDA backend encodes
 * on the device; the CPU backend codes a lone blur as its rows come
 * (blur_jpeg.c), and any other chain into pixels of its own, then
 * encodes them. */
typedef struct gi__chain_jpeg_out {
    int quality; /* gi_save_options.jpeg_quality: 0 means 90 */
    uint8_t *bytes;
    size_t size;
    const char *codec; /* the encoder's name, as gi_last_codec gives it */
    /* The encode's share of the call, set with bytes: the CPU backend's
     * lies within the call (its kernel time, gi_op_times), CUDA's is the
     * whole download, which it then reports as 0. */
    double encode_ms;
} gi__chain_jpeg_out;

/* *out: the chain `in` with its source replaced by src, which lies at
 * `where` (the first step's call copied into steps; the rest shared). */
static inline void gi__chain_from(const gi__chain *in, const gi_image *src, gi__where where,
                                  gi__op_call steps[GI_MAX_STEPS], gi__chain *out)
{
    memcpy(steps, in->steps, sizeof *steps * (size_t)in->n);
    steps[0].src = src;
    *out = (gi__chain){steps, in->n, where, in->dst_where, in->jpeg_out};
}

/* What a backend provides. */
typedef struct gi__backend_ops {
    const char *name;
    /* Runs a chain; ends on GI__DEVICE only where the backend has a device
     * (the CPU backend refuses them). Returns when the result is in place. */
    gi_status (*run_chain)(void *state, const gi__chain *chain);
    /* Runs a chain whose source is a JPEG's coefficients (jpeg_coeffs.h,
     * the entropy half's output): the arithmetic half where the backend
     * computes, into pixels that stay there, then the chain from them.
     * chain->steps[0].src gives the decoded image's size only (its data is
     * unused; chain->src_where is ignored). Gives the bytes that decoding
     * the file to host pixels and running the chain give. */
    gi_status (*run_chain_from_jpeg)(void *state, const gi_jpeg_coeffs *c, const gi__chain *chain);
    /* Upload, kernel and download times of the last operation; NULL when
     * the backend computes in place (the caller times it as kernel). */
    void (*last_times)(void *state, gi_op_times *times);
    void (*destroy)(void *state);
    /* Compares two host images (gpuimg.h, compare). */
    gi_status (*compare)(void *state, const gi__compare_call *c, gi__compare_sums *sums);
} gi__backend_ops;


/* CPU backend: threads over row bands. Never fails to create. */
gi_status gi__cpu_backend_create(int threads, const gi__backend_ops **ops,
                                 void **state);
/* Its thread count from the next call on (0: one per core). */
void gi__cpu_backend_set_threads(void *state, int threads);

/* CUDA backend on GPU `device` (an index among the visible devices).
 * Returns GI_ERR_NO_DEVICE (with a detail saying why) when
 * the library was built without CUDA, no device is present, the driver is
 * too old or the backend's library cannot be loaded; GI_ERR_INVALID_ARGUMENT
 * when `device` is none of the visible ones. Defined in
 * lib/cuda/backend.c; where that is a library of its own, libgpuimg has
 * stand-ins that load it (module_loader.c); absent.c in CPU-only builds. */
gi_status gi__cuda_backend_create(int device, const gi__backend_ops **ops, void **state);
/* Pins the CUDA backend's staging buffers for a source and a result of
 * these sizes now, rather than at the first image that needs them. */
gi_status gi__cuda_backend_reserve(void *state, size_t in_bytes, size_t out_bytes);

#endif
