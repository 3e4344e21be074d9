/* Comparison: gi_compare against a direct float64 reference. The reference
 * filters with the full 11x11 Gaussian window (no separable passes, no
 * shortcut for equal neighbourhoods) and adds S in plain row-major order,
 * so SSIM agrees to rounding only (1e-6 is asked, ~1e-13 seen); counts,
 * maxima and sums must be exact. Images with alpha are compared both
 * premultiplied (the default: colour v A / 255 rounded in float64 here)
 * and straight; pixels whose alpha is 0 in both are equal whatever their
 * colour. Also: every thread count gives the same bits, tolerance
 * boundaries, and shapes that do not match. */
#include "checks.h"
#include "../harness.h"
#include "../testimg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RADIUS 5
#define SIGMA 1.5

typedef struct {
    uint64_t different, sum_abs, sum_sq;
    int max_abs[4];
    double psnr, ssim, ssim_channel[4];
} ref_result;

/* scipy's 'reflect': ba|abcd|dc, repeated for any distance. */
static int reflect(long i, long n)
{
    long j = ((i % (2 * n)) + 2 * n) % (2 * n);
    return (int)(j >= n ? 2 * n - 1 - j : j);
}

/* Sample c of pixel (x, y) as gpuimg.h says compare sees it: with alpha
 * and not straight, colour times alpha / 255 rounded to nearest. */
static int ref_sample(const gi_image *img, int x, int y, int c, int straight)
{
    const uint8_t *px = ti_px(img, x, y);
    const int alpha = img->channels == 2 || img->channels == 4 ? img->channels - 1 : -1;
    if (straight || alpha < 0 || c == alpha) return px[c];
    return (int)floor(px[c] * (double)px[alpha] / 255.0 + 0.5);
}

static double ref_channel_ssim(const gi_image *e, const gi_image *a, int c, int straight)
{
    double g[2 * RADIUS + 1], sum = 0;
    for (int k = -RADIUS; k <= RADIUS; k++) sum += g[k + RADIUS] = exp(-(double)k * k / (2 * SIGMA * SIGMA));
    for (int k = 0; k <= 2 * RADIUS; k++) g[k] /= sum;
    const double c1 = pow(0.01 * 255, 2), c2 = pow(0.03 * 255, 2);
    const int w = e->width, h = e->height;
    /* cropped only where the window fits (gpuimg.h) */
    const int cx = w >= 2 * RADIUS + 1 ? RADIUS : 0, cy = h >= 2 * RADIUS + 1 ? RADIUS : 0;
    double total = 0;
    for (int y = cy; y < h - cy; y++)
        for (int x = cx; x < w - cx; x++) {
            double me = 0, ma = 0, mee = 0, maa = 0, mea = 0;
            for (int j = -RADIUS; j <= RADIUS; j++)
                for (int i = -RADIUS; i <= RADIUS; i++) {
                    double wt = g[j + RADIUS] * g[i + RADIUS];
                    double ve = ref_sample(e, reflect(x + i, w), reflect(y + j, h), c, straight);
                    double va = ref_sample(a, reflect(x + i, w), reflect(y + j, h), c, straight);
                    me += wt * ve, ma += wt * va;
                    mee += wt * ve * ve, maa += wt * va * va, mea += wt * ve * va;
                }
            double ve = mee - me * me, va = maa - ma * ma, cov = mea - me * ma;
            total += (2 * me * ma + c1) * (2 * cov + c2) / ((me * me + ma * ma + c1) * (ve + va + c2));
        }
    return total / ((double)(w - 2 * cx) * (h - 2 * cy));
}

static void ref_compare(const gi_image *e, const gi_image *a, int tolerance, int straight,
                        ref_result *r)
{
    memset(r, 0, sizeof *r);
    for (int y = 0; y < e->height; y++)
        for (int x = 0; x < e->width; x++) {
            int over = 0;
            for (int c = 0; c < e->channels; c++) {
                int d = abs(ref_sample(e, x, y, c, straight) - ref_sample(a, x, y, c, straight));
                r->sum_abs += d;
                r->sum_sq += (uint64_t)d * d;
                if (d > r->max_abs[c]) r->max_abs[c] = d;
                if (d > tolerance) over = 1;
            }
            r->different += over;
        }
    double mse = (double)r->sum_sq / ((double)e->width * e->height * e->channels);
    r->psnr = r->sum_sq ? 10 * log10(255.0 * 255.0 / mse) : INFINITY;
    for (int c = 0; c < e->channels; c++) {
        r->ssim_channel[c] = ref_channel_ssim(e, a, c, straight);
        r->ssim += r->ssim_channel[c] / e->channels;
    }
}

static const char *shape(const gi_image *img, char *buf, size_t size)
{
    snprintf(buf, size, "%dx%dx%d", img->width, img->height, img->channels);
    return buf;
}

/* gi_compare against the reference; returns the result for more checks. */
static gi_compare_result compare_case(gi_context *ctx, const gi_image *e, const gi_image *a,
                                      int tolerance, int straight, const char *what)
{
    gi_compare_params p;
    gi_compare_result got;
    ref_result want;
    char s[32];
    gi_compare_params_default(&p);
    p.tolerance = tolerance;
    p.straight_alpha = straight;
    if (!th_check(gi_compare(ctx, e, a, &p, &got) == GI_OK, "compare %s %s: %s", what,
                  shape(e, s, sizeof s), gi_last_error()))
        return got;
    ref_compare(e, a, tolerance, straight, &want);
    const double pixels = (double)e->width * e->height, samples = pixels * e->channels;
    int maxima_ok = 1;
    for (int c = 0; c < 4; c++)
        maxima_ok &= got.max_abs_diff[c] == (c < e->channels ? want.max_abs[c] : 0);
    th_check(got.different_pixels == want.different && got.sum_abs_diff == want.sum_abs &&
                 got.sum_squared_diff == want.sum_sq && maxima_ok &&
                 got.pixels == (uint64_t)pixels,
             "compare %s %s tol %d: different %llu abs %llu sq %llu; want %llu %llu %llu",
             what, shape(e, s, sizeof s), tolerance, (unsigned long long)got.different_pixels,
             (unsigned long long)got.sum_abs_diff, (unsigned long long)got.sum_squared_diff,
             (unsigned long long)want.different, (unsigned long long)want.sum_abs,
             (unsigned long long)want.sum_sq);
    th_check(fabs(got.different_percent - 100.0 * want.different / pixels) < 1e-9 &&
                 fabs(got.mean_abs_diff - want.sum_abs / samples) < 1e-12 &&
                 fabs(got.mse - want.sum_sq / samples) < 1e-9 &&
                 (isinf(want.psnr) ? isinf(got.psnr) : fabs(got.psnr - want.psnr) < 1e-9),
             "compare %s %s: percent %g mean %g mse %g psnr %g; want psnr %g", what,
             shape(e, s, sizeof s), got.different_percent, got.mean_abs_diff, got.mse, got.psnr,
             want.psnr);
    int ssim_ok = fabs(got.ssim - want.ssim) <= 1e-6;
    for (int c = 0; c < e->channels; c++)
        ssim_ok &= fabs(got.ssim_channel[c] - want.ssim_channel[c]) <= 1e-6;
    th_check(ssim_ok, "compare %s %s: ssim %.12f; want %.12f", what, shape(e, s, sizeof s),
             got.ssim, want.ssim);
    return got;
}

/* a = e with the samples of rows [y0, y1) moved by up to `amount`. */
static gi_image disturbed(const gi_image *e, int y0, int y1, int amount)
{
    gi_image a = ti_copy(e);
    for (int y = y0; y < y1 && y < e->height; y++)
        for (int x = 0; x < e->width; x++)
            for (int c = 0; c < e->channels; c++) {
                int v = ti_px(&a, x, y)[c] + th_rand_int(-amount, amount);
                ti_px(&a, x, y)[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    return a;
}

static void equal_case(gi_context *ctx, const gi_image *e)
{
    gi_image a = ti_copy(e);
    gi_compare_result r = compare_case(ctx, e, &a, 0, 0, "equal");
    th_check(r.different_pixels == 0 && isinf(r.psnr) && r.ssim == 1.0,
             "equal %dx%dx%d: %llu different, psnr %g, ssim %.17g (want exactly 1)", e->width,
             e->height, e->channels, (unsigned long long)r.different_pixels, r.psnr, r.ssim);
    ti_free(&a);
}

/* One sample off by `by`: it differs at tolerance by - 1, not at by. */
static void boundary_case(gi_context *ctx, const gi_image *e, int by)
{
    gi_image a = ti_copy(e);
    int x = th_rand_int(0, e->width - 1), y = th_rand_int(0, e->height - 1);
    int c = th_rand_int(0, e->channels - 1);
    uint8_t *v = &ti_px(&a, x, y)[c];
    if (*v + by > 255 && *v - by < 0) by = *v > 255 - *v ? *v : 255 - *v; /* the most it can move */
    *v = (uint8_t)(*v + by <= 255 ? *v + by : *v - by);
    /* as stored: premultiplied, the sample's difference would be scaled */
    gi_compare_result at = compare_case(ctx, e, &a, by, 1, "boundary N");
    gi_compare_result below = compare_case(ctx, e, &a, by - 1, 1, "boundary N-1");
    th_check(at.different_pixels == 0 && below.different_pixels == 1 &&
                 at.max_abs_diff[c] == by,
             "one sample off by %d: %llu different at tolerance %d, %llu at %d", by,
             (unsigned long long)at.different_pixels, by,
             (unsigned long long)below.different_pixels, by - 1);
    ti_free(&a);
}

/* e and other with alpha 0 in both wherever a random mask says: those
 * pixels equal premultiplied whatever their colour, different straight. */
static void transparent_case(gi_context *ctx, const gi_image *e, const gi_image *other)
{
    gi_image a = ti_copy(e), b = ti_copy(e);
    const int alpha = e->channels - 1;
    uint64_t transparent = 0, colour_differs = 0;
    for (int y = 0; y < e->height; y++)
        for (int x = 0; x < e->width; x++) {
            if (th_rand_int(0, 2) == 0) continue; /* left as e: equal */
            memcpy(ti_px(&b, x, y), ti_px(other, x, y), (size_t)alpha); /* another colour */
            ti_px(&a, x, y)[alpha] = ti_px(&b, x, y)[alpha] = 0;
            transparent++;
            colour_differs += memcmp(ti_px(&a, x, y), ti_px(&b, x, y), (size_t)alpha) != 0;
        }
    gi_compare_result pre = compare_case(ctx, &a, &b, 0, 0, "transparent");
    gi_compare_result straight = compare_case(ctx, &a, &b, 0, 1, "transparent, straight");
    th_check(pre.different_pixels == 0 && isinf(pre.psnr) && pre.ssim == 1.0 &&
                 straight.different_pixels == colour_differs,
             "%dx%dx%d, %llu transparent pixels of other colours: %llu differ premultiplied "
             "(want 0), %llu straight (want %llu)", e->width, e->height, e->channels,
             (unsigned long long)transparent, (unsigned long long)pre.different_pixels,
             (unsigned long long)straight.different_pixels,
             (unsigned long long)colour_differs);
    ti_free(&a), ti_free(&b);
}

static void mismatch_cases(gi_context *ctx)
{
    gi_image e = ti_random(9, 7, 3), wider = ti_random(10, 7, 3), taller = ti_random(9, 8, 3);
    gi_image gray = ti_random(9, 7, 1);
    gi_compare_result r;
    const gi_image *others[] = {&wider, &taller, &gray};
    for (int k = 0; k < 3; k++)
        th_check(gi_compare(ctx, &e, others[k], NULL, &r) == GI_ERR_INVALID_ARGUMENT &&
                     strstr(gi_last_error(), "channels"),
                 "shape mismatch %d accepted or unexplained: %s", k, gi_last_error());
    gi_compare_params p;
    gi_compare_params_default(&p);
    p.tolerance = 256;
    th_check(gi_compare(ctx, &e, &e, &p, &r) == GI_ERR_INVALID_ARGUMENT, "tolerance 256 accepted");
    ti_free(&e), ti_free(&wider), ti_free(&taller), ti_free(&gray);
}

/* Same bits with 1, 2, 3 and 7 threads. */
static void threads_case(const gi_image *e, const gi_image *a)
{
    gi_compare_result first, r;
    for (int k = 0; k < 4; k++) {
        static const int threads[] = {1, 2, 3, 7};
        gi_context *ctx = ti_cpu_context(threads[k]);
        gi_compare(ctx, e, a, NULL, k ? &r : &first);
        if (k) th_check(memcmp(&r, &first, sizeof r) == 0, "compare %dx%d: %d threads differ from 1",
                        e->width, e->height, threads[k]);
        gi_context_destroy(ctx);
    }
}

void check_compare(gi_context *ctx)
{
    static const int sizes[][2] = {{1, 1}, {1, 17}, {17, 1}, {2, 3}, {10, 10}, {11, 11},
                                   {12, 11}, {31, 29}, {257, 3}, {64, 48}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int ch = 1; ch <= 4; ch++) {
            const int w = sizes[s][0], h = sizes[s][1];
            gi_image e = ti_random(w, h, ch);
            equal_case(ctx, &e);
            boundary_case(ctx, &e, 1);
            boundary_case(ctx, &e, th_rand_int(2, 255));
            gi_image noisy = disturbed(&e, 0, h, 255), band = disturbed(&e, h / 2, h / 2 + 1, 3);
            gi_image other = ti_random(w, h, ch);
            for (int straight = 0; straight <= (ch == 2 || ch == 4); straight++) {
                compare_case(ctx, &e, &noisy, th_rand_int(0, 40), straight, "noisy");
                compare_case(ctx, &e, &band, 0, straight, "one row");
                compare_case(ctx, &e, &other, 0, straight, "unrelated");
            }
            if (ch == 2 || ch == 4) transparent_case(ctx, &e, &other);
            if (w * h >= 100) threads_case(&e, &band), threads_case(&e, &noisy);
            ti_free(&e), ti_free(&noisy), ti_free(&band), ti_free(&other);
        }
    mismatch_cases(ctx);
}
