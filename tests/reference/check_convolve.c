/* Convolve against two float64 evaluations of the direct sum (ref_convolve):
 *
 *   exact      with the real mask values (divided by their sum for
 *              normalize): every byte within 0.5 + the quantization error
 *              of the clamped exact value. That error, sum|q - m 2^S| * 255
 *              / 2^S, stays under 0.5 for these masks, so every byte is
 *              within 1 of round(clamp(exact)), and a floor instead of a
 *              round would show.
 *   quantized  with gi_convolve_quantize's q and S: the bytes gpuimg.h
 *              defines, clamp(floor((sum q v + 2^(S-1)) / 2^S)), exactly.
 *
 * The masks: 1x1, a 3x3 sharpen (negative weights), 5x5 ones normalized,
 * 31x31 random normalized (larger than every test image), a 1x7 row, a 7x1
 * column normalized, and a 5x3 of fractions not normalized. */
#include "checks.h"
#include "ref_ops.h"
#include "../harness.h"
#include "../testimg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NMASKS 7
#define MAX_TAPS (GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE)

typedef struct {
    const char *name;
    gi_convolve_params p;
    double m[MAX_TAPS];    /* what p.mask points at */
    double real[MAX_TAPS]; /* the values the filter means: m, or m / sum(m) */
} test_mask;

static void fill_random(test_mask *t, double lo, double hi)
{
    for (int k = 0; k < t->p.width * t->p.height; k++) t->m[k] = th_rand_double(lo, hi);
}

static void make_mask(int v, test_mask *t)
{
    static const double sharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
    static const double fractions[15] = {0.125, -0.3,  0.7,  0.05, -0.2,  1.3,  -0.45, 0.9,
                                         0.33,  0.01, -0.61, 0.2,  0.475, -0.1, 0.02};
    static const struct { const char *name; int w, h, normalize; } shapes[NMASKS] = {
        {"1x1", 1, 1, 0},          {"sharpen 3x3", 3, 3, 0},  {"ones 5x5 normalized", 5, 5, 1},
        {"random 31x31 normalized", 31, 31, 1}, {"random 1x7", 7, 1, 0},
        {"random 7x1 normalized", 1, 7, 1},     {"fractions 5x3", 5, 3, 0},
    };
    t->name = shapes[v].name;
    t->p = (gi_convolve_params){shapes[v].w, shapes[v].h, t->m, shapes[v].normalize,
                                {GI_BORDER_MIRROR, 0}};
    int n = t->p.width * t->p.height;
    switch (v) {
    case 0: fill_random(t, -0.5, 2.0); break;
    case 1: for (int k = 0; k < n; k++) t->m[k] = sharpen[k]; break;
    case 2: for (int k = 0; k < n; k++) t->m[k] = 1; break;
    case 3: fill_random(t, -0.5, 1.0); break; /* the sum is far from 0 */
    case 4: fill_random(t, -1.0, 1.0); break;
    case 5: fill_random(t, 0.1, 1.0); break;
    default: for (int k = 0; k < n; k++) t->m[k] = fractions[k]; break;
    }
    double sum = 0;
    for (int k = 0; k < n; k++) sum += t->m[k];
    for (int k = 0; k < n; k++) t->real[k] = t->p.normalize ? t->m[k] / sum : t->m[k];
}

static double clamp255(double v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* Counts the samples of dst off either evaluation; describes the first. */
static long compare(const gi_image *dst, const double *exact, const double *qsum, int shift,
                    double tolerance, char *why, size_t size)
{
    int ch = dst->channels;
    long bad = 0;
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++)
            for (int c = 0; c < ch; c++) {
                size_t k = ((size_t)y * dst->width + x) * ch + c;
                int got = ti_px(dst, x, y)[c];
                double want = clamp255(floor((qsum[k] + ldexp(1, shift - 1)) / ldexp(1, shift)));
                double e = clamp255(exact[k]);
                if (got == want && fabs(got - e) <= tolerance) continue;
                if (bad++ == 0)
                    snprintf(why, size, "first (%d,%d) channel %d: got %d, fixed point %g, "
                             "exact %.4f", x, y, c, got, want, e);
            }
    return bad;
}

static void convolve_case(gi_context *ctx, int w, int h, int ch, const test_mask *t)
{
    char label[48], why[128] = "";
    gi_convolve_weights q;
    double qmask[MAX_TAPS], error = 0;
    int n = t->p.width * t->p.height;
    double *exact = malloc((size_t)w * h * ch * sizeof *exact);
    double *qsum = malloc((size_t)w * h * ch * sizeof *qsum);
    gi_image src = ti_random(w, h, ch), dst = ti_blank(w, h, ch);
    ref_border_label(t->p.border, label, sizeof label);
    gi_status st = gi_convolve(ctx, &src, &dst, &t->p);
    if (th_check(st == GI_OK, "convolve %s %dx%dx%d %s: %s", t->name, w, h, ch, label,
                 gi_last_error()) &&
        th_check(gi_convolve_quantize(&t->p, &q) == GI_OK, "quantize %s: %s", t->name,
                 gi_last_error())) {
        for (int k = 0; k < n; k++) {
            qmask[k] = q.q[k];
            error += fabs(q.q[k] - ldexp(t->real[k], q.shift)) * 255 / ldexp(1, q.shift);
        }
        th_check(error < 0.5, "%s: quantization error %g with S = %d", t->name, error, q.shift);
        ref_convolve(&src, t->real, t->p.width, t->p.height, t->p.border, exact);
        ref_convolve(&src, qmask, t->p.width, t->p.height, t->p.border, qsum);
        long bad = compare(&dst, exact, qsum, q.shift, 0.5 + error + 1e-9, why, sizeof why);
        th_check(bad == 0, "convolve %s %dx%dx%d %s (S = %d): %ld samples off; %s", t->name, w,
                 h, ch, label, q.shift, bad, why);
        th_check(ti_padding_intact(&dst), "convolve %s %dx%dx%d %s: wrote into the row padding",
                 t->name, w, h, ch, label);
    }
    ti_free(&src);
    ti_free(&dst);
    free(exact);
    free(qsum);
}

void check_convolve(gi_context *ctx)
{
    static test_mask t; /* 15 KB of doubles: off the stack */
    for (int v = 0; v < NMASKS; v++) {
        make_mask(v, &t);
        for (int s = 0; s < REF_NSIZES; s++)
            for (int b = 0; b < REF_NBORDERS; b++)
                for (int ch = 1; ch <= 4; ch++) {
                    t.p.border = ref_border(b);
                    convolve_case(ctx, ref_sizes[s][0], ref_sizes[s][1], ch, &t);
                }
    }
}
