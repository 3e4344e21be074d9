/* The core count (lib/base/cores.h, gi__process_cores): the cores the
 * process may run on, as its affinity mask says, counted once.
 *   one: the process held to one of its cores before the first call
 *        counts 1 (taskset -c N, a container's cpuset of one core);
 *   all: counts its mask's cores, even where the first call comes from a
 *        thread held to one core (as the CPU pool's workers hold
 *        themselves off one): the count is the process's, not the
 *        calling thread's. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "base/cores.h"

static cpu_set_t process_mask;

/* The first allowed CPU of the process, or -1. */
static int first_cpu(void)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &process_mask)) return c;
    return -1;
}

static void *count_on_one_core(void *arg)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first_cpu(), &one);
    th_check(pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0, "thread held to a core");
    *(int *)arg = gi__process_cores();
    return NULL;
}

int main(int argc, char **argv)
{
    th_check(sched_getaffinity(0, sizeof process_mask, &process_mask) == 0 && first_cpu() >= 0,
             "the process's mask");
    if (argc > 1 && strcmp(argv[1], "one") == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first_cpu(), &one);
        th_check(sched_setaffinity(0, sizeof one, &one) == 0, "process held to a core");
        const int n = gi__process_cores();
        th_check(n == 1, "held to one core: %d cores", n);
    } else {
        int n = 0;
        pthread_t t;
        th_check(pthread_create(&t, NULL, count_on_one_core, &n) == 0 && pthread_join(t, NULL) == 0,
                 "a thread held to a core");
        th_check(n == CPU_COUNT(&process_mask), "first asked from a thread held to a core: %d, "
                 "the process has %d", n, CPU_COUNT(&process_mask));
        th_check(gi__process_cores() == n, "asked again: the same count");
    }
    return th_finish();
}
