/* The interface every backend implements. lib/ops.c validates arguments,
 * resolves parameters (blur weights) and then calls one of these; a backend
 * may assume sizes and channels are consistent and parameters in range. */
#ifndef GI_BACKEND_H
#define GI_BACKEND_H

#include "gpuimg.h"

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
} gi__op_call;

typedef struct gi__backend_ops {
    const char *name;
    /* weights: 2 * radius + 1 integers summing to GI_BLUR_WEIGHT_SUM */
    gi_status (*blur)(void *state, const gi_image *src, gi_image *dst,
                      const int32_t *weights, int radius, gi_border border);
    gi_status (*sobel)(void *state, const gi_image *src, gi_image *dst,
                       const gi_sobel_params *p);
    gi_status (*transform)(void *state, const gi_image *src, gi_image *dst,
                           gi_transform t);
    gi_status (*hist)(void *state, const gi_image *src, int bins,
                      gi_histogram *out);
    gi_status (*convolve)(void *state, const gi_image *src, gi_image *dst,
                          const gi_convolve_weights *w, gi_border border);
    /* Median ms of `reps` runs after `warmup`, data resident where the
     * backend computes. */
    gi_status (*time_op)(void *state, const gi__op_call *c, int warmup, int reps,
                         double *median_ms);
    gi_status (*copy_bandwidth)(void *state, double *gbytes_per_s);
    gi_status (*paper)(void *state, int n, gi_paper_variant variant, int warmup, int reps,
                       double *median_ms, double *max_error);
    /* Upload, kernel and download times of the last operation; NULL when
     * the backend computes in place (the caller times it as kernel). */
    void (*last_times)(void *state, gi_op_times *times);
    void (*destroy)(void *state);
} gi__backend_ops;

/* Runs c on a backend's operation functions. */
gi_status gi__call_backend(const gi__backend_ops *ops, void *state, const gi__op_call *c);

/* CPU backend: threads over row bands. Never fails to create. */
gi_status gi__cpu_backend_create(int threads, const gi__backend_ops **ops,
                                 void **state);

/* CUDA backend. Returns GI_ERR_NO_DEVICE (with a detail saying why) when
 * the library was built without CUDA, no device is present or the driver is
 * too old. Defined in cuda_backend.c, or cuda_absent.c in CPU-only builds. */
gi_status gi__cuda_backend_create(const gi__backend_ops **ops, void **state);

#endif
