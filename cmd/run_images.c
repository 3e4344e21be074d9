/* Single-image and batch driver for image-to-image commands. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run_images.h"

typedef struct {
    const cli_common *common;
    image_op op;
    const void *settings;
    char **inputs;
    int count;
    int cpu_threads; /* per worker context */
    int next;        /* next input to take, shared by the workers */
    int ok, failed;
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

/* Load, run, save one image. Prints one line naming the file on failure. */
static int process_one(const cli_common *c, gi_context *ctx, image_op op, const void *settings,
                       const char *in, const char *out)
{
    double start = now_seconds();
    gi_image src = {0}, dst = {0};
    gi_save_options save = {output_format(c, out), c->quality};
    gi_status st = gi_load_file(&src, in, &c->limits);
    if (st == GI_OK) {
        st = op(ctx, &src, &dst, settings);
        if (st != GI_OK) fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, in, gi_last_error());
        else if (c->verbosity >= 2 && *gi_context_last_fallback(ctx))
            fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, in, gi_context_last_fallback(ctx));
        if (st == GI_OK) {
            st = gi_save_file(&dst, out, &save);
            if (st != GI_OK) fprintf(stderr, "gpuimg %s: %s\n", c->command, gi_last_error());
        }
    } else {
        fprintf(stderr, "gpuimg %s: %s\n", c->command, gi_last_error());
    }
    gi_image_free(&src);
    gi_image_free(&dst);
    if (st == GI_OK && c->verbosity >= 2)
        fprintf(stderr, "gpuimg %s: %s -> %s (%.1f ms)\n", c->command, in, out,
                (now_seconds() - start) * 1e3);
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
    int failed = process_one(c, ctx, op, settings, args[0], args[1]);
    gi_context_destroy(ctx);
    return failed ? EXIT_FAIL : EXIT_OK;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int make_directory(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0) return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
    return mkdir(dir, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

static void *batch_worker(void *arg)
{
    batch *b = arg;
    const cli_common *c = b->common;
    gi_context *ctx = open_context(c, b->cpu_threads);
    for (;;) {
        int i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED);
        if (i >= b->count) break;
        const char *in = b->inputs[i];
        int failed = 1;
        if (ctx && strcmp(in, "-") == 0) {
            fprintf(stderr, "gpuimg %s: '-' (standard input) cannot be part of a batch\n", c->command);
        } else if (ctx) {
            size_t len = strlen(c->output_dir) + strlen(base_name(in)) + 2;
            char *out = malloc(len);
            if (out) {
                snprintf(out, len, "%s/%s", c->output_dir, base_name(in));
                failed = process_one(c, ctx, b->op, b->settings, in, out);
                free(out);
            } else {
                fprintf(stderr, "gpuimg %s: %s: out of memory\n", c->command, in);
            }
        }
        __atomic_fetch_add(failed ? &b->failed : &b->ok, 1, __ATOMIC_RELAXED);
    }
    gi_context_destroy(ctx);
    return NULL;
}

static int run_batch(const cli_common *c, char **args, int count, image_op op,
                     const void *settings)
{
    if (count == 0) return cli_usage_error(c, "-o %s given but no input files", c->output_dir);
    if (make_directory(c->output_dir) != 0) {
        fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, c->output_dir, strerror(errno));
        return EXIT_FAIL;
    }
    int cores = online_cores();
    int workers = c->jobs ? c->jobs : cores;
    if (workers > count) workers = count;
    batch b = {c, op, settings, args, count, cores / workers > 1 ? cores / workers : 1, 0, 0, 0};
    double start = now_seconds();
    pthread_t ids[256];
    int started = 0;
    while (started < workers && pthread_create(&ids[started], NULL, batch_worker, &b) == 0)
        started++;
    if (started == 0) batch_worker(&b); /* no threads to be had: do it here */
    for (int t = 0; t < started; t++) pthread_join(ids[t], NULL);
    if (c->verbosity >= 1)
        fprintf(stderr, "gpuimg %s: %d ok, %d failed, %.2f s\n", c->command, b.ok, b.failed,
                now_seconds() - start);
    return b.failed ? EXIT_FAIL : EXIT_OK;
}

int run_images(const cli_common *common, char **args, int count, image_op op, const void *settings)
{
    return common->output_dir ? run_batch(common, args, count, op, settings)
                              : run_single(common, args, count, op, settings);
}
