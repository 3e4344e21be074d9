/* gpuimg compare: golden-image comparison by decoded pixels, of one pair or
 * of two trees, with cmp's exit status: 0 equal, 1 different, 2 trouble. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_inputs.h"
#include "commands.h"
#include "json_text.h"
#include "options.h"
#include "run_images.h"

enum { EXIT_DIFFERENT = 1, EXIT_TROUBLE = 2 };
typedef enum { FORMAT_TEXT, FORMAT_JSON } report_format;

typedef struct {
    int tolerance;
    double max_different; /* pixels, or percent when max_is_percent */
    int max_is_percent;
    report_format format;
    const char *diff_path; /* one pair */
    const char *diff_dir;  /* trees */
    int recursive;
    int auto_orient; /* both images as a viewer shows them */
    int ssim;        /* something prints SSIM; under -q nothing does, and the
                        exit status never depends on it, so it is skipped */
} compare_settings;

/* What became of one pair; the order is the order of severity. */
typedef enum {
    PAIR_EQUAL, PAIR_DIFFERENT, PAIR_SHAPE, PAIR_ONLY_EXPECTED, PAIR_ONLY_ACTUAL, PAIR_ERROR
} pair_status;
static const char *const status_names[] = {"equal", "different", "shape-differs",
                                           "missing-actual", "missing-expected", "error"};

typedef struct {
    const char *expected, *actual; /* paths; NULL when missing */
    const char *name;              /* the relative path in trees; NULL for one pair */
    char *diff_out;                /* the diff picture to write, or NULL */
    pair_status status;
    gi_compare_result r;
    char detail[600]; /* the shapes, or the error */
} pair;

/* ---------------------------------------------------------------- options */

static int opt_tolerance(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 0, 255);
}

/* K (pixels) or K% (of the pixels). */
static int opt_max_different(const cli_option *o, const char *arg)
{
    compare_settings *s = o->target;
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    s->max_is_percent = *end == '%';
    if (s->max_is_percent) end++;
    if (end == arg || *end || errno == ERANGE || !(v >= 0) || (!s->max_is_percent && v != (long long)v)) {
        fprintf(stderr, "gpuimg: --max-different '%s': expected a pixel count K or a percentage K%%\n",
                arg);
        return -1;
    }
    s->max_different = v;
    return 0;
}

static int opt_report_format(const cli_option *o, const char *arg)
{
    if (strcmp(arg, "text") == 0) *(report_format *)o->target = FORMAT_TEXT;
    else if (strcmp(arg, "json") == 0) *(report_format *)o->target = FORMAT_JSON;
    else {
        fprintf(stderr, "gpuimg: --format '%s': expected text or json\n", arg);
        return -1;
    }
    return 0;
}

static int opt_path(const cli_option *o, const char *arg)
{
    *(const char **)o->target = arg;
    return 0;
}

/* ---------------------------------------------------------------- one pair */

static int within_limit(const compare_settings *s, const gi_compare_result *r)
{
    return s->max_is_percent ? r->different_percent <= s->max_different
                             : (double)r->different_pixels <= s->max_different;
}

/* The expected image faded to light gray, differing pixels in red, from
 * dark (a difference just over the tolerance) to full red (255). */
static gi_status write_diff_picture(const gi_image *e, const gi_image *a, int tolerance,
                                    const char *path)
{
    gi_image out;
    gi_status st = gi_image_alloc(&out, e->width, e->height, 3);
    if (st != GI_OK) return st;
    const int ch = e->channels;
    for (int y = 0; y < e->height; y++) {
        const uint8_t *re = e->data + (size_t)y * e->stride, *ra = a->data + (size_t)y * a->stride;
        uint8_t *o = out.data + (size_t)y * out.stride;
        for (int x = 0; x < e->width; x++, re += ch, ra += ch, o += 3) {
            int d = 0;
            for (int c = 0; c < ch; c++) {
                int dc = abs(re[c] - ra[c]);
                d = dc > d ? dc : d;
            }
            int luma = ch >= 3 ? (77 * re[0] + 150 * re[1] + 29 * re[2] + 128) >> 8 : re[0];
            int gray = 160 + luma / 4;
            o[0] = (uint8_t)(d > tolerance ? 128 + d / 2 : gray);
            o[1] = o[2] = (uint8_t)(d > tolerance ? 0 : gray);
        }
    }
    gi_save_options opts;
    gi_save_options_default(&opts);
    opts.format = GI_FORMAT_PNG;
    st = gi_save_file(&out, path, &opts);
    gi_image_free(&out);
    return st;
}

static void pair_error(pair *p, const char *what)
{
    p->status = PAIR_ERROR;
    snprintf(p->detail, sizeof p->detail, "%s%s%s", what, *what ? ": " : "", gi_last_error());
}

/* Creates the directories above path (for a mirrored diff tree). */
static int make_parents(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = strchr(buf + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    return 0;
}

static void compare_loaded(gi_context *ctx, const compare_settings *s, const gi_image *e,
                           const gi_image *a, pair *p)
{
    if (e->width != a->width || e->height != a->height || e->channels != a->channels) {
        p->status = PAIR_SHAPE;
        snprintf(p->detail, sizeof p->detail, "%dx%d with %d channels vs %dx%d with %d", e->width,
                 e->height, e->channels, a->width, a->height, a->channels);
        return;
    }
    gi_compare_params params;
    gi_compare_params_default(&params);
    params.tolerance = s->tolerance;
    params.ssim = s->ssim;
    if (gi_compare(ctx, e, a, &params, &p->r) != GI_OK) return pair_error(p, "compare");
    p->status = within_limit(s, &p->r) ? PAIR_EQUAL : PAIR_DIFFERENT;
    if (!p->diff_out || p->r.different_pixels == 0) return;
    if (make_parents(p->diff_out) != 0) {
        p->status = PAIR_ERROR;
        snprintf(p->detail, sizeof p->detail, "%s: %s", p->diff_out, strerror(errno));
    } else if (write_diff_picture(e, a, s->tolerance, p->diff_out) != GI_OK) {
        pair_error(p, "");
    }
}

/* One side: its pixels as stored, or as a viewer shows them. */
static gi_status load_side(gi_context *ctx, const compare_settings *s, const char *path,
                           const gi_load_limits *limits, gi_image *img)
{
    gi_metadata meta = {0};
    gi_status st = gi_load_file_with_metadata(img, path, limits, s->auto_orient ? &meta : NULL);
    if (st == GI_OK && s->auto_orient) st = orient_image(ctx, img, meta.orientation);
    gi_metadata_free(&meta);
    return st;
}

static void compare_pair(gi_context *ctx, const compare_settings *s, const gi_load_limits *limits,
                         pair *p)
{
    gi_image e = {0}, a = {0};
    if (!p->expected) p->status = PAIR_ONLY_ACTUAL;
    else if (!p->actual) p->status = PAIR_ONLY_EXPECTED;
    else if (load_side(ctx, s, p->expected, limits, &e) != GI_OK) pair_error(p, "");
    else if (load_side(ctx, s, p->actual, limits, &a) != GI_OK) pair_error(p, "");
    else compare_loaded(ctx, s, &e, &a, p);
    gi_image_free(&e);
    gi_image_free(&a);
}

/* ---------------------------------------------------------------- reports */

static void print_number(FILE *out, const char *fmt, double v)
{
    if (v == INFINITY) fputs("null", out);
    else fprintf(out, fmt, v);
}

static void print_json_pair(FILE *out, const compare_settings *s, const pair *p)
{
    const gi_compare_result *r = &p->r;
    fputs("{", out);
    if (p->name) {
        fputs("\"name\": ", out);
        json_write_string(out, p->name);
    } else {
        fputs("\"expected\": ", out);
        json_write_string(out, p->expected);
        fputs(", \"actual\": ", out);
        json_write_string(out, p->actual);
    }
    fprintf(out, ", \"status\": \"%s\"", status_names[p->status]);
    if (p->status == PAIR_SHAPE || p->status == PAIR_ERROR) {
        fputs(", \"detail\": ", out);
        json_write_string(out, p->detail);
    }
    if (p->status <= PAIR_DIFFERENT) {
        fprintf(out, ", \"width\": %d, \"height\": %d, \"channels\": %d, \"tolerance\": %d, "
                "\"different_pixels\": %llu, \"different_percent\": %.6f, \"max_abs_diff\": [",
                r->width, r->height, r->channels, s->tolerance,
                (unsigned long long)r->different_pixels, r->different_percent);
        for (int c = 0; c < r->channels; c++) fprintf(out, "%s%d", c ? ", " : "", r->max_abs_diff[c]);
        fprintf(out, "], \"mean_abs_diff\": %.6f, \"psnr\": ", r->mean_abs_diff);
        print_number(out, "%.4f", r->psnr);
        fprintf(out, ", \"ssim\": %.10f", r->ssim);
    }
    fputs("}", out);
}

static void print_text_report(FILE *out, const compare_settings *s, const pair *p)
{
    const gi_compare_result *r = &p->r;
    fprintf(out, "size: %dx%d, %d channel%s\n", r->width, r->height, r->channels,
            r->channels > 1 ? "s" : "");
    fprintf(out, "different pixels: %llu (%.4f%%), tolerance %d\n",
            (unsigned long long)r->different_pixels, r->different_percent, s->tolerance);
    fputs("max abs diff:", out);
    for (int c = 0; c < r->channels; c++) fprintf(out, " %d", r->max_abs_diff[c]);
    fprintf(out, "\nmean abs diff: %.6f\npsnr: ", r->mean_abs_diff);
    if (r->psnr == INFINITY) fputs("inf", out);
    else fprintf(out, "%.4f dB", r->psnr);
    fprintf(out, "\nssim: %.10f\nresult: %s\n", r->ssim, status_names[p->status]);
}

/* The one line a tree report gives a pair that is not equal. */
static void print_text_line(FILE *out, const pair *p)
{
    switch (p->status) {
    case PAIR_EQUAL: return;
    case PAIR_DIFFERENT:
        fprintf(out, "differ: %s: %llu pixels (%.4f%%), max diff", p->name,
                (unsigned long long)p->r.different_pixels, p->r.different_percent);
        for (int c = 0; c < p->r.channels; c++) fprintf(out, " %d", p->r.max_abs_diff[c]);
        fprintf(out, ", ssim %.10f\n", p->r.ssim);
        return;
    case PAIR_SHAPE: fprintf(out, "differ: %s: %s\n", p->name, p->detail); return;
    case PAIR_ONLY_EXPECTED: fprintf(out, "missing: %s: only in the expected tree\n", p->name); return;
    case PAIR_ONLY_ACTUAL: fprintf(out, "extra: %s: only in the actual tree\n", p->name); return;
    case PAIR_ERROR: fprintf(out, "error: %s: %s\n", p->name, p->detail); return;
    }
}

static int exit_status(const pair *pairs, size_t n)
{
    int rc = EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        if (pairs[i].status == PAIR_ERROR) return EXIT_TROUBLE;
        if (pairs[i].status != PAIR_EQUAL) rc = EXIT_DIFFERENT;
    }
    return rc;
}

/* ---------------------------------------------------------------- one pair, CLI */

static int compare_files(const cli_common *c, const compare_settings *s, char **files)
{
    pair p = {files[0], files[1], NULL, (char *)s->diff_path, PAIR_EQUAL, {0}, ""};
    gi_context *ctx = open_context(c, c->jobs);
    if (!ctx) return EXIT_TROUBLE;
    compare_pair(ctx, s, &c->limits, &p);
    gi_context_destroy(ctx);
    if (p.status == PAIR_ERROR) {
        fprintf(stderr, "gpuimg compare: %s\n", p.detail);
        return EXIT_TROUBLE;
    }
    if (c->verbosity == 0) return exit_status(&p, 1);
    if (s->format == FORMAT_JSON) {
        print_json_pair(stdout, s, &p);
        fputc('\n', stdout);
    } else if (p.status == PAIR_SHAPE) {
        printf("%s %s differ: %s\n", files[0], files[1], p.detail);
    } else {
        print_text_report(stdout, s, &p);
    }
    return exit_status(&p, 1);
}

/* ---------------------------------------------------------------- trees */

/* The PNG/JPEG files under dir; each item's `out` is "/" + its relative path. */
static int list_tree(const cli_common *c, const char *dir, batch_list *list)
{
    cli_common walk = *c;
    walk.recursive = 1;
    walk.output_dir = "";
    walk.files_from = NULL;
    char *args[] = {(char *)dir};
    return batch_collect(&walk, args, 1, list) == EXIT_OK ? 0 : -1;
}

static int by_relative_path(const void *a, const void *b)
{
    return strcmp(((const gi_batch_item *)a)->out, ((const gi_batch_item *)b)->out);
}

/* The diff picture's path: DIR/REL with its extension made .png. */
static char *diff_path_for(const char *dir, const char *rel)
{
    const char *dot = strrchr(rel, '.');
    int stem = dot && !strchr(dot, '/') ? (int)(dot - rel) : (int)strlen(rel);
    size_t len = strlen(dir) + (size_t)stem + 6;
    char *path = malloc(len);
    if (path) snprintf(path, len, "%s/%.*s.png", dir, stem, rel);
    return path;
}

/* Pairs the two sorted lists by relative path. */
static pair *merge_trees(const compare_settings *s, batch_list *e, batch_list *a, size_t *n)
{
    pair *pairs = calloc(e->count + a->count + 1, sizeof *pairs);
    size_t i = 0, j = 0, k = 0;
    if (!pairs) return NULL;
    qsort(e->items, e->count, sizeof *e->items, by_relative_path);
    qsort(a->items, a->count, sizeof *a->items, by_relative_path);
    while (i < e->count || j < a->count) {
        int d = i == e->count ? 1 : j == a->count ? -1 : strcmp(e->items[i].out, a->items[j].out);
        pair *p = &pairs[k++];
        p->expected = d <= 0 ? e->items[i].in : NULL;
        p->actual = d >= 0 ? a->items[j].in : NULL;
        p->name = (d <= 0 ? e->items[i].out : a->items[j].out) + 1;
        if (s->diff_dir && d == 0) p->diff_out = diff_path_for(s->diff_dir, p->name);
        i += d <= 0;
        j += d >= 0;
    }
    *n = k;
    return pairs;
}

typedef struct {
    const cli_common *common;
    const compare_settings *settings;
    pair *pairs;
    size_t count, next;
    int cpu_threads;
    pthread_mutex_t lock;
} tree_job;

static void *tree_worker(void *arg)
{
    tree_job *j = arg;
    gi_context *ctx = open_context(j->common, j->cpu_threads);
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t i = j->next++;
        pthread_mutex_unlock(&j->lock);
        if (i >= j->count) break;
        if (ctx) {
            compare_pair(ctx, j->settings, &j->common->limits, &j->pairs[i]);
        } else { /* open_context said why */
            j->pairs[i].status = PAIR_ERROR;
            snprintf(j->pairs[i].detail, sizeof j->pairs[i].detail, "no context to compare in");
        }
    }
    gi_context_destroy(ctx);
    return NULL;
}

/* Compares the pairs on `workers` threads, each with its own context. */
static void run_pairs(const cli_common *c, const compare_settings *s, pair *pairs, size_t n)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = c->jobs ? c->jobs : (int)(cores < 1 ? 1 : cores);
    if ((size_t)workers > n) workers = n ? (int)n : 1;
    tree_job j = {c, s, pairs, n, 0, workers > 1 ? 1 : 0, PTHREAD_MUTEX_INITIALIZER};
    pthread_t ids[256];
    int started = 0;
    for (; started < workers - 1 && started < 256; started++)
        if (pthread_create(&ids[started], NULL, tree_worker, &j) != 0) break;
    tree_worker(&j);
    for (int t = 0; t < started; t++) pthread_join(ids[t], NULL);
    pthread_mutex_destroy(&j.lock);
}

static void print_tree_report(const compare_settings *s, const pair *pairs, size_t n)
{
    size_t counts[PAIR_ERROR + 1] = {0};
    for (size_t i = 0; i < n; i++) counts[pairs[i].status]++;
    if (s->format == FORMAT_JSON) {
        fputs("{\"pairs\": [", stdout);
        for (size_t i = 0; i < n; i++) {
            fputs(i ? ",\n  " : "\n  ", stdout);
            print_json_pair(stdout, s, &pairs[i]);
        }
        fputs("],\n \"summary\": {", stdout);
        for (int k = 0; k <= PAIR_ERROR; k++)
            printf("%s\"%s\": %zu", k ? ", " : "", status_names[k], counts[k]);
        puts("}}");
        return;
    }
    for (size_t i = 0; i < n; i++) print_text_line(stdout, &pairs[i]);
    printf("%zu pairs: %zu equal, %zu different, %zu missing, %zu extra, %zu errors\n", n,
           counts[PAIR_EQUAL], counts[PAIR_DIFFERENT] + counts[PAIR_SHAPE],
           counts[PAIR_ONLY_EXPECTED], counts[PAIR_ONLY_ACTUAL], counts[PAIR_ERROR]);
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int compare_trees(const cli_common *c, const compare_settings *s, char **dirs)
{
    for (int k = 0; k < 2; k++)
        if (!is_directory(dirs[k])) {
            fprintf(stderr, "gpuimg compare: %s: not a directory\n", dirs[k]);
            return EXIT_TROUBLE;
        }
    batch_list e, a;
    if (list_tree(c, dirs[0], &e)) return EXIT_TROUBLE;
    if (list_tree(c, dirs[1], &a)) {
        batch_list_free(&e);
        return EXIT_TROUBLE;
    }
    size_t n = 0;
    pair *pairs = merge_trees(s, &e, &a, &n);
    int rc = EXIT_TROUBLE;
    if (pairs) {
        run_pairs(c, s, pairs, n);
        if (c->verbosity > 0) print_tree_report(s, pairs, n);
        for (size_t i = 0; i < n; i++)
            if (pairs[i].status == PAIR_ERROR && c->verbosity == 0)
                fprintf(stderr, "gpuimg compare: %s: %s\n", pairs[i].name, pairs[i].detail);
        rc = exit_status(pairs, n);
        for (size_t i = 0; i < n; i++) free(pairs[i].diff_out);
        free(pairs);
    } else {
        fprintf(stderr, "gpuimg compare: out of memory\n");
    }
    batch_list_free(&e);
    batch_list_free(&a);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    cli_common common;
    compare_settings s = {0};
    cli_common_init(&common, "compare");
    const cli_option own[] = {
        {"tolerance", 't', "N", "samples that differ by at most N (0..255) count as equal "
         "(default 0)", opt_tolerance, &s.tolerance},
        {"max-different", 'k', "K", "images with at most K differing pixels, or K% of the "
         "pixels, count as equal (default 0)", opt_max_different, &s},
        {"format", 'f', "FMT", "text | json (default text)", opt_report_format, &s.format},
        {"diff", 0, "OUT.png", "write where they differ: the expected image faded to gray, "
         "differing pixels red, brighter for larger differences", opt_path, &s.diff_path},
        {"recursive", 'r', NULL, "compare two trees, pairing files by relative path",
         opt_flag, &s.recursive},
        {"diff-dir", 0, "DIR", "with -r: a diff picture per differing pair, mirroring the tree",
         opt_path, &s.diff_dir},
        {"auto-orient", 0, NULL, "compare the images as their Exif Orientation says a viewer "
         "shows them; default: as stored (or $GPUIMG_AUTO_ORIENT=1)", opt_flag,
         &common.auto_orient},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg compare [options] EXPECTED ACTUAL\n"
        "       gpuimg compare [options] -r EXPECTED_DIR ACTUAL_DIR",
        "Compares two PNG/JPEG images by their decoded pixels (never the file bytes).\n"
        "A pixel differs when one of its channels differs by more than --tolerance.\n"
        "Prints the size, the differing pixels, the largest difference per channel,\n"
        "the mean absolute difference, PSNR (peak 255, 'inf' when equal) and SSIM\n"
        "(Gaussian window sigma 1.5, as scikit-image's structural_similarity with\n"
        "gaussian_weights=True, use_sample_covariance=False, data_range=255).\n"
        "With -r, one line per differing, missing or extra file and a summary;\n"
        "-j N compares N pairs at once.\n"
        "Exit status (as cmp and diff): 0 equal within the limits, 1 different\n"
        "(including a different size or channel count, or a file missing on one\n"
        "side), 2 trouble (an unreadable file, a usage error)."};
    char **files;
    int count;
    int rc = cli_parse_command(argc, argv, &common, own, 0, &help, &files, &count);
    if (rc != CLI_RUN) return rc;
    s.auto_orient = common.auto_orient;
    s.ssim = common.verbosity > 0;
    if (count != 2)
        return cli_usage_error(&common, "expected EXPECTED and ACTUAL, got %d names", count);
    if (s.recursive && s.diff_path)
        return cli_usage_error(&common, "--diff is for one pair; use --diff-dir with -r");
    if (!s.recursive && s.diff_dir)
        return cli_usage_error(&common, "--diff-dir needs -r; use --diff for one pair");
    return s.recursive ? compare_trees(&common, &s, files) : compare_files(&common, &s, files);
}
