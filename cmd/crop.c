/* gpuimg crop: a rectangle of the image (gpuimg.h, crop). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "run_images.h"

static int opt_gravity(const cli_option *o, const char *arg)
{
    if (strcmp(arg, "centre") == 0 || strcmp(arg, "center") == 0)
        return *(int *)o->target = 1, 0;
    fprintf(stderr, "%s: --gravity '%s': expected centre\n", cli_message_prefix, arg);
    return -1;
}

/* A whole number 0..INT32_MAX from a positional argument; -1 when not. */
static long count_arg(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return end == s || *end || errno == ERANGE || v < 0 || v > INT32_MAX ? -1 : v;
}

int step_crop(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    gi_crop_params params = {0};
    const cli_option own[] = {
        {"gravity", 0, "G", "centre: take W H from the middle (then no X Y); a side larger "
         "than the image is cut to it", opt_gravity, &params.centre},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg crop X Y W H [options] IN OUT\n"
        "       gpuimg crop --gravity centre W H [options] IN OUT\n"
        "       gpuimg crop X Y W H [options] -o OUTDIR IN...",
        "Takes the W x H rectangle whose top-left pixel is (X, Y), samples unchanged.\n"
        "W or H 0 reaches the image's edge; a rectangle that passes the right or bottom\n"
        "edge is cut there, and one that starts outside the image fails."};
    int rc = cli_parse_command(argc, argv, common, own, CLI_RUN_OPTIONS, &help, files, count);
    if (rc != CLI_RUN) return rc;
    const int need = params.centre ? 2 : 4;
    if (*count < need)
        return cli_usage_error(common, params.centre ? "expected W H before the files"
                                                     : "expected X Y W H before the files");
    long v[4] = {0, 0, 0, 0};
    for (int i = 0; i < need; i++) {
        v[4 - need + i] = count_arg((*files)[i]);
        if (v[4 - need + i] < 0)
            return cli_usage_error(common, "'%s' is not a whole number >= 0", (*files)[i]);
    }
    *files += need;
    *count -= need;
    params.x = (int)v[0];
    params.y = (int)v[1];
    params.width = (int)v[2];
    params.height = (int)v[3];
    *step = (gi_op){.kind = GI_OP_CROP, .crop = params};
    return CLI_RUN;
}

int cmd_crop(int argc, char **argv)
{
    return run_step_command(argc, argv, "crop", step_crop);
}
