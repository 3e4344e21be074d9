/* gpuimg bench: operation timings next to the copy bandwidth of the same
 * machine, like `zstd -b` or `openssl speed`; the measuring is the bench
 * library's (bench/timing.h), not libgpuimg's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report.h"
#include "commands.h"
#include "options.h"
#include "run_images.h"
#include "timing.h"

#define LIST_SIZE 128

typedef struct {
    char ops[LIST_SIZE];      /* both filled by store_list, */
    char channels[LIST_SIZE]; /* which refuses longer text */
    int size[2]; /* width, height (opt_box) */
    int all_borders;
    gi_border_mode border;
    double sigma;
    int reps, warmup;
    int json;
    int depth; /* bits a sample: 8 or 16 */
} bench_settings;

static const char *const op_names[] = {"blur", "sobel", "transpose", "hist", "convolve"};

static int parse_op(const char *name, gi_op_kind *kind)
{
    for (int k = 0; k < 5; k++)
        if (strcmp(name, op_names[k]) == 0) return *kind = (gi_op_kind)k, 0;
    return -1;
}

static int parse_channels(const char *text, int *channels)
{
    if (strlen(text) != 1 || text[0] < '1' || text[0] > '4') return -1;
    *channels = text[0] - '0';
    return 0;
}

/* Checks every comma-separated entry of a list with `valid`, then keeps it. */
static int store_list(const cli_option *o, const char *arg, int (*valid)(const char *))
{
    char copy[LIST_SIZE];
    if (strlen(arg) >= sizeof copy) {
        fprintf(stderr, "%s: --%s: too long\n", cli_message_prefix, o->name);
        return -1;
    }
    strcpy(copy, arg);
    int entries = 0;
    for (char *save = NULL, *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        if (!valid(e)) {
            fprintf(stderr, "%s: --%s: '%s' is not one of the choices (see --help)\n", cli_message_prefix, o->name, e);
            return -1;
        }
        entries++;
    }
    if (!entries) {
        fprintf(stderr, "%s: --%s '%s': empty list\n", cli_message_prefix, o->name, arg);
        return -1;
    }
    strcpy(o->target, arg);
    return 0;
}

static int valid_op(const char *name)
{
    gi_op_kind kind;
    return parse_op(name, &kind) == 0;
}

static int valid_channels(const char *text)
{
    int ch;
    return parse_channels(text, &ch) == 0;
}

static int opt_ops(const cli_option *o, const char *arg)
{
    return store_list(o, arg, valid_op);
}

static int opt_channels(const cli_option *o, const char *arg)
{
    return store_list(o, arg, valid_channels);
}

static int opt_reps(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 1, 10000);
}

static int opt_warmup(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 0, 1000);
}

static int opt_depth(const cli_option *o, const char *arg)
{
    int *depth = o->target;
    if (strcmp(arg, "8") == 0 || strcmp(arg, "16") == 0) return *depth = atoi(arg), 0;
    fprintf(stderr, "%s: --depth '%s': expected 8 or 16\n", cli_message_prefix, arg);
    return -1;
}

/* A pseudo-random image (never zeros: they hide wrong indexing); its
 * bytes random, so 16-bit samples span the whole range too. */
static gi_status random_image(gi_image *img, int w, int h, int ch, int depth)
{
    gi_status st = gi_image_alloc_depth(img, w, h, ch, depth);
    uint64_t state = 0x2545F4914F6CDD1Dull;
    size_t n = (size_t)w * h * ch * (depth == 16 ? 2 : 1);
    for (size_t i = 0; st == GI_OK && i < n; i++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        img->data[i] = (uint8_t)(state >> 24);
    }
    return st;
}

static gi_op make_op(gi_op_kind kind, const bench_settings *s, gi_border_mode border)
{
    static const double box5[25] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    gi_op op = {.kind = kind, .transform = GI_TRANSPOSE, .bins = 256};
    gi_blur_params_default(&op.blur);
    op.blur.sigma = s->sigma;
    op.blur.border.mode = border;
    gi_sobel_params_default(&op.sobel);
    op.sobel.border.mode = border;
    op.convolve = (gi_convolve_params){5, 5, box5, 1, {border, 0}};
    return op;
}

static int bench_ops(gi_context *ctx, const bench_settings *s, bench_report *report)
{
    char ops[LIST_SIZE], channels[LIST_SIZE];
    snprintf(ops, sizeof ops, "%s", s->ops);
    for (char *save_op = NULL, *name = strtok_r(ops, ",", &save_op); name;
         name = strtok_r(NULL, ",", &save_op)) {
        gi_op_kind kind = GI_OP_BLUR;
        parse_op(name, &kind); /* validated by opt_ops */
        snprintf(channels, sizeof channels, "%s", s->channels);
        for (char *save_ch = NULL, *c = strtok_r(channels, ",", &save_ch); c;
             c = strtok_r(NULL, ",", &save_ch)) {
            int ch = 1;
            parse_channels(c, &ch); /* validated by opt_channels */
            int filters = kind == GI_OP_BLUR || kind == GI_OP_SOBEL || kind == GI_OP_CONVOLVE;
            int modes = filters && s->all_borders ? 5 : 1;
            for (int m = 0; m < modes; m++) {
                gi_border_mode border = s->all_borders ? (gi_border_mode)m : s->border;
                gi_op op = make_op(kind, s, border);
                gi_image src;
                double ms = 0;
                const char *failed = random_image(&src, s->size[0], s->size[1], ch, s->depth) == GI_OK
                                         ? bench_op(ctx, &src, &op, s->warmup, s->reps, &ms)
                                         : gi_last_error();
                int w, h, out_ch = ch;
                if (!failed && kind == GI_OP_SOBEL) gi_sobel_size(&src, &op.sobel, &w, &h, &out_ch);
                gi_image_free(&src);
                if (failed) {
                    fprintf(stderr, "gpuimg bench: %s: %s\n", name, failed);
                    return EXIT_FAIL;
                }
                bench_report_row(report, name, filters ? gi_border_name(border) : "-", s->size[0],
                                 s->size[1], ch, kind == GI_OP_HIST ? 0 : out_ch, s->depth, ms);
            }
        }
    }
    return EXIT_OK;
}

static int opt_bench_border(const cli_option *o, const char *arg)
{
    bench_settings *s = o->target;
    s->all_borders = strcmp(arg, "all") == 0;
    if (s->all_borders || gi_border_parse(arg, &s->border) == 0) return 0;
    fprintf(stderr, "%s: --border '%s': expected a border mode or 'all'\n", cli_message_prefix, arg);
    return -1;
}

static const cli_help bench_help = {
    "usage: gpuimg bench [options]",
    "Times each operation on a random image that stays where the backend\n"
    "computes (device memory on CUDA; no transfers), after warm-up runs, with\n"
    "CUDA events on the GPU; prints the median next to the copy bandwidth\n"
    "measured in the same run. The floor is the bytes an operation must move\n"
    "(input read once, output written once) over that bandwidth."};

int cmd_bench(int argc, char **argv)
{
    cli_common common;
    bench_settings s = {"blur,sobel,transpose,hist", "1,4", {0, 0}, 0, GI_BORDER_MIRROR, 2.0, 0,
                        -1, 0, 8};
    cli_common_init(&common, "bench");
    const cli_option own[] = {
        {"op", 0, "LIST", "operations, comma-separated: blur,sobel,transpose,hist,convolve",
         opt_ops, s.ops},
        {"size", 0, "WxH", "image size, or N for NxN (default 8192x8192 on CUDA, 2048x2048 on the CPU)",
         opt_box, s.size},
        {"channels", 0, "LIST", "channel counts 1..4, comma-separated (default 1,4)",
         opt_channels, s.channels},
        {"border", 0, "MODE", "border of blur, sobel and convolve, or 'all' (default mirror)",
         opt_bench_border, &s},
        {"sigma", 0, "S", "blur sigma (default 2: 13 taps)", opt_double_positive, &s.sigma},
        {"depth", 0, "BITS", "bits a sample of the image, 8 or 16 (default 8)", opt_depth, &s.depth},
        {"reps", 'n', "N", "timed repetitions; the median is reported (default 20, CPU 5)",
         opt_reps, &s.reps},
        {"warmup", 0, "N", "untimed runs first (default 3, CPU 1)", opt_warmup, &s.warmup},
        {"json", 0, NULL, "machine-readable output", opt_flag, &s.json},
        {0},
    };
    char **rest;
    int count;
    int rc = cli_parse_command(argc, argv, &common, own, 0, &bench_help, &rest, &count);
    if (rc != CLI_RUN) return rc;
    if (count) return cli_usage_error(&common, "unexpected argument '%s'", rest[0]);
    gi_context *ctx = open_context(&common, common.jobs);
    if (!ctx) return EXIT_FAIL;
    int gpu = strcmp(gi_context_backend(ctx), "cuda") == 0;
    if (!s.size[0]) s.size[0] = s.size[1] = gpu ? 8192 : 2048;
    if (!s.reps) s.reps = gpu ? 20 : 5;
    if (s.warmup < 0) s.warmup = gpu ? 3 : 1;
    bench_report report;
    rc = bench_report_open(&report, ctx, s.json);
    if (rc == EXIT_OK) rc = bench_ops(ctx, &s, &report);
    bench_report_close(&report);
    gi_context_destroy(ctx);
    return rc;
}
