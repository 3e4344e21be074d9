/* gpuimg sobel: gradient magnitude or a binary edge map. */
#include "commands.h"
#include "options.h"
#include "run_images.h"

static int opt_threshold(const cli_option *o, const char *arg)
{
    gi_sobel_params *p = o->target;
    cli_option as_double = *o;
    as_double.target = &p->threshold;
    p->use_threshold = 1;
    return opt_double(&as_double, arg);
}

static gi_status sobel_image(gi_context *ctx, const gi_image *src, gi_image *dst, const void *arg)
{
    int w, h, ch;
    gi_sobel_size(src, arg, &w, &h, &ch);
    gi_status st = gi_image_alloc(dst, w, h, ch);
    return st == GI_OK ? gi_sobel(ctx, src, dst, arg) : st;
}

int cmd_sobel(int argc, char **argv)
{
    cli_common common;
    gi_sobel_params params;
    cli_common_init(&common, "sobel");
    gi_sobel_params_default(&params);
    const cli_option own[] = {
        {"scale", 0, "S", "multiply the magnitude by S >= 0 (default 1)", opt_double_nonneg,
         &params.scale},
        {"threshold", 't', "T", "binary edges: 255 where scale * magnitude >= T, else 0",
         opt_threshold, &params},
        {"gray", 'g', NULL, "filter luma (77R + 150G + 29B + 128) >> 8; write one channel",
         opt_flag, &params.gray},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg sobel [options] IN OUT\n"
        "       gpuimg sobel [options] -o OUTDIR IN...",
        "3x3 Sobel edges: out = min(255, round(scale * sqrt(gx^2 + gy^2))).\n"
        "Colour channels are filtered one by one; alpha is copied through."};
    char **files;
    int count;
    int rc = cli_parse_command(argc, argv, &common, own, 1, &help, &files, &count);
    if (rc != CLI_RUN) return rc;
    params.border = common.border;
    return run_images(&common, files, count, sobel_image, &params);
}
