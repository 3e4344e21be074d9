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

int step_sobel(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    gi_sobel_params params;
    gi_sobel_params_default(&params);
    const cli_option own[] = {
        {"scale", 0, "S", "multiply the magnitude by S >= 0 (default 1)", opt_double_nonneg,
         &params.scale},
        {"threshold", 't', "T", "binary edges: 255 (65535 at 16 bits) where scale * magnitude >= T, else 0",
         opt_threshold, &params},
        {"gray", 'g', NULL, "filter luma (77R + 150G + 29B + 128) >> 8; write one channel",
         opt_flag, &params.gray},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg sobel [options] IN OUT\n"
        "       gpuimg sobel [options] -o OUTDIR IN...",
        "3x3 Sobel edges: out = min(255, round(scale * sqrt(gx^2 + gy^2))).\n"
        "16-bit images keep their range: min(65535, ...), and T in 16-bit units.\n"
        "Colour channels are filtered one by one; alpha is copied through."};
    int rc = cli_parse_command(argc, argv, common, own, 1, &help, files, count);
    if (rc != CLI_RUN) return rc;
    params.border = common->border;
    *step = (gi_op){.kind = GI_OP_SOBEL, .sobel = params};
    return CLI_RUN;
}

int cmd_sobel(int argc, char **argv)
{
    return run_step_command(argc, argv, "sobel", step_sobel);
}
