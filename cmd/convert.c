/* gpuimg convert: a file in another format, its pixels unchanged. */
#include "commands.h"
#include "options.h"
#include "run_images.h"

int step_convert(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    static const cli_help help = {
        "usage: gpuimg convert [options] IN OUT\n"
        "       gpuimg convert --format FMT [options] -o OUTDIR IN...",
        "Writes the image in the format of OUT's name (or --format): PNG, JPEG, PNM,\n"
        "PAM or TIFF, with --quality, --png-level, --png-filter and --tiff-compression.\n"
        "The pixels are unchanged (the step is the crop of the whole image); JPEG\n"
        "output drops alpha, PNM output drops it too (PAM and TIFF keep it). Metadata\n"
        "is kept unless --strip."};
    int rc = cli_parse_command(argc, argv, common, NULL, CLI_RUN_OPTIONS, &help, files, count);
    if (rc != CLI_RUN) return rc;
    *step = (gi_op){.kind = GI_OP_CROP, .crop = {0, 0, 0, 0, 0}};
    return CLI_RUN;
}

int cmd_convert(int argc, char **argv)
{
    return run_step_command(argc, argv, "convert", step_convert);
}
