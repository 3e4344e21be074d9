/* Transforms, crop and resize of 16-bit images against references written
 * from gpuimg.h's formulas: the permutations read the documented index
 * maps, crop copies the rectangle by hand, and resize sums in float64 with
 * the library's integer weights, without the intermediate rounding: gray
 * and RGB within 0.5 + 1/64 of it, alpha and premultiplied colour (whose
 * sums are kept whole) within 0.5. Every case runs on 1 and 3 threads,
 * which must give the same bytes, into poisoned outputs whose row padding
 * must survive. */
#include "checks.h"
#include "../image16.h"
#include "../harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int sizes16[][2] = {{1, 1}, {1, 13}, {13, 1}, {31, 29}, {257, 3}, {7, 61}};
#define NSIZES16 (sizeof sizes16 / sizeof *sizes16)

static gi_context *one_thread, *three_threads;

static void open_contexts(void)
{
    if (!one_thread) one_thread = im16_cpu(1), three_threads = im16_cpu(3);
}

/* The samples of a and b (same shape) are equal. */
static int same16(const gi_image *a, const gi_image *b)
{
    for (int y = 0; y < a->height; y++)
        if (memcmp(im16_px(a, 0, y), im16_px(b, 0, y), (size_t)a->width * a->channels * 2))
            return 0;
    return 1;
}

/* Runs op on both contexts into poisoned images; *out gets the 1-thread
 * result. Returns 0 when either failed or they differ. */
static int run_both(const gi_image *src, const gi_op *op, int w, int h, gi_image *out,
                    const char *label)
{
    gi_image b = im16_poisoned(w, h, src->channels);
    *out = im16_poisoned(w, h, src->channels);
    int ok = th_check(gi_apply(one_thread, src, op, 1, out, NULL) == GI_OK, "%s: %s", label,
                      gi_last_error()) &&
             th_check(gi_apply(three_threads, src, op, 1, &b, NULL) == GI_OK, "%s (3 threads): %s",
                      label, gi_last_error());
    ok = ok && th_check(same16(out, &b), "%s: 1 and 3 threads differ", label);
    ok = ok && th_check(im16_padding_intact(out) && im16_padding_intact(&b),
                        "%s: wrote into the row padding", label);
    im16_free(&b);
    return ok;
}

/* ---------------------------------------------------------------- transform */

/* The source pixel of output (x, y), from the table in gpuimg.h. */
static void ref_source(gi_transform t, int w, int h, int x, int y, int *sx, int *sy)
{
    switch (t) {
    case GI_TRANSPOSE: *sx = y, *sy = x; break;
    case GI_ROTATE_90: *sx = y, *sy = h - 1 - x; break;
    case GI_ROTATE_180: *sx = w - 1 - x, *sy = h - 1 - y; break;
    case GI_ROTATE_270: *sx = w - 1 - y, *sy = x; break;
    case GI_FLIP_H: *sx = w - 1 - x, *sy = y; break;
    case GI_FLIP_V: *sx = x, *sy = h - 1 - y; break;
    }
}

static void transform16_case(const gi_image *src, gi_transform t)
{
    int w, h;
    gi_transform_size(src, t, &w, &h);
    const gi_op op = {.kind = GI_OP_TRANSFORM, .transform = t};
    char label[96];
    snprintf(label, sizeof label, "16-bit transform %d of %dx%dx%d", (int)t, src->width,
             src->height, src->channels);
    gi_image out;
    if (run_both(src, &op, w, h, &out, label)) {
        long bad = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int sx, sy;
                ref_source(t, src->width, src->height, x, y, &sx, &sy);
                bad += memcmp(im16_px(&out, x, y), im16_px(src, sx, sy), 2 * (size_t)src->channels) != 0;
            }
        th_check(bad == 0, "%s: %ld pixels not where the formula puts them", label, bad);
    }
    im16_free(&out);
}

/* and sizes around the blocks' (lib/cpu/transform.c): 8 and 32 2-byte
 * pixels, 4 and 16 4-byte ones, 2 and 8 8-byte ones, whole and ragged,
 * and more than one tile (256 and 512 pixels) */
static const int block_sizes16[][2] = {{32, 64}, {33, 95}, {97, 31}, {130, 63}, {530, 290}};
#define NBLOCK_SIZES16 (sizeof block_sizes16 / sizeof *block_sizes16)

void check_transform16(gi_context *ctx)
{
    (void)ctx;
    open_contexts();
    for (size_t s = 0; s < NSIZES16 + NBLOCK_SIZES16; s++)
        for (int ch = 1; ch <= 4; ch++) {
            const int *size = s < NSIZES16 ? sizes16[s] : block_sizes16[s - NSIZES16];
            gi_image src = im16_random(size[0], size[1], ch);
            for (int t = GI_TRANSPOSE; t <= GI_FLIP_V; t++) transform16_case(&src, (gi_transform)t);
            im16_free(&src);
        }
}

/* ---------------------------------------------------------------- crop */

static void crop16_case(const gi_image *src, gi_crop_params p)
{
    int x0, y0, w, h;
    gi_crop_rect(src, &p, &x0, &y0, &w, &h);
    const gi_op op = {.kind = GI_OP_CROP, .crop = p};
    char label[96];
    snprintf(label, sizeof label, "16-bit crop %d,%d %dx%d of %dx%dx%d", x0, y0, w, h,
             src->width, src->height, src->channels);
    gi_image out;
    if (run_both(src, &op, w, h, &out, label)) {
        long bad = 0;
        for (int y = 0; y < h; y++)
            bad += memcmp(im16_px(&out, 0, y), im16_px(src, x0, y0 + y),
                          2 * (size_t)w * src->channels) != 0;
        th_check(bad == 0, "%s: %ld rows differ from the rectangle", label, bad);
    }
    im16_free(&out);
}

void check_crop16(gi_context *ctx)
{
    (void)ctx;
    open_contexts();
    for (int ch = 1; ch <= 4; ch++) {
        gi_image src = im16_random(31, 29, ch);
        crop16_case(&src, (gi_crop_params){0});
        crop16_case(&src, (gi_crop_params){0, 0, 1, 1, 0});     /* top-left corner */
        crop16_case(&src, (gi_crop_params){30, 28, 1, 1, 0});   /* bottom-right corner */
        crop16_case(&src, (gi_crop_params){30, 0, 0, 0, 0});    /* the last column */
        crop16_case(&src, (gi_crop_params){0, 28, 0, 0, 0});    /* the last row */
        crop16_case(&src, (gi_crop_params){20, 10, 50, 50, 0}); /* cut at both edges */
        crop16_case(&src, (gi_crop_params){0, 0, 10, 10, 1});
        im16_free(&src);
        gi_image one = im16_random(1, 1, ch);
        crop16_case(&one, (gi_crop_params){0, 0, 5, 5, 1});
        im16_free(&one);
    }
}

/* ---------------------------------------------------------------- resize */

/* The separable sum in float64 with the library's integer weights
 * (gpuimg.h, resize at 16 bits), clamped to the sample range. */
static void exact_resize16(const gi_image *src, const gi_resize_axis *ax, const gi_resize_axis *ay,
                           double *out)
{
    const int ch = src->channels, alpha = ch == 2 || ch == 4 ? ch - 1 : -1;
    const int ow = ax->n_out, oh = ay->n_out;
    double *rows = calloc((size_t)src->height * ow * ch, sizeof *rows);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < ow; x++)
            for (int k = 0; k < ax->count[x]; k++) {
                const uint16_t *p = im16_px(src, ax->first[x] + k, y);
                const double w = ax->q[(size_t)x * ax->taps + k] / (double)GI_RESIZE_WEIGHT_SUM;
                for (int c = 0; c < ch; c++)
                    rows[((size_t)y * ow + x) * ch + c] +=
                        w * p[c] * (alpha >= 0 && c != alpha ? (double)p[alpha] : 1.0);
            }
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            double v[4] = {0, 0, 0, 0};
            for (int k = 0; k < ay->count[y]; k++) {
                const double w = ay->q[(size_t)y * ay->taps + k] / (double)GI_RESIZE_WEIGHT_SUM;
                for (int c = 0; c < ch; c++)
                    v[c] += w * rows[((size_t)(ay->first[y] + k) * ow + x) * ch + c];
            }
            for (int c = 0; c < ch; c++) {
                double e = v[c];
                if (alpha >= 0 && c != alpha) e = v[alpha] > 0 && v[c] > 0 ? v[c] / v[alpha] : 0;
                out[((size_t)y * ow + x) * ch + c] = e < 0 ? 0 : e > 65535 ? 65535 : e;
            }
        }
    free(rows);
}

static void resize16_case(const gi_image *src, int w, int h, gi_resize_filter filter)
{
    gi_op op = {.kind = GI_OP_RESIZE};
    gi_resize_params_default(&op.resize);
    op.resize.width = w, op.resize.height = h, op.resize.fit = GI_FIT_FILL;
    op.resize.filter = filter;
    char label[96];
    snprintf(label, sizeof label, "16-bit resize (filter %d) %dx%dx%d -> %dx%d", (int)filter,
             src->width, src->height, src->channels, w, h);
    gi_image out;
    if (run_both(src, &op, w, h, &out, label)) {
        gi_resize_axis ax, ay;
        gi_resize_axis_weights(src->width, w, filter, &ax);
        gi_resize_axis_weights(src->height, h, filter, &ay);
        const int ch = src->channels, alpha = ch == 2 || ch == 4 ? ch - 1 : -1;
        double *exact = malloc(sizeof(double) * (size_t)w * h * ch);
        exact_resize16(src, &ax, &ay, exact);
        long bad = 0;
        char why[128] = "";
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int c = 0; c < ch; c++) {
                    const double e = exact[((size_t)y * w + x) * ch + c];
                    const int got = im16_px(&out, x, y)[c];
                    /* colour of a transparent result carries no information */
                    if (alpha >= 0 && c != alpha && im16_px(&out, x, y)[alpha] == 0) continue;
                    /* the colour's quotient of exact sums is rounded once:
                     * (vc + va / 2) / va, within 0.5 + 1 / va */
                    const double tolerance = alpha >= 0 ? 0.5 + 1e-6 : 0.5 + 1.0 / 64 + 1e-9;
                    if (fabs(got - e) > tolerance && bad++ == 0)
                        snprintf(why, sizeof why, "(%d,%d) channel %d: got %d, exact %.4f", x, y,
                                 c, got, e);
                }
        th_check(bad == 0, "%s: %ld samples off; first %s", label, bad, why);
        free(exact);
        gi_resize_axis_free(&ax);
        gi_resize_axis_free(&ay);
    }
    im16_free(&out);
}

void check_resize16(gi_context *ctx)
{
    (void)ctx;
    open_contexts();
    for (size_t s = 0; s < NSIZES16; s++)
        for (int ch = 1; ch <= 4; ch++) {
            const int w = sizes16[s][0], h = sizes16[s][1];
            gi_image src = im16_random(w, h, ch);
            for (int f = 0; f <= GI_RESIZE_NEAREST; f++) {
                /* up and down by odd factors, each side at least 1 */
                resize16_case(&src, 3 * w, 5 * h, (gi_resize_filter)f);
                resize16_case(&src, (w + 2) / 3, (h + 4) / 5, (gi_resize_filter)f);
                resize16_case(&src, 3 * w, (h + 2) / 3, (gi_resize_filter)f);
            }
            im16_free(&src);
        }
}
