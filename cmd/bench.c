/* gpuimg bench: operation timings next to the copy bandwidth of the same
 * machine, like `zstd -b` or `openssl speed`, plus the seed paper's table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report.h"
#include "commands.h"
#include "options.h"
#include "run_images.h"

#define LIST_SIZE 128

typedef struct {
    char ops[LIST_SIZE];      /* both filled by store_list, */
    char channels[LIST_SIZE]; /* which refuses longer text */
    int width, height;
    int all_borders;
    gi_border_mode border;
    double sigma;
    int reps, warmup;
    int json, paper;
    int paper_max; /* largest --paper matrix side */
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

static int opt_size(const cli_option *o, const char *arg)
{
    bench_settings *s = o->target;
    int w, h;
    char tail;
    if (sscanf(arg, "%dx%d%c", &w, &h, &tail) != 2 || w < 1 || h < 1 || w > 65536 || h > 65536) {
        fprintf(stderr, "%s: --size '%s': expected WIDTHxHEIGHT, each 1..65536\n", cli_message_prefix, arg);
        return -1;
    }
    s->width = w;
    s->height = h;
    return 0;
}

static int opt_reps(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 1, 10000);
}

static int opt_warmup(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 0, 1000);
}

/* A pseudo-random image (never zeros: they hide wrong indexing). */
static gi_status random_image(gi_image *img, int w, int h, int ch)
{
    gi_status st = gi_image_alloc(img, w, h, ch);
    uint64_t state = 0x2545F4914F6CDD1Dull;
    size_t n = (size_t)w * h * ch;
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
                gi_status st = random_image(&src, s->width, s->height, ch);
                if (st == GI_OK) st = gi_bench_op(ctx, &src, &op, s->warmup, s->reps, &ms);
                int w, h, out_ch = ch;
                if (st == GI_OK && kind == GI_OP_SOBEL) gi_sobel_size(&src, &op.sobel, &w, &h, &out_ch);
                gi_image_free(&src);
                if (st != GI_OK) {
                    fprintf(stderr, "gpuimg bench: %s: %s\n", name, gi_last_error());
                    return EXIT_FAIL;
                }
                bench_report_row(report, name, filters ? gi_border_name(border) : "-", s->width,
                                 s->height, ch, kind == GI_OP_HIST ? 0 : out_ch, ms);
            }
        }
    }
    return EXIT_OK;
}

static int bench_paper(gi_context *ctx, const bench_settings *s, bench_report *report)
{
    static const int sizes[] = {1024, 2048, 4096, 8192, 16384};
    int gpu = strcmp(gi_context_backend(ctx), "cuda") == 0;
    for (int i = 0; i < 5 && sizes[i] <= s->paper_max; i++) {
        double ms[3] = {0, 0, 0}, err[3] = {0, 0, 0};
        for (int v = 0; v < (gpu ? 3 : 1); v++) {
            /* one CPU run is plenty at sizes where it takes seconds */
            int reps = v == GI_PAPER_CPU ? (sizes[i] >= 8192 ? 1 : 3) : s->reps;
            if (gi_bench_paper(ctx, sizes[i], (gi_paper_variant)v, v == 0 ? 0 : s->warmup, reps,
                               &ms[v], &err[v]) != GI_OK) {
                fprintf(stderr, "gpuimg bench --paper: %s\n", gi_last_error());
                return EXIT_FAIL;
            }
        }
        bench_report_paper_row(report, sizes[i], ms, err, gpu ? 3 : 1);
    }
    return EXIT_OK;
}

static int opt_paper_max(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 1024, 16384);
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
    "usage: gpuimg bench [options]\n       gpuimg bench --paper [options]",
    "Times each operation on a random image that stays where the backend\n"
    "computes (device memory on CUDA; no transfers), after warm-up runs, with\n"
    "CUDA events on the GPU; prints the median next to the copy bandwidth\n"
    "measured in the same run. The floor is the bytes an operation must move\n"
    "(input read once, output written once) over that bandwidth.\n"
    "--paper reproduces Cogrossi and Kuk's table: a 5x5 mask of ones over\n"
    "random float32 matrices, 1024^2 to 16384^2: CPU (all cores), a naive\n"
    "global-memory GPU kernel, the tiled shared-memory kernel, and the floor."};

int cmd_bench(int argc, char **argv)
{
    cli_common common;
    bench_settings s = {"blur,sobel,transpose,hist", "1,4", 0, 0, 0, GI_BORDER_MIRROR, 2.0, 0,
                        -1, 0, 0, 16384};
    cli_common_init(&common, "bench");
    const cli_option own[] = {
        {"op", 0, "LIST", "operations, comma-separated: blur,sobel,transpose,hist,convolve",
         opt_ops, s.ops},
        {"size", 0, "WxH", "image size (default 8192x8192 on CUDA, 2048x2048 on the CPU)",
         opt_size, &s},
        {"channels", 0, "LIST", "channel counts 1..4, comma-separated (default 1,4)",
         opt_channels, s.channels},
        {"border", 0, "MODE", "border of blur, sobel and convolve, or 'all' (default mirror)",
         opt_bench_border, &s},
        {"sigma", 0, "S", "blur sigma (default 2: 13 taps)", opt_double_positive, &s.sigma},
        {"reps", 'n', "N", "timed repetitions; the median is reported (default 20, CPU 5)",
         opt_reps, &s.reps},
        {"warmup", 0, "N", "untimed runs first (default 3, CPU 1)", opt_warmup, &s.warmup},
        {"json", 0, NULL, "machine-readable output", opt_flag, &s.json},
        {"paper", 0, NULL, "reproduce the seed paper's 5x5 float32 table instead", opt_flag,
         &s.paper},
        {"paper-max", 0, "N", "--paper: stop at N x N (1024..16384, default 16384)",
         opt_paper_max, &s.paper_max},
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
    if (!s.width) s.width = s.height = gpu ? 8192 : 2048;
    if (!s.reps) s.reps = gpu ? 20 : 5;
    if (s.warmup < 0) s.warmup = gpu ? 3 : 1;
    bench_report report;
    rc = bench_report_open(&report, ctx, s.json);
    if (rc == EXIT_OK) rc = s.paper ? bench_paper(ctx, &s, &report) : bench_ops(ctx, &s, &report);
    bench_report_close(&report);
    gi_context_destroy(ctx);
    return rc;
}
