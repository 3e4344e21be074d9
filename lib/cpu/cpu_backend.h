/* The CPU backend's operations, one file each, and its chain (chain.c). */
#ifndef GI_CPU_BACKEND_H
#define GI_CPU_BACKEND_H

#include "backend/backend.h"
#include "base/gi_error.h"

extern const gi__backend_ops gi__cpu_ops;

/* Runs a chain of steps (backend.h), and one step of it. */
gi_status gi__cpu_run_chain(void *state, const gi__chain *chain);
gi_status gi__cpu_run_step(void *state, const gi__op_call *c);
/* ...and from a JPEG's coefficients (jpeg_chain.c). */
gi_status gi__cpu_run_chain_from_jpeg(void *state, const gi_jpeg_coeffs *c,
                                      const gi__chain *chain);

/* The backend's state (cpu_state.c): its worker threads (0: one per
 * core), made and freed, and read by the operations; and the resize's
 * tables of its last GI_CPU_RESIZE_PLANS geometries (resize.c), most
 * recent first, NULL where none, freed with the state. */
gi_status gi__cpu_state_create(int threads, void **state);
void gi__cpu_state_destroy(void *state);
int gi__cpu_threads(const void *state);
/* The threads worth waking for an operation from src to dst (NULL: none)
 * that takes about `cost` times a copy's time a byte: one for each
 * GI_BYTES_A_THREAD of the two images' bytes times cost, at least 1 and
 * at most gi__cpu_threads. A worker that slept took 0.05-0.2 ms to wake
 * (futex, affinity, the scheduler's placing), more than a small image's
 * whole operation: after a pause of 1 ms, a 32x32 RGB transpose took
 * 0.005 ms on one thread and 0.145 on two, a 256x256 one 0.085 and 0.23,
 * where 384x384 took 0.16 and 0.14 (one Zen 4 core of two). The result
 * never depends on the count. */
#define GI_BYTES_A_THREAD (256 * 1024)
int gi__cpu_threads_for(const void *state, const gi_image *src, const gi_image *dst, int cost);
#define GI_CPU_RESIZE_PLANS 2
typedef struct gi__resize_plan gi__resize_plan;
gi__resize_plan **gi__cpu_resize_plans(void *state);
void gi__resize_plan_free(gi__resize_plan *plan);

gi_status gi__cpu_blur(void *state, const gi_image *src, gi_image *dst, const int32_t *weights,
                       int radius, gi_border border);
/* A blur step's result as the exact writer's JPEG file (backend.h's
 * jpeg_out: bytes and size set; chain.c names the codec), its pixels
 * never whole in memory (blur_jpeg.c). */
gi_status gi__cpu_blur_to_jpeg(void *state, const gi__op_call *c, gi__chain_jpeg_out *out);
gi_status gi__cpu_sobel(void *state, const gi_image *src, gi_image *dst,
                        const gi_sobel_params *p);
/* The same three at 16 bits (blur16.c, sobel16.c, convolve16.c); w is
 * quantized for 16 bits. */
gi_status gi__cpu_blur16(void *state, const gi_image *src, gi_image *dst, const int32_t *weights,
                         int radius, gi_border border);
gi_status gi__cpu_sobel16(void *state, const gi_image *src, gi_image *dst,
                          const gi_sobel_params *p);
gi_status gi__cpu_convolve16(void *state, const gi_image *src, gi_image *dst,
                             const gi_convolve_weights *w, gi_border border);
gi_status gi__cpu_transform(void *state, const gi_image *src, gi_image *dst, gi_transform t);
gi_status gi__cpu_convolve(void *state, const gi_image *src, gi_image *dst,
                           const gi_convolve_weights *w, gi_border border);
gi_status gi__cpu_resize(void *state, const gi_image *src, gi_image *dst, const gi_resize_axis *ax,
                         const gi_resize_axis *ay);
/* ...and of a 16-bit image (resize16.c). */
gi_status gi__cpu_resize16(void *state, const gi_image *src, gi_image *dst,
                           const gi_resize_axis *ax, const gi_resize_axis *ay);
/* The fewest output rows a thread takes from another's band (both
 * resizes share their bands, gi__parallel_rows_shared): twice what its
 * first window's source rows cost, in output rows of that axis. */
int gi__resize_rows_taken(const gi_resize_axis *ay);
gi_status gi__cpu_crop(void *state, const gi_image *src, gi_image *dst, int x0, int y0);
gi_status gi__cpu_compare(void *state, const gi__compare_call *c, gi__compare_sums *sums);
/* SSIM's per-row sums into c->row_ssim (ssim.c) on up to `threads`
 * threads, filtering only windows that hold a row where row_differs is
 * set. Returns -1 when memory runs out. */
int gi__cpu_ssim(int threads, const gi__compare_call *c, const uint8_t *row_differs);
gi_status gi__cpu_hist(void *state, const gi_image *src, int bins, gi_histogram *out);
/* ...and of a 16-bit image (hist16.c). */
gi_status gi__cpu_hist16(void *state, const gi_image *src, int bins, gi_histogram *out);
/* Adds src's 256-bin counts per channel to counts, on the calling thread:
 * a streamed histogram's band at a time (lib/batch/hist_stream.c). */
void gi__cpu_hist_add(const gi_image *src, uint64_t counts[4][256]);

#endif
