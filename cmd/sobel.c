/* gpuimg sobel: gradient magnitude or a binary edge map. */
#include "commands.h"
#include "op_options.h"
#include "options.h"
#include "run_images.h"

int step_sobel(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    gi_op op;
    gi_op_default(GI_OP_SOBEL, &op);
    cli_option own[OP_OPTIONS_MAX + 1];
    op_options(&op, own);
    static const cli_help help = {
        "usage: gpuimg sobel [options] IN OUT\n"
        "       gpuimg sobel [options] -o OUTDIR IN...",
        "3x3 Sobel edges: out = min(255, round(scale * sqrt(gx^2 + gy^2))).\n"
        "16-bit images keep their range: min(65535, ...), and T in 16-bit units.\n"
        "Colour channels are filtered one by one; alpha is copied through."};
    int rc = cli_parse_command(argc, argv, common, own, 1, &help, files, count);
    if (rc != CLI_RUN) return rc;
    op.sobel.border = common->border;
    *step = op;
    return CLI_RUN;
}

int cmd_sobel(int argc, char **argv)
{
    return run_step_command(argc, argv, "sobel", step_sobel);
}
