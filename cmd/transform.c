/* gpuimg transpose, rotate 90|180|270, flip h|v: exact pixel permutations. */
#include <string.h>

#include "commands.h"
#include "options.h"
#include "run_images.h"

/* What every transform's help adds. */
#define AS_SHOWN                                                                          \
    "\nIt acts on the image as a viewer shows it: a photo whose Exif Orientation says\n"  \
    "it is stored sideways is turned upright first, and written with Orientation 1."

typedef struct {
    const char *word;
    gi_transform t;
} transform_word;

/* Shared by the three commands: `words` (NULL for transpose) is what the
 * first argument may say, and picks the transform. */
static int parse_transform(int argc, char **argv, cli_common *common, gi_op *step, char ***files,
                           int *count, const char *usage, const char *description,
                           const transform_word *words, gi_transform fixed)
{
    const cli_help help = {usage, description};
    int rc = cli_parse_command(argc, argv, common, NULL, 1, &help, files, count);
    if (rc != CLI_RUN) return rc;
    gi_transform t = fixed;
    if (words) {
        if (*count == 0) return cli_usage_error(common, "missing %s", words[0].word[0] == 'h'
                                                                       ? "axis (h or v)"
                                                                       : "angle (90, 180 or 270)");
        int found = 0;
        for (; words->word; words++)
            if (strcmp((*files)[0], words->word) == 0) t = words->t, found = 1;
        if (!found) return cli_usage_error(common, "'%s' is not one of the choices", (*files)[0]);
        (*files)++;
        (*count)--;
    }
    *step = (gi_op){.kind = GI_OP_TRANSFORM, .transform = t};
    return CLI_RUN;
}

int step_transpose(int argc, char **argv, cli_common *common, gi_op *step, char ***files,
                   int *count)
{
    return parse_transform(argc, argv, common, step, files, count,
                         "usage: gpuimg transpose [options] IN OUT\n"
                         "       gpuimg transpose [options] -o OUTDIR IN...",
                         "Swaps rows and columns: out(x, y) = in(y, x)." AS_SHOWN, NULL,
                         GI_TRANSPOSE);
}

int step_rotate(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    static const transform_word angles[] = {
        {"90", GI_ROTATE_90}, {"180", GI_ROTATE_180}, {"270", GI_ROTATE_270}, {NULL, 0}};
    return parse_transform(argc, argv, common, step, files, count,
                         "usage: gpuimg rotate 90|180|270 [options] IN OUT\n"
                         "       gpuimg rotate 90|180|270 [options] -o OUTDIR IN...",
                         "Rotates clockwise by the angle." AS_SHOWN, angles, GI_ROTATE_90);
}

int step_flip(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    static const transform_word axes[] = {{"h", GI_FLIP_H}, {"v", GI_FLIP_V}, {NULL, 0}};
    return parse_transform(argc, argv, common, step, files, count,
                         "usage: gpuimg flip h|v [options] IN OUT\n"
                         "       gpuimg flip h|v [options] -o OUTDIR IN...",
                         "Mirrors the image: h swaps left and right, v turns it upside down."
                         AS_SHOWN, axes, GI_FLIP_H);
}

int cmd_transpose(int argc, char **argv)
{
    return run_step_command(argc, argv, "transpose", step_transpose);
}

int cmd_rotate(int argc, char **argv)
{
    return run_step_command(argc, argv, "rotate", step_rotate);
}

int cmd_flip(int argc, char **argv)
{
    return run_step_command(argc, argv, "flip", step_flip);
}
