/* gpuimg transpose, rotate 90|180|270, flip h|v: exact pixel permutations. */
#include <string.h>

#include "commands.h"
#include "options.h"
#include "run_images.h"

static gi_status transform_image(gi_context *ctx, const gi_image *src, gi_image *dst,
                                 const void *arg)
{
    gi_transform t = *(const gi_transform *)arg;
    int w, h;
    gi_transform_size(src, t, &w, &h);
    gi_status st = gi_image_alloc(dst, w, h, src->channels);
    return st == GI_OK ? gi_transform_image(ctx, src, dst, t) : st;
}

typedef struct {
    const char *word;
    gi_transform t;
} transform_word;

/* Shared by the three commands: `words` (NULL for transpose) is what the
 * first argument may say, and picks the transform. */
static int run_transform(int argc, char **argv, const char *usage, const char *description,
                         const transform_word *words, gi_transform fixed)
{
    cli_common common;
    cli_common_init(&common, argv[0]);
    const cli_help help = {usage, description};
    char **files;
    int count;
    int rc = cli_parse_command(argc, argv, &common, NULL, 1, &help, &files, &count);
    if (rc != CLI_RUN) return rc;
    gi_transform t = fixed;
    if (words) {
        if (count == 0) return cli_usage_error(&common, "missing %s", words[0].word[0] == 'h'
                                                                      ? "axis (h or v)"
                                                                      : "angle (90, 180 or 270)");
        int found = 0;
        for (; words->word; words++)
            if (strcmp(files[0], words->word) == 0) t = words->t, found = 1;
        if (!found) return cli_usage_error(&common, "'%s' is not one of the choices", files[0]);
        files++;
        count--;
    }
    return run_images(&common, files, count, transform_image, &t);
}

int cmd_transpose(int argc, char **argv)
{
    return run_transform(argc, argv,
                         "usage: gpuimg transpose [options] IN OUT\n"
                         "       gpuimg transpose [options] -o OUTDIR IN...",
                         "Swaps rows and columns: out(x, y) = in(y, x).", NULL, GI_TRANSPOSE);
}

int cmd_rotate(int argc, char **argv)
{
    static const transform_word angles[] = {
        {"90", GI_ROTATE_90}, {"180", GI_ROTATE_180}, {"270", GI_ROTATE_270}, {NULL, 0}};
    return run_transform(argc, argv,
                         "usage: gpuimg rotate 90|180|270 [options] IN OUT\n"
                         "       gpuimg rotate 90|180|270 [options] -o OUTDIR IN...",
                         "Rotates clockwise by the angle.", angles, GI_ROTATE_90);
}

int cmd_flip(int argc, char **argv)
{
    static const transform_word axes[] = {{"h", GI_FLIP_H}, {"v", GI_FLIP_V}, {NULL, 0}};
    return run_transform(argc, argv,
                         "usage: gpuimg flip h|v [options] IN OUT\n"
                         "       gpuimg flip h|v [options] -o OUTDIR IN...",
                         "Mirrors the image: h swaps left and right, v turns it upside down.",
                         axes, GI_FLIP_H);
}
