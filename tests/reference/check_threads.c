/* The CPU backend splits work into row bands (some shared: threads done
 * early take rows from others); the result must not depend on how many
 * threads there are, including more threads than rows. */
#include "checks.h"
#include "../harness.h"
#include "../testimg.h"

#include <stdio.h>
#include <string.h>

#define NOPS 9
static const char *const op_names[NOPS] = {"blur gaussian", "blur box", "sobel",
                                           "sobel gray threshold", "transforms", "hist",
                                           "convolve 5x3", "resize lanczos3 0.45",
                                           "resize cubic 2.3"};

/* Runs op `op` on src with ctx; returns the output image(s) flattened into
 * one image so results can be compared with ti_same. */
static gi_image run(gi_context *ctx, const gi_image *src, int op)
{
    gi_image out;
    if (op <= 1) {
        gi_blur_params p;
        gi_blur_params_default(&p);
        p.kernel = op ? GI_BLUR_BOX : GI_BLUR_GAUSSIAN;
        p.sigma = 2.5;
        p.radius = op ? 4 : -1;
        out = ti_blank(src->width, src->height, src->channels);
        th_check(gi_blur(ctx, src, &out, &p) == GI_OK, "blur: %s", gi_last_error());
    } else if (op <= 3) {
        gi_sobel_params p;
        gi_sobel_params_default(&p);
        p.gray = p.use_threshold = op == 3;
        p.threshold = 100;
        p.border.mode = GI_BORDER_REFLECT;
        out = ti_blank(src->width, src->height, p.gray ? 1 : src->channels);
        th_check(gi_sobel(ctx, src, &out, &p) == GI_OK, "sobel: %s", gi_last_error());
    } else if (op == 4) {
        /* all six side by side in one row of tiles, each max(w,h) square */
        int side = src->width > src->height ? src->width : src->height;
        out = ti_blank(6 * side, side, src->channels);
        memset(out.data, 0, out.stride * (size_t)out.height);
        for (int t = 0; t < 6; t++) {
            int w, h;
            gi_transform_size(src, (gi_transform)t, &w, &h);
            gi_image tile = {w, h, src->channels, out.stride, ti_px(&out, t * side, 0), 0, 8};
            th_check(gi_transform_image(ctx, src, &tile, (gi_transform)t) == GI_OK,
                     "transform %d: %s", t, gi_last_error());
        }
    } else if (op >= 7) {
        gi_resize_params p;
        gi_resize_params_default(&p);
        p.scale = op == 7 ? 0.45 : 2.3;
        p.filter = op == 7 ? GI_RESIZE_LANCZOS3 : GI_RESIZE_CUBIC;
        int w, h;
        gi_resize_size(src, &p, &w, &h);
        out = ti_blank(w, h, src->channels);
        th_check(gi_resize(ctx, src, &out, &p) == GI_OK, "resize: %s", gi_last_error());
    } else if (op == 6) {
        static const double mask[15] = {1, -2, 0.5, 3, 1, -1, 4, 9, 4, -1, 1, 3, 0.5, -2, 1};
        gi_convolve_params p = {5, 3, mask, 0, {GI_BORDER_WRAP, 0}};
        out = ti_blank(src->width, src->height, src->channels);
        th_check(gi_convolve(ctx, src, &out, &p) == GI_OK, "convolve: %s", gi_last_error());
    } else {
        static gi_histogram hist; /* 2 MiB each: not on the stack */
        memset(&hist, 0, sizeof hist);
        th_check(gi_hist(ctx, src, 256, &hist) == GI_OK, "hist: %s", gi_last_error());
        out = ti_blank((int)sizeof hist.counts, 1, 1);
        memcpy(out.data, hist.counts, sizeof hist.counts);
    }
    return out;
}

void check_threads(gi_context *ctx)
{
    (void)ctx;
    const int threads[] = {2, 3, 7};
    /* 23x700: bands of 100-350 rows, from which threads done early take
     * rows (gi__parallel_rows_shared: blur, resize) */
    const int sizes[][2] = {{97, 61}, {5, 3}, {1, 2}, {23, 700}};
    gi_context *one = ti_cpu_context(1), *many[3];
    for (int t = 0; t < 3; t++) many[t] = ti_cpu_context(threads[t]);
    for (int s = 0; s < 4; s++)
        for (int ch = 1; ch <= 4; ch++) {
            gi_image src = ti_random(sizes[s][0], sizes[s][1], ch);
            for (int op = 0; op < NOPS; op++) {
                gi_image want = run(one, &src, op);
                for (int t = 0; t < 3; t++) {
                    char why[96];
                    gi_image got = run(many[t], &src, op);
                    th_check(ti_same(&got, &want, why, sizeof why),
                             "%s %dx%dx%d: %d threads differ from 1 thread: %s", op_names[op],
                             sizes[s][0], sizes[s][1], ch, threads[t], why);
                    ti_free(&got);
                }
                ti_free(&want);
            }
            ti_free(&src);
        }
    gi_context_destroy(one);
    for (int t = 0; t < 3; t++) gi_context_destroy(many[t]);
}
