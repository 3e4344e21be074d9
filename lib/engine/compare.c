/* gi_compare: checks the two images, computes the SSIM weights, lets the
 * backend produce integer sums and per-row SSIM sums, and derives the
 * measures from them here, so every backend ends in the same arithmetic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/gi_error.h"
#include "ops.h"

#define SSIM_SIGMA 1.5

/* The largest sample: SSIM's data range and PSNR's peak. */
static double peak_of(const gi_image *img)
{
    return img->depth == 16 ? 65535.0 : 255.0;
}

/* The call and the sums it fills travel together through gi__dispatch. */
typedef struct {
    gi__compare_call call;
    gi__compare_sums sums;
} compare_job;

void gi_compare_params_default(gi_compare_params *p)
{
    if (!p) return;
    p->tolerance = 0;
    p->ssim = 1;
    p->straight_alpha = 0;
}

static int premultiplies(const gi_image *img, const gi_compare_params *p)
{
    return !p->straight_alpha && (img->channels == 2 || img->channels == 4);
}

/* gpuimg.h at 16 bits: v A / 65535 rounded to nearest (never a half:
 * 65535 is odd). */
static void premultiply16(gi_image *img)
{
    const int ch = img->channels;
    for (int y = 0; y < img->height; y++) {
        uint16_t *px = (uint16_t *)(img->data + (size_t)y * img->stride);
        for (int x = 0; x < img->width; x++, px += ch) {
            const uint32_t alpha = px[ch - 1];
            for (int c = 0; c < ch - 1; c++)
                px[c] = (uint16_t)((px[c] * alpha + 32767) / 65535);
        }
    }
}

void gi__compare_premultiply(gi_image *img, const gi_compare_params *p)
{
    if (!premultiplies(img, p)) return;
    const int ch = img->channels;
    if (img->depth == 16) {
        premultiply16(img);
        return;
    }
    for (int y = 0; y < img->height; y++) {
        uint8_t *px = img->data + (size_t)y * img->stride;
        for (int x = 0; x < img->width; x++, px += ch) {
            const unsigned alpha = px[ch - 1];
            for (int c = 0; c < ch - 1; c++) px[c] = (uint8_t)((px[c] * alpha + 127) / 255);
        }
    }
}

/* A copy of img with the samples gi_compare compares; the caller frees it. */
static gi_status premultiplied_copy(const gi_image *img, const gi_compare_params *p,
                                    gi_image *copy)
{
    gi_status st = gi_image_alloc_depth(copy, img->width, img->height, img->channels,
                                        8 * gi_image_sample_bytes(img));
    if (st != GI_OK) return st;
    for (int y = 0; y < img->height; y++)
        memcpy(copy->data + (size_t)y * copy->stride, img->data + (size_t)y * img->stride,
               (size_t)img->width * img->channels * (size_t)gi_image_sample_bytes(img));
    gi__compare_premultiply(copy, p);
    return GI_OK;
}

/* scipy.ndimage's Gaussian: exp(-0.5 k^2 / sigma^2), divided by the sum. */
static void ssim_weights(double w[2 * GI_SSIM_RADIUS + 1])
{
    double sum = 0;
    for (int k = -GI_SSIM_RADIUS; k <= GI_SSIM_RADIUS; k++) {
        w[k + GI_SSIM_RADIUS] = exp(-0.5 / (SSIM_SIGMA * SSIM_SIGMA) * k * k);
        sum += w[k + GI_SSIM_RADIUS];
    }
    for (int k = 0; k < 2 * GI_SSIM_RADIUS + 1; k++) w[k] /= sum;
}

static gi_status check_pair(const gi_image *e, const gi_image *a, const gi_compare_params *p)
{
    gi_status st = gi__check_image(e, "expected");
    if (st == GI_OK) st = gi__check_image(a, "actual");
    if (st != GI_OK) return st;
    if (e->width != a->width || e->height != a->height || e->channels != a->channels)
        return gi__fail(GI_ERR_INVALID_ARGUMENT,
                        "expected is %dx%d with %d channels, actual %dx%d with %d", e->width,
                        e->height, e->channels, a->width, a->height, a->channels);
    if (gi_image_sample_bytes(e) != gi_image_sample_bytes(a))
        return gi__fail(GI_ERR_INVALID_ARGUMENT,
                        "expected is %d-bit and actual %d-bit: compare images of one depth"
                        " (gi_convert_depth changes it)",
                        8 * gi_image_sample_bytes(e), 8 * gi_image_sample_bytes(a));
    const int top = (int)peak_of(e);
    if (p->tolerance < 0 || p->tolerance > top)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "tolerance %d: must be 0..%d for %d-bit images",
                        p->tolerance, top, 8 * gi_image_sample_bytes(e));
    return GI_OK;
}

static gi_status call_compare(const gi__backend_ops *ops, void *state, const void *arg)
{
    compare_job *job = (compare_job *)arg;
    if (!ops->compare) return gi__fail(GI_ERR_UNSUPPORTED, "the %s backend cannot compare", ops->name);
    return ops->compare(state, &job->call, &job->sums);
}

/* The rows of each channel in order (gpuimg.h), then the channels. */
static void finish_ssim(const gi_image *img, const double *row_ssim, gi_compare_result *r)
{
    int x0, x1, y0, y1;
    gi__ssim_span(img->width, &x0, &x1);
    gi__ssim_span(img->height, &y0, &y1);
    const double counted = (double)(x1 - x0) * (double)(y1 - y0);
    double all = 0;
    for (int c = 0; c < img->channels; c++) {
        double sum = 0;
        for (int y = y0; y < y1; y++) sum += row_ssim[(size_t)c * img->height + y];
        r->ssim_channel[c] = sum / counted;
        all += r->ssim_channel[c];
    }
    r->ssim = all / img->channels;
}

static void finish_result(const gi_image *img, const gi__compare_sums *s, gi_compare_result *r)
{
    const double peak = peak_of(img);
    const double samples = (double)r->pixels * img->channels;
    r->different_pixels = s->different_pixels;
    r->different_percent = 100.0 * (double)s->different_pixels / (double)r->pixels;
    for (int c = 0; c < img->channels; c++) r->max_abs_diff[c] = s->max_abs[c];
    r->sum_abs_diff = s->sum_abs;
    r->sum_squared_diff = s->sum_sq;
    r->mean_abs_diff = (double)s->sum_abs / samples;
    r->mse = (double)s->sum_sq / samples;
    r->psnr = s->sum_sq == 0 ? INFINITY : 10.0 * log10(peak * peak / r->mse);
}

gi_status gi_compare(gi_context *ctx, const gi_image *expected, const gi_image *actual,
                     const gi_compare_params *p, gi_compare_result *result)
{
    GI__REFUSE_NULL(ctx, expected, actual, result);
    gi_compare_params defaults;
    gi_compare_params_default(&defaults);
    if (!p) p = &defaults;
    memset(result, 0, sizeof *result);
    gi_status st = check_pair(expected, actual, p);
    if (st != GI_OK) return st;
    if (premultiplies(expected, p)) {
        /* compared as stored once premultiplied here: one definition for
         * every backend */
        gi_image e = {0}, a = {0};
        gi_compare_params as_stored = *p;
        as_stored.straight_alpha = 1;
        st = premultiplied_copy(expected, p, &e);
        if (st == GI_OK) st = premultiplied_copy(actual, p, &a);
        if (st == GI_OK) st = gi_compare(ctx, &e, &a, &as_stored, result);
        gi_image_free(&e);
        gi_image_free(&a);
        return st;
    }
    double weights[2 * GI_SSIM_RADIUS + 1];
    ssim_weights(weights);
    const double peak = peak_of(expected);
    compare_job job = {{expected, actual, p->tolerance, p->ssim ? weights : NULL,
                        (0.01 * peak) * (0.01 * peak), (0.03 * peak) * (0.03 * peak), NULL},
                       {0}};
    if (p->ssim) {
        job.call.row_ssim = calloc((size_t)expected->channels * expected->height, sizeof(double));
        if (!job.call.row_ssim) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate SSIM row sums");
    }
    st = gi__dispatch(ctx, "compare", NULL, call_compare, &job);
    result->width = expected->width;
    result->height = expected->height;
    result->channels = expected->channels;
    result->pixels = (uint64_t)expected->width * (uint64_t)expected->height;
    if (st == GI_OK) {
        finish_result(expected, &job.sums, result);
        if (p->ssim) finish_ssim(expected, job.call.row_ssim, result);
    }
    free(job.call.row_ssim);
    return st;
}
