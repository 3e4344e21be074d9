/* filter16_gpu: blur, sobel and convolve of 16-bit images, and chains of
 * them, on the CUDA backend give the CPU backend's samples, for every
 * border mode, channel count and awkward size, radii and masks past the
 * image, random samples with many 0 and 65535, constant images and
 * images all 65535. Each GPU run writes into a destination poisoned first
 * with 0xA5 and then with 0x5A bytes, so a sample the kernel forgets shows
 * up, and whose row padding must stay untouched. Chains keep their 16-bit
 * images between steps on the device. Exits 77 (skip) without a GPU;
 * GPUIMG_TEST_SMALL=1 (the sanitizers) runs one variant per case and no
 * large image. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference/ref16.h"
#include "testimg.h"

static gi_context *cpu, *gpu;
static int small;

static const int sizes[][2] = {
    {1, 1},   {1, 7},   {7, 1},   {1, 61},  {61, 1},    {2, 2},   {3, 5},   {13, 17},
    {31, 33}, {32, 32}, {33, 31}, {64, 16}, {97, 61}, {127, 131}, {257, 3}, {3, 257},
};
#define N_SIZES (int)(sizeof sizes / sizeof sizes[0])

/* A source: random (many 0 and 65535), constant, or all 65535. */
static gi_image make_source(int w, int h, int ch)
{
    const int kind = th_rand_int(0, 5);
    gi_image img = r16_random(w, h, ch, kind == 0);
    const uint16_t value = (uint16_t)th_rand_int(0, 65535);
    for (int y = 0; kind == 1 && y < h; y++)
        for (int x = 0; x < w * ch; x++) r16_px(&img, 0, y)[x] = value;
    return img;
}

static gi_border random_border(gi_border_mode mode)
{
    gi_border b = {mode, (uint8_t)(th_rand_int(0, 2) == 0 ? 0 : th_rand_int(1, 255))};
    return b;
}

typedef gi_status (*image_op)(gi_context *ctx, const gi_image *src, gi_image *dst,
                              const void *params);

static void poison(gi_image *img, uint8_t byte)
{
    for (int y = 0; y < img->height; y++)
        memset(img->data + (size_t)y * img->stride, byte, (size_t)img->width * img->channels * 2);
}

/* Runs op on both backends and compares; `what` names the case. */
static void compare(const char *what, const gi_image *src, int w, int h, int ch, image_op op,
                    const void *params)
{
    gi_image want = r16_blank(w, h, ch), got = r16_blank(w, h, ch);
    char why[160];
    gi_status st = op(cpu, src, &want, params);
    if (th_check(st == GI_OK, "%s: cpu: %s", what, gi_last_error())) {
        static const uint8_t poisons[] = {0xA5, 0x5A};
        for (int k = 0; k < 2; k++) {
            poison(&got, poisons[k]);
            st = op(gpu, src, &got, params);
            if (!th_check(st == GI_OK, "%s: cuda: %s", what, gi_last_error())) break;
            if (!th_check(r16_same(&want, &got, why, sizeof why), "%s (poison %#x): %s", what,
                          poisons[k], why))
                break;
            th_check(r16_padding_intact(&got), "%s: wrote outside the pixels", what);
        }
    }
    r16_free(&want);
    r16_free(&got);
}

static gi_status run_blur(gi_context *ctx, const gi_image *src, gi_image *dst, const void *p)
{
    return gi_blur(ctx, src, dst, p);
}

static gi_status run_sobel(gi_context *ctx, const gi_image *src, gi_image *dst, const void *p)
{
    return gi_sobel(ctx, src, dst, p);
}

static gi_status run_convolve(gi_context *ctx, const gi_image *src, gi_image *dst, const void *p)
{
    return gi_convolve(ctx, src, dst, p);
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
    snprintf(what, sizeof what, "blur16 %s r=%d sigma=%.3f %dx%dx%d %s/%d",
             kernel == GI_BLUR_BOX ? "box" : "gaussian", radius, p.sigma, src->width,
             src->height, src->channels, gi_border_name(border.mode), border.value);
    compare(what, src, src->width, src->height, src->channels, run_blur, &p);
}

static void sobel_case(const gi_image *src, int variant, gi_border border)
{
    gi_sobel_params p;
    char what[160];
    gi_sobel_params_default(&p);
    p.border = border;
    p.gray = variant >= 3;
    if (variant % 3 == 1) p.scale = th_rand_double(0.01, 4.0);
    if (variant % 3 == 2) {
        p.use_threshold = 1;
        p.scale = th_rand_double(0.1, 2.0);
        p.threshold = th_rand_double(0.0, 150000.0);
    }
    snprintf(what, sizeof what, "sobel16 scale=%.17g threshold=%d:%.17g gray=%d %dx%dx%d %s/%d",
             p.scale, p.use_threshold, p.threshold, p.gray, src->width, src->height,
             src->channels, gi_border_name(border.mode), border.value);
    compare(what, src, src->width, src->height, p.gray ? 1 : src->channels, run_sobel, &p);
}

static double mask_values[GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE];

/* 3x3 random, 5x5 positive normalized, 31x31 (past small images), and a
 * 3x3 of large values (a shift below 30, clamping both ways). */
static void convolve_case(const gi_image *src, int variant, gi_border border)
{
    static const int side[4] = {3, 5, 31, 3};
    static const double lo[4] = {-1.0, 0.0, -0.5, -50.0}, hi[4] = {1.5, 1.0, 1.0, 60.0};
    gi_convolve_params p = {side[variant], side[variant], mask_values, variant == 1 || variant == 2,
                            border};
    char what[160];
    for (int k = 0; k < p.width * p.height; k++) mask_values[k] = th_rand_double(lo[variant], hi[variant]);
    if (variant == 1) mask_values[0] += 1.0; /* a sum far from 0 */
    snprintf(what, sizeof what, "convolve16 %dx%d normalize=%d %dx%dx%d %s/%d", p.width,
             p.height, p.normalize, src->width, src->height, src->channels,
             gi_border_name(border.mode), border.value);
    compare(what, src, src->width, src->height, src->channels, run_convolve, &p);
}

typedef struct {
    const gi_op *steps;
    int n;
} chain_args;

static gi_status run_chain(gi_context *ctx, const gi_image *src, gi_image *dst, const void *p)
{
    const chain_args *a = p;
    return gi_apply(ctx, src, a->steps, a->n, dst, NULL);
}

/* A random 16-bit step of the three. */
static gi_op random_step(void)
{
    gi_op op;
    memset(&op, 0, sizeof op);
    switch (th_rand_int(0, 2)) {
    case 0:
        op.kind = GI_OP_BLUR;
        gi_blur_params_default(&op.blur);
        op.blur.sigma = th_rand_double(0.5, 4.0);
        op.blur.border = random_border((gi_border_mode)th_rand_int(0, 4));
        break;
    case 1:
        op.kind = GI_OP_SOBEL;
        gi_sobel_params_default(&op.sobel);
        op.sobel.gray = th_rand_int(0, 3) == 0;
        op.sobel.scale = th_rand_double(0.2, 2.0);
        op.sobel.border = random_border((gi_border_mode)th_rand_int(0, 4));
        break;
    default: {
        static const double sharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
        op.kind = GI_OP_CONVOLVE;
        op.convolve = (gi_convolve_params){3, 3, sharpen, 0,
                                           random_border((gi_border_mode)th_rand_int(0, 4))};
        break;
    }
    }
    return op;
}

/* Chains of 2-4 steps: the 16-bit images between them stay on the device. */
static void test_chains(void)
{
    for (int t = 0; t < (small ? 12 : 80); t++) {
        const int *wh = sizes[t % N_SIZES];
        const int n = th_rand_int(2, 4);
        gi_op steps[4];
        for (int i = 0; i < n; i++) steps[i] = random_step();
        gi_image src = make_source(wh[0], wh[1], th_rand_int(1, 4));
        int w, h, ch;
        char what[96];
        snprintf(what, sizeof what, "chain16 %d (%d steps) on %dx%dx%d", t, n, src.width,
                 src.height, src.channels);
        chain_args a = {steps, n};
        if (th_check(gi_apply_size(&src, steps, n, &w, &h, &ch) == GI_OK, "%s: size: %s", what,
                     gi_last_error()))
            compare(what, &src, w, h, ch, run_chain, &a);
        r16_free(&src);
    }
}

/* Each radius of the generic kernel (1..8) on images with alpha, whose
 * column pass takes one channel at a time from planar rows: several tiles,
 * the last ones partial, every border mode in turn. */
static void test_blur_alpha_radii(void)
{
    for (int ch = 2; ch <= 4; ch += 2)
        for (int radius = 1; radius <= 8; radius++) {
            gi_image src = make_source(97, 131, ch);
            blur_case(&src, GI_BLUR_GAUSSIAN, radius,
                      random_border((gi_border_mode)(GI_BORDER_ZERO + radius % (GI_BORDER_WRAP + 1))));
            r16_free(&src);
        }
}

static void test_sizes(void)
{
    for (int s = 0; s < N_SIZES; s++)
        for (int ch = 1; ch <= 4; ch++)
            for (int mode = GI_BORDER_ZERO; mode <= GI_BORDER_WRAP; mode++) {
                gi_image src = make_source(sizes[s][0], sizes[s][1], ch);
                const int pick = (s + ch + mode) % 6;
                const int beyond = (src.width > src.height ? src.width : src.height) + th_rand_int(1, 40);
                const int radii[3] = {th_rand_int(0, 16), th_rand_int(17, 48),
                                      beyond > GI_BLUR_MAX_RADIUS ? GI_BLUR_MAX_RADIUS : beyond};
                for (int v = 0; v < 6; v++) {
                    if (small && v != pick) continue;
                    if (v < 3)
                        blur_case(&src, th_rand_int(0, 1) ? GI_BLUR_BOX : GI_BLUR_GAUSSIAN, radii[v],
                                  random_border((gi_border_mode)mode));
                    sobel_case(&src, v, random_border((gi_border_mode)mode));
                    if (v < 4) convolve_case(&src, v, random_border((gi_border_mode)mode));
                }
                r16_free(&src);
            }
    /* the widest radius the API allows, on a small image */
    gi_image src = make_source(45, 38, 4);
    blur_case(&src, GI_BLUR_GAUSSIAN, GI_BLUR_MAX_RADIUS, random_border(GI_BORDER_REFLECT));
    blur_case(&src, GI_BLUR_BOX, GI_BLUR_MAX_RADIUS, random_border(GI_BORDER_ZERO));
    r16_free(&src);
}

/* The default magnitude (scale 1) where it rounds: cells of three
 * columns whose middle pixel's gradients (gx, gy) put gx^2 + gy^2 within
 * r / 64 of r^2 - r or r^2 + r, the two ends of the s that round to r, or
 * of r^2, where the float root's floor may fall on either side (both
 * backends correct it in integers), an eighth of them at r = 65535; s
 * just below 2^32, where the root is 65535.9 or more; and past 65535 in
 * gx, and past 2^32 in s, where it comes to 65535. The middle row's cell
 * centres are checked against
 * gpuimg.h's double formula, and the whole image against the CPU. Rows,
 * top to bottom, of a cell: 0 0 0 / 0 0 m / 0 b p, which make gx = 2m +
 * p and gy = 2b + p (gx + gy is even for every Sobel input). */
static void test_sobel_roots(void)
{
    enum { CELLS = 4096 };
    gi_image src = r16_blank(3 * CELLS, 3, 1);
    long gxs[CELLS], gys[CELLS];
    for (int y = 0; y < 3; y++) memset(r16_px(&src, 0, y), 0, (size_t)src.width * 2);
    for (int k = 0; k < CELLS; k++) {
        long gx = 0, gy = 0;
        if (k % 16 == 15) { /* past the ends: gx or s too large */
            gx = th_rand_int(0, 1) ? th_rand_int(65536, 131071) : th_rand_int(46341, 65535);
            gy = th_rand_int(46341, 131071);
        } else {
            const long r = k % 8 == 6 ? 65535 : th_rand_int(k % 2 ? 2 : 40000, 65535);
            /* k % 16 == 14: s just below 2^32 (a root past 65535.9, whose
             * float estimate may reach 65536), else near r's ends */
            const long target = k % 16 == 14 ? 4294967296L - th_rand_int(1, 10000)
                                             : r * r + (k % 3 - 1) * r;
            const long slack = r / 64 + 1;
            for (int tries = 0; tries < 100000; tries++) {
                gx = th_rand_int(0, (int)sqrt((double)target)); /* gx^2 <= target */
                gy = (long)floor(sqrt((double)(target - gx * gx)) + 0.5);
                if (labs(gx * gx + gy * gy - target) <= slack && (gx + gy) % 2 == 0) break;
            }
        }
        if ((gx + gy) % 2) gy += gy < 131071 ? 1 : -1; /* the parity a Sobel input can make */
        gxs[k] = gx;
        gys[k] = gy;
        const uint16_t p = (uint16_t)(gx % 2);
        r16_px(&src, 3 * k + 2, 1)[0] = (uint16_t)((gx - p) / 2);
        r16_px(&src, 3 * k + 1, 2)[0] = (uint16_t)((gy - p) / 2);
        r16_px(&src, 3 * k + 2, 2)[0] = p;
    }
    gi_sobel_params p;
    gi_sobel_params_default(&p);
    compare("sobel16 rounding ends", &src, src.width, 3, 1, run_sobel, &p);
    gi_image got = r16_blank(src.width, 3, 1);
    if (th_check(gi_sobel(gpu, &src, &got, &p) == GI_OK, "sobel16 rounding ends: %s", gi_last_error())) {
        long bad = 0;
        for (int k = 0; k < CELLS; k++) {
            const double m = floor(sqrt((double)gxs[k] * gxs[k] + (double)gys[k] * gys[k]) + 0.5);
            const uint16_t want = m >= 65535.0 ? 65535 : (uint16_t)m;
            const uint16_t v = r16_px(&got, 3 * k + 1, 1)[0];
            if (v != want && bad++ < 5)
                th_check(0, "sobel16 gx %ld gy %ld: %u, want %u", gxs[k], gys[k], v, want);
        }
        th_check(bad == 0, "sobel16 rounding ends: %ld of %d cells off the formula", bad, CELLS);
    }
    r16_free(&got);
    r16_free(&src);
}

/* A photo-sized image of each channel count: many blocks, every path
 * (blur: the generic tiles at radius 1..8, the fused tile at 9, and at 12
 * the fused tile or, for 4 channels, whose tile would pass 48 KiB, the two
 * passes). */
static void test_large(void)
{
    for (int ch = 1; ch <= 4; ch++) {
        gi_image src = make_source(1921, 1081, ch);
        blur_case(&src, GI_BLUR_GAUSSIAN, th_rand_int(1, 8), random_border(GI_BORDER_REPLICATE));
        blur_case(&src, GI_BLUR_GAUSSIAN, 9, random_border(GI_BORDER_MIRROR));
        blur_case(&src, GI_BLUR_BOX, 12, random_border(GI_BORDER_ZERO));
        sobel_case(&src, ch % 3, random_border(GI_BORDER_REFLECT));
        sobel_case(&src, 3, random_border(GI_BORDER_ZERO));
        convolve_case(&src, 1, random_border(GI_BORDER_WRAP));
        r16_free(&src);
    }
}

int main(void)
{
    const char *why;
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
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
    test_sizes();
    test_blur_alpha_radii();
    test_sobel_roots();
    test_chains();
    if (!small) test_large();
    gi_context_destroy(gpu);
    gi_context_destroy(cpu);
    return th_finish();
}
