/* The progress bar redraws at most ten times a second, from whichever
 * worker finished an item; a mutex keeps lines whole. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_init(progress *p, const char *command, size_t total, int verbosity)
{
    *p = (progress){.command = command, .total = total};
    p->bar = verbosity >= 1 && isatty(STDERR_FILENO);
    p->summary = verbosity >= 1;
    p->start = now_seconds();
    pthread_mutex_init(&p->lock, NULL);
}

static void clear_bar(const progress *p)
{
    if (p->bar) fputs("\r\033[K", stderr);
}

static void draw_bar(progress *p)
{
    size_t done = p->ok + p->failed + p->skipped;
    double elapsed = now_seconds() - p->start;
    double rate = elapsed > 0 ? (p->ok + p->failed) / elapsed : 0;
    double eta = rate > 0 ? (p->total - done) / rate : 0;
    int width = 30, filled = p->total ? (int)(width * done / p->total) : width;
    fprintf(stderr, "\r\033[K[%.*s%*s] %zu/%zu  %.1f img/s  ETA %d:%02d  %zu failed",
            filled, "##############################", width - filled, "", done, p->total, rate,
            (int)eta / 60, (int)eta % 60, p->failed);
    p->last_draw = now_seconds();
}

void progress_item(progress *p, int failed, int skipped, double megapixels)
{
    pthread_mutex_lock(&p->lock);
    if (failed) p->failed++;
    else if (skipped) p->skipped++;
    else {
        p->ok++;
        p->megapixels += megapixels;
    }
    if (p->bar && now_seconds() - p->last_draw >= 0.1) draw_bar(p);
    pthread_mutex_unlock(&p->lock);
}

void progress_message(progress *p, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&p->lock);
    clear_bar(p);
    fprintf(stderr, "gpuimg %s: ", p->command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (p->bar) draw_bar(p);
    pthread_mutex_unlock(&p->lock);
}

double progress_elapsed(const progress *p)
{
    return now_seconds() - p->start;
}

void progress_finish(progress *p, int interrupted)
{
    double elapsed = progress_elapsed(p);
    clear_bar(p);
    if (p->summary) {
        fprintf(stderr, "gpuimg %s: %zu ok, %zu failed", p->command, p->ok, p->failed);
        if (p->skipped) fprintf(stderr, ", %zu skipped", p->skipped);
        if (interrupted) fprintf(stderr, ", %zu not started (interrupted)",
                                 p->total - p->ok - p->failed - p->skipped);
        fprintf(stderr, ", %.2f s", elapsed);
        /* a rate of the images written: none when none was */
        if (p->ok > 0 && elapsed > 0)
            fprintf(stderr, ", %.2f images/s, %.1f MP/s", p->ok / elapsed,
                    p->megapixels / elapsed);
        fputc('\n', stderr);
    }
    pthread_mutex_destroy(&p->lock);
}
