/* The three steps of one image, each timed into the item's stage_ms. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "image_job.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

gi_format output_format(const cli_common *c, const char *path)
{
    return c->format != GI_FORMAT_AUTO ? c->format : gi_format_from_path(path);
}

void image_job_release(image_job *job)
{
    gi_image_free(&job->src);
    gi_image_free(&job->dst);
}

void image_job_fail(image_job *job, const char *fmt, ...)
{
    char why[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    job->item->status = ITEM_FAILED;
    free(job->item->reason);
    job->item->reason = strdup(why);
    image_job_release(job);
}

/* Adds a step's time to the item's record. */
static void add_stage(image_job *job, item_stage stage, double ms)
{
    job->item->stage_ms[stage] += ms;
    job->item->ms += ms;
}

int image_job_decode(const cli_common *c, image_job *job)
{
    double start = now_ms();
    gi_status st = gi_load_file(&job->src, job->item->in, &c->limits);
    add_stage(job, STAGE_DECODE, now_ms() - start);
    if (st != GI_OK) {
        image_job_fail(job, "%s", gi_last_error());
        return -1;
    }
    job->item->megapixels = (double)job->src.width * job->src.height / 1e6;
    return 0;
}

int image_job_compute(gi_context *ctx, image_op op, const void *settings, image_job *job)
{
    gi_status st = op(ctx, &job->src, &job->dst, settings);
    gi_image_free(&job->src); /* not needed any more: keep memory flat */
    if (st != GI_OK) {
        image_job_fail(job, "%s: %s", job->item->in, gi_last_error());
        return -1;
    }
    gi_op_times t;
    gi_context_last_times(ctx, &t);
    add_stage(job, STAGE_STARTUP, t.startup_ms);
    add_stage(job, STAGE_UPLOAD, t.upload_ms);
    add_stage(job, STAGE_KERNEL, t.kernel_ms);
    add_stage(job, STAGE_DOWNLOAD, t.download_ms);
    const char *fallback = gi_context_last_fallback(ctx);
    snprintf(job->note, sizeof job->note, "%s%s%s", *fallback ? job->item->in : "",
             *fallback ? ": " : "", fallback);
    return 0;
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

int image_job_encode(const cli_common *c, image_job *job)
{
    const char *out = job->item->out;
    gi_save_options save = {output_format(c, out), c->quality, c->png_level, c->png_filter};
    double start = now_ms();
    /* Batch outputs may sit in subdirectories that mirror the inputs. */
    if (c->output_dir && make_parent_dirs(c->output_dir, out) != 0) {
        image_job_fail(job, "%s: cannot create its directory: %s", out, strerror(errno));
        return -1;
    }
    gi_status st = gi_save_file(&job->dst, out, &save);
    add_stage(job, STAGE_ENCODE, now_ms() - start);
    if (st != GI_OK) {
        image_job_fail(job, "%s", gi_last_error());
        return -1;
    }
    job->item->status = ITEM_OK;
    image_job_release(job);
    return 0;
}

void image_job_describe(const image_job *job, char *text, size_t size)
{
    const batch_item *it = job->item;
    int n = snprintf(text, size, "%s -> %s (%.1f ms:", it->in, it->out, it->ms);
    for (int s = 0; s < STAGE_COUNT && n > 0 && (size_t)n < size; s++)
        if (it->stage_ms[s] >= 0.05 || s != STAGE_STARTUP)
            n += snprintf(text + n, size - n, "%s %s %.1f", s ? "," : "", item_stage_names[s],
                          it->stage_ms[s]);
    if (n > 0 && (size_t)n < size)
        snprintf(text + n, size - n, ")%s%s", *job->note ? "; " : "", job->note);
}
