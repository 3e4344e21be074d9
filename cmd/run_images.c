/* Single-image and batch driver for image-to-image commands. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch_inputs.h"
#include "batch_pipeline.h"
#include "batch_summary.h"
#include "image_job.h"
#include "progress.h"
#include "run_images.h"

static volatile sig_atomic_t stop_requested;

static int online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

gi_context *open_context(const cli_common *common, int cpu_threads)
{
    gi_context_options opts = {common->device, cpu_threads};
    gi_context *ctx;
    gi_status st = gi_context_create(&ctx, &opts);
    if (st != GI_OK) {
        fprintf(stderr, "gpuimg %s: %s: %s\n", common->command, gi_strerror(st), gi_last_error());
        return NULL;
    }
    if (common->verbosity >= 2) {
        /* Asking for the backend settles AUTO, which sets the reason. */
        const char *backend = gi_context_backend(ctx);
        const char *why = gi_context_fallback_reason(ctx);
        fprintf(stderr, "gpuimg %s: backend %s%s%s%s\n", common->command, backend,
                *why ? " (CUDA unavailable: " : "", why, *why ? ")" : "");
    }
    return ctx;
}

/* One image, IN OUT (either may be '-'), through the batch engine's
 * steps in this thread; no bar and no summary line. */
static int run_single(const cli_common *c, char **args, int count, image_op op,
                      const void *settings)
{
    if (count != 2)
        return cli_usage_error(c, "expected an input and an output (or -o DIR and inputs), got %d "
                               "file name%s", count, count == 1 ? "" : "s");
    if (output_format(c, args[1]) == GI_FORMAT_AUTO)
        return cli_usage_error(c, "cannot tell the output format of '%s': name it .png/.jpg or "
                               "give --format", args[1]);
    batch_item item = {.in = args[0], .out = args[1]};
    batch_list list = {&item, 1, 1};
    progress prog;
    progress_init(&prog, c->command, 1, 0);
    pipeline_config cfg = {c, op, settings, 0, 1, c->jobs, 0, &stop_requested};
    pipeline_run(&cfg, &list, &prog);
    progress_finish(&prog, 0);
    free(item.reason);
    return item.status == ITEM_OK ? EXIT_OK : EXIT_FAIL;
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

/* Codec workers: -j, else one per core. Two compute lanes let one image's
 * copies overlap another's kernels on a GPU; on the CPU, they share the
 * cores between them. Under AUTO with CUDA built in, a bridge lane with
 * every core computes while CUDA starts. */
static pipeline_config batch_shape(const cli_common *c, size_t items, image_op op,
                                   const void *settings)
{
    int cores = online_cores();
    int workers = c->jobs ? c->jobs : cores;
    if ((size_t)workers > items) workers = items ? (int)items : 1;
    int lanes = items > 1 ? 2 : 1;
    int lane_threads = cores / lanes > 1 ? cores / lanes : 1;
    int bridge_threads = c->device == GI_DEVICE_AUTO && gi_cuda_compiled() && items > 1 ? cores : 0;
    return (pipeline_config){c,     op,          settings,      workers,
                             lanes, lane_threads, bridge_threads, &stop_requested};
}

/* -v: where the batch's time went, summed over its images. */
static void print_stage_totals(const cli_common *c, const batch_list *list)
{
    double total[STAGE_COUNT] = {0};
    for (size_t i = 0; i < list->count; i++)
        for (int s = 0; s < STAGE_COUNT; s++) total[s] += list->items[i].stage_ms[s];
    fprintf(stderr, "gpuimg %s: time by stage, summed over images:", c->command);
    for (int s = 0; s < STAGE_COUNT; s++)
        fprintf(stderr, "%s %s %.2f s", s ? "," : "", item_stage_names[s], total[s] / 1e3);
    fputc('\n', stderr);
}

static int run_batch(const cli_common *c, char **args, int count, image_op op,
                     const void *settings)
{
    if (count == 0 && !c->files_from)
        return cli_usage_error(c, "-o %s given but no input files", c->output_dir);
    if (mkdir(c->output_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, c->output_dir, strerror(errno));
        return EXIT_FAIL;
    }
    batch_list list;
    int rc = batch_collect(c, args, count, &list);
    if (rc != EXIT_OK) return rc;
    batch_keep_shard(&list, c->shard, c->shard_count);
    progress prog;
    progress_init(&prog, c->command, list.count, c->verbosity);
    pipeline_config cfg = batch_shape(c, list.count, op, settings);
    signal(SIGINT, on_stop_signal);
    signal(SIGTERM, on_stop_signal);
    pipeline_run(&cfg, &list, &prog);
    if (c->verbosity >= 2) print_stage_totals(c, &list);
    double elapsed = progress_elapsed(&prog);
    progress_finish(&prog, stop_requested != 0);
    rc = stop_requested ? 128 + stop_requested : prog.failed ? EXIT_FAIL : EXIT_OK;
    if (c->summary_json && batch_summary_write(c, &list, &prog, elapsed, stop_requested != 0))
        rc = rc ? rc : EXIT_FAIL;
    batch_list_free(&list);
    return rc;
}

int run_images(const cli_common *common, char **args, int count, image_op op, const void *settings)
{
    if (!common->output_dir && (common->files_from || common->recursive || common->skip_existing ||
                                common->shard_count > 1 || common->summary_json))
        return cli_usage_error(common, "-r, --files-from, --skip-existing, --shard and "
                               "--summary-json need -o OUTDIR");
    return common->output_dir ? run_batch(common, args, count, op, settings)
                              : run_single(common, args, count, op, settings);
}
