/* The CPU blur under the instruction set GPUIMG_CPU_ISA caps it to (one
 * test per set: base, avx2, avxvnni, avx512; a set the CPU lacks falls to
 * a narrower one)
 * against gpuimg.h's integer formulas computed directly in 64 bits, byte
 * for byte. The cases reach what the kernels' tricks depend on: weights
 * with w[0] >= 2^15 (small sigma, box radius 0), premultiplied samples
 * near 2^16, flat and transparent areas, opaque runs next to transparent
 * ones, every border mode, radii wide enough that a row is cut into
 * several column strips, and radii past tiny images (1x1, 1xN, Nx1). */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "testimg.h"

/* u of channel c at (x, y) after the border rule, as gpuimg.h defines it. */
static uint64_t sample_u(const gi_image *img, long x, long y, int c, gi_border b)
{
    const int ch = img->channels, alpha = ch == 2 || ch == 4;
    long sx = gi_border_index(x, img->width, b.mode), sy = gi_border_index(y, img->height, b.mode);
    uint64_t v[4] = {b.value, b.value, b.value, b.value};
    if (sx >= 0 && sy >= 0)
        for (int k = 0; k < ch; k++) v[k] = ti_px(img, (int)sx, (int)sy)[k];
    return alpha && c < ch - 1 ? v[c] * v[ch - 1] : v[c];
}

/* The blur of gpuimg.h, integer arithmetic throughout. */
static gi_image reference(const gi_image *src, const int32_t *w, int R, gi_border b)
{
    const int W = src->width, H = src->height, ch = src->channels, alpha = ch == 2 || ch == 4;
    /* h for virtual rows -R .. H+R-1 */
    uint64_t *h = malloc(sizeof *h * (size_t)(H + 2 * R) * W * ch);
    for (long vy = -R; vy < H + R; vy++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < ch; c++) {
                uint64_t s = 0;
                for (int k = -R; k <= R; k++) s += (uint64_t)w[k + R] * sample_u(src, x + k, vy, c, b);
                h[((vy + R) * W + x) * ch + c] = (s + 128) >> 8;
            }
    gi_image dst = ti_blank(W, H, ch);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint64_t v[4];
            for (int c = 0; c < ch; c++) {
                v[c] = 0;
                /* h of virtual row y + k is h of row B(y + k): sample_u
                 * applied the border rule to rows too */
                for (int k = -R; k <= R; k++) v[c] += (uint64_t)w[k + R] * h[((y + k + R) * W + x) * ch + c];
            }
            uint8_t *out = ti_px(&dst, x, y);
            for (int c = 0; c < ch; c++) {
                if (!alpha || c == ch - 1) {
                    out[c] = (uint8_t)((v[c] + (1u << 23)) >> 24);
                    continue;
                }
                const uint64_t va = v[ch - 1], q = va ? (v[c] + va / 2) / va : 0;
                out[c] = (uint8_t)(q > 255 ? 255 : q);
            }
        }
    free(h);
    return dst;
}

/* src blurred against the reference, byte for byte. */
static void check_blur(gi_context *ctx, const gi_image *src, const gi_blur_params *p)
{
    const int R = gi_blur_radius(p), ch = src->channels;
    int32_t *w = malloc(sizeof *w * (2 * (size_t)R + 1));
    gi_blur_weights(p, w);
    gi_image want = reference(src, w, R, p->border);
    gi_image got = ti_blank(src->width, src->height, ch);
    char why[200] = "";
    gi_status st = gi_blur(ctx, src, &got, p);
    th_check(st == GI_OK && ti_same(&got, &want, why, sizeof why),
             "%dx%d x%d, %s R=%d sigma %.2f border %d: %s", src->width, src->height, ch,
             p->kernel == GI_BLUR_BOX ? "box" : "gaussian", R, p->sigma, (int)p->border.mode,
             st == GI_OK ? why : gi_last_error());
    ti_free(&got);
    ti_free(&want);
    free(w);
}

/* Columns [x0, x1) of every row set to value in every channel, or with
 * alpha only set (colour kept) when alpha_only. */
static void fill_columns(gi_image *img, int x0, int x1, uint8_t value, int alpha_only)
{
    const int ch = img->channels;
    for (int y = 0; y < img->height; y++)
        for (int x = x0; x < x1 && x < img->width; x++)
            for (int c = alpha_only ? ch - 1 : 0; c < ch; c++) ti_px(img, x, y)[c] = value;
}

int main(void)
{
    th_seed();
    gi_context *ctx = ti_cpu_context(2);
    for (int i = 0; i < 60; i++) {
        const int ch = 1 + i % 4;
        gi_blur_params p;
        gi_blur_params_default(&p);
        p.border.mode = (gi_border_mode)th_rand_int(0, 4);
        p.border.value = (uint8_t)th_rand_int(0, 255);
        switch (i / 4 % 4) {
        case 0: p.sigma = th_rand_double(0.3, 0.8); break; /* w[0] >= 2^15 */
        case 1: p.kernel = GI_BLUR_BOX, p.radius = th_rand_int(0, 2); break;
        case 2: p.sigma = th_rand_double(1.0, 4.0); break;
        default: p.sigma = 30, p.radius = th_rand_int(80, 140); break; /* several strips */
        }
        gi_image src = ti_random(th_rand_int(1, 400), th_rand_int(1, 24), ch);
        /* a flat, opaque band (k + 1/2 quotients), an opaque run of random
         * colours next to it, then a transparent one */
        fill_columns(&src, 0, src.width / 3, 255, 0);
        if (ch == 2 || ch == 4) {
            fill_columns(&src, src.width / 3, src.width / 2, 255, 1);
            fill_columns(&src, src.width / 2, 2 * src.width / 3, 0, 1);
        }
        check_blur(ctx, &src, &p);
        ti_free(&src);
    }
    /* tiny images, radius past them: 1x1, 1xN, Nx1 */
    static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {70, 1}, {1, 70}};
    for (int i = 0; i < 6 * 4; i++) {
        gi_blur_params p;
        gi_blur_params_default(&p);
        p.sigma = 3; /* R = 9 */
        p.border.mode = (gi_border_mode)(i % 5);
        p.border.value = (uint8_t)th_rand_int(0, 255);
        gi_image src = ti_random(sizes[i / 4][0], sizes[i / 4][1], 1 + i % 4);
        check_blur(ctx, &src, &p);
        ti_free(&src);
    }
    gi_context_destroy(ctx);
    return th_finish();
}
