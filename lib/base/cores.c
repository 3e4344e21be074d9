/* The cores this process may run on, counted once. A process held to some
 * cores (taskset, a container's cpuset, numactl) counts those alone, as
 * nproc, GNU OpenMP and Python's os.process_cpu_count do: counting the
 * machine's, a batch held to 4 of 16 cores started 16 codec workers on
 * them. Where the mask cannot be read, the cores online (sysconf). A
 * control group's CPU quota (docker --cpus, a Kubernetes CPU limit) bounds
 * the count too, rounded up (cgroup_cpus.h), as the JVM and Go's runtime
 * bound theirs.
 * glibc's sysconf(_SC_NPROCESSORS_ONLN) reads /sys/devices/system/cpu/online
 * at every call (an open, a read and a close: 4-7 us, and 30 us a call on
 * the H200 machine when 16 threads ask at once), and the engine asked for
 * it four times an image: a 1x1 resize from Python took 37 us, 27 of them
 * in the library. So the count is found once: a mask changed later, or
 * cores that come online later, are not seen, as by the thread pools of
 * OpenMP and TBB, which also count once. The mask is the main thread's
 * (the process's as taskset set it), not the calling thread's: the CPU
 * pool's workers keep themselves off one core. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "cgroup_cpus.h"
#include "cores.h"

int gi__process_cores(void)
{
    static atomic_int cores; /* 0 until found; every thread finds the same */
    int n = atomic_load_explicit(&cores, memory_order_relaxed);
    if (n) return n;
    cpu_set_t mask;
    const long usable = sched_getaffinity(getpid(), sizeof mask, &mask) == 0
                            ? CPU_COUNT(&mask)
                            : sysconf(_SC_NPROCESSORS_ONLN);
    n = usable < 1 ? 1 : usable > 1 << 20 ? 1 << 20 : (int)usable;
    const int quota = gi__process_cgroup_cpu_limit();
    if (quota > 0 && quota < n) n = quota;
    atomic_store_explicit(&cores, n, memory_order_relaxed);
    return n;
}
