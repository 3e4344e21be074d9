/* The core count (lib/base/cores.h, gi__process_cores): the cores the
 * process may run on, as its affinity mask says, counted once.
 *   one: the process held to one of its cores before the first call
 *        counts 1 (taskset -c N, a container's cpuset of one core);
 *   all: counts its mask's cores (no more than this machine's CPU quota),
 *        even where the first call comes from a thread held to one core
 *        (as the CPU pool's workers hold themselves off one): the count is
 *        the process's, not the calling thread's;
 *   cgroup: the quota read from control group trees made here
 *        (lib/base/cgroup_cpus.h): version 2 alone and beside version 1,
 *        version 1's cpu controller, ancestors, a group not mounted, and
 *        files that are not quotas. */
#define _GNU_SOURCE
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "base/cgroup_cpus.h"
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

static char tree[64];

/* tree/path (its directories made) holding text. */
static void put(const char *path, const char *text)
{
    char full[512];
    snprintf(full, sizeof full, "%s/%s", tree, path);
    for (char *slash = strchr(full + strlen(tree) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(full, 0755);
        *slash = '/';
    }
    FILE *f = fopen(full, "w");
    th_check(f && fputs(text, f) >= 0 && fclose(f) == 0, "write %s", full);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes the tree made so far. */
static void remove_tree(void)
{
    th_check(nftw(tree, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0, "remove %s", tree);
}

static void limit_is(const char *cgroups, int want, const char *what)
{
    const int got = gi__cgroup_cpu_limit(tree, cgroups);
    th_check(got == want, "%s: %d CPUs, want %d", what, got, want);
}

static void check_cgroups(void)
{
    /* version 2 alone */
    snprintf(tree, sizeof tree, "/tmp/gpuimg-cgroup-XXXXXX");
    th_check(mkdtemp(tree) != NULL, "a temporary tree");
    put("cgroup.controllers", "cpu io memory\n");
    limit_is("0::/\n", 0, "v2, no cpu.max");
    put("cpu.max", "max 100000\n");
    limit_is("0::/\n", 0, "v2, max");
    put("a/b/cpu.max", "250000 100000\n");
    limit_is("0::/a/b\n", 3, "v2, 2.5 CPUs rounded up");
    put("a/cpu.max", "100000 100000\n");
    limit_is("0::/a/b\n", 1, "v2, the parent's lower quota");
    limit_is("0::/elsewhere/c\n", 0, "v2, a group not mounted: the root's max");
    put("cpu.max", "400000 100000\n");
    limit_is("0::/elsewhere/c\n", 4, "v2, a group not mounted: the root's quota");
    put("a/b/cpu.max", "50000 100000");
    limit_is("0::/a/b", 1, "v2, half a CPU: one (no newline at the end)");
    static const char *const not_quotas[] = {"", "max", "abc 100000\n", "250000\n",
                                             "250000 0\n", "250000 100000 7\n",
                                             "-5 100000\n", "9999999999999999999 100000\n"};
    put("cpu.max", "max 100000\n");
    put("a/cpu.max", "max 100000\n");
    for (size_t i = 0; i < sizeof not_quotas / sizeof *not_quotas; i++) {
        put("a/b/cpu.max", not_quotas[i]);
        limit_is("0::/a/b\n", 0, not_quotas[i]);
    }
    remove_tree();
    /* version 1's cpu controller, and version 2 beside it at unified/ */
    snprintf(tree, sizeof tree, "/tmp/gpuimg-cgroup-XXXXXX");
    th_check(mkdtemp(tree) != NULL, "a temporary tree");
    put("cpu/docker/x/cpu.cfs_quota_us", "150000\n");
    put("cpu/docker/x/cpu.cfs_period_us", "100000\n");
    put("cpu/cpu.cfs_quota_us", "-1\n");
    put("cpu/cpu.cfs_period_us", "100000\n");
    const char *hybrid = "12:memory:/docker/x\n4:cpu,cpuacct:/docker/x\n0::/docker/x\n";
    limit_is(hybrid, 2, "v1, 1.5 CPUs rounded up");
    limit_is("4:cpuacct,cpuset:/docker/x\n", 0, "v1, no cpu controller named");
    limit_is("4:cpu,cpuacct:/\n", 0, "v1, the root's -1");
    put("unified/docker/x/cpu.max", "100000 100000\n");
    limit_is(hybrid, 1, "v2 at unified/ beside v1: the lower");
    limit_is("garbage\n\n::\n0::\n4:cpu\n", 0, "lines that name no group");
    remove_tree();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cgroup") == 0) {
        check_cgroups();
        return th_finish();
    }
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
        const int quota = gi__process_cgroup_cpu_limit();
        const int want = quota > 0 && quota < CPU_COUNT(&process_mask) ? quota : CPU_COUNT(&process_mask);
        th_check(n == want, "first asked from a thread held to a core: %d, the process has %d "
                 "(its quota: %d)", n, want, quota);
        th_check(gi__process_cores() == n, "asked again: the same count");
    }
    return th_finish();
}
