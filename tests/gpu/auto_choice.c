/* auto_choice: the default device on a machine with a GPU. A photo-sized
 * sobel stays on the CPU without CUDA being started; a radius-1000 blur of a
 * 50 MP image goes to the GPU; announced as a long batch, a photo's blur
 * starts CUDA in the background and, once it is up, goes to the GPU; and
 * every AUTO result is the CPU's, byte for byte. Exits 77 without a GPU. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "testimg.h"

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static gi_context *auto_context(void)
{
    gi_context *ctx = NULL;
    gi_context_options opts;
    gi_context_options_default(&opts);
    th_check(gi_context_create(&ctx, &opts) == GI_OK, "auto context: %s", gi_last_error());
    return ctx;
}

/* A photo's sobel on the CPU, and no CUDA start paid for it. */
static void test_photo_stays_on_cpu(gi_context *cpu)
{
    gi_context *ctx = auto_context();
    gi_image src = ti_random(3640, 2400, 3);
    gi_image got = ti_blank(3640, 2400, 3), want = ti_blank(3640, 2400, 3);
    gi_sobel_params p;
    char why[160];
    gi_sobel_params_default(&p);
    if (ctx && th_check(gi_sobel(ctx, &src, &got, &p) == GI_OK, "sobel: %s", gi_last_error())) {
        printf("photo sobel: %s\n", gi_context_last_choice(ctx));
        th_check(starts_with(gi_context_last_choice(ctx), "cpu: "),
                 "a photo's sobel went to the GPU: %s", gi_context_last_choice(ctx));
        th_check(gi_context_cuda_startup_ms(ctx) == 0, "CUDA was started for a photo's sobel");
        th_check(gi_sobel(cpu, &src, &want, &p) == GI_OK, "cpu sobel: %s", gi_last_error());
        th_check(ti_same(&want, &got, why, sizeof why), "auto sobel: %s", why);
    }
    gi_context_destroy(ctx);
    ti_free(&src);
    ti_free(&got);
    ti_free(&want);
}

/* A radius-1000 blur of 50 MP: seconds on the CPU even with 32 cores or
 * more (a radius of 200 took 0.43 s on 32, under the GPU's start-up), far
 * less on the GPU. */
static void test_heavy_goes_to_gpu(void)
{
    gi_context *ctx = auto_context();
    gi_image src = ti_random(8192, 6144, 3), got = ti_blank(8192, 6144, 3);
    gi_blur_params p;
    gi_blur_params_default(&p);
    p.radius = 1000;
    p.sigma = 330;
    if (ctx && th_check(gi_blur(ctx, &src, &got, &p) == GI_OK, "blur: %s", gi_last_error())) {
        printf("radius-1000 blur of 50 MP: %s\n", gi_context_last_choice(ctx));
        th_check(starts_with(gi_context_last_choice(ctx), "cuda: "),
                 "a radius-1000 blur of 50 MP stayed on the CPU: %s", gi_context_last_choice(ctx));
        th_check(gi_context_cuda_startup_ms(ctx) > 0, "no CUDA start-up measured");
    }
    gi_context_destroy(ctx);
    ti_free(&src);
    ti_free(&got);
}

/* A long batch announced: CUDA starts at the hint, in the background; once
 * gi_context_backend has waited for it, the photos go to the GPU. */
static void test_batch_hint(gi_context *cpu)
{
    gi_context *ctx = auto_context();
    gi_image src = ti_random(3840, 2400, 3);
    gi_image got = ti_blank(3840, 2400, 3), want = ti_blank(3840, 2400, 3);
    gi_op blur = {.kind = GI_OP_BLUR};
    gi_plan_hint hint = {.images = 1000, .steps = &blur, .n_steps = 1, .width = 3840,
                         .height = 2400, .channels = 3, .pipelined = 1};
    char why[160];
    gi_blur_params_default(&blur.blur);
    blur.blur.sigma = 2;
    if (!ctx || !th_check(gi_context_plan_hint(ctx, &hint) == GI_OK, "hint: %s", gi_last_error()))
        goto done;
    th_check(strcmp(gi_context_backend(ctx), "cuda") == 0, "a 1000-photo batch settled on %s",
             gi_context_backend(ctx));
    if (th_check(gi_blur(ctx, &src, &got, &blur.blur) == GI_OK, "blur: %s", gi_last_error())) {
        printf("photo blur of a 1000-image batch: %s\n", gi_context_last_choice(ctx));
        th_check(starts_with(gi_context_last_choice(ctx), "cuda: "),
                 "a batch's photo stayed on the CPU with CUDA up: %s", gi_context_last_choice(ctx));
        th_check(gi_blur(cpu, &src, &want, &blur.blur) == GI_OK, "cpu blur: %s", gi_last_error());
        th_check(ti_same(&want, &got, why, sizeof why), "auto blur: %s", why);
    }
done:
    gi_context_destroy(ctx);
    ti_free(&src);
    ti_free(&got);
    ti_free(&want);
}

int main(void)
{
    const char *why;
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    th_seed();
    gi_context *cpu = ti_cpu_context(0);
    test_photo_stays_on_cpu(cpu);
    test_heavy_goes_to_gpu();
    test_batch_hint(cpu);
    gi_context_destroy(cpu);
    return th_finish();
}
