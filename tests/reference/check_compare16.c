/* Comparison of 16-bit images against a direct float64 reference of
 * gpuimg.h's definitions at 16 bits: premultiplied colour v A / 65535
 * rounded, tolerance on the 16-bit range, PSNR with peak 65535, SSIM with
 * C1 = (0.01 * 65535)^2 and C2 = (0.03 * 65535)^2 over the full 11x11
 * window (agreeing to rounding: 1e-6 asked). Counts, maxima and sums are
 * exact. 1 and 3 threads give the same bits; mixed depths are refused. */
#include "checks.h"
#include "../image16.h"
#include "../harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RADIUS 5
#define SIGMA 1.5

typedef struct {
    uint64_t different, sum_abs, sum_sq;
    int max_abs[4];
    double psnr, ssim;
} ref16_result;

static long reflect16(long i, long n)
{
    long j = ((i % (2 * n)) + 2 * n) % (2 * n);
    return j >= n ? 2 * n - 1 - j : j;
}

static double sample16(const gi_image *img, long x, long y, int c, int straight)
{
    const uint16_t *px = im16_px(img, (int)x, (int)y);
    const int alpha = img->channels == 2 || img->channels == 4 ? img->channels - 1 : -1;
    if (straight || alpha < 0 || c == alpha) return px[c];
    return floor(px[c] * (double)px[alpha] / 65535.0 + 0.5);
}

static double ref_ssim16(const gi_image *e, const gi_image *a, int c, int straight)
{
    double g[2 * RADIUS + 1], sum = 0;
    for (int k = -RADIUS; k <= RADIUS; k++)
        sum += g[k + RADIUS] = exp(-(double)k * k / (2 * SIGMA * SIGMA));
    for (int k = 0; k <= 2 * RADIUS; k++) g[k] /= sum;
    const double c1 = pow(0.01 * 65535, 2), c2 = pow(0.03 * 65535, 2);
    const int w = e->width, h = e->height;
    const int cx = w >= 2 * RADIUS + 1 ? RADIUS : 0, cy = h >= 2 * RADIUS + 1 ? RADIUS : 0;
    double total = 0;
    for (int y = cy; y < h - cy; y++)
        for (int x = cx; x < w - cx; x++) {
            double me = 0, ma = 0, mee = 0, maa = 0, mea = 0;
            for (int j = -RADIUS; j <= RADIUS; j++)
                for (int i = -RADIUS; i <= RADIUS; i++) {
                    const double wt = g[j + RADIUS] * g[i + RADIUS];
                    const long sx = reflect16(x + i, w), sy = reflect16(y + j, h);
                    const double ve = sample16(e, sx, sy, c, straight);
                    const double va = sample16(a, sx, sy, c, straight);
                    me += wt * ve, ma += wt * va;
                    mee += wt * ve * ve, maa += wt * va * va, mea += wt * ve * va;
                }
            const double ve = mee - me * me, va = maa - ma * ma, cov = mea - me * ma;
            total += (2 * me * ma + c1) * (2 * cov + c2) /
                     ((me * me + ma * ma + c1) * (ve + va + c2));
        }
    return total / ((double)(w - 2 * cx) * (h - 2 * cy));
}

static void ref_compare16(const gi_image *e, const gi_image *a, int tolerance, int straight,
                          ref16_result *r)
{
    memset(r, 0, sizeof *r);
    for (int y = 0; y < e->height; y++)
        for (int x = 0; x < e->width; x++) {
            int over = 0;
            for (int c = 0; c < e->channels; c++) {
                const int d = (int)fabs(sample16(e, x, y, c, straight) - sample16(a, x, y, c, straight));
                r->sum_abs += (uint64_t)d;
                r->sum_sq += (uint64_t)d * (uint64_t)d;
                if (d > r->max_abs[c]) r->max_abs[c] = d;
                over |= d > tolerance;
            }
            r->different += (uint64_t)over;
        }
    const double mse = (double)r->sum_sq / ((double)e->width * e->height * e->channels);
    r->psnr = r->sum_sq ? 10 * log10(65535.0 * 65535.0 / mse) : INFINITY;
    for (int c = 0; c < e->channels; c++) r->ssim += ref_ssim16(e, a, c, straight) / e->channels;
}

/* a: e with about one sample in `every` moved by up to `amount`. */
static gi_image disturbed16(const gi_image *e, int every, int amount)
{
    gi_image a = im16_poisoned(e->width, e->height, e->channels);
    for (int y = 0; y < e->height; y++)
        for (int i = 0; i < e->width * e->channels; i++) {
            int v = im16_px(e, 0, y)[i];
            if (th_rand_int(1, every) == 1) v += th_rand_int(-amount, amount);
            im16_px(&a, 0, y)[i] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
        }
    return a;
}

static void compare16_case(gi_context *one, gi_context *three, const gi_image *e,
                           const gi_image *a, int tolerance, int straight)
{
    gi_compare_params p;
    gi_compare_params_default(&p);
    p.tolerance = tolerance;
    p.straight_alpha = straight;
    gi_compare_result got, got3;
    char label[96];
    snprintf(label, sizeof label, "16-bit compare %dx%dx%d tolerance %d%s", e->width, e->height,
             e->channels, tolerance, straight ? " straight" : "");
    if (!th_check(gi_compare(one, e, a, &p, &got) == GI_OK &&
                      gi_compare(three, e, a, &p, &got3) == GI_OK,
                  "%s: %s", label, gi_last_error()))
        return;
    th_check(memcmp(&got, &got3, sizeof got) == 0, "%s: 1 and 3 threads differ", label);
    ref16_result r;
    ref_compare16(e, a, tolerance, straight, &r);
    int max_ok = 1;
    for (int c = 0; c < e->channels; c++) max_ok &= got.max_abs_diff[c] == r.max_abs[c];
    th_check(got.different_pixels == r.different && got.sum_abs_diff == r.sum_abs &&
                 got.sum_squared_diff == r.sum_sq && max_ok,
             "%s: different %llu sum|d| %llu sum d^2 %llu; want %llu %llu %llu (maxima %s)",
             label, (unsigned long long)got.different_pixels,
             (unsigned long long)got.sum_abs_diff, (unsigned long long)got.sum_squared_diff,
             (unsigned long long)r.different, (unsigned long long)r.sum_abs,
             (unsigned long long)r.sum_sq, max_ok ? "equal" : "differ");
    th_check(r.sum_sq ? fabs(got.psnr - r.psnr) <= 1e-9 * r.psnr : isinf(got.psnr),
             "%s: psnr %.12g, want %.12g", label, got.psnr, r.psnr);
    th_check(fabs(got.ssim - r.ssim) <= 1e-6, "%s: ssim %.12g, want %.12g", label, got.ssim,
             r.ssim);
}

static void mixed_depths_refused(gi_context *ctx)
{
    gi_image e = im16_random(3, 2, 1), a;
    gi_image_alloc(&a, 3, 2, 1);
    memset(a.data, 0, a.stride * 2);
    gi_compare_result r;
    const gi_status st = gi_compare(ctx, &e, &a, NULL, &r);
    th_check(st == GI_ERR_INVALID_ARGUMENT && strstr(gi_last_error(), "16-bit") &&
                 strstr(gi_last_error(), "8-bit"),
             "a 16-bit and an 8-bit image compared: status %d, \"%s\"", (int)st, gi_last_error());
    gi_compare_params p;
    gi_compare_params_default(&p);
    p.tolerance = 65536;
    th_check(gi_compare(ctx, &e, &e, &p, &r) == GI_ERR_INVALID_ARGUMENT,
             "tolerance 65536 must be refused at 16 bits");
    im16_free(&e);
    gi_image_free(&a);
}

void check_compare16(gi_context *ctx)
{
    gi_context *one = im16_cpu(1), *three = im16_cpu(3);
    static const int sizes[][2] = {{1, 1}, {1, 13}, {13, 1}, {31, 29}, {40, 12}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int ch = 1; ch <= 4; ch++) {
            gi_image e = im16_random(sizes[s][0], sizes[s][1], ch);
            gi_image near = disturbed16(&e, 3, 40), far = disturbed16(&e, 2, 40000);
            compare16_case(one, three, &e, &e, 0, 0);
            compare16_case(one, three, &e, &near, 0, 0);
            compare16_case(one, three, &e, &near, 20, 0);
            compare16_case(one, three, &e, &far, 1000, 0);
            compare16_case(one, three, &e, &far, 65535, 0);
            if (ch == 2 || ch == 4) {
                compare16_case(one, three, &e, &far, 0, 1);
                /* transparent pixels are equal whatever their colour */
                gi_image clear = disturbed16(&e, 1, 65535);
                for (int y = 0; y < e.height; y++)
                    for (int x = 0; x < e.width; x++)
                        im16_px(&e, x, y)[ch - 1] = im16_px(&clear, x, y)[ch - 1] = 0;
                compare16_case(one, three, &e, &clear, 0, 0);
                im16_free(&clear);
            }
            im16_free(&e);
            im16_free(&near);
            im16_free(&far);
        }
    mixed_depths_refused(ctx);
    gi_context_destroy(one);
    gi_context_destroy(three);
}
