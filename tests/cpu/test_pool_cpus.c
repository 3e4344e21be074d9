/* The pool's workers run off the caller's CPU (lib/cpu/parallel.c): with
 * the calling thread held to one CPU, no worker's rows run on that CPU,
 * in calls back to back (workers spinning) and in calls after a pause
 * (workers asleep, woken). Without
 * that rule a woken worker may be queued behind the caller on its CPU
 * (seen on 2-vCPU virtual machines), and then the caller does every row.
 * Skipped (77) where the process may use fewer than 2 CPUs, or where the
 * system does not let a thread choose its CPUs (the rule is a hint
 * there). */
#define _GNU_SOURCE /* sched_getcpu, pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "harness.h"
#include "cpu/cpu_parallel.h"

typedef struct {
    pthread_t caller;
    int caller_cpu;
    atomic_int worker_runs, on_callers_cpu, unknown_cpu;
} job;

static int visit(void *arg, gi__row_cursor *rows)
{
    job *j = arg;
    const int mine = pthread_equal(pthread_self(), j->caller);
    for (int y, end, fresh; (y = gi__rows_next(rows, 1, &end, &fresh)) >= 0;) {
        if (mine) continue;
        const int cpu = sched_getcpu();
        atomic_fetch_add(&j->worker_runs, 1);
        if (cpu < 0) atomic_fetch_add(&j->unknown_cpu, 1);
        if (cpu == j->caller_cpu) atomic_fetch_add(&j->on_callers_cpu, 1);
        /* a row's work: long enough that the workers start before the
         * caller has taken every row */
        struct timespec t = {0, 20000};
        nanosleep(&t, NULL);
    }
    return 0;
}

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

int main(void)
{
    cpu_set_t allowed;
    if (pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed) != 0 ||
        CPU_COUNT(&allowed) < 2) {
        printf("skipped: fewer than 2 CPUs to use\n");
        return 77;
    }
    const int threads = CPU_COUNT(&allowed) < 4 ? CPU_COUNT(&allowed) : 4;
    /* the workers started while the caller may use every CPU (a thread
     * starts with its creator's CPUs) */
    job warm = {.caller = pthread_self(), .caller_cpu = -1};
    th_check(gi__parallel_rows_shared(threads, threads, 1, visit, &warm) == 0, "first call");
    /* then the caller held to the first CPU it may use */
    int first = 0;
    while (!CPU_ISSET(first, &allowed)) first++;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) {
        printf("skipped: the system does not let a thread choose its CPUs\n");
        return 77;
    }
    const long pauses_ms[] = {0, 0, 0, 20, 0, 100, 5, 0, 300, 0};
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < (int)(sizeof pauses_ms / sizeof pauses_ms[0]); i++) {
            nap_ms(pauses_ms[i]);
            job j = {.caller = pthread_self(), .caller_cpu = sched_getcpu()};
            const int r = gi__parallel_rows_shared(threads, 64 * threads, 1, visit, &j);
            th_check(r == 0 && j.caller_cpu == first, "call %d.%d: result %d, caller on CPU %d",
                     round, i, r, j.caller_cpu);
            th_check(atomic_load(&j.on_callers_cpu) == 0 && atomic_load(&j.unknown_cpu) == 0,
                     "call %d.%d (after %ld ms): %d of %d worker rows on the caller's CPU %d, %d "
                     "on a CPU unknown",
                     round, i, pauses_ms[i], atomic_load(&j.on_callers_cpu),
                     atomic_load(&j.worker_runs), first, atomic_load(&j.unknown_cpu));
        }
    return th_finish();
}
