/* resize_gpu: gi_resize and gi_crop on the CUDA backend give the CPU
 * backend's bytes, for every filter and channel count, reductions (100:1
 * included) and enlargements, sizes on and off the kernels' 32 x 8 tiles,
 * and in a chain (crop, resize, blur) whose images between steps stay on
 * the device. The GPU's destination is filled with random bytes first, so
 * a pixel it leaves unwritten shows. Exits 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testimg.h"

static const int sizes[][2] = {{1, 1},  {1, 7},   {7, 1},    {31, 29},  {33, 9},
                               {257, 3}, {3, 257}, {1000, 7}, {640, 480}, {4000, 3000}};
static const double scales[] = {0.01, 0.064, 1.0 / 3, 0.5, 0.77, 1, 1.5, 2, 3};

static void poison(gi_image *img)
{
    for (int y = 0; y < img->height; y++)
        for (size_t i = 0; i < (size_t)img->width * img->channels; i++)
            img->data[(size_t)y * img->stride + i] = (uint8_t)th_rand_int(0, 255);
}

/* Runs the steps on both contexts and compares the results byte for byte. */
static void same_on_both(gi_context *cpu, gi_context *gpu, const gi_image *src, const gi_op *steps,
                         int n, const char *label)
{
    int w, h, ch;
    if (gi_apply_size(src, steps, n, &w, &h, &ch) != GI_OK) return;
    gi_image want = ti_blank(w, h, ch), got = ti_blank(w, h, ch);
    poison(&got);
    gi_status st = gi_apply(cpu, src, steps, n, &want, NULL);
    th_check(st == GI_OK, "%s cpu: %s", label, gi_last_error());
    st = gi_apply(gpu, src, steps, n, &got, NULL);
    char why[128];
    if (th_check(st == GI_OK, "%s cuda: %s", label, gi_last_error()))
        th_check(ti_same(&want, &got, why, sizeof why) && ti_padding_intact(&got),
                 "%s: cuda differs from cpu: %s", label, why);
    ti_free(&want);
    ti_free(&got);
}

int main(void)
{
    const char *why = "";
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    th_seed();
    gi_context_options o;
    gi_context_options_default(&o);
    o.device = GI_DEVICE_CUDA;
    gi_context *gpu, *cpu = ti_cpu_context(0);
    if (gi_context_create(&gpu, &o) != GI_OK) {
        printf("skip: %s\n", gi_last_error());
        return 77;
    }
    static const char *const filters[] = {"lanczos3", "lanczos2", "cubic",
                                          "linear",   "area",     "nearest"};
    /* GPUIMG_TEST_SMALL=1 (compute-sanitizer) stops before the photo-sized images. */
    const size_t n_sizes = getenv("GPUIMG_TEST_SMALL") ? 8 : sizeof sizes / sizeof *sizes;
    for (size_t s = 0; s < n_sizes; s++)
        for (int ch = 1; ch <= 4; ch++) {
            gi_image src = ti_random(sizes[s][0], sizes[s][1], ch);
            const int big = sizes[s][0] * sizes[s][1] > 1000000;
            for (int f = 0; f <= GI_RESIZE_NEAREST; f++)
                for (size_t k = 0; k < sizeof scales / sizeof *scales; k++) {
                    if (big && scales[k] > 1) continue; /* time, not coverage */
                    gi_op op = {.kind = GI_OP_RESIZE};
                    gi_resize_params_default(&op.resize);
                    op.resize.filter = (gi_resize_filter)f;
                    op.resize.scale = scales[k];
                    char label[128];
                    snprintf(label, sizeof label, "resize %s %g of %dx%dx%d", filters[f],
                             scales[k], src.width, src.height, ch);
                    same_on_both(cpu, gpu, &src, &op, 1, label);
                }
            gi_op thumb = {.kind = GI_OP_RESIZE};
            gi_resize_params_default(&thumb.resize);
            thumb.resize.width = thumb.resize.height = 256;
            same_on_both(cpu, gpu, &src, &thumb, 1, "resize inside 256x256");
            gi_op chain[3] = {{.kind = GI_OP_CROP, .crop = {1, 0, 0, 0, 0}},
                              {.kind = GI_OP_RESIZE},
                              {.kind = GI_OP_BLUR}};
            gi_resize_params_default(&chain[1].resize);
            chain[1].resize.scale = 0.6;
            gi_blur_params_default(&chain[2].blur);
            same_on_both(cpu, gpu, &src, chain, 3, "crop | resize | blur");
            gi_op centre = {.kind = GI_OP_CROP, .crop = {0, 0, 20, 5, 1}};
            same_on_both(cpu, gpu, &src, &centre, 1, "crop centre 20x5");
            ti_free(&src);
        }
    gi_context_destroy(gpu);
    gi_context_destroy(cpu);
    return th_finish();
}
