/* gpuimg compare: golden-image comparison by decoded pixels, of one pair or
 * of two trees, with cmp's exit status: 0 equal, 1 different, 2 trouble. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch_inputs.h"
#include "commands.h"
#include "json_text.h"
#include "options.h"

enum { EXIT_DIFFERENT = 1, EXIT_TROUBLE = 2 };
typedef enum { FORMAT_TEXT, FORMAT_JSON } report_format;

typedef struct {
    gi_compare_files_options lib; /* tolerance, limit, orientation, device, workers */
    report_format format;
    const char *diff_path; /* one pair */
    const char *diff_dir;  /* trees */
    int recursive;
} compare_settings;

static const char *const status_names[] = {"equal", "different", "shape-differs",
                                           "missing-actual", "missing-expected", "error"};

/* ---------------------------------------------------------------- options */

/* 0..65535: the library refuses more than 255 for a pair of 8-bit
 * images, naming their depth. */
static int opt_tolerance(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 0, 65535);
}

/* K (pixels) or K% (of the pixels). */
static int opt_max_different(const cli_option *o, const char *arg)
{
    gi_compare_files_options *s = o->target;
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    s->max_is_percent = *end == '%';
    if (s->max_is_percent) end++;
    if (end == arg || *end || errno == ERANGE || !(v >= 0) || (!s->max_is_percent && v != (long long)v)) {
        fprintf(stderr, "%s: --max-different '%s': expected a pixel count K or a percentage K%%\n",
                cli_message_prefix, arg);
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
        fprintf(stderr, "%s: --format '%s': expected text or json\n", cli_message_prefix, arg);
        return -1;
    }
    return 0;
}

static int opt_path(const cli_option *o, const char *arg)
{
    *(const char **)o->target = arg;
    return 0;
}

/* ---------------------------------------------------------------- reports */

static void print_number(FILE *out, const char *fmt, double v)
{
    if (v == INFINITY) fputs("null", out);
    else fprintf(out, fmt, v);
}

/* name: the relative path in trees; NULL for one pair. */
static void print_json_pair(FILE *out, const compare_settings *s, const gi_file_pair *p,
                            const char *name)
{
    const gi_compare_result *r = &p->result;
    fputs("{", out);
    if (name) {
        fputs("\"name\": ", out);
        json_write_string(out, name);
    } else {
        fputs("\"expected\": ", out);
        json_write_string(out, p->expected);
        fputs(", \"actual\": ", out);
        json_write_string(out, p->actual);
    }
    fprintf(out, ", \"status\": \"%s\"", status_names[p->status]);
    if (p->status == GI_PAIR_SHAPE || p->status == GI_PAIR_ERROR) {
        fputs(", \"detail\": ", out);
        json_write_string(out, p->detail);
    }
    if (p->status <= GI_PAIR_DIFFERENT) {
        fprintf(out, ", \"width\": %d, \"height\": %d, \"channels\": %d, \"tolerance\": %d, "
                "\"different_pixels\": %llu, \"different_percent\": %.6f, \"max_abs_diff\": [",
                r->width, r->height, r->channels, s->lib.compare.tolerance,
                (unsigned long long)r->different_pixels, r->different_percent);
        for (int c = 0; c < r->channels; c++) fprintf(out, "%s%d", c ? ", " : "", r->max_abs_diff[c]);
        fprintf(out, "], \"mean_abs_diff\": %.6f, \"psnr\": ", r->mean_abs_diff);
        print_number(out, "%.4f", r->psnr);
        fprintf(out, ", \"ssim\": %.10f", r->ssim);
    }
    fputs("}", out);
}

static void print_text_report(FILE *out, const compare_settings *s, const gi_file_pair *p)
{
    const gi_compare_result *r = &p->result;
    fprintf(out, "size: %dx%d, %d channel%s\n", r->width, r->height, r->channels,
            r->channels > 1 ? "s" : "");
    fprintf(out, "different pixels: %llu (%.4f%%), tolerance %d\n",
            (unsigned long long)r->different_pixels, r->different_percent,
            s->lib.compare.tolerance);
    fputs("max abs diff:", out);
    for (int c = 0; c < r->channels; c++) fprintf(out, " %d", r->max_abs_diff[c]);
    fprintf(out, "\nmean abs diff: %.6f\npsnr: ", r->mean_abs_diff);
    if (r->psnr == INFINITY) fputs("inf", out);
    else fprintf(out, "%.4f dB", r->psnr);
    fprintf(out, "\nssim: %.10f\nresult: %s\n", r->ssim, status_names[p->status]);
}

/* The one line a tree report gives a pair that is not equal. */
static void print_text_line(FILE *out, const gi_file_pair *p, const char *raw_name)
{
    const gi_compare_result *r = &p->result;
    const char *name = gi_quote_name(raw_name);
    switch (p->status) {
    case GI_PAIR_EQUAL: return;
    case GI_PAIR_DIFFERENT:
        fprintf(out, "differ: %s: %llu pixels (%.4f%%), max diff", name,
                (unsigned long long)r->different_pixels, r->different_percent);
        for (int c = 0; c < r->channels; c++) fprintf(out, " %d", r->max_abs_diff[c]);
        fprintf(out, ", ssim %.10f\n", r->ssim);
        return;
    case GI_PAIR_SHAPE: fprintf(out, "differ: %s: %s\n", name, p->detail); return;
    case GI_PAIR_ONLY_EXPECTED: fprintf(out, "missing: %s: only in the expected tree\n", name); return;
    case GI_PAIR_ONLY_ACTUAL: fprintf(out, "extra: %s: only in the actual tree\n", name); return;
    case GI_PAIR_ERROR: fprintf(out, "error: %s: %s\n", name, p->detail); return;
    }
}

static int exit_status(const gi_file_pair *pairs, size_t n)
{
    int rc = EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        if (pairs[i].status == GI_PAIR_ERROR) return EXIT_TROUBLE;
        if (pairs[i].status != GI_PAIR_EQUAL) rc = EXIT_DIFFERENT;
    }
    return rc;
}

/* ---------------------------------------------------------------- one pair */

static int compare_files(const cli_common *c, compare_settings *s, char **files)
{
    gi_file_pair p = {.expected = files[0], .actual = files[1], .diff_out = s->diff_path};
    s->lib.workers = 1;
    s->lib.cpu_threads = c->jobs; /* one pair: -j is the threads that compare it */
    gi_status st = gi_compare_files(&s->lib, &p, 1);
    if (st != GI_OK || p.status == GI_PAIR_ERROR) {
        fprintf(stderr, "gpuimg compare: %s\n", st != GI_OK ? gi_last_error() : p.detail);
        return EXIT_TROUBLE;
    }
    if (c->verbosity == 0) return exit_status(&p, 1);
    if (s->format == FORMAT_JSON) {
        print_json_pair(stdout, s, &p, NULL);
        fputc('\n', stdout);
    } else if (p.status == GI_PAIR_SHAPE) {
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

/* The pairs of two trees, and each pair's relative path. */
typedef struct {
    gi_file_pair *pairs;
    const char **names;
    size_t count;
} tree_pairs;

static void tree_pairs_free(tree_pairs *t)
{
    for (size_t i = 0; t->pairs && i < t->count; i++) free((char *)t->pairs[i].diff_out);
    free(t->pairs);
    free(t->names);
}

/* Pairs the two sorted lists by relative path. */
static int merge_trees(const compare_settings *s, batch_list *e, batch_list *a, tree_pairs *t)
{
    size_t most = e->count + a->count + 1, i = 0, j = 0, k = 0;
    t->pairs = calloc(most, sizeof *t->pairs);
    t->names = calloc(most, sizeof *t->names);
    t->count = 0;
    if (!t->pairs || !t->names) return -1;
    qsort(e->items, e->count, sizeof *e->items, by_relative_path);
    qsort(a->items, a->count, sizeof *a->items, by_relative_path);
    while (i < e->count || j < a->count) {
        int d = i == e->count ? 1 : j == a->count ? -1 : strcmp(e->items[i].out, a->items[j].out);
        gi_file_pair *p = &t->pairs[k];
        p->expected = d <= 0 ? e->items[i].in : NULL;
        p->actual = d >= 0 ? a->items[j].in : NULL;
        t->names[k] = (d <= 0 ? e->items[i].out : a->items[j].out) + 1;
        if (s->diff_dir && d == 0) p->diff_out = diff_path_for(s->diff_dir, t->names[k]);
        t->count = ++k;
        i += d <= 0;
        j += d >= 0;
    }
    return 0;
}

static void print_tree_report(const compare_settings *s, const tree_pairs *t)
{
    size_t counts[GI_PAIR_ERROR + 1] = {0};
    for (size_t i = 0; i < t->count; i++) counts[t->pairs[i].status]++;
    if (s->format == FORMAT_JSON) {
        fputs("{\"pairs\": [", stdout);
        for (size_t i = 0; i < t->count; i++) {
            fputs(i ? ",\n  " : "\n  ", stdout);
            print_json_pair(stdout, s, &t->pairs[i], t->names[i]);
        }
        fputs("],\n \"summary\": {", stdout);
        for (int k = 0; k <= GI_PAIR_ERROR; k++)
            printf("%s\"%s\": %zu", k ? ", " : "", status_names[k], counts[k]);
        puts("}}");
        return;
    }
    for (size_t i = 0; i < t->count; i++) print_text_line(stdout, &t->pairs[i], t->names[i]);
    printf("%zu pairs: %zu equal, %zu different, %zu missing, %zu extra, %zu errors\n", t->count,
           counts[GI_PAIR_EQUAL], counts[GI_PAIR_DIFFERENT] + counts[GI_PAIR_SHAPE],
           counts[GI_PAIR_ONLY_EXPECTED], counts[GI_PAIR_ONLY_ACTUAL], counts[GI_PAIR_ERROR]);
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int compare_trees(const cli_common *c, compare_settings *s, char **dirs)
{
    for (int k = 0; k < 2; k++)
        if (!is_directory(dirs[k])) {
            fprintf(stderr, "gpuimg compare: %s: not a directory\n", gi_quote_name(dirs[k]));
            return EXIT_TROUBLE;
        }
    batch_list e, a;
    if (list_tree(c, dirs[0], &e)) return EXIT_TROUBLE;
    if (list_tree(c, dirs[1], &a)) {
        batch_list_free(&e);
        return EXIT_TROUBLE;
    }
    tree_pairs t;
    int rc = EXIT_TROUBLE;
    s->lib.workers = c->jobs;
    if (merge_trees(s, &e, &a, &t) != 0) {
        fprintf(stderr, "gpuimg compare: out of memory\n");
    } else if (gi_compare_files(&s->lib, t.pairs, t.count) != GI_OK) {
        fprintf(stderr, "gpuimg compare: %s\n", gi_last_error());
    } else {
        if (c->verbosity > 0) print_tree_report(s, &t);
        for (size_t i = 0; i < t.count; i++)
            if (t.pairs[i].status == GI_PAIR_ERROR && c->verbosity == 0)
                fprintf(stderr, "gpuimg compare: %s: %s\n", gi_quote_name(t.names[i]),
                        t.pairs[i].detail);
        rc = exit_status(t.pairs, t.count);
    }
    tree_pairs_free(&t);
    batch_list_free(&e);
    batch_list_free(&a);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    cli_common common;
    compare_settings s = {0};
    gi_compare_files_options_default(&s.lib);
    cli_common_init(&common, "compare");
    cli_output_failure_status = EXIT_TROUBLE;
    const cli_option own[] = {
        {"tolerance", 't', "N", "samples that differ by at most N count as equal: 0..255 for "
         "8-bit images, 0..65535 for 16-bit ones (default 0)", opt_tolerance,
         &s.lib.compare.tolerance},
        {"max-different", 'k', "K", "images with at most K differing pixels, or K% of the "
         "pixels, count as equal (default 0)", opt_max_different, &s.lib},
        {"format", 'f', "FMT", "text | json (default text)", opt_report_format, &s.format},
        {"diff", 0, "OUT.png", "write where they differ: the expected image faded to gray, "
         "differing pixels red, brighter for larger differences", opt_path, &s.diff_path},
        {"recursive", 'r', NULL, "compare two trees, pairing files by relative path",
         opt_flag, &s.recursive},
        {"diff-dir", 0, "DIR", "with -r: a diff picture per differing pair, mirroring the tree",
         opt_path, &s.diff_dir},
        {"straight-alpha", 0, NULL, "with alpha, compare the colour as stored; default: "
         "premultiplied by alpha, so pixels with alpha 0 are equal whatever their colour",
         opt_flag, &s.lib.compare.straight_alpha},
        {"auto-orient", 0, NULL, "compare the images as their Exif Orientation says a viewer "
         "shows them; default: as stored (or $GPUIMG_AUTO_ORIENT=1)", opt_flag,
         &common.auto_orient},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg compare [options] EXPECTED ACTUAL\n"
        "       gpuimg compare [options] -r EXPECTED_DIR ACTUAL_DIR",
        "Compares two images (PNG, JPEG, PNM/PAM, TIFF) by their decoded pixels (never\n"
        "the file bytes), at their depth: 8 and 16 bits, the same on both sides.\n"
        "A pixel differs when one of its channels differs by more than --tolerance.\n"
        "With alpha, colour is compared premultiplied (v * alpha / 255, rounded; 65535\n"
        "at 16 bits), alpha as stored: a transparent pixel's colour does not count\n"
        "(--straight-alpha compares the colour as stored).\n"
        "Prints the size, the differing pixels, the largest difference per channel,\n"
        "the mean absolute difference, PSNR (peak 255, or 65535 at 16 bits; 'inf'\n"
        "when equal) and SSIM (Gaussian window sigma 1.5, as scikit-image's\n"
        "structural_similarity with gaussian_weights=True,\n"
        "use_sample_covariance=False, data_range=255, or 65535 at 16 bits).\n"
        "With -r, one line per differing, missing or extra file and a summary;\n"
        "-j N compares N pairs at once.\n"
        "Exit status (as cmp and diff): 0 equal within the limits, 1 different\n"
        "(including a different size, channel count or depth, or a file missing on one\n"
        "side), 2 trouble (an unreadable file, a report that cannot be written,\n"
        "a usage error)."};
    char **files;
    int count;
    int rc = cli_parse_command(argc, argv, &common, own, 0, &help, &files, &count);
    if (rc != CLI_RUN) return rc;
    s.lib.auto_orient = common.auto_orient;
    /* Under -q nothing prints SSIM and the exit status never depends on it. */
    s.lib.compare.ssim = common.verbosity > 0;
    s.lib.limits = common.limits;
    s.lib.device = common.device;
    if (count != 2)
        return cli_usage_error(&common, "expected EXPECTED and ACTUAL, got %d names", count);
    if (s.recursive && s.diff_path)
        return cli_usage_error(&common, "--diff is for one pair; use --diff-dir with -r");
    if (!s.recursive && s.diff_dir)
        return cli_usage_error(&common, "--diff-dir needs -r; use --diff for one pair");
    return s.recursive ? compare_trees(&common, &s, files) : compare_files(&common, &s, files);
}
