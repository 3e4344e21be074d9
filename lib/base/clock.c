/* The monotonic clock and the median, for stage times and benchmarks. */
#include <stdlib.h>
#include <time.h>

#include "clock.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gi__median(double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof *ms, by_value);
    return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

double gi__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

