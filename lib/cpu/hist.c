/* CPU histogram: each band counts privately, then adds its counts to the
 * result under a lock; integer sums make the order irrelevant.
 *
 * Runs of equal values would make every increment wait for the store of
 * the one before (same counter), so consecutive pixels count into
 * SUBTABLES separate tables, summed at the end. Counters are 32-bit (half
 * the cache) and are flushed into the 64-bit result at least every 2^30
 * pixels. */
#include <pthread.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

#define SUBTABLES 4
#define FLUSH_PIXELS (1L << 30)

typedef struct {
    const gi_image *src;
    int bins;
    gi_histogram *out;
    pthread_mutex_t lock;
} hist_job;

typedef uint32_t subtables[SUBTABLES][4][256];
_Static_assert(SUBTABLES * 4 == 16, "one channel counts into sixteen tables");

/* Counts rows [y0, y1) with ch a constant where this is inlined. */
static inline __attribute__((always_inline)) void count_rows(const gi_image *src, int y0, int y1,
                                                             const int ch, subtables t)
{
    const int w = src->width, whole = w - w % SUBTABLES;
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = src->data + (size_t)y * src->stride;
        for (int x = 0; x < whole; x += SUBTABLES, row += SUBTABLES * ch)
            for (int k = 0; k < SUBTABLES; k++)
                for (int c = 0; c < ch; c++) t[k][c][row[k * ch + c]]++;
        for (int x = whole; x < w; x++, row += ch)
            for (int c = 0; c < ch; c++) t[0][c][row[c]]++;
    }
}

/* One channel: sixteen bytes in two 64-bit loads, each byte into its own
 * of sixteen tables (the subtables' sixteen rows of 256, which one
 * channel leaves free), so that the runs of near-equal values of a photo
 * seldom hit the counter just incremented: a 9 MP gray photo's counts in
 * 3.5 ms on one core against 4.7 with the loop above (random values: the
 * same 2.6). Which table a byte goes to does not matter, so neither does
 * the byte order. */
static void count_gray_rows(const gi_image *src, int y0, int y1, subtables t)
{
    uint32_t(*g)[256] = &t[0][0];
    const int w = src->width;
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = src->data + (size_t)y * src->stride;
        int x = 0;
        for (; x + 16 <= w; x += 16) {
            uint64_t v, u;
            memcpy(&v, row + x, sizeof v);
            memcpy(&u, row + x + 8, sizeof u);
            for (int k = 0; k < 8; k++) { /* unrolled by the compiler */
                g[k][v >> 8 * k & 255]++;
                g[8 + k][u >> 8 * k & 255]++;
            }
        }
        for (; x < w; x++) g[0][row[x]]++;
    }
}

static void add_subtables(subtables t, int ch, uint64_t counts[4][256])
{
    if (ch == 1) {
        uint32_t(*g)[256] = &t[0][0];
        for (int k = 0; k < 16; k++)
            for (int v = 0; v < 256; v++) counts[0][v] += g[k][v];
    } else {
        for (int k = 0; k < SUBTABLES; k++)
            for (int c = 0; c < ch; c++)
                for (int v = 0; v < 256; v++) counts[c][v] += t[k][c][v];
    }
    memset(t, 0, sizeof(subtables));
}

static int hist_band(void *arg, int y0, int y1)
{
    hist_job *j = arg;
    const int ch = j->src->channels;
    const int rows_per_flush = (int)(FLUSH_PIXELS / j->src->width) > 0 ? (int)(FLUSH_PIXELS / j->src->width) : 1;
    uint64_t counts[4][256] = {{0}};
    subtables t;
    memset(t, 0, sizeof t);
    for (int y = y0; y < y1; y += rows_per_flush) {
        int end = y1 - y > rows_per_flush ? y + rows_per_flush : y1;
        switch (ch) {
        case 1: count_gray_rows(j->src, y, end, t); break;
        case 2: count_rows(j->src, y, end, 2, t); break;
        case 3: count_rows(j->src, y, end, 3, t); break;
        default: count_rows(j->src, y, end, 4, t); break;
        }
        add_subtables(t, ch, counts);
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
