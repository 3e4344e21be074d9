/* gpuimg convolve: any odd mask up to 31x31, applied as a correlation. */
#include <stdio.h>

#include "commands.h"
#include "mask_parse.h"
#include "op_options.h"
#include "options.h"
#include "run_images.h"

static int opt_mask(const cli_option *o, const char *arg)
{
    char why[256];
    if (mask_parse_spec(arg, o->target, why, sizeof why) == 0) return 0;
    fprintf(stderr, "%s: --kernel: %s\n", cli_message_prefix, why);
    return -1;
}

int step_convolve(int argc, char **argv, cli_common *common, gi_op *step, char ***files,
                  int *count)
{
    /* 7.7 KB of doubles each, off the stack; one per step of a pipe, whose
     * steps all stay parsed while it runs */
    static parsed_mask masks[GI_MAX_STEPS];
    static int next_mask;
    parsed_mask *mask = &masks[next_mask++ % GI_MAX_STEPS];
    gi_op op;
    gi_op_default(GI_OP_CONVOLVE, &op);
    mask->height = 0;
    const gi_op_param *kernel = gi_op_param_find(GI_OP_CONVOLVE, "kernel");
    cli_option own[OP_OPTIONS_MAX + 2] = {
        {kernel->name, kernel->short_name, kernel->metavar, kernel->help, opt_mask, mask}};
    op_options(&op, own + 1);
    static const cli_help help = {
        "usage: gpuimg convolve --kernel MASK [options] IN OUT\n"
        "       gpuimg convolve --kernel MASK [options] -o OUTDIR IN...",
        "Filters with an odd mask up to 31x31, applied unflipped and centred:\n"
        "a correlation, as OpenCV's filter2D and the formula\n"
        "    out(x, y) = sum m[j][i] * in(x + i - rx, y + j - ry).\n"
        "Every channel (alpha too) is filtered on its own; results are rounded\n"
        "and clamped to 0..255 (0..65535 at 16 bits). Rows are separated by ';'\n"
        "or newlines."};
    int rc = cli_parse_command(argc, argv, common, own, 1, &help, files, count);
    if (rc != CLI_RUN) return rc;
    gi_convolve_params params = op.convolve;
    if (mask->height == 0) return cli_usage_error(common, "--kernel MASK is required");
    if (!(mask->width & 1) || !(mask->height & 1))
        return cli_usage_error(common, "--kernel: the mask is %dx%d; width and height must be odd",
                               mask->width, mask->height);
    params.width = mask->width;
    params.height = mask->height;
    params.mask = mask->values;
    params.border = common->border;
    gi_convolve_weights check;
    if (gi_convolve_quantize(&params, &check) != GI_OK)
        return cli_usage_error(common, "--kernel: %s", gi_last_error());
    *step = (gi_op){.kind = GI_OP_CONVOLVE, .convolve = params};
    return CLI_RUN;
}

int cmd_convolve(int argc, char **argv)
{
    return run_step_command(argc, argv, "convolve", step_convolve);
}
