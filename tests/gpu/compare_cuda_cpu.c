/* compare_cuda_cpu: gi_compare on the CUDA backend gives the CPU backend's
 * result bit for bit (SSIM included), for every channel count, sizes on and
 * off the tile grid (1x1, single rows and columns, smaller than the SSIM
 * window, taller than a grid of tiles), equal images, one differing sample,
 * one differing row, and noise everywhere; with alpha premultiplied (the
 * default) or straight. Exits 77 without a GPU.
 * GPUIMG_TEST_SMALL=1 leaves out the large sizes (for compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testimg.h"

static const int sizes[][2] = {{1, 1},   {1, 7},   {7, 1},    {10, 10},  {11, 11}, {31, 33},
                               {32, 16}, {33, 17}, {97, 61},  {257, 3},  {3, 257}, {1000, 700},
                               {4096, 2304}};

static gi_image variant(const gi_image *e, int kind)
{
    gi_image a = ti_copy(e);
    const int w = e->width, h = e->height, ch = e->channels;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                uint8_t *v = &ti_px(&a, x, y)[c];
                int moved = kind == 1 ? (x == w / 2 && y == h / 2 && c == 0)
                          : kind == 2 ? (y == h / 3) * th_rand_int(-4, 4)
                          : kind == 3 ? th_rand_int(-30, 30) : 0;
                if (kind == 1) moved = moved ? (*v < 255 ? 1 : -1) : 0;
                int n = *v + moved;
                *v = (uint8_t)(n < 0 ? 0 : n > 255 ? 255 : n);
            }
    return a;
}

int main(void)
{
    const char *why = "";
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    const int small = getenv("GPUIMG_TEST_SMALL") != NULL;
    th_seed();
    gi_context_options o;
    gi_context_options_default(&o);
    o.device = GI_DEVICE_CUDA;
    gi_context *gpu, *cpu = ti_cpu_context(0);
    if (gi_context_create(&gpu, &o) != GI_OK) {
        printf("skip: %s\n", gi_last_error());
        return 77;
    }
    static const char *const kinds[] = {"equal", "one sample", "one row", "noise"};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        if (small && sizes[s][0] * sizes[s][1] > 100000) continue;
        for (int ch = 1; ch <= 4; ch++) {
            gi_image e = ti_random(sizes[s][0], sizes[s][1], ch);
            for (int kind = 0; kind < 4; kind++) {
                gi_image a = variant(&e, kind);
                gi_compare_params p;
                gi_compare_params_default(&p);
                p.tolerance = th_rand_int(0, 3);
                p.straight_alpha = th_rand_int(0, 1); /* with alpha: premultiplied or not */
                gi_compare_result want, got;
                memset(&got, 0xA5, sizeof got);
                gi_status st = gi_compare(cpu, &e, &a, &p, &want);
                th_check(st == GI_OK, "cpu %dx%dx%d: %s", e.width, e.height, ch, gi_last_error());
                st = gi_compare(gpu, &e, &a, &p, &got);
                if (th_check(st == GI_OK, "cuda %dx%dx%d: %s", e.width, e.height, ch, gi_last_error()))
                    th_check(memcmp(&want, &got, sizeof want) == 0,
                             "%s %dx%dx%d tol %d: cuda ssim %.17g different %llu, cpu ssim %.17g "
                             "different %llu", kinds[kind], e.width, e.height, ch, p.tolerance,
                             got.ssim, (unsigned long long)got.different_pixels, want.ssim,
                             (unsigned long long)want.different_pixels);
                ti_free(&a);
            }
            ti_free(&e);
        }
    }
    gi_context_destroy(gpu);
    gi_context_destroy(cpu);
    return th_finish();
}
