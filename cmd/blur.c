/* gpuimg blur: Gaussian or box blur with a selectable border. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "run_images.h"

static int opt_radius(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 0, GI_BLUR_MAX_RADIUS);
}

static int opt_kernel(const cli_option *o, const char *arg)
{
    gi_blur_kernel *k = o->target;
    if (strcmp(arg, "gaussian") == 0) *k = GI_BLUR_GAUSSIAN;
    else if (strcmp(arg, "box") == 0) *k = GI_BLUR_BOX;
    else {
        fprintf(stderr, "%s: --kernel '%s': expected gaussian or box\n", cli_message_prefix, arg);
        return -1;
    }
    return 0;
}

int step_blur(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    gi_blur_params params;
    gi_blur_params_default(&params);
    const cli_option own[] = {
        {"sigma", 's', "S", "Gaussian standard deviation, > 0 (default 1)", opt_double_positive,
         &params.sigma},
        {"radius", 0, "R", "kernel radius 0..1024 (default ceil(3 * sigma))", opt_radius,
         &params.radius},
        {"kernel", 'k', "K", "gaussian | box, box being the (2R+1)^2 mean (default gaussian)",
         opt_kernel, &params.kernel},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg blur [options] IN OUT\n"
        "       gpuimg blur [options] -o OUTDIR IN...",
        "Blurs with a separable Gaussian (or box) kernel. Images with alpha are\n"
        "blurred premultiplied, so colours do not darken next to transparency.\n"
        "IN and OUT may be '-' for standard input and output."};
    int rc = cli_parse_command(argc, argv, common, own, 1, &help, files, count);
    if (rc != CLI_RUN) return rc;
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
