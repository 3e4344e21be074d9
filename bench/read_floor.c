/* read_floor [--copy] BYTES [THREADS [REPS]]: the time to read a buffer of
 * BYTES once with THREADS threads (default 2), each its share in 64-byte
 * strides, after the buffer was filled and read once (warm, as an image
 * that a benchmark resizes again and again is): the median of REPS runs
 * (default 41), in ms and GB/s. With --copy, each thread copies its share
 * into a second buffer of BYTES (memcpy), and GB/s counts the bytes read
 * and written.
 *
 * The floor of an operation that must read every byte of its source: an
 * anti-aliased reduction reads every source row, where OpenCV's bilinear
 * reduction to a third reads two rows in three; when the peer's whole
 * time is below this floor, no anti-aliased reduction can match it. The
 * copy's floor is that of an operation that reads and writes every byte
 * once, as a transpose does. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

typedef struct {
    const uint64_t *words;
    uint64_t *copy;            /* --copy's destination, or NULL */
    size_t lines;              /* 64-byte lines of the buffer */
    int threads, reps;
    double *ms;                /* per run, thread 0's clock */
    pthread_barrier_t start, done;
    uint64_t sink[256];        /* per thread, so the reads are not dropped */
} read_job;

typedef struct {
    read_job *job;
    int index;
} read_thread;

/* Thread `index`'s share of the lines, OR-ed together 8 words a line: 8
 * independent chains, which the loads, not the ORs, limit. */
static uint64_t read_share(const read_job *j, int index)
{
    const size_t first = j->lines * (size_t)index / (size_t)j->threads;
    const size_t last = j->lines * (size_t)(index + 1) / (size_t)j->threads;
    if (j->copy) {
        memcpy(j->copy + first * 8, j->words + first * 8, (last - first) * 64);
        return j->copy[first * 8];
    }
    uint64_t acc[8] = {0};
    for (size_t l = first; l < last; l++)
        for (int k = 0; k < 8; k++) acc[k] |= j->words[l * 8 + k];
    uint64_t all = 0;
    for (int k = 0; k < 8; k++) all |= acc[k];
    return all;
}

/* One warm-up read and reps timed ones, every thread between two
 * barriers, so that thread start-up is not timed (the peers' pools are
 * started before they are timed too). */
static void *run_thread(void *arg)
{
    const read_thread *t = arg;
    read_job *j = t->job;
    for (int r = -1; r < j->reps; r++) {
        pthread_barrier_wait(&j->start);
        const double t0 = bench_now_ms();
        j->sink[t->index] ^= read_share(j, t->index);
        pthread_barrier_wait(&j->done);
        if (t->index == 0 && r >= 0) j->ms[r] = bench_now_ms() - t0;
    }
    return NULL;
}

static long parse_count(const char *s, const char *what, long max)
{
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max) {
        fprintf(stderr, "read_floor: %s '%s' is not a whole number in 1..%ld\n", what, s, max);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    const int copy = argc > 1 && strcmp(argv[1], "--copy") == 0;
    argc -= copy, argv += copy;
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: read_floor [--copy] BYTES [THREADS [REPS]]\n");
        return 2;
    }
    const size_t bytes = (size_t)parse_count(argv[1], "BYTES", 1L << 34);
    const int threads = argc > 2 ? (int)parse_count(argv[2], "THREADS", 256) : 2;
    const int reps = argc > 3 ? (int)parse_count(argv[3], "REPS", 10000) : 41;
    read_job j = {0};
    j.lines = (bytes + 63) / 64;
    j.threads = threads;
    j.reps = reps;
    uint64_t *words = aligned_alloc(64, j.lines * 64);
    j.copy = copy ? aligned_alloc(64, j.lines * 64) : NULL;
    j.ms = malloc(sizeof(double) * (size_t)reps);
    read_thread *ts = malloc(sizeof *ts * (size_t)threads);
    pthread_t *ids = malloc(sizeof *ids * (size_t)threads);
    if (!words || (copy && !j.copy) || !j.ms || !ts || !ids) {
        fprintf(stderr, "read_floor: out of memory for %zu bytes\n", bytes);
        return 1;
    }
    memset(words, 0x5a, j.lines * 64);
    if (copy) memset(j.copy, 0, j.lines * 64); /* its pages mapped before the clock starts */
    j.words = words;
    if (pthread_barrier_init(&j.start, NULL, (unsigned)threads) != 0 ||
        pthread_barrier_init(&j.done, NULL, (unsigned)threads) != 0) {
        fprintf(stderr, "read_floor: could not make the barriers\n");
        return 1;
    }
    for (int i = 0; i < threads; i++) {
        ts[i] = (read_thread){&j, i};
        if (i && pthread_create(&ids[i], NULL, run_thread, &ts[i]) != 0) {
            fprintf(stderr, "read_floor: could not start %d threads\n", threads);
            return 1;
        }
    }
    run_thread(&ts[0]);
    for (int i = 1; i < threads; i++) pthread_join(ids[i], NULL);
    const double med = bench_median(j.ms, reps);
    printf("%s %zu bytes, %d threads: %.3f ms median of %d (%.1f GB/s)\n", copy ? "copy" : "read", bytes,
           threads, med, reps, (double)bytes * (copy ? 2 : 1) / med / 1e6);
    free(j.copy);
    free(j.ms);
    free(words);
    free(ts);
    free(ids);
    return 0;
}
