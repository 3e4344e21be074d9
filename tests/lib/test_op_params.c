/* The table of operation parameters (gpuimg.h, parameters): its defaults
 * are those of the gi_*_params_default functions, each parameter lies
 * inside gi_op, its choices are the enums' order, and gi_op_param_parse
 * and gi_op_param_check give the messages the command line and Python
 * show. */
#include "harness.h"

#include <gpuimg.h>
#include <math.h>
#include <string.h>

static const gi_op_kind kinds[] = {GI_OP_BLUR, GI_OP_SOBEL, GI_OP_TRANSFORM, GI_OP_HIST,
                                   GI_OP_CONVOLVE, GI_OP_RESIZE, GI_OP_CROP};

static void check_defaults(void)
{
    gi_op op;
    gi_blur_params blur;
    gi_blur_params_default(&blur);
    gi_op_default(GI_OP_BLUR, &op);
    th_check(op.kind == GI_OP_BLUR && op.blur.sigma == blur.sigma &&
                 op.blur.radius == blur.radius && op.blur.kernel == blur.kernel &&
                 op.blur.border.mode == blur.border.mode,
             "blur defaults differ from gi_blur_params_default");
    gi_sobel_params sobel;
    gi_sobel_params_default(&sobel);
    gi_op_default(GI_OP_SOBEL, &op);
    th_check(op.sobel.scale == sobel.scale && op.sobel.use_threshold == sobel.use_threshold &&
                 op.sobel.gray == sobel.gray && op.sobel.border.mode == sobel.border.mode,
             "sobel defaults differ from gi_sobel_params_default");
    gi_resize_params resize;
    gi_resize_params_default(&resize);
    gi_op_default(GI_OP_RESIZE, &op);
    th_check(memcmp(&op.resize, &resize, sizeof resize) == 0,
             "resize defaults differ from gi_resize_params_default");
    gi_op_default(GI_OP_HIST, &op);
    th_check(op.bins == 256, "hist's default is %d bins", op.bins);
}

static void check_layout(void)
{
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        int n;
        const gi_op_param *p = gi_op_params(kinds[k], &n);
        th_check(n > 0 && p != NULL, "operation %d has no parameters", (int)kinds[k]);
        for (int i = 0; i < n; i++) {
            th_check(p[i].op == kinds[k], "%s is listed under another operation", p[i].name);
            th_check(p[i].offset > 0 && p[i].offset < sizeof(gi_op), "%s lies outside gi_op",
                     p[i].name);
            th_check(gi_op_param_find(kinds[k], p[i].name) == &p[i], "%s: not found by name",
                     p[i].name);
            th_check(p[i].form != GI_PARAM_OPTION || (p[i].help && p[i].help[0]),
                     "%s: an option without help", p[i].name);
            th_check((p[i].type == GI_PARAM_FLAG) == (p[i].form == GI_PARAM_OPTION &&
                                                      !p[i].metavar) ||
                         p[i].form != GI_PARAM_OPTION,
                     "%s: a value name exactly when the option takes a value", p[i].name);
        }
    }
    th_check(gi_op_param_find(GI_OP_BLUR, "nope") == NULL, "an unknown name was found");
}

static void check_choices(void)
{
    const gi_op_param *filter = gi_op_param_find(GI_OP_RESIZE, "filter");
    for (int i = 0; filter->choices[i]; i++) {
        gi_resize_filter f;
        th_check(gi_resize_filter_parse(filter->choices[i], &f) == 0 && (int)f == i,
                 "filter %s is not enum value %d", filter->choices[i], i);
    }
    gi_op op;
    gi_op_default(GI_OP_RESIZE, &op);
    th_check(gi_op_param_parse(gi_op_param_find(GI_OP_RESIZE, "fit"), "cover", &op) == GI_OK &&
                 op.resize.fit == GI_FIT_COVER, "fit cover not parsed");
    gi_op_default(GI_OP_BLUR, &op);
    th_check(gi_op_param_parse(gi_op_param_find(GI_OP_BLUR, "kernel"), "box", &op) == GI_OK &&
                 op.blur.kernel == GI_BLUR_BOX, "kernel box not parsed");
}

static void expect_message(gi_op_kind kind, const char *name, const char *text, const char *want)
{
    gi_op op;
    gi_op_default(kind, &op);
    gi_op before = op;
    gi_status st = gi_op_param_parse(gi_op_param_find(kind, name), text, &op);
    th_check(st == GI_ERR_INVALID_ARGUMENT && strcmp(gi_last_error(), want) == 0,
             "%s '%s': got '%s', want '%s'", name, text, gi_last_error(), want);
    th_check(memcmp(&op, &before, sizeof op) == 0, "%s '%s': refused, yet stored", name, text);
}

static void check_messages(void)
{
    expect_message(GI_OP_BLUR, "sigma", "0", "sigma '0': must be greater than 0");
    expect_message(GI_OP_BLUR, "sigma", "abc", "sigma 'abc': not a number");
    expect_message(GI_OP_BLUR, "sigma", "1e999", "sigma '1e999': not a finite number");
    expect_message(GI_OP_BLUR, "sigma", "nan", "sigma 'nan': not a finite number");
    expect_message(GI_OP_BLUR, "radius", "1025", "radius '1025': must be an integer from 0 to 1024");
    expect_message(GI_OP_BLUR, "radius", "2.5", "radius '2.5': must be an integer from 0 to 1024");
    expect_message(GI_OP_BLUR, "kernel", "median", "kernel 'median': expected gaussian or box");
    expect_message(GI_OP_SOBEL, "scale", "-1", "scale '-1': must not be negative");
    expect_message(GI_OP_RESIZE, "fit", "x", "fit 'x': expected inside, fill or cover");
    expect_message(GI_OP_HIST, "bins", "0", "bins '0': must be an integer from 1 to 65536");

    gi_op op;
    gi_op_default(GI_OP_SOBEL, &op);
    const gi_op_param *t = gi_op_param_find(GI_OP_SOBEL, "threshold");
    th_check(gi_op_param_set(t, -3.5, "-3.5", &op) == GI_OK && op.sobel.threshold == -3.5 &&
                 op.sobel.use_threshold == 1, "a threshold given does not turn thresholding on");
    th_check(gi_op_param_get(t, &op) == -3.5, "get does not read what set stored");
    const gi_op_param *sigma = gi_op_param_find(GI_OP_BLUR, "sigma");
    th_check(gi_op_param_check(sigma, INFINITY, "inf") == GI_ERR_INVALID_ARGUMENT,
             "an infinite sigma passed");
}

int main(void)
{
    check_defaults();
    check_layout();
    check_choices();
    check_messages();
    return th_finish();
}
