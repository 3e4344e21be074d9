/* CPU histogram: each band counts privately, then adds its counts to the
 * result under a lock; integer sums make the order irrelevant. */
#include <pthread.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

typedef struct {
    const gi_image *src;
    int bins;
    gi_histogram *out;
    pthread_mutex_t lock;
} hist_job;

static int hist_band(void *arg, int y0, int y1)
{
    hist_job *j = arg;
    const int ch = j->src->channels;
    uint64_t counts[4][256] = {{0}};
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = j->src->data + (size_t)y * j->src->stride;
        for (int x = 0; x < j->src->width; x++)
            for (int c = 0; c < ch; c++) counts[c][row[x * ch + c]]++;
    }
    pthread_mutex_lock(&j->lock);
    for (int c = 0; c < ch; c++)
        for (int v = 0; v < 256; v++) j->out->counts[c][v * j->bins / 256] += counts[c][v];
    pthread_mutex_unlock(&j->lock);
    return 0;
}

gi_status gi__cpu_hist(void *state, const gi_image *src, int bins, gi_histogram *out)
{
    hist_job j = {src, bins, out, PTHREAD_MUTEX_INITIALIZER};
    memset(out, 0, sizeof *out);
    out->channels = src->channels;
    out->bins = bins;
    gi__parallel_rows(gi__cpu_threads(state), src->height, hist_band, &j);
    pthread_mutex_destroy(&j.lock);
    return GI_OK;
}
