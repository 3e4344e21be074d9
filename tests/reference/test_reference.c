/* test_reference: the CPU backend against independent float64 references
 * (ref_ops.c) on random images, for every operation, size class, border
 * mode and channel count. Prints the seed; GPUIMG_SEED=N replays a run.
 *
 *   test_reference [GROUP...]     groups: see `groups` below; default all
 */
#include "checks.h"
#include "../harness.h"
#include "../testimg.h"

#include <stdio.h>
#include <string.h>

const int ref_sizes[REF_NSIZES][2] = {{1, 1}, {1, 17}, {17, 1}, {31, 29}, {257, 3}};

gi_border ref_border(int k)
{
    static const gi_border_mode modes[REF_NBORDERS] = {
        GI_BORDER_ZERO, GI_BORDER_ZERO, GI_BORDER_REPLICATE,
        GI_BORDER_REFLECT, GI_BORDER_MIRROR, GI_BORDER_WRAP,
    };
    gi_border b = {modes[k], 0};
    if (k == 1) b.value = (uint8_t)th_rand_int(1, 255);
    return b;
}

const char *ref_border_label(gi_border b, char *buf, size_t size)
{
    if (b.mode == GI_BORDER_ZERO)
        snprintf(buf, size, "zero(value=%d)", b.value);
    else
        snprintf(buf, size, "%s", gi_border_name(b.mode));
    return buf;
}

static const struct {
    const char *name;
    void (*run)(gi_context *ctx);
} groups[] = {
    {"blur", check_blur},           {"transparency", check_blur_transparency},
    {"sobel", check_sobel},         {"transform", check_transform},
    {"hist", check_hist},           {"convolve", check_convolve},
    {"threads", check_threads},      {"compare", check_compare},
    {"resize", check_resize},        {"resize-size", check_resize_size},
    {"crop", check_crop},
    {"transform16", check_transform16}, {"crop16", check_crop16},
    {"resize16", check_resize16},       {"compare16", check_compare16},
    {"hist16", check_hist16},
    {"blur16", check_blur16},        {"sobel16", check_sobel16},
    {"convolve16", check_convolve16}, {"threads16", check_threads16},
};
#define NGROUPS (sizeof groups / sizeof *groups)

static int wanted(const char *name, int argc, char **argv)
{
    for (int k = 1; k < argc; k++)
        if (strcmp(argv[k], name) == 0) return 1;
    return argc == 1;
}

int main(int argc, char **argv)
{
    gi_context *ctx;
    for (int k = 1; k < argc; k++) {
        size_t g = 0;
        while (g < NGROUPS && strcmp(argv[k], groups[g].name) != 0) g++;
        if (g == NGROUPS) {
            fprintf(stderr, "test_reference: unknown group \"%s\"\n", argv[k]);
            return 2;
        }
    }
    th_seed();
    ctx = ti_cpu_context(0);
    for (size_t g = 0; g < NGROUPS; g++)
        if (wanted(groups[g].name, argc, argv)) groups[g].run(ctx);
    gi_context_destroy(ctx);
    return th_finish();
}
