/* gpuimg hist: per-channel histogram of an image, as text, CSV or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "hist.h"
#include "hist_format.h"
#include "op_options.h"
#include "options.h"
#include "run_images.h"

static int opt_hist_format(const cli_option *o, const char *arg)
{
    static const char *const names[] = {"text", "csv", "json"};
    for (int f = 0; f < 3; f++) {
        if (strcmp(arg, names[f]) == 0) {
            *(hist_format *)o->target = (hist_format)f;
            return 0;
        }
    }
    fprintf(stderr, "%s: --format '%s': expected text, csv or json\n", cli_message_prefix, arg);
    return -1;
}

/* The report text of `hist` (bins as asked) and, with --stats, `full`
 * (one bin per value: 256, or 65536 at 16 bits), for a width x height
 * image. */
static gi_status format_report(const hist_settings *s, const char *source, int width, int height,
                               const gi_histogram *hist, const gi_histogram *full, char **text,
                               size_t *size)
{
    gi_channel_stats stats[4];
    for (int c = 0; s->stats && c < hist->channels; c++) {
        if (full->depth == 16)
            gi_hist_stats16(full->counts[c], &stats[c]);
        else
            gi_hist_stats(full->counts[c], &stats[c]);
    }
    hist_report report = {source, width, height, hist, s->stats ? stats : NULL};
    FILE *mem = open_memstream(text, size);
    if (!mem) return GI_ERR_NO_MEMORY;
    hist_write(mem, s->format, &report);
    return fclose(mem) == 0 ? GI_OK : GI_ERR_NO_MEMORY;
}

/* Counts (and with --stats, statistics from one bin per value) into a
 * report text. The histograms (2 MiB each) live on the heap. */
static gi_status compute_report(gi_context *ctx, const gi_image *img, const hist_settings *s,
                                const char *source, char **text, size_t *size)
{
    gi_histogram *hists = malloc(2 * sizeof *hists);
    if (!hists) return GI_ERR_NO_MEMORY;
    const int values = img->depth == 16 ? 65536 : 256;
    gi_status st = gi_hist(ctx, img, s->bins, &hists[0]);
    if (st == GI_OK && s->stats) st = gi_hist(ctx, img, values, &hists[1]);
    if (st == GI_OK)
        st = format_report(s, source, img->width, img->height, &hists[0], &hists[1], text, size);
    free(hists);
    return st;
}

/* The image the histogram counts: the input as stored (as a viewer shows
 * it when orienting), or what `before` makes of that, turn and steps in one
 * chain. */
static gi_status hist_source(gi_context *ctx, gi_image *img, int orient, gi_metadata *meta,
                             const gi_op *before, int n_before)
{
    if (n_before == 0) return orient ? gi_orient_image(ctx, img, meta->orientation) : GI_OK;
    gi_job job;
    gi_job_default(&job);
    job.steps = before;
    job.n_steps = n_before;
    job.auto_orient = orient;
    gi_image stepped;
    gi_status st = gi_job_apply(ctx, &job, img, meta, &stepped, NULL);
    if (st == GI_OK) {
        gi_image_free(img);
        *img = stepped;
    }
    return st;
}

/* A JPEG that the exact decoder takes, counted on the CPU as its rows are
 * decoded, without the image in memory (gi_hist_file_streamed): for the
 * file as stored, with no steps before the count. *text stays NULL for
 * any other file: report_file counts it then. */
static gi_status report_streamed(const cli_common *c, const hist_settings *s, const char *in,
                                 const gi_load_limits *limits, int orient, int n_before,
                                 char **text, size_t *size)
{
    if (orient || n_before > 0 || c->device == GI_DEVICE_CUDA || s->bins > 256) return GI_OK;
    const int bins[2] = {s->bins, 256}; /* a JPEG is 8-bit */
    gi_histogram *hists = malloc(2 * sizeof *hists);
    int width, height, counted = 0;
    gi_status st = hists ? gi_hist_file_streamed(in, limits, bins, s->stats ? 2 : 1, hists, &width,
                                                 &height, &counted)
                         : GI_ERR_NO_MEMORY;
    if (st == GI_OK && counted) {
        if (c->verbosity >= 2)
            fprintf(stderr, "gpuimg %s: %s: on cpu, counted as it was decoded\n", c->command,
                    gi_quote_name(in));
        st = format_report(s, in, width, height, &hists[0], &hists[1], text, size);
    }
    free(hists);
    if (st != GI_OK)
        fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, gi_quote_name(in), gi_strerror(st));
    return st;
}

/* Decodes the file (or, for a JPEG the stream takes, counts it as it is
 * decoded) and counts on the context's device; prints why when it fails. */
static gi_status report_file(const cli_common *c, const hist_settings *s, const char *in,
                             const gi_op *before, int n_before, char **text, size_t *size)
{
    gi_image img;
    gi_metadata meta = {0};
    int orient = orients_first(c, before, n_before);
    /* one file: its JPEG decode may use the cores (-j) */
    gi_load_limits limits = c->limits;
    if (!limits.decode_threads) limits.decode_threads = c->jobs > 0 ? c->jobs : gi_cpu_threads_default();
    gi_status st = report_streamed(c, s, in, &limits, orient, n_before, text, size);
    if (st != GI_OK || *text) return st;
    st = gi_load_file_with_metadata(&img, in, &limits, orient ? &meta : NULL);
    if (st != GI_OK) {
        fprintf(stderr, "gpuimg %s: %s\n", c->command, gi_last_error());
        return st;
    }
    gi_context *ctx = open_context(c, c->jobs);
    st = ctx ? hist_source(ctx, &img, orient, &meta, before, n_before) : GI_ERR_NO_DEVICE;
    gi_metadata_free(&meta);
    if (st == GI_OK) st = compute_report(ctx, &img, s, in, text, size);
    if (st == GI_OK && c->verbosity >= 2)
        fprintf(stderr, "gpuimg %s: %s: on %s\n", c->command, gi_quote_name(in),
                gi_context_last_choice(ctx));
    if (st != GI_OK && ctx)
        fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, gi_quote_name(in),
                *gi_last_error() ? gi_last_error() : gi_strerror(st));
    gi_context_destroy(ctx);
    gi_image_free(&img);
    return st;
}

int hist_file(const cli_common *c, const hist_settings *s, const char *in, const char *out,
              const gi_op *before, int n_before)
{
    char *text = NULL;
    size_t size = 0;
    gi_status st = report_file(c, s, in, before, n_before, &text, &size);
    if (st == GI_OK) {
        st = gi_write_file_atomic(out, text, size);
        if (st != GI_OK) fprintf(stderr, "gpuimg %s: %s\n", c->command, gi_last_error());
    }
    free(text);
    return st == GI_OK ? EXIT_OK : EXIT_FAIL;
}

int parse_hist(int argc, char **argv, cli_common *common, hist_settings *s, char ***files,
               int *count)
{
    *s = (hist_settings){256, HIST_TEXT, 0};
    gi_op op;
    gi_op_default(GI_OP_HIST, &op);
    cli_option bins[OP_OPTIONS_MAX + 1];
    op_options(&op, bins);
    const cli_option own[] = {
        bins[0],
        {"format", 'f', "FMT", "text | csv | json (default text)", opt_hist_format, &s->format},
        {"stats", 0, NULL, "add min, max, median, mean and stddev per channel", opt_flag, &s->stats},
        {"auto-orient", 0, NULL, "count the pixels as the Exif Orientation says a viewer shows "
         "them (the size is reported turned); default: as stored (or $GPUIMG_AUTO_ORIENT=1)",
         opt_flag, &common->auto_orient},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg hist [options] IN [OUT]",
        "Counts pixel values per channel. Writes OUT, or standard output when OUT\n"
        "is '-' or missing. Text format:\n"
        "    # gpuimg hist\n    # source: IN\n    # size: WxH\n"
        "    # channels: r g b\n    value r g b\n    0 1234 567 89\n    ...\n"
        "One line per bin; 'value' is the smallest pixel value in the bin, and\n"
        "each column sums to width * height."};
    int rc = cli_parse_command(argc, argv, common, own, 0, &help, files, count);
    s->bins = op.bins;
    return rc;
}

int cmd_hist(int argc, char **argv)
{
    cli_common common;
    hist_settings s;
    char **files;
    int count;
    cli_common_init(&common, "hist");
    int rc = parse_hist(argc, argv, &common, &s, &files, &count);
    if (rc != CLI_RUN) return rc;
    if (count < 1 || count > 2)
        return cli_usage_error(&common, "expected IN [OUT], got %d file names", count);
    return hist_file(&common, &s, files[0], count == 2 ? files[1] : "-", NULL, 0);
}
