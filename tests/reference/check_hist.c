/* Histogram: every bin equals a direct count, every channel sums to the
 * pixel count; gi_hist_stats equals statistics taken from the samples. */
#include "checks.h"
#include "ref_ops.h"
#include "../harness.h"
#include "../testimg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static gi_histogram hist, want_hist;

static void hist_case(gi_context *ctx, const gi_image *src, int bins)
{
    static uint64_t want[4][GI_HIST_MAX_BINS]; /* 2 MiB: not on the stack */
    const char *what = "";
    int wrong_bin = -1, wrong_c = 0;
    memset(&hist, 0xff, sizeof hist);
    if (!th_check(gi_hist(ctx, src, bins, &hist) == GI_OK, "hist %dx%dx%d bins=%d: %s",
                  src->width, src->height, src->channels, bins, gi_last_error()))
        return;
    ref_hist(src, bins, want);
    for (int c = 0; c < src->channels && wrong_bin < 0; c++) {
        uint64_t sum = 0;
        for (int b = 0; b < bins; b++) {
            sum += hist.counts[c][b];
            if (hist.counts[c][b] != want[c][b] && wrong_bin < 0)
                wrong_bin = b, wrong_c = c, what = "differs from a direct count";
        }
        if (sum != (uint64_t)src->width * src->height && wrong_bin < 0)
            wrong_bin = bins, wrong_c = c, what = "column does not sum to w*h";
    }
    th_check(hist.channels == src->channels && hist.bins == bins,
             "hist reports %d channels, %d bins; want %d, %d", hist.channels, hist.bins,
             src->channels, bins);
    th_check(wrong_bin < 0, "hist %dx%dx%d bins=%d: channel %d bin %d %s", src->width,
             src->height, src->channels, bins, wrong_c, wrong_bin, what);
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

static void check_stats_of(const gi_image *src, int c, const uint64_t *counts256)
{
    gi_channel_stats got, want;
    gi_hist_stats(counts256, &got);
    ref_stats(src, c, &want);
    th_check(got.min == want.min && got.max == want.max && got.median == want.median &&
                 close_to(got.mean, want.mean) && close_to(got.stddev, want.stddev),
             "stats %dx%d channel %d: min %d max %d median %d mean %.12g stddev %.12g; "
             "want %d %d %d %.12g %.12g",
             src->width, src->height, c, got.min, got.max, got.median, got.mean, got.stddev,
             want.min, want.max, want.median, want.mean, want.stddev);
}

/* Stats from the library's own 256-bin histogram, compared with the samples. */
static void stats_case(gi_context *ctx, const gi_image *src)
{
    if (gi_hist(ctx, src, 256, &hist) != GI_OK) return; /* hist_case reported it */
    for (int c = 0; c < src->channels; c++) check_stats_of(src, c, hist.counts[c]);
}

/* Small images where the median rule and the extremes are easy to get wrong:
 * two samples (the median is the lower one), all equal, 0 and 255 only. */
static void stats_corner_cases(void)
{
    static const uint8_t rows[][4] = {{10, 20, 20, 20}, {7, 7, 7, 7}, {0, 255, 0, 255},
                                      {255, 0, 3, 200}, {1, 2, 3, 4}};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
        for (int n = 1; n <= 4; n++) {
            gi_image img = ti_blank(n, 1, 1);
            memset(want_hist.counts[0], 0, sizeof want_hist.counts[0]);
            for (int x = 0; x < n; x++) {
                ti_px(&img, x, 0)[0] = rows[k][x];
                want_hist.counts[0][rows[k][x]]++;
            }
            check_stats_of(&img, 0, want_hist.counts[0]);
            ti_free(&img);
        }
}

void check_hist(gi_context *ctx)
{
    const int bins[] = {1, 2, 3, 7, 16, 100, 255, 256};
    for (int s = 0; s < REF_NSIZES; s++)
        for (int ch = 1; ch <= 4; ch++) {
            gi_image src = ti_random(ref_sizes[s][0], ref_sizes[s][1], ch);
            for (size_t b = 0; b < sizeof bins / sizeof *bins; b++) hist_case(ctx, &src, bins[b]);
            hist_case(ctx, &src, th_rand_int(1, 256));
            stats_case(ctx, &src);
            ti_free(&src);
        }
    stats_corner_cases();
}
