/* geometry16_gpu: at 16 bits, transforms, crop, resize, hist and compare
 * on the CUDA backend give the CPU backend's bytes (hist's counts and
 * compare's result to the bit): every transform, every resize filter up and down by odd factors,
 * crops at the edges, chains of them whose images between steps stay on
 * the device, 1-4 channels, sizes 1x1, single rows and columns, primes,
 * on and off the kernels' tiles. The GPU's destination is poisoned twice
 * (0xA5, then 0x5A) so that a sample it leaves unwritten shows. Exits 77
 * without a GPU. GPUIMG_TEST_SMALL=1 leaves out the large sizes (for
 * compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "image16.h"

static const int sizes[][2] = {{1, 1},   {1, 7},    {7, 1},   {31, 29}, {32, 32}, {33, 9},
                               {257, 3}, {3, 257},  {97, 61}, {640, 480}, {2001, 1503}};
#define N_SIZES (int)(sizeof sizes / sizeof *sizes)

static gi_context *cpu, *gpu;
static int small;

static int same16(const gi_image *a, const gi_image *b)
{
    for (int y = 0; y < a->height; y++)
        if (memcmp(im16_px(a, 0, y), im16_px(b, 0, y), (size_t)a->width * a->channels * 2))
            return 0;
    return 1;
}

static void poison16(gi_image *img, uint8_t byte)
{
    for (int y = 0; y < img->height; y++)
        memset(im16_px(img, 0, y), byte, (size_t)img->width * img->channels * 2);
}

/* The steps on both backends, compared byte for byte. */
static void same_on_both(const gi_image *src, const gi_op *steps, int n, const char *label)
{
    int w, h, ch;
    if (!th_check(gi_apply_size(src, steps, n, &w, &h, &ch) == GI_OK, "%s: size: %s", label,
                  gi_last_error()))
        return;
    gi_image want = im16_poisoned(w, h, ch), got = im16_poisoned(w, h, ch);
    if (th_check(gi_apply(cpu, src, steps, n, &want, NULL) == GI_OK, "%s cpu: %s", label,
                 gi_last_error())) {
        static const uint8_t poisons[] = {0xA5, 0x5A};
        for (int k = 0; k < 2; k++) {
            poison16(&got, poisons[k]);
            if (!th_check(gi_apply(gpu, src, steps, n, &got, NULL) == GI_OK, "%s cuda: %s",
                          label, gi_last_error()) ||
                !th_check(same16(&want, &got), "%s (poison %#x): cuda differs from cpu", label,
                          poisons[k]))
                break;
            th_check(im16_padding_intact(&got), "%s: cuda wrote into the row padding", label);
        }
    }
    im16_free(&want);
    im16_free(&got);
}

static gi_op resize_to(int w, int h, int filter)
{
    gi_op op = {.kind = GI_OP_RESIZE};
    gi_resize_params_default(&op.resize);
    op.resize.width = w, op.resize.height = h, op.resize.fit = GI_FIT_FILL;
    op.resize.filter = (gi_resize_filter)filter;
    return op;
}

static void geometry_cases(const gi_image *src)
{
    char label[128];
    const int w = src->width, h = src->height, ch = src->channels;
    for (int t = GI_TRANSPOSE; t <= GI_FLIP_V; t++) {
        const gi_op op = {.kind = GI_OP_TRANSFORM, .transform = (gi_transform)t};
        snprintf(label, sizeof label, "16-bit transform %d %dx%dx%d", t, w, h, ch);
        same_on_both(src, &op, 1, label);
    }
    const gi_crop_params crops[] = {{0, 0, 1, 1, 0}, {w - 1, h - 1, 0, 0, 0}, {w / 2, 0, 0, 0, 0},
                                    {0, h / 2, w, h, 0}, {0, 0, w / 3 + 1, h / 3 + 1, 1}};
    for (size_t k = 0; k < sizeof crops / sizeof *crops; k++) {
        const gi_op op = {.kind = GI_OP_CROP, .crop = crops[k]};
        snprintf(label, sizeof label, "16-bit crop %zu of %dx%dx%d", k, w, h, ch);
        same_on_both(src, &op, 1, label);
    }
    for (int f = 0; f <= GI_RESIZE_NEAREST; f++) {
        const gi_op ops[] = {resize_to(3 * w, 3 * h, f), resize_to((w + 4) / 5, (h + 2) / 3, f),
                             resize_to(3 * w, (h + 4) / 5, f)};
        for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
            if (ops[k].resize.width > 8000 || ops[k].resize.height > 8000) continue;
            snprintf(label, sizeof label, "16-bit resize filter %d to %dx%d of %dx%dx%d", f,
                     ops[k].resize.width, ops[k].resize.height, w, h, ch);
            same_on_both(src, &ops[k], 1, label);
        }
    }
    /* a chain whose images between steps stay on the device */
    const gi_op chain[] = {{.kind = GI_OP_TRANSFORM, .transform = GI_ROTATE_90},
                           resize_to(2 * h + 1, (w + 2) / 3, GI_RESIZE_LANCZOS3),
                           {.kind = GI_OP_CROP, .crop = {1 % h, 0, 0, 0, 0}},
                           {.kind = GI_OP_TRANSFORM, .transform = GI_FLIP_H}};
    snprintf(label, sizeof label, "16-bit chain of %dx%dx%d", w, h, ch);
    same_on_both(src, chain, 4, label);
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

static void compare_case(const gi_image *e, const gi_image *a, int tolerance, int straight)
{
    gi_compare_params p;
    gi_compare_params_default(&p);
    p.tolerance = tolerance, p.straight_alpha = straight;
    gi_compare_result want, got;
    memset(&got, 0xA5, sizeof got);
    if (th_check(gi_compare(cpu, e, a, &p, &want) == GI_OK && gi_compare(gpu, e, a, &p, &got) == GI_OK,
                 "16-bit compare %dx%dx%d: %s", e->width, e->height, e->channels, gi_last_error()))
        th_check(memcmp(&want, &got, sizeof want) == 0,
                 "16-bit compare %dx%dx%d tolerance %d%s: cuda differs from cpu (ssim %.17g, "
                 "cpu %.17g)", e->width, e->height, e->channels, tolerance,
                 straight ? " straight" : "", got.ssim, want.ssim);
}

/* Both backends' histograms, every field (2 MiB each, so static). */
static void hist_case(const gi_image *src, int bins)
{
    static gi_histogram want, got;
    memset(&got, 0xA5, sizeof got);
    if (th_check(gi_hist(cpu, src, bins, &want) == GI_OK && gi_hist(gpu, src, bins, &got) == GI_OK,
                 "16-bit hist %dx%dx%d bins=%d: %s", src->width, src->height, src->channels,
                 bins, gi_last_error()))
        th_check(memcmp(&want, &got, sizeof want) == 0,
                 "16-bit hist %dx%dx%d bins=%d: cuda differs from cpu", src->width, src->height,
                 src->channels, bins);
}

/* Bins on either side of 256 (the per-lane counters' limit: more take
 * hist.cu's kernels for many bins) and of those kernels' shared-memory
 * limit (8192 counters over the channels), one per value, and a chain
 * ending in hist. */
static void hist_cases(const gi_image *src)
{
    static const int bins[] = {1, 7, 255, 256, 257, 1000, 2048, 2049, 8192, 8193, 65536};
    for (size_t b = 0; b < sizeof bins / sizeof *bins; b++) hist_case(src, bins[b]);
    hist_case(src, th_rand_int(1, 65536));
    const gi_op chain[] = {{.kind = GI_OP_TRANSFORM, .transform = GI_TRANSPOSE},
                           {.kind = GI_OP_HIST, .bins = 300}};
    static gi_histogram want, got;
    memset(&got, 0xA5, sizeof got);
    if (th_check(gi_apply(cpu, src, chain, 2, NULL, &want) == GI_OK &&
                     gi_apply(gpu, src, chain, 2, NULL, &got) == GI_OK,
                 "16-bit transpose then hist: %s", gi_last_error()))
        th_check(memcmp(&want, &got, sizeof want) == 0,
                 "16-bit transpose then hist %dx%dx%d: cuda differs from cpu", src->width,
                 src->height, src->channels);
}

static void compare_cases(const gi_image *e)
{
    gi_image near = disturbed16(e, 5, 30), far = disturbed16(e, 1, 50000);
    compare_case(e, e, 0, 0);
    compare_case(e, &near, 0, 0);
    compare_case(e, &near, 10, 0);
    compare_case(e, &far, 30000, 0);
    if (e->channels == 2 || e->channels == 4) compare_case(e, &far, 0, 1);
    im16_free(&near);
    im16_free(&far);
}

int main(void)
{
    const char *why = "";
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    const char *small_env = getenv("GPUIMG_TEST_SMALL");
    small = small_env && strcmp(small_env, "1") == 0;
    gi_context_options o;
    gi_context_options_default(&o);
    o.device = GI_DEVICE_CUDA;
    if (gi_context_create(&gpu, &o) != GI_OK) {
        printf("skip: %s\n", gi_last_error());
        return 77;
    }
    cpu = im16_cpu(0);
    th_seed();
    for (int s = 0; s < N_SIZES; s++) {
        if (small && sizes[s][0] * sizes[s][1] > 100000) continue;
        for (int ch = 1; ch <= 4; ch++) {
            gi_image src = im16_random(sizes[s][0], sizes[s][1], ch);
            geometry_cases(&src);
            hist_cases(&src);
            compare_cases(&src);
            im16_free(&src);
        }
    }
    /* a flat image: every sample on one counter */
    gi_image flat = im16_random(1000, 999, 3);
    for (int y = 0; y < flat.height; y++)
        for (int i = 0; i < flat.width * 3; i++) im16_px(&flat, 0, y)[i] = 40000;
    hist_case(&flat, 65536);
    hist_case(&flat, 256);
    im16_free(&flat);
    gi_context_destroy(gpu);
    gi_context_destroy(cpu);
    return th_finish();
}
