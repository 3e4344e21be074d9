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
#include "batch_summary.h"
#include "progress.h"
#include "run_images.h"

static volatile sig_atomic_t stop_requested;

typedef struct {
    const cli_common *common;
    image_op op;
    const void *settings;
    batch_list *list;
    int cpu_threads; /* per worker context */
    size_t next;     /* next item to take, shared by the workers */
    progress *progress;
} batch;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

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
        const char *why = gi_context_fallback_reason(ctx);
        fprintf(stderr, "gpuimg %s: backend %s%s%s%s\n", common->command, gi_context_backend(ctx),
                *why ? " (CUDA unavailable: " : "", why, *why ? ")" : "");
    }
    return ctx;
}

static gi_format output_format(const cli_common *c, const char *path)
{
    return c->format != GI_FORMAT_AUTO ? c->format : gi_format_from_path(path);
}

/* mkdir -p of the directories between the batch's output directory and
 * `path`. None of them may be a symbolic link: writing through one could
 * land outside the output directory. */
static int make_parent_dirs(const char *out_dir, const char *path)
{
    char dir[4096];
    struct stat st;
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + strlen(out_dir) + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) return -1;
        if (lstat(dir, &st) != 0) return -1;
        if (!S_ISDIR(st.st_mode)) {
            errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
            return -1;
        }
        *p = '/';
    }
    return 0;
}

/* Load, run, save one image. On failure `why` names the file and the
 * reason; `note` says when the operation fell back to the CPU. */
static int process_one(const cli_common *c, gi_context *ctx, image_op op, const void *settings,
                       const char *in, const char *out, double *megapixels, char *why,
                       size_t why_size, char *note, size_t note_size)

{
    gi_image src = {0}, dst = {0};
    gi_save_options save = {output_format(c, out), c->quality};
    gi_status st = gi_load_file(&src, in, &c->limits);
    if (st == GI_OK) {
        *megapixels = (double)src.width * src.height / 1e6;
        st = op(ctx, &src, &dst, settings);
        if (st != GI_OK) snprintf(why, why_size, "%s: %s", in, gi_last_error());
        else if (*gi_context_last_fallback(ctx))
            snprintf(note, note_size, "%s: %s", in, gi_context_last_fallback(ctx));
        /* Batch outputs may sit in subdirectories that mirror the inputs. */
        if (st == GI_OK && c->output_dir && make_parent_dirs(c->output_dir, out) != 0) {
            snprintf(why, why_size, "%s: cannot create its directory: %s", out, strerror(errno));
            st = GI_ERR_IO;
        }
        if (st == GI_OK) st = gi_save_file(&dst, out, &save);
        if (st != GI_OK && !*why) snprintf(why, why_size, "%s", gi_last_error());
    } else {
        snprintf(why, why_size, "%s", gi_last_error());
    }
    gi_image_free(&src);
    gi_image_free(&dst);
    return st == GI_OK ? 0 : -1;
}

static int run_single(const cli_common *c, char **args, int count, image_op op,
                      const void *settings)
{
    if (count != 2)
        return cli_usage_error(c, "expected an input and an output (or -o DIR and inputs), got %d "
                               "file name%s", count, count == 1 ? "" : "s");
    if (output_format(c, args[1]) == GI_FORMAT_AUTO)
        return cli_usage_error(c, "cannot tell the output format of '%s': name it .png/.jpg or "
                               "give --format", args[1]);
    gi_context *ctx = open_context(c, c->jobs);
    if (!ctx) return EXIT_FAIL;
    char why[1200] = "", note[600] = "";
    double mp = 0, start = now_seconds();
    int failed = process_one(c, ctx, op, settings, args[0], args[1], &mp, why, sizeof why, note,
                             sizeof note);
    if (failed) fprintf(stderr, "gpuimg %s: %s\n", c->command, why);
    if (c->verbosity >= 2 && *note) fprintf(stderr, "gpuimg %s: %s\n", c->command, note);
    if (c->verbosity >= 2 && !failed)
        fprintf(stderr, "gpuimg %s: %s -> %s (%.1f ms)\n", c->command, args[0], args[1],
                (now_seconds() - start) * 1e3);
    gi_context_destroy(ctx);
    return failed ? EXIT_FAIL : EXIT_OK;
}

static int run_item(batch *b, gi_context *ctx, batch_item *it)
{
    const cli_common *c = b->common;
    char why[1200] = "", note[600] = "";
    double mp = 0, start = now_seconds();
    struct stat st;
    if (c->skip_existing && !it->problem && stat(it->out, &st) == 0) {
        it->status = ITEM_SKIPPED;
        progress_item(b->progress, 0, 1, 0);
        return 0;
    }
    int failed = 1;
    if (!ctx) snprintf(why, sizeof why, "%s: no backend", it->in);
    else if (it->problem) snprintf(why, sizeof why, "%s: %s", it->in, it->problem);
    else if (strcmp(it->in, "-") == 0)
        snprintf(why, sizeof why, "'-' (standard input) cannot be part of a batch");
    else
        failed = process_one(c, ctx, b->op, b->settings, it->in, it->out, &mp, why, sizeof why,
                             note, sizeof note);
    it->status = failed ? ITEM_FAILED : ITEM_OK;
    it->reason = failed ? strdup(why) : NULL;
    it->ms = (now_seconds() - start) * 1e3;
    it->megapixels = mp;
    if (failed) progress_message(b->progress, "%s", why);
    else if (c->verbosity >= 2)
        progress_message(b->progress, "%s -> %s (%.1f ms)%s%s", it->in, it->out,
                         (now_seconds() - start) * 1e3, *note ? "; " : "", note);
    progress_item(b->progress, failed, 0, mp);
    return failed;
}

static void *batch_worker(void *arg)
{
    batch *b = arg;
    gi_context *ctx = open_context(b->common, b->cpu_threads);
    while (!stop_requested) {
        size_t i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED);
        if (i >= b->list->count) break;
        run_item(b, ctx, &b->list->items[i]);
    }
    gi_context_destroy(ctx);
    return NULL;
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
    int cores = online_cores();
    int workers = c->jobs ? c->jobs : cores;
    if ((size_t)workers > list.count) workers = list.count ? (int)list.count : 1;
    batch b = {c, op, settings, &list, cores / workers > 1 ? cores / workers : 1, 0, &prog};
    signal(SIGINT, on_stop_signal);
    signal(SIGTERM, on_stop_signal);
    pthread_t ids[256];
    int started = 0;
    while (started < workers && pthread_create(&ids[started], NULL, batch_worker, &b) == 0)
        started++;
    if (started == 0) batch_worker(&b); /* no threads to be had: do it here */
    for (int t = 0; t < started; t++) pthread_join(ids[t], NULL);
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
    int default_level = gi_png_deflate_is_libdeflate() ? 6 : 8;
    gi_set_png_options(common->png_level ? common->png_level : default_level, common->png_filter);
    if (!common->output_dir && (common->files_from || common->recursive || common->skip_existing ||
                                common->shard_count > 1 || common->summary_json))
        return cli_usage_error(common, "-r, --files-from, --skip-existing, --shard and "
                               "--summary-json need -o OUTDIR");
    return common->output_dir ? run_batch(common, args, count, op, settings)
                              : run_single(common, args, count, op, settings);
}
