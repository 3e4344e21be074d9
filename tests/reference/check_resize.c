/* Resize and crop against float64 references of gpuimg.h's definitions.
 *
 * The weights first: an independent evaluation of each filter and of the
 * footprint gives every output position's taps, and the library's integer
 * weights must be gpuimg.h's largest-remainder quantization of those real
 * weights (check_axis) and sum to exactly GI_RESIZE_WEIGHT_SUM; a white
 * pixel reduced past 1000:1 must come out near 255 times its real weight
 * (check_impulses). Then the pixels:
 * with those integer weights, the separable sum in float64 without the
 * intermediate rounding; gray and RGB samples must be within 0.5 + 1/64
 * of it (the rows' rounding adds at most 1/512 per unit of the columns'
 * weights' magnitude), alpha and premultiplied colour (whose sums are kept
 * whole) within 0.5, colour where the result's alpha is not 0. Crop
 * against the rectangle copied by hand. */
#include "checks.h"
#include "../harness.h"
#include "../testimg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const filter_names[] = {"lanczos3", "lanczos2", "cubic",
                                           "linear",   "area",     "nearest"};

/* ---------------------------------------------------------------- weights */

static double ref_sinc(double t)
{
    return t == 0 ? 1 : sin(M_PI * t) / (M_PI * t);
}

/* The filter at distance d (input samples) with the footprint widened by f. */
static double ref_weight(gi_resize_filter filter, int i, double c, double f)
{
    const double d = i + 0.5 - c, t = fabs(d / f);
    switch (filter) {
    case GI_RESIZE_LANCZOS3: return t < 3 ? ref_sinc(d / f) * ref_sinc(d / f / 3) : 0;
    case GI_RESIZE_LANCZOS2: return t < 2 ? ref_sinc(d / f) * ref_sinc(d / f / 2) : 0;
    case GI_RESIZE_CUBIC:
        return t < 1 ? 1.5 * t * t * t - 2.5 * t * t + 1
               : t < 2 ? -0.5 * t * t * t + 2.5 * t * t - 4 * t + 2
                       : 0;
    case GI_RESIZE_LINEAR: return t < 1 ? 1 - t : 0;
    case GI_RESIZE_AREA: {
        const double lo = fmax(i, c - f / 2), hi = fmin(i + 1, c + f / 2);
        return hi > lo ? hi - lo : 0;
    }
    case GI_RESIZE_NEAREST: break; /* one tap: check_axis picks it */
    }
    return 0;
}

/* 2 n_out |i + 0.5 - c| for output x: tap i's distance from the centre,
 * exactly. */
static int64_t twice_distance(const gi_resize_axis *a, int x, int i)
{
    const int64_t d = (2 * (int64_t)i + 1) * a->n_out - (2 * (int64_t)x + 1) * a->n_in;
    return d < 0 ? -d : d;
}

/* Whether tap i comes before tap j among equal fractions: nearer the
 * centre, then the lower index. */
static int tie_first(const gi_resize_axis *a, int x, int i, int j)
{
    const int64_t di = twice_distance(a, x, i), dj = twice_distance(a, x, j);
    return di != dj ? di < dj : i < j;
}

/* Checks one axis's integer weights against the real ones, v = 2^14 w /
 * sum w in float64: every q is v's floor or its ceiling (within 1 of v,
 * EPS for the two evaluations' rounding); the ceilings go to the largest
 * fractions v - floor(v), and among fractions within EPS of the least one
 * rounded up, to the taps nearest the centre, then the lower index; the
 * q sum to 2^14. */
#define EPS 1e-9
static void check_axis(const gi_resize_axis *a, gi_resize_filter filter)
{
    const double scale_in = (double)a->n_in / a->n_out, f = scale_in > 1 ? scale_in : 1;
    long bad = 0;
    char why[200] = "";
    for (int x = 0; x < a->n_out; x++) {
        const double c = (x + 0.5) * scale_in;
        const int nearest = (int)floor(c) < a->n_in ? (int)floor(c) : a->n_in - 1;
        double sum = 0;
        long qsum = 0;
        for (int i = 0; i < a->n_in; i++) {
            double w = filter == GI_RESIZE_NEAREST ? i == nearest : ref_weight(filter, i, c, f);
            int inside = i >= a->first[x] && i < a->first[x] + a->count[x];
            if (!inside && w != 0 && bad++ == 0)
                snprintf(why, sizeof why, "%d -> %d, x %d: input %d (weight %g) left out",
                         a->n_in, a->n_out, x, i, w);
            sum += w;
        }
        /* the least fraction rounded up, the greatest rounded down, and
         * the last in the tie order among the first's equals rounded up */
        double least_up = 2, most_down = -1;
        for (int k = 0; k < a->count[x]; k++) {
            const int i = a->first[x] + k;
            const int32_t q = a->q[(size_t)x * a->taps + k];
            qsum += q;
            double w = filter == GI_RESIZE_NEAREST ? i == nearest : ref_weight(filter, i, c, f);
            const double v = GI_RESIZE_WEIGHT_SUM * w / sum;
            if (fabs(q - v) >= 1 + EPS && bad++ == 0)
                snprintf(why, sizeof why, "%d -> %d, x %d, input %d: q %d, exact %.6f",
                         a->n_in, a->n_out, x, i, q, v);
            if (q > v + EPS && v - (q - 1) < least_up) least_up = v - (q - 1);
            if (q < v - EPS && v - q > most_down) most_down = v - q;
        }
        if (least_up < most_down - EPS && bad++ == 0)
            snprintf(why, sizeof why, "%d -> %d, x %d: a fraction %.9f rounded up, %.9f down",
                     a->n_in, a->n_out, x, least_up, most_down);
        int last_up = -1, first_down = -1; /* in the tie order, near least_up */
        for (int k = 0; k < a->count[x]; k++) {
            const int i = a->first[x] + k;
            const int32_t q = a->q[(size_t)x * a->taps + k];
            double w = filter == GI_RESIZE_NEAREST ? i == nearest : ref_weight(filter, i, c, f);
            const double v = GI_RESIZE_WEIGHT_SUM * w / sum;
            if (q > v + EPS && fabs(v - (q - 1) - least_up) < EPS &&
                (last_up < 0 || tie_first(a, x, last_up, i)))
                last_up = i;
            if (q < v - EPS && fabs(v - q - least_up) < EPS &&
                (first_down < 0 || tie_first(a, x, i, first_down)))
                first_down = i;
        }
        if (last_up >= 0 && first_down >= 0 && tie_first(a, x, first_down, last_up) && bad++ == 0)
            snprintf(why, sizeof why, "%d -> %d, x %d: of equal fractions, input %d rounded "
                     "down before %d up", a->n_in, a->n_out, x, first_down, last_up);
        if (qsum != GI_RESIZE_WEIGHT_SUM && bad++ == 0)
            snprintf(why, sizeof why, "%d -> %d, x %d: weights sum to %ld", a->n_in, a->n_out, x,
                     qsum);
    }
    th_check(bad == 0, "resize weights %s: %ld bad; first: %s", filter_names[filter], bad, why);
}

/* Axes of every kind: to and from 1, primes, 100:1, the reductions past
 * 1000:1 where thousands of taps share 2^14 (2000:1 gives each 8.192 of a
 * box, 65536:1 each 0.25, the most taps a position has: the sides are
 * 1..65536), and enlargements up to the longest side. */
static void check_weights(void)
{
    static const int pairs[][2] = {{1, 1},        {1, 7},       {7, 1},       {10, 3},
                                   {3, 10},       {17, 5},      {100, 1},     {301, 3},
                                   {29, 31},      {31, 29},     {8, 16},      {1000, 10},
                                   {5, 13},       {64, 64},     {1000, 1},    {3001, 3},
                                   {2000, 1},     {20000, 10},  {4001, 2},    {10007, 3},
                                   {65536, 1},    {65535, 3},   {65521, 2},   {2, 1000},
                                   {7, 4099},     {3, 65536},   {13, 65536},  {1, 65536}};
    for (int f = 0; f <= GI_RESIZE_NEAREST; f++)
        for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++) {
            gi_resize_axis a;
            gi_status st = gi_resize_axis_weights(pairs[p][0], pairs[p][1], (gi_resize_filter)f, &a);
            if (!th_check(st == GI_OK, "weights %d -> %d: %s", pairs[p][0], pairs[p][1],
                          gi_last_error()))
                continue;
            check_axis(&a, (gi_resize_filter)f);
            gi_resize_axis_free(&a);
        }
}

/* ---------------------------------------------------------------- pixels */

/* The separable sum in float64 with the library's integer weights. */
static void exact_resize(const gi_image *src, const gi_resize_axis *ax, const gi_resize_axis *ay,
                         double *out)
{
    const int ch = src->channels, alpha = ch == 2 || ch == 4 ? ch - 1 : -1;
    const int ow = ax->n_out, oh = ay->n_out;
    double *rows = calloc((size_t)src->height * ow * ch, sizeof *rows);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < ow; x++)
            for (int k = 0; k < ax->count[x]; k++) {
                const uint8_t *p = ti_px(src, ax->first[x] + k, y);
                const double w = ax->q[(size_t)x * ax->taps + k] / (double)GI_RESIZE_WEIGHT_SUM;
                for (int c = 0; c < ch; c++)
                    rows[((size_t)y * ow + x) * ch + c] +=
                        w * p[c] * (alpha >= 0 && c != alpha ? p[alpha] : 1);
            }
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            double v[4] = {0, 0, 0, 0};
            for (int k = 0; k < ay->count[y]; k++) {
                const double w = ay->q[(size_t)y * ay->taps + k] / (double)GI_RESIZE_WEIGHT_SUM;
                for (int c = 0; c < ch; c++)
                    v[c] += w * rows[((size_t)(ay->first[y] + k) * ow + x) * ch + c];
            }
            double *o = out + ((size_t)y * ow + x) * ch;
            for (int c = 0; c < ch; c++) {
                double e = v[c];
                if (alpha >= 0 && c != alpha) e = v[alpha] > 0 && v[c] > 0 ? v[c] / v[alpha] : 0;
                o[c] = e < 0 ? 0 : e > 255 ? 255 : e;
            }
        }
    free(rows);
}

/* gpuimg.h's integer definition, plainly: h in int64 (the int32 it is
 * defined in holds it), v in int64, then the finish; the library's bytes
 * must be these on every path (vector, scalar, each instruction set) and
 * device. */
static void integer_resize(const gi_image *src, const gi_resize_axis *ax,
                           const gi_resize_axis *ay, gi_image *out)
{
    const int ch = src->channels, alpha = ch == 2 || ch == 4 ? ch - 1 : -1;
    const int ow = ax->n_out, oh = ay->n_out;
    int64_t *rows = calloc((size_t)src->height * ow * ch, sizeof *rows);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < ow; x++)
            for (int c = 0; c < ch; c++) {
                int64_t sum = 0;
                for (int k = 0; k < ax->count[x]; k++) {
                    const uint8_t *p = ti_px(src, ax->first[x] + k, y);
                    const int64_t u = alpha >= 0 && c != alpha ? p[c] * p[alpha] : p[c];
                    sum += ax->q[(size_t)x * ax->taps + k] * u;
                }
                rows[((size_t)y * ow + x) * ch + c] = alpha >= 0 ? sum : (sum + 32) >> 6;
            }
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            int64_t v[4] = {0, 0, 0, 0};
            for (int k = 0; k < ay->count[y]; k++)
                for (int c = 0; c < ch; c++)
                    v[c] += ay->q[(size_t)y * ay->taps + k] *
                            rows[((size_t)(ay->first[y] + k) * ow + x) * ch + c];
            uint8_t *o = ti_px(out, x, y);
            for (int c = 0; c < ch; c++) {
                int64_t e;
                if (alpha < 0) e = (v[c] + (1 << 21)) >> 22;
                else if (c == alpha) e = (v[c] + (1 << 27)) >> 28;
                else e = v[alpha] <= 0 || v[c] <= 0 ? 0 : (v[c] + v[alpha] / 2) / v[alpha];
                o[c] = (uint8_t)(e < 0 ? 0 : e > 255 ? 255 : e);
            }
        }
    free(rows);
}

static double error_sum;
static long error_count;

static void resize_case(gi_context *ctx, const gi_image *src, gi_resize_params p)
{
    int w, h;
    gi_resize_size(src, &p, &w, &h);
    gi_image dst = ti_blank(w, h, src->channels);
    gi_status st = gi_resize(ctx, src, &dst, &p);
    char label[160];
    snprintf(label, sizeof label, "resize %s %dx%dx%d -> %dx%d", filter_names[p.filter],
             src->width, src->height, src->channels, w, h);
    if (th_check(st == GI_OK, "%s: %s", label, gi_last_error())) {
        gi_resize_axis ax, ay;
        gi_resize_axis_weights(src->width, w, p.filter, &ax);
        gi_resize_axis_weights(src->height, h, p.filter, &ay);
        double *exact = malloc(sizeof(double) * (size_t)w * h * src->channels);
        exact_resize(src, &ax, &ay, exact);
        const int ch = src->channels, alpha = ch == 2 || ch == 4 ? ch - 1 : -1;
        long bad = 0;
        char why[160] = "";
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int c = 0; c < ch; c++) {
                    const double e = exact[((size_t)y * w + x) * ch + c];
                    const int got = ti_px(&dst, x, y)[c];
                    const int colour = alpha >= 0 && c != alpha;
                    if (colour && ti_px(&dst, x, y)[alpha] == 0) continue;
                    const double tolerance = alpha >= 0 ? 0.5 : 0.5 + 1.0 / 64;
                    error_sum += got - e;
                    error_count++;
                    if (fabs(got - e) > tolerance + 1e-9 && bad++ == 0)
                        snprintf(why, sizeof why, "(%d,%d) channel %d: got %d, exact %.4f", x, y,
                                 c, got, e);
                }
        th_check(bad == 0, "%s: %ld samples off; first %s", label, bad, why);
        th_check(ti_padding_intact(&dst), "%s: wrote into the row padding", label);
        gi_image defined = ti_blank(w, h, ch);
        integer_resize(src, &ax, &ay, &defined);
        th_check(ti_same(&dst, &defined, why, sizeof why),
                 "%s: not gpuimg.h's integer definition: %s", label, why);
        ti_free(&defined);
        free(exact);
        gi_resize_axis_free(&ax);
        gi_resize_axis_free(&ay);
    }
    ti_free(&dst);
}

/* Resizes of a few geometries, channel counts and filters in a random
 * order on one context (a square among them, whose two axes are one),
 * whose recent axes (resize_axes.h) and the CPU's recent tables
 * (resize.c, made for an axis and a channel count) then serve some and
 * are pushed out by others: each result is still the definition's. */
static void check_recent_axes(gi_context *ctx)
{
    static const int geometries[][4] = {{31, 29, 10, 10}, {29, 31, 10, 10}, {31, 29, 9, 10},
                                        {64, 48, 21, 16}, {48, 64, 16, 21}, {24, 24, 10, 10}};
    gi_image src[6][4];
    for (int g = 0; g < 6; g++)
        for (int ch = 1; ch <= 4; ch++) src[g][ch - 1] = ti_random(geometries[g][0], geometries[g][1], ch);
    for (int i = 0; i < 120; i++) {
        const int g = th_rand_int(0, 5), ch = th_rand_int(1, 4);
        gi_resize_params p;
        gi_resize_params_default(&p);
        p.fit = GI_FIT_FILL;
        p.width = geometries[g][2];
        p.height = geometries[g][3];
        p.filter = (gi_resize_filter)th_rand_int(0, 2); /* lanczos3, lanczos2, cubic */
        resize_case(ctx, &src[g][ch - 1], p);
    }
    for (int g = 0; g < 6; g++)
        for (int ch = 0; ch < 4; ch++) ti_free(&src[g][ch]);
}

/* One white pixel in a black row of n, reduced to a row of n_out: each
 * output is 255 times that pixel's real weight, v / 2^14, which past
 * 1000:1 is far below 1/2. The output must be within the rounding of
 * gpuimg.h (0.5 + 1/64) and one unit of the weight (255 / 2^14 < 1/64) of
 * it: 2000 -> 1 with area is 255 / 2000 = 0.1275 and must give 0, where
 * a rule that piles the rounding's remainder on one tap gave 6 (and at
 * 65536:1, 255: one input pixel became the output). */
static void check_impulses(gi_context *ctx)
{
    static const int rows[][2] = {{2000, 1}, {3000, 3}, {4001, 2}, {65536, 1}};
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        const int n = rows[r][0], n_out = rows[r][1];
        const int at[] = {0, n / 2 - 1, n / 2, n - 1};
        for (int f = 0; f < GI_RESIZE_NEAREST; f++)
            for (size_t a = 0; a < sizeof at / sizeof *at; a++) {
                gi_image src = ti_blank(n, 1, 1), dst = ti_blank(n_out, 1, 1);
                for (int i = 0; i < n; i++) ti_px(&src, i, 0)[0] = i == at[a] ? 255 : 0;
                gi_resize_params p;
                gi_resize_params_default(&p);
                p.fit = GI_FIT_FILL;
                p.width = n_out;
                p.height = 1;
                p.filter = (gi_resize_filter)f;
                if (th_check(gi_resize(ctx, &src, &dst, &p) == GI_OK, "resize %d -> %d: %s", n,
                             n_out, gi_last_error()))
                    for (int x = 0; x < n_out; x++) {
                        const double scale_in = (double)n / n_out, c = (x + 0.5) * scale_in;
                        double sum = 0;
                        for (int i = 0; i < n; i++) sum += ref_weight(p.filter, i, c, scale_in);
                        const double exact = 255 * ref_weight(p.filter, at[a], c, scale_in) / sum;
                        const int got = ti_px(&dst, x, 0)[0];
                        th_check(fabs(got - exact) <= 0.5 + 2.0 / 64,
                                 "resize %s of a white pixel at %d of %d -> %d, x %d: %d, "
                                 "exact %.4f",
                                 filter_names[f], at[a], n, n_out, x, got, exact);
                    }
                ti_free(&src);
                ti_free(&dst);
            }
    }
}

/* Sizes: 1x1, a column, a row, primes, and long strips for 100:1. */
static const int sources[][2] = {{1, 1}, {1, 17}, {17, 1}, {31, 29}, {257, 3}, {503, 7}, {6, 400}};

void check_resize(gi_context *ctx)
{
    check_weights();
    check_impulses(ctx);
    check_recent_axes(ctx);
    static const double scales[] = {0.5, 1.0 / 3, 0.37, 2, 3, 1.7, 1};
    for (size_t s = 0; s < sizeof sources / sizeof *sources; s++)
        for (int ch = 1; ch <= 4; ch++) {
            gi_image src = ti_random(sources[s][0], sources[s][1], ch);
            for (int f = 0; f <= GI_RESIZE_NEAREST; f++) {
                gi_resize_params p;
                gi_resize_params_default(&p);
                p.filter = (gi_resize_filter)f;
                for (size_t k = 0; k < sizeof scales / sizeof *scales; k++) {
                    p.scale = scales[k];
                    resize_case(ctx, &src, p);
                }
                p.scale = 0;
                p.fit = GI_FIT_FILL; /* 100:1 where the source is long enough, and to 1x1 */
                p.width = src.width >= 100 ? src.width / 100 : 1;
                p.height = src.height >= 100 ? src.height / 100 : 1;
                resize_case(ctx, &src, p);
                p.width = th_rand_int(1, 40); /* a random stretch */
                p.height = th_rand_int(1, 40);
                resize_case(ctx, &src, p);
            }
            ti_free(&src);
        }
    th_check(error_count > 0 && fabs(error_sum / error_count) < 0.05,
             "resize: mean signed error %.4f over %ld samples (rounding should centre it)",
             error_count ? error_sum / error_count : 0, error_count);
}

/* gpuimg.h's size rules. */
void check_resize_size(gi_context *ctx)
{
    (void)ctx;
    const gi_image src = {.width = 400, .height = 300, .channels = 3};
    struct {
        gi_resize_params p;
        int w, h;
    } cases[] = {
        {{.scale = 0.5}, 200, 150},
        {{.scale = 0.001}, 1, 1},
        {{.width = 100}, 100, 75},
        {{.height = 100}, 133, 100},
        {{.width = 100, .height = 100}, 100, 75},
        {{.width = 100, .height = 100, .fit = GI_FIT_COVER}, 133, 100},
        {{.width = 100, .height = 100, .fit = GI_FIT_FILL}, 100, 100},
        {{.width = 1000, .height = 100}, 133, 100},
        {{.width = 3, .height = 1, .fit = GI_FIT_INSIDE}, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int w, h;
        gi_resize_size(&src, &cases[i].p, &w, &h);
        th_check(w == cases[i].w && h == cases[i].h, "resize size case %zu: %dx%d, want %dx%d",
                 i, w, h, cases[i].w, cases[i].h);
    }
}

/* ---------------------------------------------------------------- crop */

static void crop_case(gi_context *ctx, const gi_image *src, gi_crop_params p, int x0, int y0,
                      int w, int h)
{
    int gx, gy, gw, gh;
    gi_crop_rect(src, &p, &gx, &gy, &gw, &gh);
    th_check(gx == x0 && gy == y0 && gw == w && gh == h,
             "crop rect of %dx%d (%d,%d %dx%d centre %d): %d,%d %dx%d, want %d,%d %dx%d",
             src->width, src->height, p.x, p.y, p.width, p.height, p.centre, gx, gy, gw, gh, x0,
             y0, w, h);
    gi_image dst = ti_blank(w, h, src->channels), want = ti_blank(w, h, src->channels);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < src->channels; c++)
                ti_px(&want, x, y)[c] = ti_px(src, x0 + x, y0 + y)[c];
    gi_status st = gi_crop(ctx, src, &dst, &p);
    char why[96];
    if (th_check(st == GI_OK, "crop: %s", gi_last_error()))
        th_check(ti_same(&dst, &want, why, sizeof why) && ti_padding_intact(&dst), "crop %d,%d "
                 "%dx%d of %dx%d: %s", x0, y0, w, h, src->width, src->height, why);
    ti_free(&dst);
    ti_free(&want);
}

void check_crop(gi_context *ctx)
{
    for (int ch = 1; ch <= 4; ch++) {
        gi_image src = ti_random(31, 29, ch);
        crop_case(ctx, &src, (gi_crop_params){0}, 0, 0, 31, 29); /* what convert runs */
        crop_case(ctx, &src, (gi_crop_params){3, 4, 10, 5, 0}, 3, 4, 10, 5);
        crop_case(ctx, &src, (gi_crop_params){30, 28, 1, 1, 0}, 30, 28, 1, 1);
        crop_case(ctx, &src, (gi_crop_params){20, 10, 50, 0, 0}, 20, 10, 11, 19); /* cut */
        crop_case(ctx, &src, (gi_crop_params){0, 0, 10, 10, 1}, 10, 9, 10, 10);
        crop_case(ctx, &src, (gi_crop_params){0, 0, 100, 4, 1}, 0, 12, 31, 4);
        gi_image dst = ti_blank(1, 1, ch);
        gi_crop_params outside = {31, 0, 1, 1, 0};
        th_check(gi_crop(ctx, &src, &dst, &outside) == GI_ERR_INVALID_ARGUMENT,
                 "a crop starting outside the image must fail");
        ti_free(&dst);
        ti_free(&src);
    }
}
