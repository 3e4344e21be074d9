/* CPU histogram of a 16-bit image (gpuimg.h, hist: bin = v * bins /
 * 65536). Each thread counts chunks of rows from a shared cursor into a
 * private table of 32-bit counters (flushed at least every 2^30 pixels,
 * so none overflows), folds it into the bins on its own, and adds those
 * to the result under a lock: integer sums make the order irrelevant.
 * Up to SMALL_BINS bins, the table holds the bins themselves, each
 * sample's bin computed as it is counted, in SUBTABLES copies taken in
 * turn by consecutive pixels (as hist.c's, so that a run of equal values
 * does not make each increment wait for the one before): a few KiB that
 * stay in L1. More bins count per value, 65536 counters a channel, and
 * fold the values into the bins after. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

#define VALUES 65536
#define FLUSH_PIXELS (1L << 30)
#define CHUNKS_PER_THREAD 8
#define SMALL_BINS 1024
#define SUBTABLES 4

typedef struct {
    const gi_image *src;
    int bins;
    gi_histogram *out;
    pthread_mutex_t lock;
    long rows_per_flush;
    int chunk_rows, chunks;
    atomic_int next_chunk;
    atomic_int failed;
} hist16_job;

static int counts_bins(int bins)
{
    return bins <= SMALL_BINS;
}

/* Counters in a thread's table. */
static size_t table_len(int ch, int bins)
{
    return counts_bins(bins) ? (size_t)SUBTABLES * ch * bins : (size_t)ch * VALUES;
}

/* Rows [y0, y1) into the bins' subtables, [k][c][bin], with ch a
 * constant where this is inlined. */
static inline __attribute__((always_inline)) void count_bins(const gi_image *src, int y0, int y1,
                                                             const int ch, uint32_t bins,
                                                             uint32_t *table)
{
    const int w = src->width, whole = w - w % SUBTABLES;
    const size_t sub = (size_t)ch * bins;
    for (int y = y0; y < y1; y++) {
        const uint16_t *row = (const uint16_t *)(src->data + (size_t)y * src->stride);
        for (int x = 0; x < whole; x += SUBTABLES, row += SUBTABLES * ch)
            for (int k = 0; k < SUBTABLES; k++)
                for (int c = 0; c < ch; c++) table[k * sub + c * bins + (row[k * ch + c] * bins >> 16)]++;
        for (int x = whole; x < w; x++, row += ch)
            for (int c = 0; c < ch; c++) table[c * bins + (row[c] * bins >> 16)]++;
    }
}

static void count_rows16(const gi_image *src, int y0, int y1, int bins, uint32_t *table)
{
    const int ch = src->channels, n = src->width * ch;
    if (counts_bins(bins)) {
        switch (ch) {
        case 1: count_bins(src, y0, y1, 1, (uint32_t)bins, table); break;
        case 2: count_bins(src, y0, y1, 2, (uint32_t)bins, table); break;
        case 3: count_bins(src, y0, y1, 3, (uint32_t)bins, table); break;
        default: count_bins(src, y0, y1, 4, (uint32_t)bins, table); break;
        }
        return;
    }
    for (int y = y0; y < y1; y++) {
        const uint16_t *row = (const uint16_t *)(src->data + (size_t)y * src->stride);
        for (int i = 0; i < n; i += ch)
            for (int c = 0; c < ch; c++) table[(size_t)c * VALUES + row[i + c]]++;
    }
}

/* The table's counts into the thread's bins, and the table zeroed. */
static void fold(uint32_t *table, int ch, int bins, uint64_t *binned)
{
    if (counts_bins(bins)) {
        for (int k = 0; k < SUBTABLES; k++)
            for (size_t i = 0; i < (size_t)ch * bins; i++) binned[i] += table[k * (size_t)ch * bins + i];
    } else {
        for (int c = 0; c < ch; c++)
            for (uint32_t v = 0; v < VALUES; v++)
                binned[(size_t)c * bins + (v * (uint32_t)bins >> 16)] += table[(size_t)c * VALUES + v];
    }
    memset(table, 0, sizeof(uint32_t) * table_len(ch, bins));
}

static int hist16_thread(void *arg, int y0, int y1)
{
    (void)y0, (void)y1;
    hist16_job *j = arg;
    const int ch = j->src->channels, bins = j->bins;
    uint32_t *table = calloc(table_len(ch, bins), sizeof *table);
    uint64_t *binned = calloc((size_t)ch * bins, sizeof *binned);
    if (!table || !binned) {
        free(table);
        free(binned);
        atomic_store(&j->failed, 1);
        return -1;
    }
    long since_flush = 0;
    for (int c; (c = atomic_fetch_add_explicit(&j->next_chunk, 1, memory_order_relaxed)) < j->chunks;) {
        const int y = c * j->chunk_rows;
        const int end = j->src->height - y > j->chunk_rows ? y + j->chunk_rows : j->src->height;
        if (since_flush + (end - y) > j->rows_per_flush) {
            fold(table, ch, bins, binned);
            since_flush = 0;
        }
        count_rows16(j->src, y, end, bins, table);
        since_flush += end - y;
    }
    fold(table, ch, bins, binned);
    pthread_mutex_lock(&j->lock);
    for (int c = 0; c < ch; c++)
        for (int b = 0; b < bins; b++) j->out->counts[c][b] += binned[(size_t)c * bins + b];
    pthread_mutex_unlock(&j->lock);
    free(table);
    free(binned);
    return 0;
}

gi_status gi__cpu_hist16(void *state, const gi_image *src, int bins, gi_histogram *out)
{
    const int threads = gi__cpu_threads(state);
    hist16_job j = {src, bins, out, PTHREAD_MUTEX_INITIALIZER, 1, 1, 0, 0, 0};
    j.rows_per_flush = FLUSH_PIXELS / src->width > 0 ? FLUSH_PIXELS / src->width : 1;
    const long want = (long)threads * CHUNKS_PER_THREAD;
    j.chunk_rows = (int)((src->height + want - 1) / want);
    if (j.chunk_rows > j.rows_per_flush) j.chunk_rows = (int)j.rows_per_flush;
    j.chunks = (src->height + j.chunk_rows - 1) / j.chunk_rows;
    atomic_init(&j.next_chunk, 0);
    atomic_init(&j.failed, 0);
    memset(out, 0, sizeof *out);
    out->channels = src->channels;
    out->bins = bins;
    out->depth = 16;
    gi__parallel_rows(threads, threads < src->height ? threads : src->height, hist16_thread, &j);
    pthread_mutex_destroy(&j.lock);
    if (atomic_load(&j.failed))
        return gi__fail(GI_ERR_NO_MEMORY, "hist: cannot allocate the counting tables");
    return GI_OK;
}
