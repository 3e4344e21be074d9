/* small_image_times THREADS [PAUSE_MS]: the time of one call on a small
 * image after a pause (default 1 ms, long enough that the pool's workers
 * sleep, as between the images of a loop that does other work), with a
 * 1-thread context and a THREADS-thread one: the median of 31 calls of
 * each, alternated, for a transpose, a blur (sigma 2) and a lanczos3
 * reduction to a third of RGB squares from 32 to 2048 pixels. With
 * GPUIMG_TEST_SPLIT_SMALL=1 every image is split over every thread, as
 * before small images took fewer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "timing.h"

#define REPS 31

static void pause_ms(double ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)((ms - 1000 * (time_t)(ms / 1000)) * 1e6)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static gi_context *cpu_context(int threads)
{
    gi_context_options o;
    gi_context_options_default(&o);
    o.device = GI_DEVICE_CPU;
    o.cpu_threads = threads;
    gi_context *ctx = NULL;
    if (gi_context_create(&ctx, &o) != GI_OK) {
        fprintf(stderr, "small_image_times: %s\n", gi_last_error());
        exit(1);
    }
    return ctx;
}

static gi_status run(gi_context *ctx, int op, const gi_image *src, gi_image *dst)
{
    if (op == 0) return gi_transform_image(ctx, src, dst, GI_TRANSPOSE);
    if (op == 1) {
        gi_blur_params p;
        gi_blur_params_default(&p);
        p.sigma = 2;
        return gi_blur(ctx, src, dst, &p);
    }
    gi_resize_params p;
    gi_resize_params_default(&p);
    p.width = dst->width;
    p.height = dst->height;
    p.fit = GI_FIT_FILL;
    return gi_resize(ctx, src, dst, &p);
}

int main(int argc, char **argv)
{
    char *end;
    const long threads = argc > 1 ? strtol(argv[1], &end, 10) : 0;
    const double pause = argc > 2 ? strtod(argv[2], NULL) : 1.0;
    if (argc < 2 || argc > 3 || *end || threads < 1 || threads > 4096 || !(pause >= 0 && pause < 1000)) {
        fprintf(stderr, "usage: small_image_times THREADS [PAUSE_MS]\n");
        return 2;
    }
    gi_context *ctx[2] = {cpu_context(1), cpu_context((int)threads)};
    static const int sides[] = {32, 64, 128, 256, 384, 512, 768, 1024, 2048};
    static const char *const names[] = {"transpose", "blur", "resize"};
    printf("op        size       1 thread ms  %ld threads ms  ratio  (median of %d, each after %.1f ms)\n",
           threads, REPS, pause);
    for (int op = 0; op < 3; op++)
        for (size_t s = 0; s < sizeof sides / sizeof *sides; s++) {
            const int n = sides[s], out = op == 2 ? (n + 2) / 3 : n;
            gi_image src, dst;
            if (gi_image_alloc(&src, n, n, 3) != GI_OK || gi_image_alloc(&dst, out, out, 3) != GI_OK) {
                fprintf(stderr, "small_image_times: %s\n", gi_last_error());
                return 1;
            }
            for (size_t i = 0; i < src.stride * (size_t)n; i++) src.data[i] = (uint8_t)(i * 7 + i / 5);
            double ms[2][REPS];
            for (int r = 0; r < REPS; r++)
                for (int k = 0; k < 2; k++) {
                    pause_ms(pause);
                    const double t0 = bench_now_ms();
                    if (run(ctx[k], op, &src, &dst) != GI_OK) {
                        fprintf(stderr, "small_image_times: %s\n", gi_last_error());
                        return 1;
                    }
                    ms[k][r] = bench_now_ms() - t0;
                }
            const double one = bench_median(ms[0], REPS), many = bench_median(ms[1], REPS);
            printf("%-9s %4dx%-4d %12.4f %14.4f %6.2f\n", names[op], n, n, one, many, many / one);
            gi_image_free(&src);
            gi_image_free(&dst);
        }
    gi_context_destroy(ctx[0]);
    gi_context_destroy(ctx[1]);
    return 0;
}
