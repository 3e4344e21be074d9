/* Channel statistics derived from a histogram of one bin per value (256
 * at 8 bits, 65536 at 16), as gpuimg.h defines them. */
#include <math.h>

#include "gpuimg.h"

/* n, min, max and the median of `values` bins; 0 when n is 0. */
static uint64_t order_stats(const uint64_t *counts, int values, gi_channel_stats *s)
{
    uint64_t n = 0;
    s->min = -1;
    s->max = 0;
    for (int v = 0; v < values; v++) {
        if (!counts[v]) continue;
        if (s->min < 0) s->min = v;
        s->max = v;
        n += counts[v];
    }
    s->median = 0;
    if (n == 0) {
        s->min = 0;
        return 0;
    }
    uint64_t half = (n + 1) / 2, seen = 0;
    for (int v = 0; v < values; v++) {
        seen += counts[v];
        if (seen >= half) {
            s->median = v;
            break;
        }
    }
    return n;
}

void gi_hist_stats(const uint64_t counts[256], gi_channel_stats *s)
{
    if (!counts || !s) return;
    const uint64_t n = order_stats(counts, 256, s);
    s->mean = s->stddev = 0;
    if (n == 0) return;
    double sum = 0, sum_sq = 0; /* exact: v^2 n < 2^53 */
    for (int v = 0; v < 256; v++) {
        sum += (double)v * (double)counts[v];
        sum_sq += (double)v * v * (double)counts[v];
    }
    s->mean = sum / (double)n;
    double variance = sum_sq / (double)n - s->mean * s->mean;
    s->stddev = variance > 0 ? sqrt(variance) : 0;
}

void gi_hist_stats16(const uint64_t counts[65536], gi_channel_stats *s)
{
    if (!counts || !s) return;
    const uint64_t n = order_stats(counts, 65536, s);
    s->mean = s->stddev = 0;
    if (n == 0) return;
    unsigned __int128 sum = 0, sum_sq = 0;
    for (int v = 0; v < 65536; v++) {
        sum += (unsigned __int128)v * counts[v];
        sum_sq += (unsigned __int128)((uint64_t)v * (uint64_t)v) * counts[v];
    }
    s->mean = (double)sum / (double)n;
    /* n Q - S^2 >= 0 (Cauchy-Schwarz), exact while n Q < 2^128 */
    const unsigned __int128 spread = (unsigned __int128)n * sum_sq - sum * sum;
    const double variance = (double)spread / ((double)n * (double)n);
    s->stddev = sqrt(variance);
}
