/* gi_apply and gi_job on the CPU backend: chains equal their steps one at a
 * time, sizes and channels pass on, hist only last, and a job gives the
 * bytes of decode + steps + encode done by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "steps_check.h"
#include "testimg.h"

static void random_chains(gi_context *ctx)
{
    static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 3}, {17, 13}, {64, 31}, {131, 97}};
    for (int t = 0; t < 150; t++) {
        const int *wh = sizes[t % 7];
        int n = th_rand_int(2, 4);
        gi_op steps[4];
        for (int i = 0; i < n; i++) steps[i] = sc_random_step(i + 1 == n);
        gi_image src = ti_random(wh[0], wh[1], th_rand_int(1, 4));
        char what[96];
        snprintf(what, sizeof what, "chain %d of %d steps on %dx%dx%d", t, n, src.width,
                 src.height, src.channels);
        sc_check_chain(ctx, what, &src, steps, n);
        ti_free(&src);
    }
}

static void refusals(gi_context *ctx)
{
    gi_image src = ti_random(9, 5, 3), dst = ti_blank(9, 5, 3);
    gi_op steps[GI_MAX_STEPS + 1];
    for (int i = 0; i <= GI_MAX_STEPS; i++) steps[i] = (gi_op){.kind = GI_OP_TRANSFORM,
                                                              .transform = GI_FLIP_H};
    static gi_histogram h; /* 2 MiB each: not on the stack */
    th_check(gi_apply(ctx, &src, steps, 0, &dst, NULL) == GI_ERR_INVALID_ARGUMENT, "0 steps");
    th_check(gi_apply(ctx, &src, steps, GI_MAX_STEPS + 1, &dst, NULL) == GI_ERR_INVALID_ARGUMENT,
             "too many steps");
    th_check(gi_apply(ctx, &src, steps, GI_MAX_STEPS, &dst, NULL) == GI_OK, "%d flips: %s",
             GI_MAX_STEPS, gi_last_error());
    th_check(ti_same(&src, &dst, NULL, 0), "an even number of flips is the identity");
    steps[0] = (gi_op){.kind = GI_OP_HIST, .bins = 256};
    th_check(gi_apply(ctx, &src, steps, 2, &dst, &h) == GI_ERR_INVALID_ARGUMENT &&
                 strstr(gi_last_error(), "last step"),
             "hist before the last step: %s", gi_last_error());
    steps[0] = (gi_op){.kind = GI_OP_TRANSFORM, .transform = GI_TRANSPOSE};
    th_check(gi_apply(ctx, &src, steps, 1, &dst, NULL) == GI_ERR_INVALID_ARGUMENT,
             "a destination of the wrong size");
    ti_free(&src);
    ti_free(&dst);
}

/* A job in memory gives what load, gi_apply and gi_encode give by hand. */
static void job_matches_by_hand(gi_context *ctx)
{
    gi_image img = ti_random(37, 23, 4);
    gi_save_options png = {.format = GI_FORMAT_PNG};
    uint8_t *in, *out, *expect;
    size_t in_size, out_size, expect_size;
    th_check(gi_encode(&img, &png, &in, &in_size) == GI_OK, "encode the input");
    gi_op steps[2] = {{.kind = GI_OP_SOBEL}, {.kind = GI_OP_TRANSFORM, .transform = GI_ROTATE_90}};
    gi_sobel_params_default(&steps[0].sobel);
    steps[0].sobel.gray = 1;
    gi_job job;
    gi_job_default(&job);
    job.steps = steps;
    job.n_steps = 2;
    job.save.png_level = 3;
    job.save.png_filter = GI_PNG_FILTER_PAETH;
    gi_status st = gi_job_run_memory(ctx, &job, in, in_size, "mem", &out, &out_size, NULL);
    th_check(st == GI_OK, "job: %s", gi_last_error());

    gi_image decoded, result;
    gi_load_memory(&decoded, in, in_size, NULL, NULL);
    gi_image_alloc(&result, 23, 37, 1);
    th_check(gi_apply(ctx, &decoded, steps, 2, &result, NULL) == GI_OK, "by hand");
    gi_save_options by_hand = {.format = GI_FORMAT_PNG, .png_level = 3,
                               .png_filter = GI_PNG_FILTER_PAETH};
    gi_encode(&result, &by_hand, &expect, &expect_size);
    th_check(st == GI_OK && out_size == expect_size && memcmp(out, expect, out_size) == 0,
             "job bytes equal decode + steps + encode (the input's format, PNG level 3, paeth)");

    /* per-call PNG settings: another level gives other bytes, same pixels */
    uint8_t *other;
    size_t other_size;
    job.save.png_level = 9;
    job.save.png_filter = GI_PNG_FILTER_NONE;
    th_check(gi_job_run_memory(ctx, &job, in, in_size, "mem", &other, &other_size, NULL) == GI_OK,
             "job, level 9");
    gi_image a, b;
    gi_load_memory(&a, out, out_size, NULL, NULL);
    gi_load_memory(&b, other, other_size, NULL, NULL);
    th_check(ti_same(&a, &b, NULL, 0), "PNG settings change bytes, not pixels");

    static gi_histogram h; /* 2 MiB each: not on the stack */
    steps[1] = (gi_op){.kind = GI_OP_HIST, .bins = 16};
    th_check(gi_job_run_memory(ctx, &job, in, in_size, "mem", NULL, NULL, &h) == GI_OK &&
                 h.channels == 1 && h.bins == 16,
             "a hist job gives a histogram: %s", gi_last_error());
    th_check(gi_job_run_memory(ctx, &job, "junk", 4, "junk.png", NULL, NULL, &h) == GI_ERR_DECODE &&
                 strstr(gi_last_error(), "junk.png"),
             "a bad input names itself: %s", gi_last_error());
    gi_free(in);
    gi_free(out);
    gi_free(expect);
    gi_free(other);
    gi_image_free(&decoded);
    gi_image_free(&result);
    gi_image_free(&a);
    gi_image_free(&b);
    ti_free(&img);
}

int main(void)
{
    th_seed();
    gi_context *ctx = ti_cpu_context(3);
    random_chains(ctx);
    refusals(ctx);
    job_matches_by_hand(ctx);
    gi_context_destroy(ctx);
    return th_finish();
}
