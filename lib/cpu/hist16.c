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

/* Counters from one channel's subtable to the next: 16 more than the
 * bins, so that the same bin of two is not a multiple of 4 KiB apart,
 * where the CPU takes a store to one for a store to the other (hist.c
 * says more): 256 bins of 3 channels took 1.3 times as long. */
static size_t sub_stride(int bins)
{
    return (size_t)bins + 16;
}

/* Counters in a thread's table. */
static size_t table_len(int ch, int bins)
{
    return counts_bins(bins) ? (size_t)SUBTABLES * ch * sub_stride(bins) : (size_t)ch * VALUES;
}

/* v's bin: v * bins >> 16, or v >> shift where bins = 2^(16 - shift)
 * (shift >= 0, a constant where this is inlined: the same bin). */
static inline __attribute__((always_inline)) uint32_t bin_of(uint32_t v, uint32_t bins, const int shift)
{
    return shift >= 0 ? v >> shift : v * bins >> 16;
}

/* Rows [y0, y1) into the bins' subtables, [k][c][bin] (sub_stride
 * apart), with ch and shift constants where this is inlined. */
static inline __attribute__((always_inline)) void count_bins(const gi_image *src, int y0, int y1,
                                                             const int ch, uint32_t bins, const int shift,
                                                             uint32_t *table)
{
    const int w = src->width, whole = w - w % SUBTABLES;
    const size_t stride = sub_stride((int)bins);
    for (int y = y0; y < y1; y++) {
        const uint16_t *row = (const uint16_t *)(src->data + (size_t)y * src->stride);
        for (int x = 0; x < whole; x += SUBTABLES, row += SUBTABLES * ch)
            for (int k = 0; k < SUBTABLES; k++)
                for (int c = 0; c < ch; c++)
                    table[(size_t)(k * ch + c) * stride + bin_of(row[k * ch + c], bins, shift)]++;
        for (int x = whole; x < w; x++, row += ch)
            for (int c = 0; c < ch; c++) table[(size_t)c * stride + bin_of(row[c], bins, shift)]++;
    }
}

/* count_bins with the channels a constant; 256 bins (the default) by a
 * shift. */
static void count_bins_of(const gi_image *src, int y0, int y1, uint32_t bins, uint32_t *table)
{
#define COUNT(CH)                                                                   \
    (bins == 256 ? count_bins(src, y0, y1, CH, 256, 8, table)                      \
                 : count_bins(src, y0, y1, CH, bins, -1, table))
    switch (src->channels) {
    case 1: COUNT(1); break;
    case 2: COUNT(2); break;
    case 3: COUNT(3); break;
    default: COUNT(4); break;
    }
#undef COUNT
}

static void count_rows16(const gi_image *src, int y0, int y1, int bins, uint32_t *table)
{
    const int ch = src->channels, n = src->width * ch;
    if (counts_bins(bins)) {
        count_bins_of(src, y0, y1, (uint32_t)bins, table);
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
            for (int c = 0; c < ch; c++)
                for (int b = 0; b < bins; b++)
                    binned[(size_t)c * bins + b] += table[(size_t)(k * ch + c) * sub_stride(bins) + b];
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
    const int threads = gi__cpu_threads_for(state, src, NULL, 1);
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
