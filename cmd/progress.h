/* Batch feedback on stderr: a progress bar when stderr is a terminal,
 * failure lines that do not tangle with it, and the final summary. */
#ifndef GPUIMG_PROGRESS_H
#define GPUIMG_PROGRESS_H

#include <pthread.h>
#include <stddef.h>

typedef struct {
    const char *command;
    int bar;       /* draw the bar (stderr is a terminal, not -q) */
    int summary;   /* print the summary line (not -q) */
    size_t total, ok, failed, skipped;
    double megapixels;
    double start, last_draw;
    pthread_mutex_t lock;
} progress;

void progress_init(progress *p, const char *command, size_t total, int verbosity);
/* One item ended: ok (with its megapixels), failed, or skipped. */
void progress_item(progress *p, int failed, int skipped, double megapixels);
/* Prints "gpuimg CMD: message" on its own line, above the bar. */
void progress_message(progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double progress_elapsed(const progress *p);
/* Clears the bar and prints the summary: N ok, M failed, time, rates. */
void progress_finish(progress *p, int interrupted);

#endif
