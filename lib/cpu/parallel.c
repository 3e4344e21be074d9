/* Row bands on pthreads. Threads are started per call: an operation runs
 * for milliseconds, and a thread start costs microseconds. */
#include <pthread.h>
#include <unistd.h>

#include "cpu_parallel.h"

#define MAX_THREADS 256

typedef struct {
    gi__row_fn fn;
    void *arg;
    int begin, end, result;
} band;

static void *run_band(void *p)
{
    band *b = p;
    b->result = b->fn(b->arg, b->begin, b->end);
    return NULL;
}

int gi__cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

int gi__parallel_rows(int threads, int rows, gi__row_fn fn, void *arg)
{
    if (threads > rows) threads = rows;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads <= 1) return fn(arg, 0, rows);

    band bands[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        bands[t] = (band){fn, arg, (int)((long)rows * t / threads),
                          (int)((long)rows * (t + 1) / threads), 0};
        /* Band 0 runs on this thread; a band whose thread cannot start
         * runs here too, so a thread limit slows the work but never fails it. */
        started[t] = t > 0 && pthread_create(&ids[t], NULL, run_band, &bands[t]) == 0;
    }
    int failed = 0;
    for (int t = 0; t < threads; t++) {
        if (!started[t]) run_band(&bands[t]);
    }
    for (int t = 0; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        failed |= bands[t].result;
    }
    return failed ? -1 : 0;
}
