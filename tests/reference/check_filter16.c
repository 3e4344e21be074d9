/* Blur, sobel and convolve of 16-bit images against ref16.c's two
 * evaluations: every sample exactly the integer definition of gpuimg.h
 * (the scalar ref16_*_defined), and within its stated distance of the
 * float64 exact filter; on every border mode (zero with 0 and a nonzero
 * value), 1-4 channels, the sizes of checks.h, radii past the image, random
 * samples with many 0 and 65535, and images all 65535 (the largest sums).
 * Destinations start poisoned, and their row padding must stay so.
 * threads16: 1 thread and several give the same samples. */
#include "checks.h"
#include "ref16.h"
#include "../harness.h"
#include "../testimg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int big_radius(int w, int h)
{
    int r = (w > h ? w : h) + th_rand_int(1, 8);
    if ((double)(2 * r + 1) * (2 * r + 1) * w * h > 1.5e6) r = (w < h ? w : h) + th_rand_int(1, 4);
    return r;
}

static gi_blur_params blur_variant(int v, int w, int h, gi_border border)
{
    gi_blur_params p;
    gi_blur_params_default(&p);
    p.border = border;
    if (v == 0) p.sigma = th_rand_double(0.4, 3.0);
    else if (v == 1) {
        p.kernel = GI_BLUR_BOX;
        p.radius = th_rand_int(0, 6);
    } else {
        p.kernel = th_rand_int(0, 1) ? GI_BLUR_BOX : GI_BLUR_GAUSSIAN;
        p.radius = big_radius(w, h);
        p.sigma = th_rand_double(1.0, 1.0 + p.radius / 2.0);
    }
    return p;
}

/* Samples off the exact blur by more than gpuimg.h allows: plain 1/2 +
 * 1/512, alpha 1/2, colour 1/2 + 1/(2 A) where the blurred alpha A >= 1. */
static long blur_off_exact(const gi_image *dst, const double *exact, char *why, size_t size)
{
    const int ch = dst->channels, alpha = ch == 2 || ch == 4 ? ch - 1 : -1;
    long bad = 0;
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++) {
            const double *e = &exact[((size_t)y * dst->width + x) * ch];
            for (int c = 0; c < ch; c++) {
                const int got = r16_px(dst, x, y)[c];
                double tolerance = alpha < 0 ? 0.5 + 1.0 / 512 : 0.5;
                if (alpha >= 0 && c != alpha) {
                    const double a = e[alpha];
                    if (a < 1.0) continue;
                    tolerance = 0.5 + 0.5 / a;
                }
                if (fabs(got - e[c]) <= tolerance + 1e-6) continue;
                if (bad++ == 0)
                    snprintf(why, size, "(%d,%d) channel %d: got %d, exact %.4f", x, y, c, got, e[c]);
            }
        }
    return bad;
}

static void blur_case(gi_context *ctx, int w, int h, int ch, int full, const gi_blur_params *p)
{
    char label[48], why[128] = "";
    const int r = gi_blur_radius(p);
    int32_t *weights = malloc((size_t)(2 * r + 1) * sizeof *weights);
    double *exact = malloc((size_t)w * h * ch * sizeof *exact);
    gi_image src = r16_random(w, h, ch, full), dst = r16_blank(w, h, ch), want = r16_blank(w, h, ch);
    ref_border_label(p->border, label, sizeof label);
    if (th_check(gi_blur(ctx, &src, &dst, p) == GI_OK, "blur16 %dx%dx%d %s: %s", w, h, ch, label,
                 gi_last_error()) &&
        th_check(gi_blur_weights(p, weights) == GI_OK, "weights: %s", gi_last_error())) {
        ref16_blur_defined(&src, weights, r, p->border, &want);
        th_check(r16_same(&dst, &want, why, sizeof why),
                 "blur16 %dx%dx%d %s %s R=%d full=%d: not the definition's samples: %s", w, h, ch,
                 label, p->kernel == GI_BLUR_BOX ? "box" : "gaussian", r, full, why);
        ref16_blur_exact(&src, weights, r, p->border, exact);
        long bad = blur_off_exact(&dst, exact, why, sizeof why);
        th_check(bad == 0, "blur16 %dx%dx%d %s R=%d: %ld samples off the exact blur; first %s", w,
                 h, ch, label, r, bad, why);
        th_check(r16_padding_intact(&dst), "blur16 %dx%dx%d: wrote into the row padding", w, h, ch);
    }
    r16_free(&src);
    r16_free(&dst);
    r16_free(&want);
    free(weights);
    free(exact);
}

void check_blur16(gi_context *ctx)
{
    for (int s = 0; s < REF_NSIZES; s++)
        for (int b = 0; b < REF_NBORDERS; b++)
            for (int ch = 1; ch <= 4; ch++)
                for (int v = 0; v < 3; v++) {
                    const int w = ref_sizes[s][0], h = ref_sizes[s][1];
                    gi_blur_params p = blur_variant(v, w, h, ref_border(b));
                    blur_case(ctx, w, h, ch, 0, &p);
                    if (v == 0) {
                        p.border.value = 255; /* outside samples 65535 too */
                        blur_case(ctx, w, h, ch, 1, &p);
                    }
                }
    /* rows wider than several column strips of the ring (a strip's
     * width falls with the radius and the channels) */
    for (int ch = 1; ch <= 4; ch++) {
        gi_blur_params p = blur_variant(0, 1500, 4, ref_border(th_rand_int(0, REF_NBORDERS - 1)));
        p.sigma = 15;
        p.radius = 40 + th_rand_int(0, 1);
        blur_case(ctx, 1500, 4, ch, ch & 1, &p);
    }
}

static gi_sobel_params sobel_variant(int v, gi_border border)
{
    gi_sobel_params p;
    gi_sobel_params_default(&p);
    p.border = border;
    p.gray = v >= 4;
    switch (v % 4) {
    case 0: break;
    case 1: p.scale = th_rand_int(0, 1) ? 0.25 : th_rand_double(0.05, 4.0); break;
    case 2: p.use_threshold = 1; p.threshold = th_rand_double(0.0, 100000.0); break;
    case 3: p.use_threshold = 1; p.scale = 0.5; p.threshold = th_rand_int(0, 70000); break;
    }
    return p;
}

static void sobel_case(gi_context *ctx, int w, int h, int ch, int full, const gi_sobel_params *p)
{
    char label[48], why[96];
    const int och = p->gray ? 1 : ch;
    gi_image src = r16_random(w, h, ch, full), dst = r16_blank(w, h, och), want = r16_blank(w, h, och);
    ref_border_label(p->border, label, sizeof label);
    if (th_check(gi_sobel(ctx, &src, &dst, p) == GI_OK, "sobel16 %dx%dx%d: %s", w, h, ch,
                 gi_last_error())) {
        ref16_sobel(&src, p, &want);
        th_check(r16_same(&dst, &want, why, sizeof why),
                 "sobel16 %dx%dx%d %s scale=%g threshold=%d:%g gray=%d: %s", w, h, ch, label,
                 p->scale, p->use_threshold, p->threshold, p->gray, why);
        th_check(r16_padding_intact(&dst), "sobel16 %dx%dx%d: wrote into the row padding", w, h, ch);
    }
    r16_free(&src);
    r16_free(&dst);
    r16_free(&want);
}

void check_sobel16(gi_context *ctx)
{
    for (int s = 0; s < REF_NSIZES; s++)
        for (int b = 0; b < REF_NBORDERS; b++)
            for (int ch = 1; ch <= 4; ch++)
                for (int v = 0; v < 8; v++) {
                    gi_sobel_params p = sobel_variant(v, ref_border(b));
                    sobel_case(ctx, ref_sizes[s][0], ref_sizes[s][1], ch, v == 7, &p);
                }
}

#define NMASKS 8
#define MAX_TAPS (GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE)

typedef struct {
    const char *name;
    gi_convolve_params p;
    double m[MAX_TAPS], real[MAX_TAPS];
} mask16;

static void make_mask(int v, mask16 *t)
{
    static const double sharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
    static const struct { const char *name; int w, h, normalize; double lo, hi; } shapes[NMASKS] = {
        {"1x1", 1, 1, 0, -0.5, 2.0},        {"sharpen 3x3", 3, 3, 0, 0, 0},
        {"ones 5x5 normalized", 5, 5, 1, 1, 1}, {"random 31x31 normalized", 31, 31, 1, -0.5, 1.0},
        {"random 1x7", 7, 1, 0, -1.0, 1.0}, {"random 7x1 normalized", 1, 7, 1, 0.1, 1.0},
        {"random 5x3", 5, 3, 0, -0.7, 1.3}, {"large 3x3", 3, 3, 0, -40.0, 60.0},
    };
    const int n = shapes[v].w * shapes[v].h;
    t->name = shapes[v].name;
    t->p = (gi_convolve_params){shapes[v].w, shapes[v].h, t->m, shapes[v].normalize,
                                {GI_BORDER_MIRROR, 0}};
    double sum = 0;
    for (int k = 0; k < n; k++) {
        t->m[k] = v == 1 ? sharpen[k] : th_rand_double(shapes[v].lo, shapes[v].hi);
        sum += t->m[k];
    }
    for (int k = 0; k < n; k++) t->real[k] = t->p.normalize ? t->m[k] / sum : t->m[k];
}

static void convolve_case(gi_context *ctx, int w, int h, int ch, int full, const mask16 *t)
{
    char label[48], why[128] = "";
    gi_convolve_weights q;
    double error = 0;
    double *exact = malloc((size_t)w * h * ch * sizeof *exact);
    gi_image src = r16_random(w, h, ch, full), dst = r16_blank(w, h, ch), want = r16_blank(w, h, ch);
    ref_border_label(t->p.border, label, sizeof label);
    if (th_check(gi_convolve(ctx, &src, &dst, &t->p) == GI_OK, "convolve16 %s %dx%dx%d %s: %s",
                 t->name, w, h, ch, label, gi_last_error()) &&
        th_check(gi_convolve_quantize_depth(&t->p, 16, &q) == GI_OK, "quantize %s: %s", t->name,
                 gi_last_error())) {
        for (int k = 0; k < t->p.width * t->p.height; k++)
            error += fabs(q.q[k] - ldexp(t->real[k], q.shift)) * 65535 / ldexp(1, q.shift);
        th_check(error < 0.5, "%s: quantization error %g with S = %d", t->name, error, q.shift);
        ref16_convolve_defined(&src, &q, t->p.border, &want);
        th_check(r16_same(&dst, &want, why, sizeof why), "convolve16 %s %dx%dx%d %s (S = %d): %s",
                 t->name, w, h, ch, label, q.shift, why);
        ref16_convolve_exact(&src, t->real, t->p.width, t->p.height, t->p.border, exact);
        long bad = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int c = 0; c < ch; c++) {
                    double e = exact[((size_t)y * w + x) * ch + c];
                    e = e < 0 ? 0 : e > 65535 ? 65535 : e;
                    if (fabs(r16_px(&dst, x, y)[c] - e) > 0.5 + error + 1e-6 && bad++ == 0)
                        snprintf(why, sizeof why, "(%d,%d) channel %d: got %d, exact %.4f", x, y,
                                 c, r16_px(&dst, x, y)[c], e);
                }
        th_check(bad == 0, "convolve16 %s %dx%dx%d %s: %ld samples off the exact filter; %s",
                 t->name, w, h, ch, label, bad, why);
        th_check(r16_padding_intact(&dst), "convolve16 %dx%dx%d: wrote into the row padding", w,
                 h, ch);
    }
    r16_free(&src);
    r16_free(&dst);
    r16_free(&want);
    free(exact);
}

void check_convolve16(gi_context *ctx)
{
    static mask16 t; /* 15 KB of doubles: off the stack */
    for (int v = 0; v < NMASKS; v++) {
        make_mask(v, &t);
        for (int s = 0; s < REF_NSIZES; s++)
            for (int b = 0; b < REF_NBORDERS; b++)
                for (int ch = 1; ch <= 4; ch++) {
                    t.p.border = ref_border(b);
                    convolve_case(ctx, ref_sizes[s][0], ref_sizes[s][1], ch, v == 2 && b == 0, &t);
                }
    }
}

/* Each of the three on `src` with ctx, into a new image. */
static gi_image run16(gi_context *ctx, const gi_image *src, int op)
{
    gi_image out = r16_blank(src->width, src->height, op == 3 ? 1 : src->channels);
    gi_status st = GI_OK;
    if (op <= 1) {
        gi_blur_params p;
        gi_blur_params_default(&p);
        p.kernel = op ? GI_BLUR_BOX : GI_BLUR_GAUSSIAN;
        p.sigma = 2.5;
        p.radius = op ? 4 : -1;
        st = gi_blur(ctx, src, &out, &p);
    } else if (op <= 3) {
        gi_sobel_params p;
        gi_sobel_params_default(&p);
        p.gray = p.use_threshold = op == 3;
        p.threshold = 30000;
        p.border.mode = GI_BORDER_REFLECT;
        st = gi_sobel(ctx, src, &out, &p);
    } else {
        static const double mask[15] = {1, -2, 0.5, 3, 1, -1, 4, 9, 4, -1, 1, 3, 0.5, -2, 1};
        gi_convolve_params p = {5, 3, mask, 0, {GI_BORDER_WRAP, 0}};
        st = gi_convolve(ctx, src, &out, &p);
    }
    th_check(st == GI_OK, "16-bit op %d: %s", op, gi_last_error());
    return out;
}

void check_threads16(gi_context *ctx)
{
    (void)ctx;
    static const char *const names[5] = {"blur gaussian", "blur box", "sobel",
                                         "sobel gray threshold", "convolve 5x3"};
    /* 23x700: threads done early take rows from others (sobel, convolve) */
    const int threads[] = {2, 3, 7}, sizes[][2] = {{97, 61}, {5, 3}, {1, 2}, {23, 700}};
    gi_context *one = ti_cpu_context(1), *many[3];
    for (int t = 0; t < 3; t++) many[t] = ti_cpu_context(threads[t]);
    for (int s = 0; s < 4; s++)
        for (int ch = 1; ch <= 4; ch++) {
            gi_image src = r16_random(sizes[s][0], sizes[s][1], ch, 0);
            for (int op = 0; op < 5; op++) {
                gi_image want = run16(one, &src, op);
                for (int t = 0; t < 3; t++) {
                    char why[96];
                    gi_image got = run16(many[t], &src, op);
                    th_check(r16_same(&got, &want, why, sizeof why),
                             "%s 16-bit %dx%dx%d: %d threads differ from 1: %s", names[op],
                             sizes[s][0], sizes[s][1], ch, threads[t], why);
                    r16_free(&got);
                }
                r16_free(&want);
            }
            r16_free(&src);
        }
    gi_context_destroy(one);
    for (int t = 0; t < 3; t++) gi_context_destroy(many[t]);
}
