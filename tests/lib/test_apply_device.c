/* gi_apply_device: what it refuses on every machine (a context that is not
 * CUDA's, device ends off GI_DEVICE_ALIGN), and, in builds with the CUDA
 * runtime on a machine with a GPU, random chains on pixels in device memory
 * against gi_apply on the CPU, byte for byte (histograms too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "steps_check.h"
#include "testimg.h"

#ifdef TEST_HAVE_CUDART
#include <cuda_runtime.h>
#endif

static int refused(gi_status st, const char *words)
{
    return st == GI_ERR_INVALID_ARGUMENT && strstr(gi_last_error(), words) != NULL;
}

static void refusals(void)
{
    gi_context *cpu = ti_cpu_context(1);
    gi_image src = ti_random(8, 4, 3), dst = ti_blank(8, 4, 3);
    gi_op flip = {.kind = GI_OP_TRANSFORM, .transform = GI_FLIP_H};
    /* ti_ images are host memory: only the checks before any device access run */
    gi_image aligned = src, aligned_dst = dst;
    aligned.data = (uint8_t *)(uintptr_t)(GI_DEVICE_ALIGN * 4);
    aligned.stride = aligned_dst.stride = GI_DEVICE_ALIGN;
    aligned_dst.data = (uint8_t *)(uintptr_t)(GI_DEVICE_ALIGN * 64);
    th_check(refused(gi_apply_device(cpu, &aligned, &flip, 1, &aligned_dst, NULL), "CUDA context"),
             "a CPU context: %s", gi_last_error());
    th_check(refused(gi_apply_device(cpu, &src, &flip, 1, &aligned_dst, NULL), "source in device"),
             "an unaligned source: %s", gi_last_error());
    gi_image odd_stride = aligned_dst;
    odd_stride.stride = GI_DEVICE_ALIGN + 1;
    th_check(refused(gi_apply_device(cpu, &aligned, &flip, 1, &odd_stride, NULL), "destination"),
             "an unaligned destination stride: %s", gi_last_error());
    gi_op hist = {.kind = GI_OP_HIST, .bins = 256};
    static gi_histogram h; /* 2 MiB each: not on the stack */
    th_check(refused(gi_apply_device(cpu, &aligned, &hist, 1, NULL, &h), "CUDA context"),
             "hist needs no destination, still a CUDA context: %s", gi_last_error());
    ti_free(&src);
    ti_free(&dst);
    gi_context_destroy(cpu);
}

#ifdef TEST_HAVE_CUDART
/* A pitched device copy of img (pitch a multiple of GI_DEVICE_ALIGN). */
static gi_image to_device(const gi_image *img)
{
    gi_image d = *img;
    d.owns_data = 0;
    size_t row = (size_t)img->width * img->channels;
    d.stride = (row + GI_DEVICE_ALIGN - 1) / GI_DEVICE_ALIGN * GI_DEVICE_ALIGN;
    void *p = NULL;
    if (cudaMalloc(&p, d.stride * img->height) != cudaSuccess) return (gi_image){0};
    cudaMemcpy2D(p, d.stride, img->data, img->stride, row, img->height, cudaMemcpyHostToDevice);
    d.data = p;
    return d;
}

static void one_chain(gi_context *gpu, gi_context *cpu, int t)
{
    int n = th_rand_int(1, 3);
    gi_op steps[3];
    for (int i = 0; i < n; i++) steps[i] = sc_random_step(i + 1 == n);
    gi_image src = ti_random(th_rand_int(1, 300), th_rand_int(1, 200), th_rand_int(1, 4));
    int w, h, ch;
    gi_apply_size(&src, steps, n, &w, &h, &ch);
    gi_image want = ti_blank(w, h, ch), got = ti_blank(w, h, ch);
    static gi_histogram want_h, got_h; /* 2 MiB each: not on the stack */
    int is_hist = steps[n - 1].kind == GI_OP_HIST;
    gi_status st = gi_apply(cpu, &src, steps, n, &want, &want_h);
    gi_image dsrc = to_device(&src), ddst = to_device(&want);
    if (st == GI_OK && dsrc.data && ddst.data)
        st = gi_apply_device(gpu, &dsrc, steps, n, &ddst, &got_h);
    if (th_check(st == GI_OK, "chain %d: %s", t, gi_last_error())) {
        if (is_hist) {
            int same = want_h.channels == got_h.channels && want_h.bins == got_h.bins;
            for (int c = 0; same && c < want_h.channels; c++)
                same = memcmp(want_h.counts[c], got_h.counts[c],
                              sizeof(uint64_t) * (size_t)want_h.bins) == 0;
            th_check(same, "chain %d: histograms differ", t);
        } else {
            cudaMemcpy2D(got.data, got.stride, ddst.data, ddst.stride, (size_t)w * ch, h,
                         cudaMemcpyDeviceToHost);
            char why[200];
            th_check(ti_same(&want, &got, why, sizeof why), "chain %d on %dx%dx%d: %s", t,
                     src.width, src.height, src.channels, why);
        }
    }
    cudaFree(dsrc.data);
    cudaFree(ddst.data);
    ti_free(&src);
    ti_free(&want);
    ti_free(&got);
}

static void on_the_gpu(void)
{
    const char *why = "";
    if (gi_cuda_device_count(&why) == 0) {
        printf("no GPU chains: %s\n", why);
        return;
    }
    gi_context_options o;
    gi_context_options_default(&o);
    o.device = GI_DEVICE_CUDA;
    gi_context *gpu, *cpu = ti_cpu_context(0);
    if (!th_check(gi_context_create(&gpu, &o) == GI_OK, "CUDA context: %s", gi_last_error()))
        return;
    for (int t = 0; t < 60; t++) one_chain(gpu, cpu, t);
    gi_context_destroy(gpu);
    gi_context_destroy(cpu);
}
#endif

int main(void)
{
    th_seed();
    refusals();
#ifdef TEST_HAVE_CUDART
    on_the_gpu();
#endif
    return th_finish();
}
