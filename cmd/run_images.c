/* Single-image and batch driver for image-to-image commands. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch_inputs.h"
#include "batch_summary.h"
#include "commands.h"
#include "progress.h"
#include "run_images.h"
#include "serve_client.h"

static volatile sig_atomic_t stop_requested;

gi_context *open_context(const cli_common *common, int cpu_threads)
{
    gi_context_options opts = {common->device, cpu_threads, common->gpus.count ? common->gpus.index[0] : 0};
    gi_context *ctx;
    gi_status st = gi_context_create(&ctx, &opts);
    if (st != GI_OK) {
        fprintf(stderr, "gpuimg %s: %s: %s\n", common->command, gi_strerror(st), gi_last_error());
        return NULL;
    }
    /* Under AUTO, asking for the backend would settle it: each image's
     * line says which device took it and why instead. */
    if (common->verbosity >= 2 && common->device != GI_DEVICE_AUTO)
        fprintf(stderr, "gpuimg %s: backend %s\n", common->command, gi_context_backend(ctx));
    return ctx;
}

int orients_first(const cli_common *c, const gi_op *steps, int n_steps)
{
    for (int i = 0; i < n_steps; i++)
        if (steps[i].kind == GI_OP_TRANSFORM) return 1;
    return c->auto_orient;
}

gi_format output_format(const cli_common *c, const char *path)
{
    return c->format != GI_FORMAT_AUTO ? c->format : gi_format_from_path(path);
}

/* --format is for names that cannot tell (no known extension, or '-'):
 * one whose extension says another format is refused, not written with
 * bytes its name belies. (A batch's outputs take the format's extension:
 * batch_inputs.h.) */
static int format_contradicts(const cli_common *c, const char *path)
{
    gi_format named = gi_format_from_path(path);
    return c->format != GI_FORMAT_AUTO && named != GI_FORMAT_AUTO && named != c->format;
}

static int format_contradiction_error(const cli_common *c, const char *path)
{
    static const char *const names[] = {"auto", "png", "jpeg", "pnm", "pam", "tiff"};
    return cli_usage_error(c, "--format %s contradicts the output name '%s': --format applies "
                           "only where the name has no known extension (or is '-')",
                           names[c->format], path);
}

/* "IN -> OUT (T ms: decode a, upload b, ...; codecs gpuimg-jpeg/stb, 8-bit -> 8-bit)
 * on cuda: why" for -v. */
static void describe_item(const gi_batch_item *it, char *text, size_t size)
{
    int n = snprintf(text, size, "%s -> %s (%.1f ms:", gi_quote_name(it->in),
                     gi_quote_name(it->out), it->ms);
    for (int s = 0; s < GI_STAGE_COUNT && n > 0 && (size_t)n < size; s++)
        if (it->stage_ms[s] >= 0.05 || s != GI_STAGE_STARTUP)
            n += snprintf(text + n, size - n, "%s %s %.1f", s ? "," : "",
                          gi_stage_name((gi_stage)s), it->stage_ms[s]);
    if (n > 0 && (size_t)n < size && it->decoded_by)
        n += snprintf(text + n, size - n, "; codecs %s/%s%s%s", it->decoded_by,
                      it->encoded_by ? it->encoded_by : "-", *it->codecs_note ? ", " : "",
                      it->codecs_note);
    if (n > 0 && (size_t)n < size && it->depth_read && it->depth_written)
        n += snprintf(text + n, size - n, ", %d-bit -> %d-bit", it->depth_read,
                      it->depth_written);
    if (n > 0 && (size_t)n < size)
        snprintf(text + n, size - n, ") on %s%s%s%s%s%s", *it->choice ? it->choice : "?",
                 *it->note ? "; " : "", *it->note ? "fell back: " : "", it->note,
                 *it->metadata_note ? "; metadata: " : "", it->metadata_note);
}

typedef struct {
    const cli_common *common;
    progress *prog;
} item_reporter;

/* The batch's on_item: the progress bar, failure and warning lines, and
 * -v details. */
static void report_item(void *user, const gi_batch_item *it)
{
    const item_reporter *r = user;
    int failed = it->status == GI_ITEM_FAILED;
    /* -q prints nothing but errors */
    if (*it->warning && r->common->verbosity >= 1)
        progress_message(r->prog, "%s: warning: %s", gi_quote_name(it->in), it->warning);
    if (failed) progress_message(r->prog, "%s", it->reason ? it->reason : "out of memory");
    else if (it->status == GI_ITEM_OK && r->common->verbosity >= 2) {
        char text[2400];
        describe_item(it, text, sizeof text);
        progress_message(r->prog, "%s", text);
    }
    progress_item(r->prog, failed, it->status == GI_ITEM_SKIPPED, it->megapixels);
}

/* The library's batch options for the command line's settings. */
static gi_batch_options batch_options(const cli_common *c, const gi_op *steps, int n_steps,
                                      item_reporter *reporter)
{
    gi_batch_options o;
    gi_batch_options_default(&o);
    o.job.steps = steps;
    o.job.n_steps = n_steps;
    o.job.limits = c->limits;
    o.job.save = (gi_save_options){.format = c->format, .jpeg_quality = c->quality,
                                   .png_level = c->png_level, .png_filter = c->png_filter,
                                   .depth = c->depth, .tiff_compression = c->tiff_compression};
    o.job.auto_orient = orients_first(c, steps, n_steps);
    o.job.strip = c->strip;
    o.device = c->device;
    o.gpus = c->gpus;
    o.output_root = c->output_dir;
    o.skip_existing = c->skip_existing;
    o.stop = &stop_requested;
    o.on_item = report_item;
    o.user = reporter;
    return o;
}

typedef struct {
    const cli_common *common;
    const char *out;
} frame_reporter;

/* -v: one line per image of a stream, as it is written. */
static void report_frame(void *user, const gi_stream_frame *f)
{
    const cli_common *c = ((const frame_reporter *)user)->common;
    const char *out = ((const frame_reporter *)user)->out;
    fprintf(stderr, "gpuimg %s: standard input: image %zu -> %s (%.1f ms: decode %.1f, compute "
            "%.1f, encode %.1f; %d-bit -> %d-bit) on %s%s%s%s%s\n", c->command, f->number,
            gi_quote_name(out), f->decode_ms + f->compute_ms + f->encode_ms, f->decode_ms,
            f->compute_ms, f->encode_ms, f->depth_read, f->depth_written, f->backend, *f->metadata_dropped ? "; metadata: " : "", f->metadata_dropped,
            *f->metadata_left_out ? "; metadata not written: " : "", f->metadata_left_out);
}

/* A signal while a stream runs: remove the partial output and die. */
static void on_stream_signal(int signo)
{
    gi_remove_partial_outputs();
    signal(signo, SIG_DFL);
    raise(signo);
}

/* IN '-': standard input as a stream of images, through the library's
 * stream engine (gi_stream_run), to OUT. */
static int run_stream(const cli_common *c, const char *out, const gi_op *steps, int n_steps)
{
    gi_stream_options o;
    gi_stream_options_default(&o);
    o.job.steps = steps;
    o.job.n_steps = n_steps;
    o.job.limits = c->limits;
    o.job.save = (gi_save_options){.format = output_format(c, out), .jpeg_quality = c->quality,
                                   .png_level = c->png_level, .png_filter = c->png_filter,
                                   .depth = c->depth, .tiff_compression = c->tiff_compression};
    o.job.auto_orient = orients_first(c, steps, n_steps);
    o.job.strip = c->strip;
    o.device = c->device;
    frame_reporter reporter = {c, out};
    if (c->verbosity >= 2) {
        o.on_frame = report_frame;
        o.user = &reporter;
    }
    signal(SIGINT, on_stream_signal);
    signal(SIGTERM, on_stream_signal);
    say_runs_here(c, "standard input is read here (a stream of images)");
    size_t written;
    gi_status st = gi_stream_run("-", out, &o, &written);
    if (st != GI_OK) fprintf(stderr, "gpuimg %s: %s\n", c->command, gi_last_error());
    if (c->verbosity >= 2)
        fprintf(stderr, "gpuimg %s: %zu image%s written\n", c->command, written,
                written == 1 ? "" : "s");
    return st == GI_OK ? EXIT_OK : EXIT_FAIL;
}

/* One image, IN OUT (OUT may be '-'), through the batch engine's steps in
 * this thread; no bar and no summary line. IN '-' is a stream of images. */
static int run_single(const cli_common *c, char **args, int count, const gi_op *steps,
                      int n_steps)
{
    if (count != 2)
        return cli_usage_error(c, "expected an input and an output (or -o DIR and inputs), got %d "
                               "file name%s", count, count == 1 ? "" : "s");
    if (format_contradicts(c, args[1])) return format_contradiction_error(c, args[1]);
    if (output_format(c, args[1]) == GI_FORMAT_AUTO)
        return cli_usage_error(c, "cannot tell the output format of '%s': name it "
                               ".png/.jpg/.pnm/.pam/.tif or give --format", args[1]);
    if (strcmp(args[0], "-") == 0) return run_stream(c, args[1], steps, n_steps);
    gi_batch_item item = {.in = args[0], .out = args[1]};
    progress prog;
    progress_init(&prog, c->command, 1, 0);
    item_reporter reporter = {c, &prog};
    gi_batch_options o = batch_options(c, steps, n_steps, &reporter);
    o.lane_cpu_threads = c->jobs; /* one image: -j is the threads that compute it */
    gi_status st = run_batch_items(c, &o, &item, 1);
    if (st != GI_OK) fprintf(stderr, "gpuimg %s: %s\n", c->command, gi_last_error());
    progress_finish(&prog, 0);
    gi_free(item.reason);
    return st == GI_OK && item.status == GI_ITEM_OK ? EXIT_OK : EXIT_FAIL;
}

/* First SIGINT/SIGTERM: finish the images in flight, start no more, and
 * print the summary. A second one: remove partial outputs and die. */
static void on_stop_signal(int signo)
{
    if (stop_requested) {
        gi_remove_partial_outputs();
        signal(signo, SIG_DFL);
        raise(signo);
    }
    stop_requested = signo;
}

/* -v: where the batch's time went, summed over its images, and how long
 * its threads waited. */
static void print_stage_totals(const cli_common *c, const batch_list *list,
                               const gi_batch_waits *waits)
{
    double total[GI_STAGE_COUNT] = {0};
    for (size_t i = 0; i < list->count; i++)
        for (int s = 0; s < GI_STAGE_COUNT; s++) total[s] += list->items[i].stage_ms[s];
    fprintf(stderr, "gpuimg %s: time by stage, summed over images:", c->command);
    for (int s = 0; s < GI_STAGE_COUNT; s++)
        fprintf(stderr, "%s %s %.2f s", s ? "," : "", gi_stage_name((gi_stage)s), total[s] / 1e3);
    fprintf(stderr, "; idle (threads waiting) %.2f s over %d threads\n", waits->waited_ms / 1e3,
            waits->threads);
}

static int run_batch(const cli_common *c, char **args, int count, const gi_op *steps,
                     int n_steps)
{
    if (count == 0 && !c->files_from)
        return cli_usage_error(c, "-o %s given but no input files", c->output_dir);
    const int made_dir = mkdir(c->output_dir, 0777) == 0;
    if (!made_dir && errno != EEXIST) {
        fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, gi_quote_name(c->output_dir),
                strerror(errno));
        return EXIT_FAIL;
    }
    /* after -o DIR exists, as the summary may go into it; a summary that
     * cannot be written stops the batch before it writes anything */
    if (c->summary_json && batch_summary_check(c) != 0) {
        if (made_dir) rmdir(c->output_dir);
        return EXIT_USAGE;
    }
    batch_list list;
    int rc = batch_collect(c, args, count, &list);
    if (rc != EXIT_OK) return rc;
    progress prog;
    progress_init(&prog, c->command, list.count, c->verbosity);
    item_reporter reporter = {c, &prog};
    gi_batch_options o = batch_options(c, steps, n_steps, &reporter);
    o.codec_workers = c->jobs;
    gi_batch_waits waits = {0, 0};
    o.waits = &waits;
    signal(SIGINT, on_stop_signal);
    signal(SIGTERM, on_stop_signal);
    gi_status st = run_batch_items(c, &o, list.items, list.count);
    if (st != GI_OK) {
        fprintf(stderr, "gpuimg %s: %s\n", c->command, gi_last_error());
        batch_list_free(&list);
        return EXIT_FAIL;
    }
    if (c->verbosity >= 2) print_stage_totals(c, &list, &waits);
    double elapsed = progress_elapsed(&prog);
    progress_finish(&prog, stop_requested != 0);
    rc = stop_requested ? 128 + stop_requested : prog.failed ? EXIT_FAIL : EXIT_OK;
    if (c->summary_json && batch_summary_write(c, &list, &prog, elapsed, stop_requested != 0))
        rc = rc ? rc : EXIT_FAIL;
    batch_list_free(&list);
    return rc;
}

int run_images(const cli_common *common, char **args, int count, const gi_op *steps, int n_steps)
{
    if (!common->output_dir && (common->files_from || common->recursive || common->skip_existing ||
                                common->shard_count > 1 || common->summary_json))
        return cli_usage_error(common, "-r, --files-from, --skip-existing, --shard and "
                               "--summary-json need -o OUTDIR");
    return common->output_dir ? run_batch(common, args, count, steps, n_steps)
                              : run_single(common, args, count, steps, n_steps);
}

int run_step_command(int argc, char **argv, const char *name, step_parser parse)
{
    cli_common common;
    gi_op step;
    char **files;
    int count;
    cli_common_init(&common, name);
    int rc = parse(argc, argv, &common, &step, &files, &count);
    return rc != CLI_RUN ? rc : run_images(&common, files, count, &step, 1);
}
