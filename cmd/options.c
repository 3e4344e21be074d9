/* Generic option parsing over declarative tables (see options.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"

#define MAX_OPTIONS 64

const char *cli_message_prefix = "gpuimg";
static char command_prefix[160]; /* "gpuimg blur", set by cli_parse */
int cli_output_failure_status = EXIT_FAIL;

void cli_common_init(cli_common *c, const char *command)
{
    memset(c, 0, sizeof *c);
    c->command = command;
    c->help_command = command;
    c->verbosity = 1;
    c->device = GI_DEVICE_AUTO;
    c->border.mode = GI_BORDER_MIRROR;
    c->quality = 90;
    c->shard_count = 1;
    gi_load_limits_default(&c->limits);
}

int cli_usage_error(const cli_common *common, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "gpuimg %s: ", common->command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'gpuimg %s --help'.\n", common->help_command);
    return EXIT_USAGE;
}

/* How a message names a setting: "--sigma" for an option, the bare name
 * for an environment variable (cli_apply_environment's table). */
static const char *dashes(const cli_option *o)
{
    return strncmp(o->name, "GPUIMG_", 7) == 0 ? "" : "--";
}

static int invalid(const cli_option *o, const char *arg, const char *why)
{
    fprintf(stderr, "%s: %s%s '%s': %s\n", cli_message_prefix, dashes(o), o->name, arg, why);
    return -1;
}

int opt_flag(const cli_option *o, const char *arg)
{
    (void)arg;
    *(int *)o->target = 1;
    return 0;
}

static int parse_finite(const cli_option *o, const char *arg, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(arg, &end);
    if (end == arg || *end) return invalid(o, arg, "not a number");
    if (errno == ERANGE || !isfinite(*out)) return invalid(o, arg, "not a finite number");
    return 0;
}

int opt_double(const cli_option *o, const char *arg)
{
    return parse_finite(o, arg, o->target);
}

int opt_double_positive(const cli_option *o, const char *arg)
{
    double v;
    if (parse_finite(o, arg, &v)) return -1;
    if (!(v > 0)) return invalid(o, arg, "must be greater than 0");
    *(double *)o->target = v;
    return 0;
}

int opt_double_nonneg(const cli_option *o, const char *arg)
{
    double v;
    if (parse_finite(o, arg, &v)) return -1;
    if (v < 0) return invalid(o, arg, "must not be negative");
    *(double *)o->target = v;
    return 0;
}

int opt_int_range(const cli_option *o, const char *arg, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || errno == ERANGE || v < min || v > max) {
        fprintf(stderr, "%s: %s%s '%s': must be an integer from %ld to %ld\n", cli_message_prefix,
                dashes(o), o->name, arg, min, max);
        return -1;
    }
    *(int *)o->target = (int)v;
    return 0;
}

/* A whole number of digits alone at s, so that nothing wraps (sscanf's %d
 * read "4294967306" as 10) and " 5" or "+5" are not numbers; *end after
 * its digits. -1 when there are none; a value past max reads as max + 1,
 * which the caller's range check refuses. */
static long whole_digits(const char *s, const char **end, long max)
{
    const char *p = s;
    long v = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if (v <= max) v = v * 10 + (*p - '0');
    *end = p;
    return p == s ? -1 : v > max ? max + 1 : v;
}

int opt_box(const cli_option *o, const char *arg)
{
    int *box = o->target;
    const char *end;
    long w = whole_digits(arg, &end, GI_RESIZE_MAX_SIDE), h = w;
    if (w >= 0 && *end == 'x') h = whole_digits(end + 1, &end, GI_RESIZE_MAX_SIDE);
    if (w < 0 || h < 0 || *end) return invalid(o, arg, "expected WxH or N");
    if (w < 1 || h < 1 || w > GI_RESIZE_MAX_SIDE || h > GI_RESIZE_MAX_SIDE) {
        fprintf(stderr, "%s: --%s '%s': sides are 1..%d\n", cli_message_prefix, o->name, arg,
                GI_RESIZE_MAX_SIDE);
        return -1;
    }
    box[0] = (int)w;
    box[1] = (int)h;
    return 0;
}

static int opt_quiet(const cli_option *o, const char *arg)
{
    (void)arg;
    *(int *)o->target = 0;
    return 0;
}

static int opt_verbose(const cli_option *o, const char *arg)
{
    (void)arg;
    *(int *)o->target = 2;
    return 0;
}

static int opt_device(const cli_option *o, const char *arg)
{
    static const char *const names[] = {"auto", "cpu", "cuda"};
    for (int d = 0; d < 3; d++) {
        if (strcasecmp(arg, names[d]) == 0) {
            *(gi_device *)o->target = (gi_device)d;
            return 0;
        }
    }
    return invalid(o, arg, "expected auto, cpu or cuda");
}

/* --gpus all|N|LIST: indices among the visible GPUs (checked against
 * them where a run may use the GPU: gi_batch_run, gi_context_create). */
static int opt_gpus(const cli_option *o, const char *arg)
{
    if (gi_gpus_parse(arg, o->target) == GI_OK) return 0;
    char why[300];
    snprintf(why, sizeof why, "%s", gi_last_error());
    return invalid(o, arg, why);
}

static int opt_jobs(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 1, 256);
}

static int opt_border(const cli_option *o, const char *arg)
{
    if (gi_border_parse(arg, &((gi_border *)o->target)->mode) == 0) return 0;
    return invalid(o, arg, "expected zero, replicate, reflect, mirror or wrap (see --help)");
}

static int opt_border_value(const cli_option *o, const char *arg)
{
    int v;
    cli_option as_int = *o;
    as_int.target = &v;
    if (opt_int_range(&as_int, arg, 0, 255)) return -1;
    ((gi_border *)o->target)->value = (uint8_t)v;
    return 0;
}

static int opt_image_format(const cli_option *o, const char *arg)
{
    gi_format *f = o->target;
    if (strcasecmp(arg, "png") == 0) *f = GI_FORMAT_PNG;
    else if (strcasecmp(arg, "jpeg") == 0 || strcasecmp(arg, "jpg") == 0) *f = GI_FORMAT_JPEG;
    else if (strcasecmp(arg, "pnm") == 0 || strcasecmp(arg, "ppm") == 0 ||
             strcasecmp(arg, "pgm") == 0)
        *f = GI_FORMAT_PNM;
    else if (strcasecmp(arg, "pam") == 0) *f = GI_FORMAT_PAM;
    else if (strcasecmp(arg, "tiff") == 0 || strcasecmp(arg, "tif") == 0) *f = GI_FORMAT_TIFF;
    else return invalid(o, arg, "expected png, jpeg, pnm (ppm, pgm), pam or tiff");
    return 0;
}

static int opt_quality(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 1, 100);
}

static int opt_png_level(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 1, 12);
}

static int opt_tiff_compression(const cli_option *o, const char *arg)
{
    gi_tiff_compression *compression = o->target;
    if (strcmp(arg, "deflate") == 0) return *compression = GI_TIFF_DEFLATE, 0;
    if (strcmp(arg, "none") == 0) return *compression = GI_TIFF_UNCOMPRESSED, 0;
    return invalid(o, arg, "expected deflate or none");
}

static int opt_png_filter(const cli_option *o, const char *arg)
{
    static const char *const names[] = {"none", "sub", "up", "average", "paeth"};
    gi_png_filter *filter = o->target;
    if (strcmp(arg, "auto") == 0) return *filter = GI_PNG_FILTER_AUTO, 0;
    for (int f = 0; f < 5; f++)
        if (strcmp(arg, names[f]) == 0) return *filter = (gi_png_filter)(GI_PNG_FILTER_NONE + f), 0;
    return invalid(o, arg, "expected auto, none, sub, up, average or paeth");
}

/* K/N as digits: sscanf's %d wrapped (4294967296/2 ran shard 0 of 2). */
static int opt_shard(const cli_option *o, const char *arg)
{
    cli_common *c = o->target;
    const char *end;
    const long k = whole_digits(arg, &end, INT_MAX);
    const long n = k >= 0 && *end == '/' ? whole_digits(end + 1, &end, INT_MAX) : -1;
    if (n < 1 || *end || n > INT_MAX || k >= n)
        return invalid(o, arg, "expected K/N with 0 <= K < N");
    c->shard = (int)k;
    c->shard_count = (int)n;
    return 0;
}

/* A positive count with an optional K, M or G (powers of 1024) suffix. */
static int opt_limit(const cli_option *o, const char *arg)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (shift) end++;
    if (end == arg || *end || errno == ERANGE || v == 0 || arg[0] == '-' || v > (~0ull >> shift))
        return invalid(o, arg, "expected a positive count, optionally with K, M or G");
    *(uint64_t *)o->target = (uint64_t)v << shift;
    return 0;
}

int opt_string(const cli_option *o, const char *arg)
{
    *(const char **)o->target = arg;
    return 0;
}

/* One of the words of a NULL-terminated list, stored as its index. */
static int opt_word(const cli_option *o, const char *arg, const char *const *words,
                    const char *expected)
{
    for (int i = 0; words[i]; i++)
        if (strcmp(arg, words[i]) == 0) return *(int *)o->target = i, 0;
    return invalid(o, arg, expected);
}

/* --depth and GPUIMG_DEPTH: keep (0), 8 or 16. */
static int opt_depth(const cli_option *o, const char *arg)
{
    static const char *const words[] = {"keep", "8", "16", NULL};
    static const int depths[] = {0, 8, 16};
    int i;
    cli_option as_index = *o;
    as_index.target = &i;
    if (opt_word(&as_index, arg, words, "expected 8, 16 or keep")) return -1;
    *(int *)o->target = depths[i];
    return 0;
}

static int env_auto_orient(const cli_option *o, const char *arg)
{
    static const char *const words[] = {"0", "1", NULL};
    return opt_word(o, arg, words, "expected 0 or 1");
}

int cli_apply_environment(cli_common *c)
{
    const cli_option env[] = {
        {"GPUIMG_DEVICE", 0, NULL, NULL, opt_device, &c->device},
        {"GPUIMG_GPUS", 0, NULL, NULL, opt_gpus, &c->gpus},
        {"GPUIMG_MAX_PIXELS", 0, NULL, NULL, opt_limit, &c->limits.max_pixels},
        {"GPUIMG_AUTO_ORIENT", 0, NULL, NULL, env_auto_orient, &c->auto_orient},
        {"GPUIMG_DEPTH", 0, NULL, NULL, opt_depth, &c->depth},
    };
    for (size_t i = 0; i < sizeof env / sizeof *env; i++) {
        const char *value = getenv(env[i].name);
        if (value && *value && env[i].apply(&env[i], value)) return -1; /* empty: as unset */
    }
    /* The library's own variables (GPUIMG_CPU_ISA, ...), checked where it
     * reads them, named in the same words. */
    if (gi_check_environment() != GI_OK) {
        fprintf(stderr, "%s: %s\n", cli_message_prefix, gi_last_error());
        return -1;
    }
    return 0;
}

/* The options of every command, then those of image-writing commands. */
static int common_table(cli_common *c, int image_options, cli_option *out)
{
    const cli_option general[] = {
        {"help", 'h', NULL, "show this help and exit", opt_flag, &c->help},
        {"quiet", 'q', NULL, "print nothing but errors", opt_quiet, &c->verbosity},
        {"verbose", 'v', NULL, "say which backend runs and what each file took", opt_verbose,
         &c->verbosity},
        {"device", 0, "DEV", "auto | cpu | cuda (default auto, or $GPUIMG_DEVICE)", opt_device,
         &c->device},
        {"gpus", 0, "LIST", "all | N | a list such as 0,2 or 0-3: the GPUs a batch spreads "
         "its images over (default all, or $GPUIMG_GPUS); a single image runs on the first",
         opt_gpus, &c->gpus},
        {"jobs", 'j', "N", "images decoded and encoded at once (default: one per core)",
         opt_jobs, &c->jobs},
        {"max-pixels", 0, "N", "refuse images with more pixels: an input, read from the header "
         "before decoding, and a result or an image between steps, before it is made (default "
         "268435456 = 16384^2, or $GPUIMG_MAX_PIXELS)", opt_limit,
         &c->limits.max_pixels},
        {"max-input-bytes", 0, "N", "refuse input files (stdin too) larger than N bytes "
         "(default 1G)", opt_limit, &c->limits.max_input_bytes},
    };
    const cli_option image[] = {
        {"output-dir", 'o', "DIR", "batch mode: write each input to DIR under its own name "
         "(with --format, that format's extension)",
         opt_string, &c->output_dir},
        {"recursive", 'r', NULL, "batch: take the PNG/JPEG/PNM/PAM/TIFF files under directories, "
         "mirroring the tree",
         opt_flag, &c->recursive},
        {"files-from", 0, "FILE", "batch: read input paths from FILE, one per line ('-': stdin); "
         "outputs keep their base names",
         opt_string, &c->files_from},
        {"skip-existing", 0, NULL, "batch: leave outputs that already exist (resume a run)",
         opt_flag, &c->skip_existing},
        {"no-server", 0, NULL, "run in this process even when a `gpuimg serve` answers "
         "(or GPUIMG_SERVER=off)", opt_flag, &c->no_server},
        {"shard", 0, "K/N", "batch: only the inputs at positions K, K+N, ... of the sorted list",
         opt_shard, c},
        {"summary-json", 0, "FILE",
         "batch: write per-file results (status, reason, ms) as JSON; checked before the batch "
         "starts", opt_string, &c->summary_json},
        {"border", 0, "MODE", "how pixels outside the image read (default mirror):\n"
         "    zero       00|abcd|00  also 'constant'; the value is --border-value\n"
         "    replicate  aa|abcd|dd  also 'clamp', 'nearest', 'edge'\n"
         "    reflect    ba|abcd|dc  also 'symmetric' (OpenCV BORDER_REFLECT)\n"
         "    mirror     cb|abcd|cb  also 'reflect101' (OpenCV BORDER_REFLECT_101)\n"
         "    wrap       cd|abcd|ab  also 'periodic', 'tile'",
         opt_border, &c->border},
        {"border-value", 0, "V", "value (0..255) of outside pixels in zero mode (default 0; times 257 at 16 bits)",
         opt_border_value, &c->border},
        {"auto-orient", 0, NULL, "turn the pixels as the Exif Orientation says a viewer shows "
         "them, and write Orientation 1 (or $GPUIMG_AUTO_ORIENT=1). Without it the pixels stay "
         "as stored and the tag is kept; transpose, rotate and flip always orient first",
         opt_flag, &c->auto_orient},
        {"strip", 0, NULL, "write no metadata: Exif (GPS positions, camera, time), XMP, ICC "
         "profile, PNG colour chunks. Default: kept, in the output's own container (PNG, "
         "JPEG; TIFF keeps the ICC profile and XMP; Netpbm has no place for them)",
         opt_flag, &c->strip},
        {"format", 0, "FMT", "png | jpeg | pnm | pam | tiff: output format when it cannot come "
         "from the name (no known extension, or '-'); a name saying another format is "
         "refused. pnm (also ppm, pgm) writes P5 for gray, P6 for colour, dropping alpha; pam "
         "writes P7 with every channel; tiff (also tif) a deflate-compressed TIFF",
         opt_image_format, &c->format},
        {"depth", 0, "D", "8 | 16 | keep: bits a sample of the output (default keep, or "
         "$GPUIMG_DEPTH). 8 -> 16 is v * 257; 16 -> 8 is (v + 128) / 257, v * 255 / 65535 "
         "correctly rounded. PNG, PNM, PAM and TIFF hold 16 bits; JPEG only 8",
         opt_depth, &c->depth},
        {"quality", 0, "Q", "JPEG quality 1..100 (default 90)", opt_quality, &c->quality},
        {"png-level", 0, "N", "PNG deflate effort 1 (fast) .. 9 (small), 12 max with libdeflate "
         "(default 3 with libdeflate, else 8)", opt_png_level, &c->png_level},
        {"png-filter", 0, "F", "PNG row filter: auto (default: one per row, as stb picks it; "
         "on photos as small as the best single filter), none (fastest, larger), sub, up, "
         "average, paeth",
         opt_png_filter, &c->png_filter},
        {"tiff-compression", 0, "C", "TIFF strips: deflate (default: lossless, with the "
         "horizontal predictor) or none (about twice the size of a photo's deflate, the "
         "fastest to write and read)",
         opt_tiff_compression, &c->tiff_compression},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof general / sizeof *general; i++) out[n++] = general[i];
    for (size_t i = 0; image_options && i < sizeof image / sizeof *image; i++)
        if (image_options == CLI_IMAGE_OPTIONS || strncmp(image[i].name, "border", 6) != 0)
            out[n++] = image[i];
    return n;
}

static int build_table(cli_common *c, const cli_option *own, int image_options, cli_option *all)
{
    int n = common_table(c, image_options, all);
    for (; own && own->name && n < MAX_OPTIONS; own++) all[n++] = *own;
    return n;
}

static int find_short(const cli_option *all, int n, int ch)
{
    for (int i = 0; i < n; i++)
        if (all[i].short_name == ch) return i;
    return -1;
}

int cli_parse(int argc, char **argv, cli_common *common, const cli_option *own, int image_options,
              char ***positional, int *count)
{
    cli_option all[MAX_OPTIONS];
    struct option longs[MAX_OPTIONS + 1];
    char shorts[2 * MAX_OPTIONS + 2] = "";
    int n = build_table(common, own, image_options, all), ns = 0;
    for (int i = 0; i < n; i++) {
        longs[i] = (struct option){all[i].name, all[i].metavar ? required_argument : no_argument,
                                   NULL, 1000 + i};
        if (all[i].short_name) {
            shorts[ns++] = (char)all[i].short_name;
            if (all[i].metavar) shorts[ns++] = ':';
        }
    }
    longs[n] = (struct option){0};
    shorts[ns] = '\0';
    snprintf(command_prefix, sizeof command_prefix, "gpuimg %s", common->command);
    cli_message_prefix = command_prefix;
    if (cli_apply_environment(common)) return EXIT_USAGE;

    opterr = 0;
    optind = 0; /* 0, not 1: glibc then also forgets a half-read "-abc" of an earlier parse */
    for (;;) {
        int prev = optind;
        int got = getopt_long(argc, argv, shorts, longs, NULL);
        if (got == -1) break;
        int i = got >= 1000 ? got - 1000 : find_short(all, n, got);
        if (got == '?' || got == ':' || i < 0) {
            if (optopt && find_short(all, n, optopt) >= 0)
                return cli_usage_error(common, "option '-%c' needs a value", optopt);
            if (optopt >= 1000)
                return cli_usage_error(common, "option '--%s' needs a value", all[optopt - 1000].name);
            /* a negative number among the arguments reads as options to
             * getopt: say how to pass one, which the value's own check
             * then takes (crop's X, for one, refuses it by name) */
            if (optopt >= '0' && optopt <= '9')
                return cli_usage_error(common,
                                       "unknown option '-%c' (a negative number? put '--' before "
                                       "the arguments to pass one)",
                                       optopt);
            if (optopt > 0) return cli_usage_error(common, "unknown option '-%c'", optopt);
            /* an unknown or ambiguous long option: getopt has stepped past
             * it, wherever the arguments before it were (it moves them
             * after the options as it goes, so the index before the call
             * can be that of an argument) */
            const char *bad = optind > prev && optind - 1 < argc ? argv[optind - 1] : "?";
            return cli_usage_error(common, "unknown option '%s'", bad);
        }
        if (all[i].apply(&all[i], optarg)) return EXIT_USAGE;
    }
    *positional = argv + optind;
    *count = argc - optind;
    return 0;
}

void cli_print_help(const cli_common *common, const char *usage, const char *description,
                    const cli_option *own, int image_options)
{
    cli_option all[MAX_OPTIONS];
    cli_common scratch = *common;
    int n = build_table(&scratch, own, image_options, all);
    printf("%s\n\n%s\n\nOptions:\n", usage, description);
    for (int i = 0; i < n; i++) {
        char left[64];
        snprintf(left, sizeof left, "%c%c%s--%s%s%s", all[i].short_name ? '-' : ' ',
                 all[i].short_name ? all[i].short_name : ' ', all[i].short_name ? ", " : "  ",
                 all[i].name, all[i].metavar ? " " : "", all[i].metavar ? all[i].metavar : "");
        printf("  %-26s %s\n", left, all[i].help);
    }
    printf("\nExit status: 0 success, 1 failure (an input could not be processed), 2 usage error.\n");
}

int cli_parse_command(int argc, char **argv, cli_common *common, const cli_option *own,
                      int image_options, const cli_help *help, char ***positional, int *count)
{
    int rc = cli_parse(argc, argv, common, own, image_options, positional, count);
    if (rc) return rc;
    if (!common->help) return CLI_RUN;
    cli_print_help(common, help->usage, help->description, own, image_options);
    return EXIT_OK;
}
