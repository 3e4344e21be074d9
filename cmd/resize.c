/* gpuimg resize: resampling to a size or by a scale (gpuimg.h, resize). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "run_images.h"

static int opt_side(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 1, GI_RESIZE_MAX_SIDE);
}

/* WxH, or N for a box of N x N. */
static int opt_box(const cli_option *o, const char *arg)
{
    gi_resize_params *p = o->target;
    int w, h, used = 0;
    if (sscanf(arg, "%dx%d%n", &w, &h, &used) == 2 && !arg[used]) {
    } else if (sscanf(arg, "%d%n", &w, &used) == 1 && !arg[used]) {
        h = w;
    } else {
        fprintf(stderr, "%s: --%s '%s': expected WxH or N\n", cli_message_prefix, o->name, arg);
        return -1;
    }
    if (w < 1 || h < 1 || w > GI_RESIZE_MAX_SIDE || h > GI_RESIZE_MAX_SIDE) {
        fprintf(stderr, "%s: --%s '%s': sides are 1..%d\n", cli_message_prefix, o->name, arg,
                GI_RESIZE_MAX_SIDE);
        return -1;
    }
    p->width = w;
    p->height = h;
    return 0;
}

static int opt_fit(const cli_option *o, const char *arg)
{
    static const char *const names[] = {"inside", "fill", "cover"};
    for (int f = 0; f < 3; f++)
        if (strcmp(arg, names[f]) == 0) return *(gi_resize_fit *)o->target = (gi_resize_fit)f, 0;
    fprintf(stderr, "%s: --fit '%s': expected inside, fill or cover\n", cli_message_prefix, arg);
    return -1;
}

static int opt_filter(const cli_option *o, const char *arg)
{
    if (gi_resize_filter_parse(arg, o->target) == 0) return 0;
    fprintf(stderr, "%s: --filter '%s': expected lanczos3, lanczos2, cubic, linear, area or "
            "nearest\n", cli_message_prefix, arg);
    return -1;
}

int step_resize(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    gi_resize_params params;
    gi_resize_params_default(&params);
    const cli_option own[] = {
        {"width", 'W', "W", "output width; alone, the height keeps the aspect ratio", opt_side,
         &params.width},
        {"height", 'H', "H", "output height; alone, the width keeps the aspect ratio", opt_side,
         &params.height},
        {"size", 0, "WxH", "a box for the output (N: N x N); --fit says how it is filled",
         opt_box, &params},
        {"scale", 0, "S", "scale both sides by S > 0 (0.5 halves, 2 doubles)",
         opt_double_positive, &params.scale},
        {"fit", 0, "FIT", "with a width and a height: inside (default: the largest size of the "
         "image's aspect within the box), fill (exactly the box, stretched), cover (the "
         "smallest that covers the box)", opt_fit, &params.fit},
        {"filter", 0, "F", "lanczos3 (default), lanczos2, cubic (Catmull-Rom), linear, area "
         "(box average), nearest", opt_filter, &params.filter},
        {0},
    };
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
    if (params.scale > 0 && (params.width || params.height))
        return cli_usage_error(common, "give --scale or a size (--width, --height, --size), "
                               "not both");
    if (!params.scale && !params.width && !params.height)
        return cli_usage_error(common, "give --width, --height, --size or --scale");
    *step = (gi_op){.kind = GI_OP_RESIZE, .resize = params};
    return CLI_RUN;
}

int cmd_resize(int argc, char **argv)
{
    return run_step_command(argc, argv, "resize", step_resize);
}
