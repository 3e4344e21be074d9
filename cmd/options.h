/* Option tables shared by every command: each option is declared once,
 * with its help text, and parsed by the generic loop in options.c. */
#ifndef GPUIMG_OPTIONS_H
#define GPUIMG_OPTIONS_H

#include "gpuimg.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

typedef struct cli_option cli_option;
/* Stores `arg` (NULL for flags) into o->target; prints and returns -1 when
 * the value is invalid. */
typedef int (*cli_apply)(const cli_option *o, const char *arg);

struct cli_option {
    const char *name;    /* long name, without "--" */
    int short_name;      /* 0 when none */
    const char *metavar; /* NULL for a flag */
    const char *help;
    cli_apply apply;
    void *target;
};

/* Settings every command understands. */
typedef struct cli_common {
    const char *command;      /* what messages name: "blur", "pipe: step 2 (sobel)" */
    const char *help_command; /* the command whose --help to point to */
    int verbosity; /* 0 = -q, 1 = normal, 2 = -v */
    gi_device device;
    gi_gpus gpus;  /* --gpus or GPUIMG_GPUS; count 0 = all */
    int jobs;      /* 0 = one per core */
    int help;
    gi_border border;
    gi_format format;
    int quality;
    int png_level;  /* 0 = the default for the deflate in use */
    gi_png_filter png_filter; /* 0 = auto, the library's default */
    gi_tiff_compression tiff_compression; /* 0 = deflate */
    const char *output_dir;
    int recursive;          /* -r: directories as inputs */
    const char *files_from; /* --files-from FILE|- */
    int skip_existing;
    int shard, shard_count; /* --shard K/N; 0/1 = everything */
    const char *summary_json;
    int auto_orient; /* --auto-orient or GPUIMG_AUTO_ORIENT=1: pixels as a viewer shows them */
    int strip;       /* --strip: write no metadata */
    int depth;       /* --depth or GPUIMG_DEPTH: 0 keep, 8 or 16 bits a written sample */
    gi_load_limits limits;
    int no_server;   /* --no-server: run here even when `gpuimg serve` answers */
} cli_common;

void cli_common_init(cli_common *c, const char *command);

/* The GPUIMG_* environment variables, each checked as its option is (and
 * with its message, naming the variable): GPUIMG_DEVICE, GPUIMG_GPUS,
 * GPUIMG_MAX_PIXELS, GPUIMG_AUTO_ORIENT and GPUIMG_DEPTH into c; GPUIMG_CPU_ISA, GPUIMG_JPEG_ARITHMETIC and
 * GPUIMG_JPEG_ENTROPY only checked (the library reads them). An empty
 * variable counts as unset. cli_parse calls it before reading the options,
 * which override it. Returns 0, or -1 after printing why. */
int cli_apply_environment(cli_common *c);

/* What option value errors start with: "gpuimg CMD" of the command being
 * parsed (cli_parse sets it): "gpuimg blur", "gpuimg pipe: step 2 (sobel)". */
extern const char *cli_message_prefix;

/* The exit status of standard output that could not be written (main
 * checks it last): EXIT_FAIL, or 2 for compare, whose 1 means "different"
 * and 2 trouble, as for cmp and diff. */
extern int cli_output_failure_status;

/* Which of the common options a command takes besides the general ones
 * (help, -q, -v, --device, -j, limits): none (hist, bench), those of the
 * run (-o and batch options, the output format and codec settings), or
 * those of the run and of filtering (--border, --border-value). */
enum { CLI_GENERAL_OPTIONS = 0, CLI_IMAGE_OPTIONS = 1, CLI_RUN_OPTIONS = 2 };

/* Parses argv with the common options plus the command's own (a table
 * ending in {0}). Positional arguments are collected in order into
 * positional[0..*count). Returns 0, or EXIT_USAGE after printing why. */
int cli_parse(int argc, char **argv, cli_common *common, const cli_option *own,
              int image_options, char ***positional, int *count);

/* Prints the command's usage line(s), description and every option. */
void cli_print_help(const cli_common *common, const char *usage, const char *description,
                    const cli_option *own, int image_options);

/* What --help prints above the options. */
typedef struct {
    const char *usage, *description;
} cli_help;

/* What a command calls: cli_parse, then --help. Returns CLI_RUN when the
 * command should go on, else its exit status (EXIT_OK once the help is
 * printed, EXIT_USAGE after a bad option). */
#define CLI_RUN (-1)
int cli_parse_command(int argc, char **argv, cli_common *common, const cli_option *own,
                      int image_options, const cli_help *help, char ***positional, int *count);

/* "gpuimg CMD: message" on stderr, then the usage hint; returns EXIT_USAGE. */
int cli_usage_error(const cli_common *common, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Value parsers for option tables. */
int opt_flag(const cli_option *o, const char *arg);
int opt_double(const cli_option *o, const char *arg);          /* any finite */
int opt_double_positive(const cli_option *o, const char *arg); /* finite, > 0 */
int opt_double_nonneg(const cli_option *o, const char *arg);   /* finite, >= 0 */
int opt_int_range(const cli_option *o, const char *arg, long min, long max);
int opt_string(const cli_option *o, const char *arg);             /* const char * */
/* N (N x N) or WxH, sides 1..GI_RESIZE_MAX_SIDE, into int[2]: resize's and
 * thumbnail's --size. */
int opt_box(const cli_option *o, const char *arg);

#endif
