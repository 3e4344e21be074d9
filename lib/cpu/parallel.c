/* Row bands on pthreads.
 *
 * Worker threads are started once per process, when a call first needs
 * them, and then wait for work: a call hands each worker a band, runs band
 * 0 itself, and waits for the rest. One call at a time uses the pool; a
 * call that finds it busy (another context on another thread) starts
 * threads of its own for its bands, as every call did before the pool, so
 * concurrent callers never wait for each other. Each band's slot has its
 * own cache line, so threads do not write to a shared line.
 *
 * Hand-out and completion go through atomics, with a short spin before
 * sleeping: a call's steps come back to back (a chain's steps, the rows of
 * a folder's images), and waking 15 sleeping workers through one mutex and
 * condition took as long as a 1-channel histogram of 9 MP on 16 cores.
 * A worker spins for SPIN_MS after its last band (or its start) before it
 * sleeps on the condition; the caller spins as long for the last band
 * before it sleeps. Each worker watches its own slot's ticket (the call
 * that gave it the band), so a worker slow to see one call can never take
 * the next call's band for it. Sleepers are counted under the lock, so a
 * call broadcasts only when someone sleeps, and no wake-up is lost: the
 * tickets are written under the lock, and a worker reads its own under the
 * lock before it waits.
 *
 * Workers are kept off the caller's CPU. Linux may place a woken thread
 * on its waker's CPU while another CPU idles (seen on a 2-vCPU virtual
 * machine: the worker queued 3 ms behind the caller for call after call,
 * so the caller took every row and a 2-thread resize took its 1-thread
 * time). So before waking them a call allows each sleeping worker every
 * CPU it may use but the caller's, and a worker that finds itself on the
 * caller's CPU all the same (a spinning one, where the caller woke on its
 * CPU) moves off it. A hint: where the system refuses it, a worker runs
 * where the system puts it. */
#define _GNU_SOURCE /* sched_getcpu, pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu_parallel.h"
#include "base/clock.h"
#include "base/cores.h"

#define MAX_THREADS 256
#define CACHE_LINE 64
#define SPIN_MS 0.05 /* 50 us: a few steps' gap, a small share of a core */

/* A shared band's rows left, next..end, in one word (next in the high
 * half) that threads change by compare-and-swap: its thread taking its
 * next row, another taking the band's later half. No lock, so a thread
 * that the system stops midway (a machine with more threads than cores)
 * holds no other up. A word's value never comes back once it has
 * changed (next only grows within a run, and a new run's rows lie past
 * the rows the band kept, all of them given before it ends), so a swap
 * that finds the value it read acts on what it saw. And what the band's
 * thread needs to take rows of other bands: them, and the row past the
 * last it gave. */
typedef struct band band;
struct gi__row_cursor {
    _Atomic uint64_t rows;
    band *all;
    int bands, min_take, last;
};

struct band {
    alignas(CACHE_LINE) gi__row_fn fn;   /* a band of its own: fn(begin, end) */
    gi__rows_fn shared_fn;              /* or rows shared: shared_fn(cursor) */
    void *arg;
    int begin, end, result;
    gi__row_cursor cursor;
    atomic_ulong ticket; /* pool: the call whose band this is */
};

static uint64_t pack_rows(int next, int end)
{
    return (uint64_t)(uint32_t)next << 32 | (uint32_t)end;
}

static int next_of(uint64_t rows)
{
    return (int)(rows >> 32);
}

static int end_of(uint64_t rows)
{
    return (int)(uint32_t)rows;
}

/* The cursor's next rows, at most `most` of them: the first, and into
 * *end the row past them; -1 when none is left. */
static int claim_rows(gi__row_cursor *c, int most, int *end)
{
    uint64_t v = atomic_load_explicit(&c->rows, memory_order_relaxed);
    while (next_of(v) < end_of(v)) {
        const int next = next_of(v), n = end_of(v) - next < most ? end_of(v) - next : most;
        if (atomic_compare_exchange_weak_explicit(&c->rows, &v, pack_rows(next + n, end_of(v)),
                                                  memory_order_relaxed, memory_order_relaxed)) {
            *end = next + n;
            return next;
        }
    }
    return -1;
}

/* Takes the later half of the band with the most rows left, if it has
 * min_take or more, as mine's rows (mine has none left: no other thread
 * changes it meanwhile); 0 when no band has. */
static int take_rows(gi__row_cursor *mine)
{
    for (;;) {
        gi__row_cursor *most = NULL;
        uint64_t seen = 0;
        int left = mine->min_take - 1;
        for (int t = 0; t < mine->bands; t++) {
            gi__row_cursor *c = &mine->all[t].cursor;
            const uint64_t v = atomic_load_explicit(&c->rows, memory_order_relaxed);
            if (end_of(v) - next_of(v) > left) most = c, seen = v, left = end_of(v) - next_of(v);
        }
        if (!most) return 0;
        /* the band keeps the first half (its rows under way are there) */
        const int next = next_of(seen), end = end_of(seen), half = next + (end - next + 1) / 2;
        if (atomic_compare_exchange_strong_explicit(&most->rows, &seen, pack_rows(next, half),
                                                    memory_order_relaxed, memory_order_relaxed)) {
            atomic_store_explicit(&mine->rows, pack_rows(half, end), memory_order_relaxed);
            return 1;
        }
    }
}

int gi__rows_next(gi__row_cursor *c, int most, int *end, int *fresh)
{
    int y;
    while ((y = claim_rows(c, most > 0 ? most : 1, end)) < 0)
        if (!take_rows(c)) return -1;
    *fresh = y != c->last;
    c->last = *end;
    return y;
}

int gi__row_end(gi__row_cursor *c)
{
    return end_of(atomic_load_explicit(&c->rows, memory_order_relaxed));
}

static void *run_band(void *p)
{
    band *b = p;
    if (!b->shared_fn) {
        b->result = b->fn(b->arg, b->begin, b->end);
        return NULL;
    }
    b->result = b->shared_fn(b->arg, &b->cursor);
    return NULL;
}

int gi__cpu_count(void)
{
    const int n = gi__process_cores();
    return n > MAX_THREADS ? MAX_THREADS : n;
}

/* The pool. busy is held by the call that uses it, from hand-out to the
 * last band's end; workers, call and the slots' contents are that call's.
 * pending (on its own line) and the slots' tickets are atomics; lock
 * guards the sleepers' counts and the conditions. */
static struct {
    pthread_mutex_t busy, lock;
    pthread_cond_t work, done;
    int workers;          /* started so far; worker w runs slots[w + 1] */
    unsigned long call;   /* counts calls: the tickets */
    int sleeping_workers; /* waiting on work, under lock */
    int caller_sleeps;    /* the call waits on done, under lock */
    atomic_int caller_cpu; /* the CPU the call was handed out on, -1 unknown */
    int asleep[MAX_THREADS];       /* worker w waits on work, under lock */
    pthread_t ids[MAX_THREADS];    /* worker w's thread */
    cpu_set_t allowed[MAX_THREADS]; /* the CPUs worker w may use (at its start) */
    int allowed_known[MAX_THREADS];
    int kept_off[MAX_THREADS]; /* the CPU worker w is kept off, -1 none */
    alignas(CACHE_LINE) atomic_int pending; /* worker bands of the call not yet done */
    unsigned long started_at[MAX_THREADS];  /* each worker's slot's ticket when it started */
    band slots[MAX_THREADS];
} pool = {.busy = PTHREAD_MUTEX_INITIALIZER, .lock = PTHREAD_MUTEX_INITIALIZER,
          .work = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER, .caller_cpu = -1};

/* A hint to the core that this thread spins (x86 pause, arm yield). */
static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

/* One pause of a spin that began at start (gi__now_ms): 0 once SPIN_MS
 * have passed (the clock is read every 32 pauses). */
static int keep_spinning(double start, int *pauses)
{
    spin_pause();
    return (++*pauses & 31) != 0 || gi__now_ms() - start <= SPIN_MS;
}

/* Lets worker w use every CPU it may but `cpu`, where that leaves it one;
 * under lock. No system call where it is kept off that CPU already. A
 * hint: a refusal leaves the worker's CPUs as they were. */
static void keep_off(int w, int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE || pool.kept_off[w] == cpu || !pool.allowed_known[w] ||
        !CPU_ISSET(cpu, &pool.allowed[w]) || CPU_COUNT(&pool.allowed[w]) < 2)
        return;
    cpu_set_t others = pool.allowed[w];
    CPU_CLR(cpu, &others);
    if (pthread_setaffinity_np(pool.ids[w], sizeof others, &others) == 0) pool.kept_off[w] = cpu;
}

/* Keeps the sleeping workers of bands 1..threads-1 off the caller's CPU
 * before they are woken; under lock. */
static void wake_away_from(int cpu, int threads)
{
    for (int t = 1; t < threads; t++)
        if (pool.asleep[t - 1]) keep_off(t - 1, cpu);
}

/* Worker `index`, run late on the caller's CPU (queued behind the caller,
 * which a spinning worker can be when the caller woke on its CPU), moves
 * off it: the system call moves it at once, and keeps its later wake-ups
 * off that CPU. */
static void leave_callers_cpu(int index)
{
    const int cpu = atomic_load_explicit(&pool.caller_cpu, memory_order_relaxed);
    if (cpu < 0 || sched_getcpu() != cpu) return;
    pthread_mutex_lock(&pool.lock);
    keep_off(index, cpu);
    pthread_mutex_unlock(&pool.lock);
}

static void *worker(void *p)
{
    const int index = (int)(long)p;
    band *slot = &pool.slots[index + 1];
    pthread_mutex_lock(&pool.lock);
    unsigned long seen = pool.started_at[index];
    pool.ids[index] = pthread_self();
    pool.allowed_known[index] =
        pthread_getaffinity_np(pthread_self(), sizeof pool.allowed[index],
                               &pool.allowed[index]) == 0;
    pool.kept_off[index] = -1;
    pthread_mutex_unlock(&pool.lock);
    for (;;) {
        unsigned long ticket;
        int pauses = 0;
        for (double start = gi__now_ms();
             (ticket = atomic_load_explicit(&slot->ticket, memory_order_acquire)) == seen &&
             keep_spinning(start, &pauses);)
            ;
        if (ticket == seen) {
            pthread_mutex_lock(&pool.lock);
            pool.sleeping_workers++;
            pool.asleep[index] = 1;
            while ((ticket = atomic_load_explicit(&slot->ticket, memory_order_acquire)) == seen)
                pthread_cond_wait(&pool.work, &pool.lock);
            pool.asleep[index] = 0;
            pool.sleeping_workers--;
            pthread_mutex_unlock(&pool.lock);
        }
        seen = ticket;
        /* the slot, pending and caller_cpu were written before the ticket */
        leave_callers_cpu(index);
        run_band(slot);
        if (atomic_fetch_sub_explicit(&pool.pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&pool.lock);
            if (pool.caller_sleeps) pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.lock);
        }
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
            pool.started_at[pool.workers] =
                atomic_load_explicit(&pool.slots[pool.workers + 1].ticket, memory_order_relaxed);
            ok = pthread_create(&id, &attr, worker, (void *)(long)pool.workers) == 0;
            if (ok) pool.workers++;
            pthread_mutex_unlock(&pool.lock);
            pthread_attr_destroy(&attr);
        }
        if (!ok) break;
    }
    return pool.workers;
}

/* What a call's bands run: fn over a band of its own, or shared_fn over
 * rows that threads done with theirs may take (at least min_take). */
typedef struct {
    gi__row_fn fn;
    gi__rows_fn shared_fn;
    void *arg;
    int min_take;
} work;

/* Field by field: a pool slot's ticket is its worker's to watch. */
static void split(band *bands, int threads, int rows, const work *w)
{
    for (int t = 0; t < threads; t++) {
        bands[t].fn = w->fn;
        bands[t].shared_fn = w->shared_fn;
        bands[t].arg = w->arg;
        bands[t].begin = (int)((long)rows * t / threads);
        bands[t].end = (int)((long)rows * (t + 1) / threads);
        bands[t].result = 0;
        atomic_store_explicit(&bands[t].cursor.rows, pack_rows(bands[t].begin, bands[t].end),
                              memory_order_relaxed);
        bands[t].cursor.all = bands;
        bands[t].cursor.bands = threads;
        bands[t].cursor.min_take = w->min_take;
        bands[t].cursor.last = -1; /* the first rows given are fresh */
    }
}

static int pooled(int threads, int rows, const work *w)
{
    int workers = grow_pool(threads - 1);
    if (threads > workers + 1) threads = workers + 1; /* a thread limit: fewer bands */
    split(pool.slots, threads, rows, w);
    atomic_store_explicit(&pool.pending, threads - 1, memory_order_relaxed);
    const unsigned long ticket = ++pool.call;
    const int cpu = sched_getcpu();
    atomic_store_explicit(&pool.caller_cpu, cpu, memory_order_relaxed);
    pthread_mutex_lock(&pool.lock);
    for (int t = 1; t < threads; t++)
        atomic_store_explicit(&pool.slots[t].ticket, ticket, memory_order_release);
    if (pool.sleeping_workers) {
        wake_away_from(cpu, threads);
        pthread_cond_broadcast(&pool.work);
    }
    pthread_mutex_unlock(&pool.lock);
    run_band(&pool.slots[0]);
    int pauses = 0;
    for (double start = gi__now_ms();
         atomic_load_explicit(&pool.pending, memory_order_acquire) != 0 &&
         keep_spinning(start, &pauses);)
        ;
    if (atomic_load_explicit(&pool.pending, memory_order_acquire) != 0) {
        pthread_mutex_lock(&pool.lock);
        pool.caller_sleeps = 1;
        while (atomic_load_explicit(&pool.pending, memory_order_acquire) != 0)
            pthread_cond_wait(&pool.done, &pool.lock);
        pool.caller_sleeps = 0;
        pthread_mutex_unlock(&pool.lock);
    }
    int failed = 0;
    for (int t = 0; t < threads; t++) failed |= pool.slots[t].result;
    return failed;
}

/* The pool is taken: threads of this call's own. Their bands are on the
 * heap (on the stack, 256 of a cache line each took 16 KB of the
 * caller's); without memory for them the rows run on this thread alone,
 * so that the work is slower but never fails. */
static int unpooled(int threads, int rows, const work *w)
{
    band *bands = aligned_alloc(CACHE_LINE, sizeof *bands * (size_t)threads);
    pthread_t *ids = malloc(sizeof *ids * (size_t)threads);
    int *started = malloc(sizeof *started * (size_t)threads);
    if (!bands || !ids || !started) {
        free(bands);
        free(ids);
        free(started);
        band one = {0};
        split(&one, 1, rows, w);
        run_band(&one);
        return one.result;
    }
    split(bands, threads, rows, w);
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
    free(bands);
    free(ids);
    free(started);
    return failed;
}

static int run_work(int threads, int rows, const work *w)
{
    if (threads > rows) threads = rows;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    int failed;
    if (threads <= 1) {
        band one = {0};
        split(&one, 1, rows, w);
        run_band(&one);
        failed = one.result;
    } else if (pthread_mutex_trylock(&pool.busy) == 0) {
        failed = pooled(threads, rows, w);
        pthread_mutex_unlock(&pool.busy);
    } else {
        failed = unpooled(threads, rows, w);
    }
    return failed ? -1 : 0;
}

int gi__parallel_rows(int threads, int rows, gi__row_fn fn, void *arg)
{
    const work w = {.fn = fn, .arg = arg};
    return run_work(threads, rows, &w);
}

int gi__parallel_rows_shared(int threads, int rows, int min_take, gi__rows_fn fn, void *arg)
{
    const work w = {.shared_fn = fn, .arg = arg, .min_take = min_take > 1 ? min_take : 1};
    return run_work(threads, rows, &w);
}
