/* gpuimg pipe 'blur --sigma 2 | rotate 90 | sobel --gray' IN OUT: several
 * operations in one run, the pixels kept where the backend computes
 * between them. Each step is parsed by its command's own option table
 * (commands.h), so a step takes exactly what the command takes alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "hist.h"
#include "options.h"
#include "run_images.h"

#define MAX_WORDS 64 /* per step */
#define MAX_TEXT 8192

typedef struct {
    const char *name;
    step_parser parse;
} step_command;

static const step_command step_commands[] = {
    {"blur", step_blur},         {"sobel", step_sobel}, {"convolve", step_convolve},
    {"transpose", step_transpose}, {"rotate", step_rotate}, {"flip", step_flip},
    {"resize", step_resize},     {"crop", step_crop},
};
#define STEP_COMMAND_COUNT (int)(sizeof step_commands / sizeof step_commands[0])

/* The words of one step, split at blanks outside '...' and "..." quotes,
 * into `text` (which holds them, NUL-separated). Returns the word count,
 * or -1 with *why set. */
static int split_words(const char *step, char *text, size_t text_size, char **words,
                       const char **why)
{
    int n = 0;
    size_t used = 0;
    const char *p = step;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (!*p) return n;
        if (n == MAX_WORDS) return *why = "too many words", -1;
        words[n++] = text + used;
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
            if (!quote && (*p == '\'' || *p == '"')) quote = *p;
            else if (quote && *p == quote) quote = 0;
            else if (used + 1 < text_size) text[used++] = *p;
            else return *why = "too long", -1;
        }
        if (quote) return *why = "an unclosed quote", -1;
        text[used++] = '\0';
    }
}

/* The steps' texts, split at '|' outside quotes, into `parts`. Returns the
 * count, or -1 when there are more than `max`. */
static int split_steps(char *spec, char **parts, int max)
{
    int n = 0;
    char quote = 0;
    parts[n++] = spec;
    for (char *p = spec; *p; p++) {
        if (!quote && (*p == '\'' || *p == '"')) quote = *p;
        else if (quote && *p == quote) quote = 0;
        else if (!quote && *p == '|') {
            if (n == max) return -1;
            *p = '\0';
            parts[n++] = p + 1;
        }
    }
    return n;
}

static const step_command *find_step(const char *name)
{
    for (int i = 0; i < STEP_COMMAND_COUNT; i++)
        if (strcmp(step_commands[i].name, name) == 0) return &step_commands[i];
    return NULL;
}

/* The options of how the run writes its image, set in c (fresh: as the
 * defaults and the environment leave them): their names, or NULL. */
static const char *image_writing_option(const cli_common *c, const cli_common *fresh)
{
    if (c->format != fresh->format || c->quality != fresh->quality ||
        c->png_level != fresh->png_level || c->png_filter != fresh->png_filter ||
        c->tiff_compression != fresh->tiff_compression || c->depth != fresh->depth)
        return "--format, --quality, --png-level, --png-filter, --tiff-compression, --depth";
    if (c->strip != fresh->strip) return "--strip";
    return NULL;
}

/* A step may set its command's own options and the image options
 * (--border, --border-value): everything else belongs to the whole run. */
static const char *run_option_in_step(const cli_common *c, const cli_common *fresh)
{
    if (c->output_dir || c->recursive || c->files_from || c->skip_existing || c->summary_json ||
        c->shard_count != fresh->shard_count)
        return "-o, -r, --files-from, --skip-existing, --shard, --summary-json";
    /* each option a step's parse takes and the run alone reads, or one in
     * a step would be dropped in silence (--depth 8 in a step: 16 bits out) */
    if (c->jobs != fresh->jobs || c->device != fresh->device || c->verbosity != fresh->verbosity ||
        memcmp(&c->gpus, &fresh->gpus, sizeof c->gpus) != 0 || c->no_server != fresh->no_server)
        return "-j, --device, --gpus, --no-server, -q, -v";
    const char *writing = image_writing_option(c, fresh);
    if (writing) return writing;
    if (c->limits.max_pixels != fresh->limits.max_pixels ||
        c->limits.max_input_bytes != fresh->limits.max_input_bytes)
        return "--max-pixels, --max-input-bytes";
    if (c->auto_orient != fresh->auto_orient) return "--auto-orient";
    return NULL;
}

typedef struct {
    gi_op steps[GI_MAX_STEPS];
    int n;
    int ends_in_hist;
    hist_settings hist;
    char names[GI_MAX_STEPS][48]; /* "step 2 (sobel)", for messages */
} pipe_plan;

/* Parses step i (its words in argv) into the plan. Returns CLI_RUN or an
 * exit status, after printing a message that names the step. */
static int parse_step(pipe_plan *plan, int i, int last, int argc, char **argv)
{
    char command[96];
    snprintf(plan->names[i], sizeof plan->names[i], "step %d (%.20s)", i + 1, argv[0]);
    snprintf(command, sizeof command, "pipe: %s", plan->names[i]);
    cli_common c, fresh;
    cli_common_init(&c, command);
    cli_common_init(&fresh, command);
    (void)cli_apply_environment(&fresh); /* as the step's parse applies it to c */
    c.help_command = argv[0];
    char **files;
    int count, rc;
    const step_command *sc = find_step(argv[0]);
    if (strcmp(argv[0], "hist") == 0) {
        c.help_command = "hist";
        rc = last ? parse_hist(argc, argv, &c, &plan->hist, &files, &count)
                  : cli_usage_error(&c, "hist can only be the last step");
        plan->ends_in_hist = last;
    } else if (sc) {
        rc = sc->parse(argc, argv, &c, &plan->steps[plan->n], &files, &count);
        plan->n++;
    } else {
        c.help_command = "pipe";
        rc = cli_usage_error(&c, "no image command '%s' (blur, sobel, convolve, transpose, "
                             "rotate, flip, resize, crop; hist last)", argv[0]);
    }
    if (rc != CLI_RUN) return rc == EXIT_OK ? EXIT_USAGE : rc; /* no --help inside a step */
    const char *run_option = run_option_in_step(&c, &fresh);
    if (run_option)
        return cli_usage_error(&c, "%s go outside the quotes, for the whole run", run_option);
    if (count) return cli_usage_error(&c, "unexpected '%s': files go outside the quotes", files[0]);
    return CLI_RUN;
}

/* Splits and parses the steps' text. Returns CLI_RUN or an exit status. */
static int parse_plan(const cli_common *c, const char *spec, pipe_plan *plan)
{
    static char copy[MAX_TEXT], words_text[MAX_TEXT];
    char *parts[GI_MAX_STEPS];
    memset(plan, 0, sizeof *plan);
    if (strlen(spec) >= sizeof copy) return cli_usage_error(c, "the steps are too long");
    snprintf(copy, sizeof copy, "%s", spec);
    int n = split_steps(copy, parts, GI_MAX_STEPS);
    if (n < 0) return cli_usage_error(c, "more than %d steps", GI_MAX_STEPS);
    for (int i = 0; i < n; i++) {
        char *argv[MAX_WORDS + 1];
        const char *why = NULL;
        int argc = split_words(parts[i], words_text, sizeof words_text, argv, &why);
        if (argc < 0) return cli_usage_error(c, "step %d: %s", i + 1, why);
        if (argc == 0) return cli_usage_error(c, "step %d is empty", i + 1);
        argv[argc] = NULL;
        int rc = parse_step(plan, i, i + 1 == n, argc, argv);
        if (rc != CLI_RUN) return rc;
    }
    return CLI_RUN;
}

int cmd_pipe(int argc, char **argv)
{
    cli_common common;
    cli_common_init(&common, "pipe");
    static const cli_help help = {
        "usage: gpuimg pipe 'STEP | STEP ...' [options] IN OUT\n"
        "       gpuimg pipe 'STEP | STEP ...' [options] -o OUTDIR IN...",
        "Runs several operations on each image in one go: the pixels stay in\n"
        "memory between the steps (on the GPU under CUDA: one upload and one\n"
        "download per image), and the result is byte for byte what the commands\n"
        "give one after another with PNG in between. Each STEP is an image\n"
        "command with exactly the options it takes alone (see 'gpuimg help\n"
        "COMMAND'): blur, sobel, convolve, transpose, rotate, flip, resize, crop;\n"
        "hist may be the last step, which writes the histogram of the result to\n"
        "OUT (one image only; the options of a written image, such as --depth,\n"
        "are refused then). Quote a step's values with ' or \" inside the steps.\n"
        "The options below are for the whole run and go outside the quotes.\n"
        "Example: gpuimg pipe 'blur --sigma 2 | rotate 90 | sobel --gray' in.jpg out.png"};
    char **files;
    int count;
    int rc = cli_parse_command(argc, argv, &common, NULL, CLI_RUN_OPTIONS, &help, &files, &count);
    if (rc != CLI_RUN) return rc;
    if (count < 1) return cli_usage_error(&common, "missing the steps, e.g. 'blur | sobel'");
    pipe_plan plan;
    rc = parse_plan(&common, files[0], &plan);
    if (rc != CLI_RUN) return rc;
    if (!plan.ends_in_hist) return run_images(&common, files + 1, count - 1, plan.steps, plan.n);
    if (common.output_dir || count < 2 || count > 3)
        return cli_usage_error(&common, "a pipe ending in hist takes one IN [OUT]");
    /* hist writes text: an image option would be dropped in silence
     * (--depth 8: the 16-bit samples counted all the same) */
    cli_common fresh;
    cli_common_init(&fresh, "pipe");
    (void)cli_apply_environment(&fresh); /* as the parse applied it to common */
    const char *writing = image_writing_option(&common, &fresh);
    if (writing)
        return cli_usage_error(&common, "%s: a pipe ending in hist writes no image (its own "
                               "--format goes inside the quotes)", writing);
    return hist_file(&common, &plan.hist, files[1], count == 3 ? files[2] : "-", plan.steps, plan.n);
}
