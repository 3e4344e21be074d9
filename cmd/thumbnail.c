/* gpuimg thumbnail: a photo made small, fast: a JPEG decoded at 1/2, 1/4
 * or 1/8 of its size inside the IDCT (gi_load_limits.shrink_to), turned
 * as a viewer shows it, then resized the rest of the way. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "run_images.h"

static int opt_crop(const cli_option *o, const char *arg)
{
    if (strcmp(arg, "none") == 0) return *(int *)o->target = 0, 0;
    if (strcmp(arg, "centre") == 0 || strcmp(arg, "center") == 0) return *(int *)o->target = 1, 0;
    fprintf(stderr, "%s: --crop '%s': expected none or centre\n", cli_message_prefix, arg);
    return -1;
}

int cmd_thumbnail(int argc, char **argv)
{
    cli_common common;
    int box[2] = {0, 0}, crop = 0;
    const cli_option own[] = {
        {"size", 0, "N|WxH", "the box the thumbnail fits in (N: N x N)", opt_box, box},
        {"crop", 0, "C", "none (default: the whole photo, inside the box) or centre (the box "
         "filled, the overflow cut evenly from both sides)", opt_crop, &crop},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg thumbnail --size N|WxH [--crop none|centre] [options] IN OUT\n"
        "       gpuimg thumbnail --size N|WxH [--crop none|centre] [options] -o OUTDIR IN...",
        "Makes a thumbnail as libvips's thumbnail does: a JPEG is decoded at 1/2, 1/4\n"
        "or 1/8 of its size inside the IDCT (the largest shrink that keeps both sides\n"
        "at least the box's larger side), turned as its Exif Orientation says a viewer\n"
        "shows it, then resized with lanczos3 the rest of the way (resize --size WxH,\n"
        "--fit inside; with --crop centre, --fit cover and then crop --gravity centre).\n"
        "Other images are resized from their full size. Of the metadata only the\n"
        "colour description is written (an ICC profile, PNG sRGB, gAMA, cHRM; none\n"
        "with --strip): the photo's Exif dimensions and embedded preview no longer\n"
        "fit it. The bytes are the same on the CPU and the GPU."};
    cli_common_init(&common, "thumbnail");
    char **files;
    int count;
    int rc = cli_parse_command(argc, argv, &common, own, CLI_RUN_OPTIONS, &help, &files, &count);
    if (rc != CLI_RUN) return rc;
    if (!box[0]) return cli_usage_error(&common, "--size N or WxH is required");
    gi_op steps[2] = {{.kind = GI_OP_RESIZE}, {.kind = GI_OP_CROP}};
    gi_resize_params_default(&steps[0].resize);
    steps[0].resize.width = box[0];
    steps[0].resize.height = box[1];
    steps[0].resize.fit = crop ? GI_FIT_COVER : GI_FIT_INSIDE;
    steps[1].crop = (gi_crop_params){0, 0, box[0], box[1], 1};
    common.auto_orient = 1;
    if (!common.strip) common.strip = GI_STRIP_BUT_COLOUR; /* --strip: none at all */
    common.limits.shrink_to = box[0] > box[1] ? box[0] : box[1];
    return run_images(&common, files, count, steps, crop ? 2 : 1);
}
