/* gpuimg blur: Gaussian or box blur with a selectable border. */
#include "commands.h"
#include "op_options.h"
#include "options.h"
#include "run_images.h"

int step_blur(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    gi_op op;
    gi_op_default(GI_OP_BLUR, &op);
    cli_option own[OP_OPTIONS_MAX + 1];
    op_options(&op, own);
    static const cli_help help = {
        "usage: gpuimg blur [options] IN OUT\n"
        "       gpuimg blur [options] -o OUTDIR IN...",
        "Blurs with a separable Gaussian (or box) kernel. Images with alpha are\n"
        "blurred premultiplied, so colours do not darken next to transparency.\n"
        "IN and OUT may be '-' for standard input and output."};
    int rc = cli_parse_command(argc, argv, common, own, 1, &help, files, count);
    if (rc != CLI_RUN) return rc;
    gi_blur_params params = op.blur;
    if (params.kernel == GI_BLUR_GAUSSIAN && gi_blur_radius(&params) < 0)
        return cli_usage_error(common, "--sigma %g needs a radius over %d; give --radius",
                               params.sigma, GI_BLUR_MAX_RADIUS);
    if (params.kernel == GI_BLUR_BOX && params.radius < 0) params.radius = gi_blur_radius(&params);
    params.border = common->border;
    *step = (gi_op){.kind = GI_OP_BLUR, .blur = params};
    return CLI_RUN;
}

int cmd_blur(int argc, char **argv)
{
    return run_step_command(argc, argv, "blur", step_blur);
}
