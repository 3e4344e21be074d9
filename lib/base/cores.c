/* The core count, read once. glibc's sysconf(_SC_NPROCESSORS_ONLN) reads
 * /sys/devices/system/cpu/online at every call (an open, a read and a
 * close: 4-7 us, and 30 us a call on the H200 machine when 16 threads
 * ask at once), and the engine asked for it four times an image: a 1x1
 * resize from Python took 37 us, 27 of them in the library. Cores that
 * come online later are not seen, as by the thread pools of OpenMP and
 * TBB, which also count once. */
#include <stdatomic.h>
#include <unistd.h>

#include "cores.h"

int gi__online_cores(void)
{
    static atomic_int cores; /* 0 until found; every thread finds the same */
    int n = atomic_load_explicit(&cores, memory_order_relaxed);
    if (n) return n;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    n = online < 1 ? 1 : online > 1 << 20 ? 1 << 20 : (int)online;
    atomic_store_explicit(&cores, n, memory_order_relaxed);
    return n;
}
