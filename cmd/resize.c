/* gpuimg resize: resampling to a size or by a scale (gpuimg.h, resize). */

#include "commands.h"
#include "op_options.h"
#include "options.h"
#include "run_images.h"

/* --size into both sides (later --width or --height change one). */
static int opt_size(const cli_option *o, const char *arg)
{
    gi_resize_params *p = o->target;
    int box[2];
    if (opt_box(o, arg, box)) return -1;
    p->width = box[0];
    p->height = box[1];
    return 0;
}

int step_resize(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    gi_op op;
    gi_op_default(GI_OP_RESIZE, &op);
    gi_resize_params *params = &op.resize;
    cli_option own[OP_OPTIONS_MAX + 2];
    int n = op_options(&op, own);
    own[n] = (cli_option){"size", 0, "WxH",
                          "a box for the output (N: N x N); --fit says how it is filled",
                          opt_size, params};
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
    if (params->scale > 0 && (params->width || params->height))
        return cli_usage_error(common, "give --scale or a size (--width, --height, --size), "
                               "not both");
    if (!params->scale && !params->width && !params->height)
        return cli_usage_error(common, "give --width, --height, --size or --scale");
    *step = op;
    return CLI_RUN;
}

int cmd_resize(int argc, char **argv)
{
    return run_step_command(argc, argv, "resize", step_resize);
}
