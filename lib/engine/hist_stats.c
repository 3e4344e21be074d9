/* Channel statistics derived from a 256-bin histogram. */
#include <math.h>

#include "gpuimg.h"

void gi_hist_stats(const uint64_t counts[GI_HIST_MAX_BINS], gi_channel_stats *s)
{
    uint64_t n = 0;
    double sum = 0, sum_sq = 0;
    s->min = -1;
    s->max = 0;
    for (int v = 0; v < 256; v++) {
        if (!counts[v]) continue;
        if (s->min < 0) s->min = v;
        s->max = v;
        n += counts[v];
        sum += (double)v * (double)counts[v];
        sum_sq += (double)v * v * (double)counts[v];
    }
    if (n == 0) {
        s->min = s->max = s->median = 0;
        s->mean = s->stddev = 0;
        return;
    }
    s->mean = sum / (double)n;
    double variance = sum_sq / (double)n - s->mean * s->mean;
    s->stddev = variance > 0 ? sqrt(variance) : 0;
    uint64_t half = (n + 1) / 2, seen = 0;
    for (int v = 0; v < 256; v++) {
        seen += counts[v];
        if (seen >= half) {
            s->median = v;
            break;
        }
    }
}
