/* Check counting and the seeded generator shared by the C tests. */
#include "harness.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long passed, failed;
static uint64_t rng_state;

int th_check(int ok, const char *fmt, ...)
{
    va_list ap;
    if (ok) {
        passed++;
        return 1;
    }
    failed++;
    fputs("FAIL: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 0;
}

int th_finish(void)
{
    /* stdout and stderr interleave under meson; flush the details first. */
    fflush(stderr);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed == 0 && fflush(stdout) == 0 ? 0 : 1;
}

void th_seed(void)
{
    const char *env = getenv("GPUIMG_SEED");
    struct timespec ts;
    if (env && *env) {
        rng_state = strtoull(env, NULL, 0);
    } else {
        clock_gettime(CLOCK_REALTIME, &ts);
        rng_state = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec
                    ^ (uint64_t)getpid() << 32;
    }
    printf("seed %" PRIu64 " (replay with GPUIMG_SEED=%" PRIu64 ")\n",
           rng_state, rng_state);
}

/* splitmix64: tiny, good enough for test data, same stream on every
 * platform so a printed seed replays anywhere. */
uint64_t th_rand64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

int th_rand_int(int lo, int hi)
{
    return lo + (int)(th_rand64() % (uint64_t)(hi - lo + 1));
}

double th_rand_double(double lo, double hi)
{
    return lo + (hi - lo) * (double)(th_rand64() >> 11) * 0x1.0p-53;
}
