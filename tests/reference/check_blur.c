/* Blur against the direct 2D float64 sum: every sample within 1 of the
 * exact value (gpuimg.h promises that). For alpha images the colour is only
 * compared where the exact alpha is at least 1: below that the premultiplied
 * colour is a ratio of two tiny sums and rounding dominates by design.
 *
 * "Within 1" would let a floor pass for a round, so two sharper checks:
 * samples that are not premultiplied colour (gray, RGB, alpha) carry at most
 * the horizontal pass's rounding (1/512) on top of the final rounding, so
 * they must be within 0.5 + 1/512; and over all cases the mean signed error
 * must be near 0. */
#include "checks.h"
#include "ref_ops.h"
#include "../harness.h"
#include "../testimg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Radius big enough that the window is larger than the image, within a
 * budget for the O(R^2) reference. */
static int big_radius(int w, int h)
{
    int r = (w > h ? w : h) + th_rand_int(1, 8);
    if ((double)(2 * r + 1) * (2 * r + 1) * w * h > 8e6)
        r = (w < h ? w : h) + th_rand_int(1, 4);
    return r;
}

static gi_blur_params variant(int v, int w, int h, gi_border border)
{
    gi_blur_params p;
    gi_blur_params_default(&p);
    p.border = border;
    switch (v) {
    case 0: /* gaussian, default radius */
        p.sigma = th_rand_double(0.4, 3.0);
        break;
    case 1:
        p.kernel = GI_BLUR_BOX;
        p.radius = th_rand_int(0, 6);
        break;
    default: /* window larger than the image */
        p.kernel = th_rand_int(0, 1) ? GI_BLUR_BOX : GI_BLUR_GAUSSIAN;
        p.radius = big_radius(w, h);
        p.sigma = th_rand_double(1.0, 1.0 + p.radius / 2.0);
        break;
    }
    return p;
}

/* Signed error over every compared sample of every case. */
static double error_sum;
static long error_count;

/* Counts samples outside their tolerance and describes the first one. */
static long compare(const gi_image *dst, const double *exact, char *why, size_t size)
{
    int ch = dst->channels, alpha = (ch == 2 || ch == 4) ? ch - 1 : -1;
    long bad = 0;
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++) {
            const double *e = &exact[((size_t)y * dst->width + x) * ch];
            for (int c = 0; c < ch; c++) {
                int got = ti_px(dst, x, y)[c], premultiplied = alpha >= 0 && c != alpha;
                double tolerance = premultiplied ? 1.0 : 0.5 + 1.0 / 512;
                if (premultiplied && e[alpha] < 1.0) continue;
                error_sum += got - e[c];
                error_count++;
                if (fabs(got - e[c]) <= tolerance + 1e-9) continue;
                if (bad++ == 0)
                    snprintf(why, size, "first (%d,%d) channel %d: got %d, exact %.4f", x, y,
                             c, got, e[c]);
            }
        }
    return bad;
}

static void blur_case(gi_context *ctx, int w, int h, int ch, const gi_blur_params *p)
{
    char label[48], why[128] = "";
    int r = gi_blur_radius(p);
    int32_t *weights = malloc((size_t)(2 * r + 1) * sizeof *weights);
    double *exact = malloc((size_t)w * h * ch * sizeof *exact);
    gi_image src = ti_random(w, h, ch), dst = ti_blank(w, h, ch);
    gi_status st = gi_blur(ctx, &src, &dst, p);
    ref_border_label(p->border, label, sizeof label);
    if (th_check(st == GI_OK, "blur %dx%dx%d %s: %s", w, h, ch, label, gi_last_error()) &&
        th_check(gi_blur_weights(p, weights) == GI_OK, "gi_blur_weights: %s", gi_last_error())) {
        ref_blur(&src, weights, r, p->border, exact);
        long bad = compare(&dst, exact, why, sizeof why);
        th_check(bad == 0, "blur %dx%dx%d %s %s sigma=%g R=%d: %ld samples off the exact value; %s",
                 w, h, ch, label, p->kernel == GI_BLUR_BOX ? "box" : "gaussian", p->sigma, r,
                 bad, why);
        th_check(ti_padding_intact(&dst), "blur %dx%dx%d %s: wrote into the row padding", w, h,
                 ch, label);
    }
    ti_free(&src);
    ti_free(&dst);
    free(weights);
    free(exact);
}

void check_blur(gi_context *ctx)
{
    for (int s = 0; s < REF_NSIZES; s++)
        for (int b = 0; b < REF_NBORDERS; b++)
            for (int ch = 1; ch <= 4; ch++)
                for (int v = 0; v < 3; v++) {
                    int w = ref_sizes[s][0], h = ref_sizes[s][1];
                    gi_blur_params p = variant(v, w, h, ref_border(b));
                    blur_case(ctx, w, h, ch, &p);
                }
    th_check(error_count > 0 && fabs(error_sum / error_count) < 0.02,
             "blur: mean signed error %.4f over %ld samples (rounding should centre it on 0)",
             error_count ? error_sum / error_count : 0.0, error_count);
}

/* An opaque square over fully transparent black: premultiplied blurring
 * must keep the square's colour wherever anything of it shows, instead of
 * darkening towards the black of the transparent pixels. */
static void square_case(gi_context *ctx, int ch, gi_border_mode mode, gi_blur_kernel kernel)
{
    const uint8_t colour[3] = {255, 0, 0};
    const int w = 23, h = 17;
    gi_image src = ti_blank(w, h, ch), dst = ti_blank(w, h, ch);
    gi_blur_params p;
    long bad = 0, shown = 0;
    gi_blur_params_default(&p);
    p.kernel = kernel;
    p.sigma = 2.0;
    p.radius = kernel == GI_BLUR_BOX ? 3 : -1;
    p.border.mode = mode;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int inside = x >= 6 && x < 15 && y >= 5 && y < 11;
            uint8_t *px = ti_px(&src, x, y);
            for (int c = 0; c < ch - 1; c++) px[c] = inside ? (ch == 2 ? 255 : colour[c]) : 0;
            px[ch - 1] = inside ? 255 : 0;
        }
    if (th_check(gi_blur(ctx, &src, &dst, &p) == GI_OK, "blur square: %s", gi_last_error())) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const uint8_t *px = ti_px(&dst, x, y);
                if (px[ch - 1] == 0) continue;
                shown++;
                for (int c = 0; c < ch - 1; c++) {
                    int want = ch == 2 ? 255 : colour[c];
                    if (abs(px[c] - want) > 1 && bad++ == 0)
                        fprintf(stderr, "square ch=%d %s: (%d,%d) channel %d = %d, alpha %d\n",
                                ch, gi_border_name(mode), x, y, c, px[c], px[ch - 1]);
                }
            }
        th_check(bad == 0 && shown > 9 * 6,
                 "opaque square over transparent black, %d channels, %s %s: %ld samples "
                 "off the square's colour among %ld visible pixels",
                 ch, gi_border_name(mode), kernel == GI_BLUR_BOX ? "box" : "gaussian", bad,
                 shown);
    }
    ti_free(&src);
    ti_free(&dst);
}

void check_blur_transparency(gi_context *ctx)
{
    for (gi_border_mode m = GI_BORDER_ZERO; m <= GI_BORDER_WRAP; m++)
        for (int k = 0; k < 2; k++) {
            square_case(ctx, 4, m, (gi_blur_kernel)k);
            square_case(ctx, 2, m, (gi_blur_kernel)k);
        }
}
