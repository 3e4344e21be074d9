/* Argument checking and error reporting: every out-of-range parameter and
 * inconsistent destination is refused with GI_ERR_INVALID_ARGUMENT and a
 * reason, and contexts report what backend they got and why. */
#include "harness.h"
#include "testimg.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static gi_context *ctx;

static void expect_invalid(gi_status st, const char *what)
{
    th_check(st == GI_ERR_INVALID_ARGUMENT && gi_last_error()[0] != '\0',
             "%s: status %d (%s), message \"%s\"; want GI_ERR_INVALID_ARGUMENT with a reason",
             what, (int)st, gi_strerror(st), gi_last_error());
}

static void check_strerror(void)
{
    for (int a = GI_OK; a <= GI_ERR_DEVICE; a++) {
        const char *s = gi_strerror((gi_status)a);
        th_check(s && *s, "gi_strerror(%d) is empty", a);
        for (int b = GI_OK; b < a && s; b++)
            th_check(strcmp(s, gi_strerror((gi_status)b)) != 0,
                     "gi_strerror(%d) == gi_strerror(%d)", a, b);
    }
}

static void check_alloc(void)
{
    gi_image img;
    expect_invalid(gi_image_alloc(&img, 0, 5, 3), "gi_image_alloc width 0");
    expect_invalid(gi_image_alloc(&img, 5, -1, 3), "gi_image_alloc height -1");
    expect_invalid(gi_image_alloc(&img, 5, 5, 0), "gi_image_alloc 0 channels");
    expect_invalid(gi_image_alloc(&img, 5, 5, 5), "gi_image_alloc 5 channels");
    if (th_check(gi_image_alloc(&img, 5, 3, 2) == GI_OK, "gi_image_alloc: %s", gi_last_error()))
        th_check(img.stride == 10 && img.owns_data && img.data && img.depth == 8,
                 "gi_image_alloc stride %zu depth %d", img.stride, img.depth);
    gi_image_free(&img);
    expect_invalid(gi_image_alloc_depth(&img, 5, 5, 3, 12), "gi_image_alloc_depth 12 bits");
    if (th_check(gi_image_alloc_depth(&img, 5, 3, 2, 16) == GI_OK, "gi_image_alloc_depth 16: %s",
                 gi_last_error()))
        th_check(img.stride == 20 && img.depth == 16 && gi_image_sample_bytes(&img) == 2,
                 "16-bit stride %zu depth %d", img.stride, img.depth);
    gi_image_free(&img);
    gi_image_free(&img); /* zeroed: a second free is harmless */
}

/* Destinations whose shape does not match what the operation produces. */
static void check_shapes(void)
{
    gi_image src = ti_random(6, 4, 3), same = ti_blank(6, 4, 3), small = ti_blank(5, 4, 3);
    gi_image one = ti_blank(6, 4, 1), swapped = ti_blank(4, 6, 3), bad_stride = src;
    gi_blur_params bp;
    gi_sobel_params sp;
    static gi_histogram hist; /* 2 MiB each: not on the stack */
    gi_blur_params_default(&bp);
    gi_sobel_params_default(&sp);
    bad_stride.stride = 17; /* < 6 * 3 */
    expect_invalid(gi_blur(ctx, &src, &small, &bp), "blur into a narrower image");
    expect_invalid(gi_blur(ctx, &src, &one, &bp), "blur 3 channels into 1");
    expect_invalid(gi_blur(ctx, &bad_stride, &same, &bp), "blur with stride < width*channels");
    expect_invalid(gi_sobel(ctx, &src, &one, &sp), "sobel without gray into 1 channel");
    sp.gray = 1;
    expect_invalid(gi_sobel(ctx, &src, &same, &sp), "sobel gray into 3 channels");
    expect_invalid(gi_transform_image(ctx, &src, &same, GI_TRANSPOSE), "transpose into w x h");
    expect_invalid(gi_transform_image(ctx, &src, &swapped, GI_FLIP_H), "flip into h x w");
    gi_convolve_params cp = {1, 1, &(double){1.0}, 0, {GI_BORDER_MIRROR, 0}};
    expect_invalid(gi_convolve(ctx, &src, &small, &cp), "convolve into a narrower image");
    expect_invalid(gi_convolve(ctx, &src, &one, &cp), "convolve 3 channels into 1");
    expect_invalid(gi_hist(ctx, &src, 0, &hist), "hist with 0 bins");
    expect_invalid(gi_hist(ctx, &src, 257, &hist), "hist with 257 bins");
    gi_image wide;
    if (th_check(gi_image_alloc_depth(&wide, 6, 4, 3, 16) == GI_OK, "alloc 16: %s", gi_last_error())) {
        expect_invalid(gi_blur(ctx, &src, &wide, &bp), "blur of 8 bits into 16");
        gi_image odd = wide, twelve = src;
        odd.stride = 37;
        twelve.depth = 12;
        expect_invalid(gi_transform_image(ctx, &odd, &wide, GI_FLIP_H), "16 bits, odd stride");
        expect_invalid(gi_blur(ctx, &twelve, &same, &bp), "a 12-bit image");
    }
    gi_image_free(&wide);
    ti_free(&src);
    ti_free(&same);
    ti_free(&small);
    ti_free(&one);
    ti_free(&swapped);
}

static void check_params(void)
{
    const double bad_scales[] = {-1.0, NAN, INFINITY};
    gi_image src = ti_random(6, 4, 3), dst = ti_blank(6, 4, 3);
    gi_blur_params bp;
    gi_sobel_params sp;
    gi_blur_params_default(&bp);
    bp.sigma = 0;
    expect_invalid(gi_blur(ctx, &src, &dst, &bp), "blur sigma 0");
    gi_blur_params_default(&bp);
    bp.radius = GI_BLUR_MAX_RADIUS + 1;
    expect_invalid(gi_blur(ctx, &src, &dst, &bp), "blur radius over the maximum");
    gi_blur_params_default(&bp);
    bp.border.mode = (gi_border_mode)99;
    expect_invalid(gi_blur(ctx, &src, &dst, &bp), "blur with border mode 99");
    for (int k = 0; k < 3; k++) {
        gi_sobel_params_default(&sp);
        sp.scale = bad_scales[k];
        expect_invalid(gi_sobel(ctx, &src, &dst, &sp), "sobel with a bad scale");
    }
    /* The library checks with the table of parameters, as the command line
     * and Python do: the same rule, the same words. */
    sp.scale = -1;
    expect_invalid(gi_sobel(ctx, &src, &dst, &sp), "sobel scale -1");
    th_check(strcmp(gi_last_error(), "scale '-1': must not be negative") == 0,
             "sobel scale -1 said \"%s\"", gi_last_error());
    gi_sobel_params_default(&sp);
    sp.use_threshold = 1;
    sp.threshold = NAN;
    expect_invalid(gi_sobel(ctx, &src, &dst, &sp), "sobel threshold NaN");
    expect_invalid(gi_transform_image(ctx, &src, &dst, (gi_transform)99), "transform 99");
    gi_op resize = {.kind = GI_OP_RESIZE};
    gi_resize_params_default(&resize.resize);
    resize.resize.scale = 1;
    resize.resize.filter = (gi_resize_filter)42;
    expect_invalid(gi_apply(ctx, &src, &resize, 1, &dst, NULL), "resize filter 42");
    const double mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    gi_convolve_params cp = {3, 3, mask, 1, {(gi_border_mode)99, 0}};
    expect_invalid(gi_convolve(ctx, &src, &dst, &cp), "convolve with border mode 99");
    cp.border.mode = GI_BORDER_WRAP;
    cp.width = 2;
    expect_invalid(gi_convolve(ctx, &src, &dst, &cp), "convolve with a 2x3 mask");
    cp.width = 3;
    cp.mask = NULL;
    expect_invalid(gi_convolve(ctx, &src, &dst, &cp), "convolve without mask values");
    gi_sobel_params_default(&sp);
    th_check(sp.scale == 1.0 && !sp.use_threshold && !sp.gray &&
                 sp.border.mode == GI_BORDER_MIRROR && sp.border.value == 0,
             "gi_sobel_params_default: scale %g threshold %d gray %d border %d/%d", sp.scale,
             sp.use_threshold, sp.gray, (int)sp.border.mode, sp.border.value);
    ti_free(&src);
    ti_free(&dst);
}

/* gi_resize_axis_weights takes sides 1..GI_RESIZE_MAX_SIDE, both of them:
 * an n_in of INT_MAX was taken, and its taps allocated. */
static void check_resize_axis_sides(void)
{
    const int sides[][2] = {{GI_RESIZE_MAX_SIDE + 1, 1}, {1, GI_RESIZE_MAX_SIDE + 1}, {INT_MAX, 1},
                            {INT_MAX, INT_MAX}, {0, 1}, {1, 0}, {-5, 3}, {3, -5}};
    gi_resize_axis axis;
    char want[128];
    for (size_t i = 0; i < sizeof sides / sizeof *sides; i++) {
        gi_status st = gi_resize_axis_weights(sides[i][0], sides[i][1], GI_RESIZE_LANCZOS3, &axis);
        snprintf(want, sizeof want, "gi_resize_axis_weights: %d -> %d samples: n_in and n_out "
                 "must be 1..%d", sides[i][0], sides[i][1], GI_RESIZE_MAX_SIDE);
        th_check(st == GI_ERR_INVALID_ARGUMENT && strcmp(gi_last_error(), want) == 0 &&
                     !axis.first && !axis.count && !axis.q,
                 "resize axis %d -> %d: status %d, \"%s\"; want \"%s\" and an empty axis",
                 sides[i][0], sides[i][1], (int)st, gi_last_error(), want);
        gi_resize_axis_free(&axis);
    }
    const int edges[][2] = {{GI_RESIZE_MAX_SIDE, 1}, {1, GI_RESIZE_MAX_SIDE}, {1, 1}};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
        gi_status st = gi_resize_axis_weights(edges[i][0], edges[i][1], GI_RESIZE_LANCZOS3, &axis);
        th_check(st == GI_OK, "resize axis %d -> %d: %s", edges[i][0], edges[i][1], gi_last_error());
        gi_resize_axis_free(&axis);
    }
}

/* Without a usable GPU, asking for CUDA fails with a reason and AUTO falls
 * back to the CPU saying why. */
static void check_contexts(void)
{
    const char *why = NULL;
    gi_context_options opts;
    gi_context *c = NULL;
    th_check(strcmp(gi_context_backend(ctx), "cpu") == 0, "CPU context reports backend \"%s\"",
             gi_context_backend(ctx));
    if (gi_cuda_device_count(&why) > 0) return;
    th_check(why && *why, "gi_cuda_device_count() is 0 without a reason");
    gi_context_options_default(&opts);
    opts.device = GI_DEVICE_CUDA;
    gi_status st = gi_context_create(&c, &opts);
    th_check(st == GI_ERR_NO_DEVICE && gi_last_error()[0],
             "CUDA context without a GPU: status %d, \"%s\"", (int)st, gi_last_error());
    if (st == GI_OK) gi_context_destroy(c);
    opts.device = GI_DEVICE_AUTO;
    c = NULL;
    if (th_check(gi_context_create(&c, &opts) == GI_OK, "AUTO context: %s", gi_last_error())) {
        th_check(strcmp(gi_context_backend(c), "cpu") == 0 &&
                     gi_context_fallback_reason(c)[0] != '\0',
                 "AUTO without a GPU: backend \"%s\", fallback reason \"%s\"",
                 gi_context_backend(c), gi_context_fallback_reason(c));
        gi_context_destroy(c);
    }
}

int main(void)
{
    th_seed();
    ctx = ti_cpu_context(2);
    check_strerror();
    check_alloc();
    check_shapes();
    check_params();
    check_resize_axis_sides();
    check_contexts();
    gi_context_destroy(ctx);
    return th_finish();
}
