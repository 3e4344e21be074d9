/* Row bands on pthreads.
 *
 * Worker threads are started once per process, when a call first needs
 * them, and then wait for work: a call hands each worker a band, runs band
 * 0 itself, and waits for the rest. One call at a time uses the pool; a
 * call that finds it busy (another context on another thread) starts
 * threads of its own for its bands, as every call did before the pool, so
 * concurrent callers never wait for each other. Each band's slot has its
 * own cache line, so threads do not write to a shared line. */
#include <pthread.h>
#include <stdalign.h>
#include <unistd.h>

#include "cpu_parallel.h"

#define MAX_THREADS 256
#define CACHE_LINE 64

typedef struct {
    alignas(CACHE_LINE) gi__row_fn fn;
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

/* The pool. busy is held by the call that uses it, from hand-out to the
 * last band's end; lock and the two conditions guard the rest. */
static struct {
    pthread_mutex_t busy, lock;
    pthread_cond_t work, done;
    int workers;        /* started so far; worker w runs bands[w + 1] */
    int bands;          /* bands of the current call, band 0 included */
    int pending;        /* worker bands of the current call not yet done */
    unsigned long call; /* counts calls, so a worker sees a new one */
    unsigned long started_at[MAX_THREADS]; /* call count when each worker started */
    band slots[MAX_THREADS];
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, {0}, {{0}}};

static void *worker(void *p)
{
    const int index = (int)(long)p;
    pthread_mutex_lock(&pool.lock);
    unsigned long seen = pool.started_at[index];
    for (;;) {
        while (pool.call == seen) pthread_cond_wait(&pool.work, &pool.lock);
        seen = pool.call;
        if (index + 1 >= pool.bands) continue;
        pthread_mutex_unlock(&pool.lock);
        run_band(&pool.slots[index + 1]);
        pthread_mutex_lock(&pool.lock);
        if (--pool.pending == 0) pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* Starts workers until there are `want`; returns how many there are. */
static int grow_pool(int want)
{
    while (pool.workers < want) {
        pthread_t id;
        pthread_attr_t attr;
        int ok = pthread_attr_init(&attr) == 0;
        if (ok) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            /* the worker waits for calls after this one: it must not take
             * the last call for a new one, nor miss the next */
            pthread_mutex_lock(&pool.lock);
            pool.started_at[pool.workers] = pool.call;
            ok = pthread_create(&id, &attr, worker, (void *)(long)pool.workers) == 0;
            if (ok) pool.workers++;
            pthread_mutex_unlock(&pool.lock);
            pthread_attr_destroy(&attr);
        }
        if (!ok) break;
    }
    return pool.workers;
}

static void split(band *bands, int threads, int rows, gi__row_fn fn, void *arg)
{
    for (int t = 0; t < threads; t++)
        bands[t] = (band){fn, arg, (int)((long)rows * t / threads),
                          (int)((long)rows * (t + 1) / threads), 0};
}

static int pooled(int threads, int rows, gi__row_fn fn, void *arg)
{
    int workers = grow_pool(threads - 1);
    if (threads > workers + 1) threads = workers + 1; /* a thread limit: fewer bands */
    split(pool.slots, threads, rows, fn, arg);
    pthread_mutex_lock(&pool.lock);
    pool.bands = threads;
    pool.pending = threads - 1;
    pool.call++;
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.lock);
    run_band(&pool.slots[0]);
    pthread_mutex_lock(&pool.lock);
    while (pool.pending) pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    int failed = 0;
    for (int t = 0; t < threads; t++) failed |= pool.slots[t].result;
    return failed;
}

/* The pool is taken: threads of this call's own. */
static int unpooled(int threads, int rows, gi__row_fn fn, void *arg)
{
    band bands[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS];
    split(bands, threads, rows, fn, arg);
    for (int t = 0; t < threads; t++)
        /* Band 0 runs on this thread; a band whose thread cannot start
         * runs here too, so a thread limit slows the work but never fails it. */
        started[t] = t > 0 && pthread_create(&ids[t], NULL, run_band, &bands[t]) == 0;
    int failed = 0;
    for (int t = 0; t < threads; t++) {
        if (!started[t]) run_band(&bands[t]);
    }
    for (int t = 0; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        failed |= bands[t].result;
    }
    return failed;
}

int gi__parallel_rows(int threads, int rows, gi__row_fn fn, void *arg)
{
    if (threads > rows) threads = rows;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads <= 1) return fn(arg, 0, rows);
    int failed;
    if (pthread_mutex_trylock(&pool.busy) == 0) {
        failed = pooled(threads, rows, fn, arg);
        pthread_mutex_unlock(&pool.busy);
    } else {
        failed = unpooled(threads, rows, fn, arg);
    }
    return failed ? -1 : 0;
}
