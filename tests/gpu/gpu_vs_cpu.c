/* gpu_vs_cpu: every operation on the CUDA backend gives the CPU backend's
 * bytes, for every border mode, channel count and awkward size.
 *
 * Each GPU run writes into a destination poisoned first with 0xA5 and then
 * with 0x5A, so a pixel the kernel forgets shows up as a difference. Sizes
 * include 1x1, single rows and columns, primes and sizes off the tile grid;
 * blur radii and convolution masks include ones larger than the image, and
 * blur radii ones that take the two-pass path. Exits 77 (skip) without a
 * GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "steps_check.h"
#include "testimg.h"

#define LARGE 8192

static gi_context *cpu, *gpu;
/* GPUIMG_TEST_SMALL=1: one variant per size, channels and border instead
 * of all, and no 8192x8192 cases, so the sanitizers finish in minutes. */
static int small;

static const int sizes[][2] = {
    {1, 1},   {1, 7},  {7, 1},   {1, 61},  {61, 1},   {2, 2},   {3, 5},   {13, 17},
    {31, 33}, {32, 32}, {33, 31}, {64, 16}, {97, 61}, {127, 131}, {257, 3}, {3, 257},
};
#define N_SIZES (int)(sizeof sizes / sizeof sizes[0])

/* ------------------------------------------------------------- contents */

typedef enum { FILL_RANDOM, FILL_CONSTANT, FILL_EXTREME } fill_kind;

static gi_image make_source(int w, int h, int ch, fill_kind kind)
{
    gi_image img = ti_random(w, h, ch);
    int value = th_rand_int(0, 3) == 0 ? 255 * th_rand_int(0, 1) : th_rand_int(0, 255);
    for (int y = 0; y < h && kind != FILL_RANDOM; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++)
                ti_px(&img, x, y)[c] = (uint8_t)(kind == FILL_CONSTANT ? value : 255 * (int)(th_rand64() & 1));
    return img;
}

static fill_kind random_fill(void)
{
    int r = th_rand_int(0, 5);
    return r == 0 ? FILL_CONSTANT : r == 1 ? FILL_EXTREME : FILL_RANDOM;
}

static gi_border random_border(gi_border_mode mode)
{
    gi_border b = {mode, (uint8_t)(th_rand_int(0, 2) == 0 ? 0 : th_rand_int(1, 255))};
    return b;
}

/* ------------------------------------------------------------- compare */

typedef gi_status (*image_op)(gi_context *ctx, const gi_image *src, gi_image *dst,
                              const void *params);

static void poison(gi_image *img, uint8_t byte)
{
    for (int y = 0; y < img->height; y++)
        memset(ti_px(img, 0, y), byte, (size_t)img->width * img->channels);
}

/* Runs op on both backends and compares; `what` names the case. */
static void compare(const char *what, const gi_image *src, int w, int h, int ch, image_op op,
                    const void *params)
{
    gi_image want = ti_blank(w, h, ch), got = ti_blank(w, h, ch);
    char why[160];
    gi_status st = op(cpu, src, &want, params);
    if (th_check(st == GI_OK, "%s: cpu: %s", what, gi_last_error())) {
        static const uint8_t poisons[] = {0xA5, 0x5A};
        for (int k = 0; k < 2; k++) {
            poison(&got, poisons[k]);
            st = op(gpu, src, &got, params);
            if (!th_check(st == GI_OK, "%s: cuda: %s", what, gi_last_error())) break;
            if (!th_check(ti_same(&want, &got, why, sizeof why), "%s (poison %#x): %s", what,
                          poisons[k], why))
                break;
            th_check(ti_padding_intact(&got), "%s: wrote outside the pixels", what);
        }
    }
    ti_free(&want);
    ti_free(&got);
}

/* ------------------------------------------------------------- blur */

static gi_status run_blur(gi_context *ctx, const gi_image *src, gi_image *dst, const void *p)
{
    return gi_blur(ctx, src, dst, p);
}

static void blur_case(const gi_image *src, gi_blur_kernel kernel, int radius, gi_border border)
{
    gi_blur_params p;
    char what[160];
    gi_blur_params_default(&p);
    p.kernel = kernel;
    p.radius = radius;
    p.sigma = th_rand_double(0.3, radius / 2.0 + 0.5);
    p.border = border;
    snprintf(what, sizeof what, "blur %s r=%d sigma=%.3f %dx%dx%d %s/%d",
             kernel == GI_BLUR_BOX ? "box" : "gaussian", radius, p.sigma, src->width,
             src->height, src->channels, gi_border_name(border.mode), border.value);
    compare(what, src, src->width, src->height, src->channels, run_blur, &p);
}

/* A radius on the fused path, one on the two-pass path (> 16), and one
 * larger than the image (capped at GI_BLUR_MAX_RADIUS). */
static int pick_radius(int which, int w, int h)
{
    int beyond = (w > h ? w : h) + th_rand_int(1, 40);
    switch (which) {
    case 0: return th_rand_int(0, 16);
    case 1: return th_rand_int(17, 48);
    default: return beyond > GI_BLUR_MAX_RADIUS ? GI_BLUR_MAX_RADIUS : beyond;
    }
}

/* Each radius of the generic kernel (1..8) on images with alpha, whose
 * column pass takes one channel at a time from planar rows: several tiles,
 * the last ones partial, every border mode in turn. */
static void test_blur_alpha_radii(void)
{
    for (int ch = 2; ch <= 4; ch += 2)
        for (int radius = 1; radius <= 8; radius++) {
            gi_image src = make_source(97, 131, ch, radius % 4 == 0 ? FILL_EXTREME : FILL_RANDOM);
            blur_case(&src, GI_BLUR_GAUSSIAN, radius,
                      random_border((gi_border_mode)(GI_BORDER_ZERO + radius % (GI_BORDER_WRAP + 1))));
            ti_free(&src);
        }
}

static void test_blur(void)
{
    for (int s = 0; s < N_SIZES; s++)
        for (int ch = 1; ch <= 4; ch++)
            for (int mode = GI_BORDER_ZERO; mode <= GI_BORDER_WRAP; mode++) {
                gi_image src = make_source(sizes[s][0], sizes[s][1], ch, random_fill());
                for (int which = 0; which < 3; which++)
                    if (!small || which == (s + ch + mode) % 3)
                        blur_case(&src, th_rand_int(0, 1) ? GI_BLUR_BOX : GI_BLUR_GAUSSIAN,
                              pick_radius(which, src.width, src.height), random_border(mode));
                ti_free(&src);
            }
    /* the widest radius the API allows, on a small image */
    gi_image src = make_source(45, 38, 4, FILL_RANDOM);
    blur_case(&src, GI_BLUR_GAUSSIAN, GI_BLUR_MAX_RADIUS, random_border(GI_BORDER_REFLECT));
    blur_case(&src, GI_BLUR_BOX, GI_BLUR_MAX_RADIUS, random_border(GI_BORDER_ZERO));
    ti_free(&src);
}

/* ------------------------------------------------------------- sobel */

static gi_status run_sobel(gi_context *ctx, const gi_image *src, gi_image *dst, const void *p)
{
    return gi_sobel(ctx, src, dst, p);
}

static void sobel_case(const gi_image *src, const gi_sobel_params *p)
{
    char what[160];
    int w, h, ch;
    gi_sobel_size(src, p, &w, &h, &ch);
    snprintf(what, sizeof what, "sobel %s scale=%.17g threshold=%.17g gray=%d %dx%dx%d %s/%d",
             p->use_threshold ? "threshold" : "magnitude", p->scale, p->threshold, p->gray,
             src->width, src->height, src->channels, gi_border_name(p->border.mode),
             p->border.value);
    compare(what, src, w, h, ch, run_sobel, p);
}

static void test_sobel(void)
{
    static const double scales[] = {1.0, 0.5, 0.25, 2.0, 0.125};
    for (int s = 0; s < N_SIZES; s++)
        for (int ch = 1; ch <= 4; ch++)
            for (int mode = GI_BORDER_ZERO; mode <= GI_BORDER_WRAP; mode++) {
                gi_image src = make_source(sizes[s][0], sizes[s][1], ch, random_fill());
                for (int variant = 0; variant < 4; variant++) {
                    if (small && variant != (s + ch + mode) % 4) continue;
                    gi_sobel_params p;
                    gi_sobel_params_default(&p);
                    p.border = random_border(mode);
                    p.gray = variant & 1;
                    /* exact binary scales hit the .5 rounding ties; others are arbitrary */
                    p.scale = th_rand_int(0, 1) ? scales[th_rand_int(0, 4)] : th_rand_double(0, 4);
                    p.use_threshold = variant >= 2;
                    p.threshold = th_rand_int(0, 1) ? th_rand_int(0, 400) : th_rand_double(0, 400);
                    sobel_case(&src, &p);
                }
                ti_free(&src);
            }
}

/* ------------------------------------------------------------- transforms */

static gi_status run_transform(gi_context *ctx, const gi_image *src, gi_image *dst, const void *p)
{
    return gi_transform_image(ctx, src, dst, *(const gi_transform *)p);
}

static void transform_case(const gi_image *src, gi_transform t)
{
    static const char *const names[] = {"transpose", "rotate90", "rotate180",
                                        "rotate270", "flip_h",   "flip_v"};
    char what[160];
    int w, h;
    gi_transform_size(src, t, &w, &h);
    snprintf(what, sizeof what, "%s %dx%dx%d", names[t], src->width, src->height, src->channels);
    compare(what, src, w, h, src->channels, run_transform, &t);
}

static void test_transform(void)
{
    for (int s = 0; s < N_SIZES; s++)
        for (int ch = 1; ch <= 4; ch++) {
            gi_image src = make_source(sizes[s][0], sizes[s][1], ch, random_fill());
            for (int t = GI_TRANSPOSE; t <= GI_FLIP_V; t++) transform_case(&src, t);
            ti_free(&src);
        }
}

/* ------------------------------------------------------------- hist */

static void hist_case(const gi_image *src, int bins)
{
    static gi_histogram want, got; /* 2 MiB each: not on the stack */
    gi_status st = gi_hist(cpu, src, bins, &want);
    if (!th_check(st == GI_OK, "hist cpu: %s", gi_last_error())) return;
    memset(&got, 0xA5, sizeof got);
    st = gi_hist(gpu, src, bins, &got);
    if (!th_check(st == GI_OK, "hist cuda: %s", gi_last_error())) return;
    th_check(memcmp(&want, &got, sizeof want) == 0, "hist bins=%d %dx%dx%d differs", bins,
             src->width, src->height, src->channels);
}

static void test_hist(void)
{
    static const int bins[] = {1, 2, 7, 16, 100, 255, 256};
    for (int s = 0; s < N_SIZES; s++)
        for (int ch = 1; ch <= 4; ch++) {
            gi_image src = make_source(sizes[s][0], sizes[s][1], ch, random_fill());
            for (size_t b = 0; b < sizeof bins / sizeof bins[0]; b++) hist_case(&src, bins[b]);
            ti_free(&src);
        }
    /* flat images: every sample on one counter */
    gi_image flat = make_source(1000, 999, 3, FILL_CONSTANT);
    hist_case(&flat, 256);
    ti_free(&flat);
}

/* ------------------------------------------------------------- convolve */

static gi_status run_convolve(gi_context *ctx, const gi_image *src, gi_image *dst, const void *p)
{
    return gi_convolve(ctx, src, dst, p);
}

static void convolve_case(const gi_image *src, const gi_convolve_params *p, const char *kind)
{
    char what[160];
    gi_convolve_weights q;
    if (!th_check(gi_convolve_quantize(p, &q) == GI_OK, "convolve %s: %s", kind, gi_last_error()))
        return;
    snprintf(what, sizeof what, "convolve %s %dx%d%s shift=%d %dx%dx%d %s/%d", kind, p->width,
             p->height, p->normalize ? " normalized" : "", q.shift, src->width, src->height,
             src->channels, gi_border_name(p->border.mode), p->border.value);
    compare(what, src, src->width, src->height, src->channels, run_convolve, p);
}

static double mask_values[GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE];

/* A w x h mask in mask_values: weights in [-range, range] (in [0, range]
 * when positive), whole numbers half the time so roundings hit exact
 * halves. A normalized mask is moved away from a zero sum. */
static gi_convolve_params random_mask(int w, int h, double range, int positive, int normalize,
                                      gi_border border)
{
    const int whole = th_rand_int(0, 1);
    const double lo = positive ? 0 : -range;
    double sum = 0;
    for (int i = 0; i < w * h; i++) {
        mask_values[i] = whole ? th_rand_int((int)lo, (int)range) : th_rand_double(lo, range);
        sum += mask_values[i];
    }
    if (normalize && fabs(sum) < 0.5) mask_values[w * h / 2] += 1 - sum;
    return (gi_convolve_params){w, h, mask_values, normalize, border};
}

static int odd_between(int lo, int hi)
{
    return th_rand_int(lo / 2, (hi - 1) / 2) * 2 + 1;
}

/* Three kinds of mask: a small one of mixed signs (the widths the kernel
 * specializes, 1 to 7), a wider positive one (the general path), and one
 * larger than the small images. */
static void convolve_variant(const gi_image *src, int which, gi_border border)
{
    gi_convolve_params p;
    switch (which) {
    case 0:
        p = random_mask(odd_between(1, 7), odd_between(1, 7), 4, 0, th_rand_int(0, 1), border);
        convolve_case(src, &p, "small");
        break;
    case 1:
        p = random_mask(odd_between(9, 15), odd_between(1, 15), 10, 1, 1, border);
        convolve_case(src, &p, "wide");
        break;
    default:
        p = random_mask(odd_between(17, 31), odd_between(17, 31), 2, 0, th_rand_int(0, 1), border);
        convolve_case(src, &p, "large");
    }
}

/* Masks at the edges of the fixed point: identity, negation, shift 0 with
 * saturation and with mixed signs, 31x31, 1x31 and 31x1, the bench's box. */
static void convolve_special(const gi_image *src, gi_border border)
{
    static const double identity = 1, negate = -1, saturate = 4e6, fraction = 0.37;
    static const double big[9] = {4e5, -4e5, 3e5, -2e5, 1e5, 4e5, -3e5, 2e5, -1e5};
    static const double box5[25] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    const gi_convolve_params fixed[] = {
        {1, 1, &identity, 0, border}, {1, 1, &negate, 0, border}, {1, 1, &saturate, 0, border},
        {1, 1, &fraction, 0, border}, {3, 3, big, 0, border},      {5, 5, box5, 1, border},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) convolve_case(src, &fixed[i], "fixed");
    gi_convolve_params p = random_mask(31, 31, 3, 0, 0, border);
    convolve_case(src, &p, "31x31");
    p = random_mask(1, 31, 3, 1, 1, border);
    convolve_case(src, &p, "column");
    p = random_mask(31, 1, 3, 1, 1, border);
    convolve_case(src, &p, "row");
}

static void test_convolve(void)
{
    for (int s = 0; s < N_SIZES; s++)
        for (int ch = 1; ch <= 4; ch++)
            for (int mode = GI_BORDER_ZERO; mode <= GI_BORDER_WRAP; mode++) {
                gi_image src = make_source(sizes[s][0], sizes[s][1], ch, random_fill());
                for (int which = 0; which < 3; which++)
                    if (!small || which == (s + ch + mode) % 3)
                        convolve_variant(&src, which, random_border(mode));
                ti_free(&src);
            }
    for (int ch = 1; ch <= 4; ch++) {
        gi_image src = make_source(small ? 45 : 300, small ? 38 : 200, ch, FILL_RANDOM);
        convolve_special(&src, random_border((gi_border_mode)th_rand_int(0, 4)));
        ti_free(&src);
    }
}

/* ------------------------------------------------------------- chains */

typedef struct {
    const gi_op *steps;
    int n;
} chain_args;

static gi_status run_chain(gi_context *ctx, const gi_image *src, gi_image *dst, const void *p)
{
    const chain_args *a = p;
    return gi_apply(ctx, src, a->steps, a->n, dst, NULL);
}

/* Chains of 2-4 random steps: CUDA keeps the images between steps on the
 * device (one upload, one download) and must give the CPU's bytes, and its
 * own bytes step by step; chains ending in hist against CUDA step by step. */
static void test_chains(void)
{
    for (int t = 0; t < (small ? 40 : 200); t++) {
        const int *wh = sizes[t % N_SIZES];
        int n = th_rand_int(2, 4), ends_in_hist = th_rand_int(0, 3) == 0;
        gi_op steps[4];
        for (int i = 0; i < n; i++) steps[i] = sc_random_step(0);
        if (ends_in_hist) steps[n - 1] = (gi_op){.kind = GI_OP_HIST, .bins = th_rand_int(1, 256)};
        gi_image src = make_source(wh[0], wh[1], th_rand_int(1, 4), random_fill());
        char what[96];
        snprintf(what, sizeof what, "chain %d (%d steps) on %dx%dx%d", t, n, src.width,
                 src.height, src.channels);
        sc_check_chain(gpu, what, &src, steps, n);
        int w, h, ch;
        chain_args a = {steps, n};
        if (!ends_in_hist && gi_apply_size(&src, steps, n, &w, &h, &ch) == GI_OK)
            compare(what, &src, w, h, ch, run_chain, &a);
        ti_free(&src);
    }
}

/* ------------------------------------------------------------- large */

static void test_large(void)
{
    gi_image src = make_source(LARGE, LARGE, 4, FILL_RANDOM);
    blur_case(&src, GI_BLUR_GAUSSIAN, 6, random_border(GI_BORDER_MIRROR));
    gi_sobel_params p;
    gi_sobel_params_default(&p);
    p.scale = 0.5;
    sobel_case(&src, &p);
    transform_case(&src, (gi_transform)th_rand_int(GI_TRANSPOSE, GI_FLIP_V));
    hist_case(&src, 256);
    gi_convolve_params c = random_mask(5, 5, 4, 0, 0, random_border(GI_BORDER_MIRROR));
    convolve_case(&src, &c, "large image");
    ti_free(&src);
}

/* ------------------------------------------------------------- devices */

/* Device allocations that fail (GPUIMG_TEST_FAIL_DEVICE_ALLOC=1, which the
 * library reads once: this runs in a process of its own, `gpu_vs_cpu
 * alloc-failure`) are GI_ERR_NO_MEMORY on a CUDA context and a quiet rerun
 * on the CPU under AUTO. AUTO is told of a long batch, so that its plan
 * sends the image to the GPU. */
static void test_alloc_failure(void)
{
    gi_context_options opts;
    gi_context *cuda = NULL, *autoctx = NULL;
    gi_image src = make_source(1024, 1024, 3, FILL_RANDOM);
    gi_image want = ti_blank(1024, 1024, 3), got = ti_blank(1024, 1024, 3);
    gi_blur_params p;
    char why[160];
    gi_blur_params_default(&p);
    gi_context_options_default(&opts);
    opts.device = GI_DEVICE_CUDA;
    if (th_check(gi_context_create(&cuda, &opts) == GI_OK, "cuda context: %s", gi_last_error())) {
        gi_status st = gi_blur(cuda, &src, &got, &p);
        th_check(st == GI_ERR_NO_MEMORY && strstr(gi_last_error(), "out of device memory"),
                 "failed allocation: status %d, \"%s\"", (int)st, gi_last_error());
    }
    opts.device = GI_DEVICE_AUTO;
    gi_op blur = {.kind = GI_OP_BLUR, .blur = p};
    gi_plan_hint hint = {.images = 1000, .steps = &blur, .n_steps = 1, .width = 1024,
                         .height = 1024, .channels = 3, .pipelined = 1};
    if (th_check(gi_context_create(&autoctx, &opts) == GI_OK, "auto context: %s", gi_last_error()) &&
        th_check(gi_context_plan_hint(autoctx, &hint) == GI_OK &&
                     strcmp(gi_context_backend(autoctx), "cuda") == 0,
                 "auto context told of 1000 images settled on %s", gi_context_backend(autoctx))) {
        th_check(gi_blur(cpu, &src, &want, &p) == GI_OK, "cpu blur: %s", gi_last_error());
        th_check(gi_blur(autoctx, &src, &got, &p) == GI_OK, "auto blur: %s", gi_last_error());
        th_check(ti_same(&want, &got, why, sizeof why), "auto fallback result: %s", why);
        th_check(strstr(gi_context_last_fallback(autoctx), "out of device memory") != NULL,
                 "auto fallback reason: \"%s\"", gi_context_last_fallback(autoctx));
    }
    gi_context_destroy(cuda);
    gi_context_destroy(autoctx);
    ti_free(&src);
    ti_free(&want);
    ti_free(&got);
}

static void test_device_info(int measure)
{
    gi_device_info info;
    gi_status st = gi_cuda_device_info(0, measure, &info);
    if (!th_check(st == GI_OK, "device info: %s", gi_last_error())) return;
    printf("device 0: %s, sm_%d%d, %d SMs", info.name, info.cc_major, info.cc_minor,
           info.multiprocessors);
    if (measure) printf(", copy %.0f GB/s", info.copy_gbytes_per_s);
    printf("\n");
    th_check(info.name[0] && info.multiprocessors > 0 && info.total_memory > 0,
             "device info is empty");
    th_check(!measure || info.copy_gbytes_per_s > 0, "bandwidth not measured");
}

int main(int argc, char **argv)
{
    const char *why;
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    if (argc > 1 && strcmp(argv[1], "alloc-failure") == 0) {
        cpu = ti_cpu_context(0);
        th_seed();
        test_alloc_failure();
        gi_context_destroy(cpu);
        return th_finish();
    }
    const char *small_env = getenv("GPUIMG_TEST_SMALL");
    small = small_env && strcmp(small_env, "1") == 0;
    gi_context_options opts;
    gi_context_options_default(&opts);
    opts.device = GI_DEVICE_CUDA;
    if (gi_context_create(&gpu, &opts) != GI_OK) {
        fprintf(stderr, "cannot create a CUDA context: %s\n", gi_last_error());
        return 1;
    }
    cpu = ti_cpu_context(0);
    th_seed();
    fflush(stdout);

    test_device_info(!small);
    test_blur();
    test_blur_alpha_radii();
    test_sobel();
    test_transform();
    test_hist();
    test_convolve();
    test_chains();
    if (!small) test_large();

    gi_context_destroy(gpu);
    gi_context_destroy(cpu);
    return th_finish();
}
