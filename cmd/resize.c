/* gpuimg resize: resampling to a size or by a scale (gpuimg.h, resize). */

#include "commands.h"
#include "op_options.h"
#include "options.h"
#include "run_images.h"

#define FIT_NOT_GIVEN ((gi_resize_fit)-1)

int step_resize(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    gi_op op;
    gi_op_default(GI_OP_RESIZE, &op);
    gi_resize_params *params = &op.resize;
    /* none until --fit is given (the table's parser stores a valid choice
     * only): a fit without both sides would be ignored in silence */
    params->fit = FIT_NOT_GIVEN;
    int box[2] = {0, 0};
    cli_option own[OP_OPTIONS_MAX + 2];
    int n = op_options(&op, own);
    own[n] = (cli_option){"size", 0, "WxH",
                          "a box for the output (N: N x N); --fit says how it is filled; not with "
                          "--width or --height",
                          opt_box, box};
    own[n + 1] = (cli_option){0};
    static const cli_help help = {
        "usage: gpuimg resize (--width W | --height H | --size WxH | --scale S) [options] IN OUT\n"
        "       gpuimg resize (--width W | --height H | --size WxH | --scale S) [options] -o "
        "OUTDIR IN...",
        "Resamples the image, separably, with the pixel-centre convention of libvips,\n"
        "Pillow and OpenCV. A reduction widens the filter by the reduction factor, so it\n"
        "averages every pixel it covers instead of aliasing. Images with alpha are\n"
        "resampled premultiplied. The samples are filtered as stored (gamma-encoded, as\n"
        "libvips, Pillow and OpenCV do by default). Integer weights make the result the\n"
        "same bytes on the CPU and the GPU; gpuimg.h gives the exact arithmetic."};
    int rc = cli_parse_command(argc, argv, common, own, CLI_RUN_OPTIONS, &help, files, count);
    if (rc != CLI_RUN) return rc;
    /* --size is both sides: with --width or --height one of them would go
     * by the options' order, which Python's keywords do not have */
    if (box[0] && (params->width || params->height))
        return cli_usage_error(common, "give --size or --width/--height, not both");
    if (box[0]) {
        params->width = box[0];
        params->height = box[1];
    }
    if (params->scale > 0 && (params->width || params->height))
        return cli_usage_error(common, "give --scale or a size (--width, --height, --size), "
                               "not both");
    if (!params->scale && !params->width && !params->height)
        return cli_usage_error(common, "give --width, --height, --size or --scale");
    if (params->fit != FIT_NOT_GIVEN && !(params->width && params->height))
        return cli_usage_error(common, "--fit needs both sides: --width and --height, or --size "
                               "WxH");
    if (params->fit == FIT_NOT_GIVEN) params->fit = GI_FIT_INSIDE;
    *step = op;
    return CLI_RUN;
}

int cmd_resize(int argc, char **argv)
{
    return run_step_command(argc, argv, "resize", step_resize);
}
