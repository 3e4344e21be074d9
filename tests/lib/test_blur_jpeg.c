/* A lone blur whose result leaves as an exact JPEG is coded as its rows
 * come (lib/cpu/blur_jpeg.c), and any other chain is encoded by the CPU
 * backend too (backend.h's jpeg_out): each thread blurs a band of MCU rows a chunk
 * at a time and codes the chunk onto its piece of the scan. Its file must
 * be byte for byte what the blur and then the writer give (load, gi_apply,
 * gi_encode), for every border, 1-4 channels, sizes from 1x1 (1xN, Nx1,
 * primes, a radius past the image), both subsamplings (quality <= 90 is
 * 4:2:0), thread counts that start bands inside the image, and rows wide
 * enough that a band is coded in several chunks. The job's own checks
 * (quality, metadata) stay gi_encode's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testimg.h"

/* The job's bytes against blur + encode by hand, on ctx. */
static void check_one(gi_context *ctx, const gi_image *img, gi_border_mode border, double sigma,
                      int radius, int quality, const char *what)
{
    gi_save_options png = {.format = GI_FORMAT_PNG};
    uint8_t *in = NULL, *out = NULL, *expect = NULL;
    size_t in_size = 0, out_size = 0, expect_size = 0;
    th_check(gi_encode(img, &png, &in, &in_size) == GI_OK, "%s: encode the input", what);
    gi_op step;
    gi_job job;
    ti_blur_job(&job, &step, GI_FORMAT_JPEG);
    step.blur.sigma = sigma;
    step.blur.radius = radius;
    step.blur.border.mode = border;
    step.blur.border.value = 77;
    job.save.jpeg_quality = quality;
    gi_status st = gi_job_run_memory(ctx, &job, in, in_size, "mem", &out, &out_size, NULL);
    th_check(st == GI_OK, "%s: job: %s", what, gi_last_error());

    gi_image decoded = {0}, result = {0};
    th_check(gi_load_memory(&decoded, in, in_size, NULL, NULL) == GI_OK, "%s: load", what);
    th_check(gi_image_alloc(&result, img->width, img->height, img->channels) == GI_OK, "alloc");
    memset(result.data, 0xA5, result.stride * (size_t)result.height); /* poisoned */
    th_check(gi_apply(ctx, &decoded, &step, 1, &result, NULL) == GI_OK, "%s: blur: %s", what,
             gi_last_error());
    gi_save_options jpeg = {.format = GI_FORMAT_JPEG, .jpeg_quality = quality};
    th_check(gi_encode(&result, &jpeg, &expect, &expect_size) == GI_OK, "%s: encode", what);
    th_check(st == GI_OK && out_size == expect_size && memcmp(out, expect, out_size) == 0,
             "%s: the blur coded as it goes gives the writer's bytes (%zu against %zu)", what,
             out_size, expect_size);
    gi_free(in);
    gi_free(out);
    gi_free(expect);
    gi_image_free(&decoded);
    gi_image_free(&result);
}

/* Any other chain into a JPEG file: the CPU backend runs it into pixels
 * of its own and encodes them (backend.h's jpeg_out); the job's bytes are
 * still those of the steps and then the writer. */
static void check_chain(gi_context *ctx, const gi_image *img, const gi_op *steps, int n,
                        int quality, const char *what)
{
    gi_save_options png = {.format = GI_FORMAT_PNG};
    uint8_t *in = NULL, *out = NULL, *expect = NULL;
    size_t in_size = 0, out_size = 0, expect_size = 0;
    th_check(gi_encode(img, &png, &in, &in_size) == GI_OK, "%s: encode the input", what);
    gi_job job;
    gi_job_default(&job);
    job.steps = steps;
    job.n_steps = n;
    job.save.format = GI_FORMAT_JPEG;
    job.save.jpeg_quality = quality;
    gi_status st = gi_job_run_memory(ctx, &job, in, in_size, "mem", &out, &out_size, NULL);
    th_check(st == GI_OK, "%s: job: %s", what, gi_last_error());
    gi_image decoded = {0}, result = {0};
    int w = 0, h = 0, ch = 0;
    th_check(gi_load_memory(&decoded, in, in_size, NULL, NULL) == GI_OK, "%s: load", what);
    th_check(gi_apply_size(&decoded, steps, n, &w, &h, &ch) == GI_OK, "%s: size", what);
    th_check(gi_image_alloc(&result, w, h, ch) == GI_OK, "alloc");
    th_check(gi_apply(ctx, &decoded, steps, n, &result, NULL) == GI_OK, "%s: steps: %s", what,
             gi_last_error());
    gi_save_options jpeg = {.format = GI_FORMAT_JPEG, .jpeg_quality = quality};
    th_check(gi_encode(&result, &jpeg, &expect, &expect_size) == GI_OK, "%s: encode", what);
    th_check(st == GI_OK && out_size == expect_size && memcmp(out, expect, out_size) == 0,
             "%s: the backend's JPEG gives the writer's bytes (%zu against %zu)", what, out_size,
             expect_size);
    gi_free(in);
    gi_free(out);
    gi_free(expect);
    gi_image_free(&decoded);
    gi_image_free(&result);
}

static void other_chains(gi_context *ctx)
{
    gi_op sobel = {.kind = GI_OP_SOBEL}, pair[2] = {{.kind = GI_OP_BLUR},
                                                     {.kind = GI_OP_TRANSFORM, .transform = GI_ROTATE_90}};
    gi_sobel_params_default(&sobel.sobel);
    gi_blur_params_default(&pair[0].blur);
    static const int sizes[][2] = {{1, 1}, {7, 3}, {33, 65}, {130, 41}};
    for (int s = 0; s < 4; s++)
        for (int ch = 1; ch <= 4; ch += 3) {
            gi_image img = ti_random(sizes[s][0], sizes[s][1], ch);
            char what[120];
            snprintf(what, sizeof what, "sobel, %dx%dx%d", img.width, img.height, ch);
            check_chain(ctx, &img, &sobel, 1, 80, what);
            snprintf(what, sizeof what, "blur then rotate, %dx%dx%d", img.width, img.height, ch);
            check_chain(ctx, &img, pair, 2, 95, what);
            ti_free(&img);
        }
}

int main(void)
{
    th_seed();
    static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {17, 13}, {8, 16},
                                   {16, 33}, {61, 127}, {131, 97}, {300, 251}};
    static const gi_border_mode borders[] = {GI_BORDER_ZERO, GI_BORDER_REPLICATE,
                                             GI_BORDER_REFLECT, GI_BORDER_MIRROR, GI_BORDER_WRAP};
    static const int qualities[] = {1, 50, 90, 91, 100};
    static const int threads[] = {1, 2, 3, 8};
    for (int tc = 0; tc < 4; tc++) {
        gi_context *ctx = ti_cpu_context(threads[tc]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int ch = 1; ch <= 4; ch++) {
                gi_image img = ti_random(sizes[s][0], sizes[s][1], ch);
                const int b = (int)((s + (size_t)ch + (size_t)tc) % 5), q = qualities[(s + (size_t)ch) % 5];
                /* radius 20 reaches past every small image; -1: 3 sigma */
                const int radius = s % 3 == 0 ? 20 : -1;
                char what[160];
                snprintf(what, sizeof what, "%dx%dx%d, border %d, quality %d, radius %d, %d threads",
                         img.width, img.height, ch, (int)borders[b], q, radius, threads[tc]);
                check_one(ctx, &img, borders[b], 1.5, radius, q, what);
                ti_free(&img);
            }
        /* rows wide enough that a band is coded in several chunks (about
         * 192 KB each: one MCU row of 4:2:0 here), both subsamplings */
        gi_image wide = ti_random(4100, 70, 3);
        for (int k = 0; k < 2; k++) {
            char what[160];
            snprintf(what, sizeof what, "4100x70x3, quality %d, %d threads", k ? 95 : 75,
                     threads[tc]);
            check_one(ctx, &wide, borders[(tc + k) % 5], 2, -1, k ? 95 : 75, what);
        }
        ti_free(&wide);
        other_chains(ctx);
        gi_context_destroy(ctx);
    }
    return th_finish();
}
