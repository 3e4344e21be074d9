/* gpuimg crop: a rectangle of the image (gpuimg.h, crop). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* crop's two forms, shown under each complaint about its numbers. */
static const char forms[] = "usage: gpuimg crop X Y W H IN OUT\n"
                            "   or: gpuimg crop --gravity centre W H IN OUT";

static int numbers_error(const cli_common *common, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A usage error about crop's numbers, then its forms. */
static int numbers_error(const cli_common *common, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return cli_usage_error(common, "%s\n%s", text, forms);
}

/* Whether a word is meant as a number (a digit first, after a sign if
 * any: "12", "-1", "1.5"), which the table then checks; any other word is
 * taken for the first file. */
static int numeric(const char *word)
{
    if (*word == '+' || *word == '-') word++;
    return *word >= '0' && *word <= '9';
}

/* How many of the leading words are numbers: past the `need` crop takes,
 * a numeric word that names a file is a file (an input may be called 5). */
static int count_numbers(char **words, int count, int need)
{
    int k = 0;
    while (k < count && numeric(words[k]) && (k < need || access(words[k], F_OK) != 0)) k++;
    return k;
}

/* Too few or too many numbers (centre: the --gravity form): how many, the
 * word the numbers stopped at, and the forms. */
static int wrong_count(const cli_common *common, int centre, int found, char **words, int count)
{
    const int need = centre ? 2 : 4;
    char seen[320];
    const int n = found ? snprintf(seen, sizeof seen, "%d", found)
                        : snprintf(seen, sizeof seen, "none");
    if (found < need && found < count)
        snprintf(seen + n, sizeof seen - (size_t)n, " before '%s'", words[found]);
    return numbers_error(common, "%s before the files; found %s%s",
                         centre ? "with --gravity centre, expected 2 numbers, W H,"
                                : "expected 4 numbers, X Y W H,",
                         seen,
                         centre && found == 4 ? " (X and Y are for the form without --gravity)"
                                              : "");
}

int step_crop(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count)
{
    gi_op op;
    gi_op_default(GI_OP_CROP, &op);
    const cli_option own[] = {
        {"gravity", 0, "G", "centre: take W H from the middle (then no X Y); a side larger "
         "than the image is cut to it", opt_gravity, &op.crop.centre},
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
    const int centre = op.crop.centre, need = centre ? 2 : 4;
    const int found = count_numbers(*files, *count, need);
    if (found != need) return wrong_count(common, centre, found, *files, *count);
    /* each number by the table's rule and message, as Python's crop() */
    static const char *const names[] = {"x", "y", "width", "height"};
    for (int i = 0; i < need; i++)
        if (gi_op_param_parse(gi_op_param_find(GI_OP_CROP, names[4 - need + i]), (*files)[i],
                              &op) != GI_OK)
            return numbers_error(common, "%s", gi_last_error());
    *files += need;
    *count -= need;
    *step = op;
    return CLI_RUN;
}

int cmd_crop(int argc, char **argv)
{
    return run_step_command(argc, argv, "crop", step_crop);
}
