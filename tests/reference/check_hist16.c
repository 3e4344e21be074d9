/* Histograms of 16-bit images: every bin equals a direct count of
 * v * bins / 65536, every channel sums to the pixel count, 1 and 3
 * threads agree, and gi_hist_stats16 equals statistics taken from the
 * samples (a sort for the median, long double sums for the moments).
 * Bins past `bins` and `channels` are 0. An 8-bit image takes at most 256
 * bins. */
#include "checks.h"
#include "../harness.h"
#include "../image16.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gi_histogram got, got3;
static uint64_t want[4][GI_HIST_MAX_BINS];

static void hist16_case(gi_context *one, gi_context *three, const gi_image *src, int bins)
{
    char label[96];
    snprintf(label, sizeof label, "16-bit hist %dx%dx%d bins=%d", src->width, src->height,
             src->channels, bins);
    memset(&got, 0xA5, sizeof got);
    memset(&got3, 0x5A, sizeof got3);
    if (!th_check(gi_hist(one, src, bins, &got) == GI_OK && gi_hist(three, src, bins, &got3) == GI_OK,
                  "%s: %s", label, gi_last_error()))
        return;
    th_check(memcmp(&got, &got3, sizeof got) == 0, "%s: 1 and 3 threads differ", label);
    th_check(got.channels == src->channels && got.bins == bins && got.depth == 16,
             "%s: reports %d channels, %d bins, depth %d", label, got.channels, got.bins, got.depth);
    memset(want, 0, sizeof want);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < src->channels; c++)
                want[c][(uint64_t)im16_px(src, x, y)[c] * (uint64_t)bins / 65536]++;
    long wrong = 0;
    for (int c = 0; c < 4; c++) {
        uint64_t sum = 0;
        for (int b = 0; b < GI_HIST_MAX_BINS; b++) {
            wrong += got.counts[c][b] != want[c][b];
            sum += got.counts[c][b];
        }
        if (c < src->channels) wrong += sum != (uint64_t)src->width * src->height;
    }
    th_check(wrong == 0, "%s: %ld counts differ from a direct count", label, wrong);
}

static int by_value(const void *a, const void *b)
{
    return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* gi_hist_stats16 of channel c's 65536-bin counts against the samples. */
static void stats16_case(const gi_image *src, int c, const uint64_t *counts)
{
    const size_t n = (size_t)src->width * src->height;
    uint16_t *v = malloc(n * sizeof *v);
    long double sum = 0, spread = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = im16_px(src, (int)(i % src->width), (int)(i / src->width))[c];
        sum += v[i];
    }
    const long double mean = sum / n;
    for (size_t i = 0; i < n; i++) spread += (v[i] - mean) * (v[i] - mean);
    qsort(v, n, sizeof *v, by_value);
    gi_channel_stats s;
    gi_hist_stats16(counts, &s);
    th_check(s.min == v[0] && s.max == v[n - 1] && s.median == v[(n + 1) / 2 - 1] &&
                 close_to(s.mean, (double)mean) && close_to(s.stddev, (double)sqrtl(spread / n)),
             "16-bit stats %dx%d channel %d: min %d max %d median %d mean %.12g stddev %.12g; "
             "want %d %d %d %.12g %.12g",
             src->width, src->height, c, s.min, s.max, s.median, s.mean, s.stddev, v[0],
             v[n - 1], v[(n + 1) / 2 - 1], (double)mean, (double)sqrtl(spread / n));
    free(v);
}

void check_hist16(gi_context *ctx)
{
    gi_context *one = im16_cpu(1), *three = im16_cpu(3);
    static const int sizes[][2] = {{1, 1}, {1, 13}, {13, 1}, {31, 29}, {257, 3}};
    static const int bins[] = {1, 2, 7, 256, 1000, 4096, 65535, 65536};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int ch = 1; ch <= 4; ch++) {
            gi_image src = im16_random(sizes[s][0], sizes[s][1], ch);
            for (size_t b = 0; b < sizeof bins / sizeof *bins; b++)
                hist16_case(one, three, &src, bins[b]);
            hist16_case(one, three, &src, th_rand_int(1, 65536));
            if (gi_hist(one, &src, 65536, &got) == GI_OK)
                for (int c = 0; c < ch; c++) stats16_case(&src, c, got.counts[c]);
            im16_free(&src);
        }
    gi_image eight = {0};
    gi_image_alloc(&eight, 3, 2, 1);
    memset(eight.data, 7, eight.stride * 2);
    th_check(gi_hist(ctx, &eight, 257, &got) == GI_ERR_INVALID_ARGUMENT &&
                 strstr(gi_last_error(), "8-bit"),
             "257 bins of an 8-bit image: \"%s\"", gi_last_error());
    gi_image_free(&eight);
    gi_image sixteen = im16_random(3, 2, 1);
    th_check(gi_hist(ctx, &sixteen, 65537, &got) == GI_ERR_INVALID_ARGUMENT,
             "65537 bins of a 16-bit image must be refused");
    im16_free(&sixteen);
    gi_context_destroy(one);
    gi_context_destroy(three);
}
