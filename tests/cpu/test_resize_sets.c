/* The CPU resize under the instruction set GPUIMG_CPU_ISA caps it to (one
 * test per set: base, avx2, avx512, which takes the horizontal pass by
 * quads where the CPU has VBMI, resize_quads.h; a set the CPU lacks falls
 * to a narrower one)
 * against gpuimg.h's integer formulas computed directly in 64 bits, byte
 * for byte, into poisoned outputs. The cases reach what the vector path
 * depends on: windows of 1 to 5 groups of 4 taps (enlargements, a half,
 * a third, 2/5, 100:1), the positions at a row's end whose loads read a
 * copy of the row, odd widths, and 1x1, 1xN and Nx1 images; every filter,
 * 1-4 channels (gray and RGB take the vector path, the rest check the
 * scalar one beside it); on 2 threads and on 7. */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "testimg.h"

static const char *const filter_names[] = {"lanczos3", "lanczos2", "cubic",
                                           "linear",   "area",     "nearest"};

static int64_t clamp255(int64_t v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* gpuimg.h's resize of src with the axes' weights, integers throughout. */
static gi_image reference(const gi_image *src, const gi_resize_axis *ax, const gi_resize_axis *ay)
{
    const int ch = src->channels, alpha = ch == 2 || ch == 4, ow = ax->n_out, oh = ay->n_out;
    int64_t *h = malloc(sizeof *h * (size_t)src->height * ow * ch);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < ow; x++)
            for (int c = 0; c < ch; c++) {
                int64_t s = 0;
                for (int k = 0; k < ax->count[x]; k++) {
                    const uint8_t *p = ti_px(src, ax->first[x] + k, y);
                    const int64_t u = alpha && c < ch - 1 ? (int64_t)p[c] * p[ch - 1] : p[c];
                    s += ax->q[(size_t)x * ax->taps + k] * u;
                }
                /* int32 in gpuimg.h; >> of a negative sum floors */
                h[((size_t)y * ow + x) * ch + c] = alpha ? s : (s + 32) >> 6;
            }
    gi_image dst = ti_blank(ow, oh, ch);
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            int64_t v[4] = {0, 0, 0, 0};
            for (int c = 0; c < ch; c++)
                for (int k = 0; k < ay->count[y]; k++)
                    v[c] += ay->q[(size_t)y * ay->taps + k] *
                            h[((size_t)(ay->first[y] + k) * ow + x) * ch + c];
            uint8_t *out = ti_px(&dst, x, y);
            for (int c = 0; c < ch; c++) {
                if (!alpha) {
                    out[c] = (uint8_t)clamp255((v[c] + (1 << 21)) >> 22);
                } else if (c == ch - 1) {
                    out[c] = (uint8_t)clamp255((v[c] + (1 << 27)) >> 28);
                } else {
                    const int64_t va = v[ch - 1];
                    out[c] = (uint8_t)(va <= 0 || v[c] <= 0 ? 0 : clamp255((v[c] + va / 2) / va));
                }
            }
        }
    free(h);
    return dst;
}

/* src resized to ow x oh with filter f against the reference. */
static void check_resize(gi_context *ctx, const gi_image *src, int ow, int oh, gi_resize_filter f)
{
    gi_resize_axis ax, ay;
    if (!th_check(gi_resize_axis_weights(src->width, ow, f, &ax) == GI_OK &&
                      gi_resize_axis_weights(src->height, oh, f, &ay) == GI_OK,
                  "weights: %s", gi_last_error()))
        return;
    gi_image want = reference(src, &ax, &ay), got = ti_blank(ow, oh, src->channels);
    gi_resize_params p;
    gi_resize_params_default(&p);
    p.width = ow;
    p.height = oh;
    p.fit = GI_FIT_FILL;
    p.filter = f;
    char why[200] = "";
    gi_status st = gi_resize(ctx, src, &got, &p);
    th_check(st == GI_OK && ti_same(&got, &want, why, sizeof why) && ti_padding_intact(&got),
             "%dx%d x%d -> %dx%d, %s: %s", src->width, src->height, src->channels, ow, oh,
             filter_names[f], st != GI_OK ? gi_last_error() : *why ? why : "padding written");
    ti_free(&got);
    ti_free(&want);
    gi_resize_axis_free(&ax);
    gi_resize_axis_free(&ay);
}

/* Every pixel's channels 0 or 255: sums at the clamps' edges. */
static void binarize(gi_image *img)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++)
                ti_px(img, x, y)[c] = ti_px(img, x, y)[c] > 127 ? 255 : 0;
}

int main(void)
{
    th_seed();
    /* 2 threads, and 7: bands of a few rows, which threads done early
     * take from others (gi__parallel_rows_shared) */
    gi_context *ctxs[2] = {ti_cpu_context(2), ti_cpu_context(7)};
    static const int sizes[][2] = {{1, 1},   {1, 7},   {7, 1},    {2, 3},   {13, 17},
                                   {97, 31}, {300, 7}, {7, 300},  {257, 9}, {1000, 3}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int ch = 1; ch <= 4; ch++) {
            const int w = sizes[s][0], h = sizes[s][1];
            gi_image src = ti_random(w, h, ch);
            if (s % 2) binarize(&src);
            const int outs[][2] = {{1, 1},
                                   {w * 2, h * 2},
                                   {(w + 1) / 2, (h + 1) / 2},
                                   {(w + 2) / 3, (h + 2) / 3},
                                   {(2 * w + 4) / 5, (3 * h + 6) / 7},
                                   {(w + 99) / 100, h},
                                   {w * 3 + 1, (h + 1) / 2},
                                   {th_rand_int(1, 2 * w), th_rand_int(1, 2 * h)}};
            for (size_t o = 0; o < sizeof outs / sizeof *outs; o++)
                for (int f = 0; f <= GI_RESIZE_NEAREST; f++)
                    for (int c = 0; c < 2; c++)
                        check_resize(ctxs[c], &src, outs[o][0], outs[o][1], (gi_resize_filter)f);
            ti_free(&src);
        }
    gi_context_destroy(ctxs[0]);
    gi_context_destroy(ctxs[1]);
    return th_finish();
}
