/* jpeg_scans_parallel.h: a progressive file's scans, decoded once its
 * markers are read. */
#include "jpeg_scans_parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The most scans a list holds: the dependencies are checked pairwise, and
 * real files have 6 to 20 scans (jpegtran's script 10, mozjpeg's 9-11). */
#define MAX_SCANS 64
#define MAX_THREADS 16

typedef struct {
    gi_jpeg_scan sc;    /* its tables point into `tables` */
    gi_jpeg_huff *tables;
    size_t at, end;     /* its data, to the 0xFF of the marker after it */
    atomic_long rows_done; /* while the scans run: its MCU rows decoded */
} scan_job;

struct gi_jpeg_scan_list {
    scan_job job[MAX_SCANS];
    int n;
    /* while the scans run on threads */
    gi_jpeg_coeffs *c;
    const uint8_t *bytes;
    size_t size;
    struct {
        uint8_t *at;
        size_t bytes;
    } zero[2 * GI_JPEG_MAX_COMPONENTS]; /* what the threads zero: planes and their masks */
    int n_zero;
    size_t zero_chunks;     /* ZERO_CHUNK pieces of those */
    atomic_size_t zero_next; /* the next piece a thread zeroes */
    atomic_size_t zero_done; /* pieces zeroed */
    atomic_int next;    /* the next scan a thread takes */
    atomic_int failed;
};

/* The threads zero the coefficients and the masks before any scan runs,
 * a piece at a time: one thread's memset of a 12 MP photo's 40-50 MB of
 * coefficients took 4-7 ms on the H200 host, longer than its longest
 * scan, where 16 threads share it. The planes of c->dc_only are left as
 * they are (their DCs alone, which their DC scans set). */
#define ZERO_CHUNK ((size_t)1 << 20)

gi_jpeg_scan_list *gi__jpeg_scan_list_new(void)
{
    return calloc(1, sizeof(gi_jpeg_scan_list));
}

void gi__jpeg_scan_list_free(gi_jpeg_scan_list *l)
{
    if (!l) return;
    for (int i = 0; i < l->n; i++) free(l->job[i].tables);
    free(l);
}

/* Copies of the tables the scan's kind reads into job->tables, job->sc's
 * pointers moved to them (the others NULL: the kind reads none). */
static int copy_tables(scan_job *job)
{
    gi_jpeg_scan *sc = &job->sc;
    const int kind = gi__jpeg_scan_kind(1, sc);
    const int reads_dc = kind == GI_JPEG_DC_FIRST, reads_ac = kind >= GI_JPEG_AC_FIRST;
    const gi_jpeg_huff *seen[2 * GI_JPEG_MAX_COMPONENTS];
    int count = 0;
    job->tables = malloc(sizeof *job->tables * (size_t)(2 * sc->n));
    if (!job->tables) return -1;
    for (int i = 0; i < sc->n; i++) {
        const gi_jpeg_huff **use[2] = {&sc->dc[i], &sc->ac[i]};
        const int reads[2] = {reads_dc, reads_ac};
        for (int k = 0; k < 2; k++) {
            if (!reads[k]) {
                *use[k] = NULL;
                continue;
            }
            int j = 0;
            while (j < count && seen[j] != *use[k]) j++;
            if (j == count) {
                seen[count] = *use[k];
                job->tables[count++] = **use[k];
            }
            *use[k] = &job->tables[j];
        }
    }
    return 0;
}

int gi__jpeg_scan_list_add(gi_jpeg_scan_list *l, const gi_jpeg_scan *sc, const uint8_t *bytes,
                           size_t size, size_t at, size_t *end)
{
    if (l->n == MAX_SCANS) return -1;
    const uint8_t *marker = gi__jpeg_data_end(bytes + at, bytes + size);
    if (!marker) return -1;
    scan_job *job = &l->job[l->n];
    *job = (scan_job){.sc = *sc, .at = at, .end = (size_t)(marker - bytes)};
    if (copy_tables(job) < 0) return -1;
    l->n++;
    *end = job->end;
    return 0;
}

/* The last coefficient (zigzag index) a scan may touch: its band's end,
 * but an AC first scan's runs may carry a coefficient past Se (damaged
 * data: stb puts it there, up to index 63), so its band reaches 63. Taking
 * that as written keeps the scans apart without looking at their data;
 * it costs little: the luma bands of jpegtran's script wait for each
 * other, the first being small, and the refinements waited anyway. */
static int reach(const gi_jpeg_scan *sc)
{
    return gi__jpeg_scan_kind(1, sc) == GI_JPEG_AC_FIRST ? 63 : sc->se;
}

int gi__jpeg_scan_waits_for(const gi_jpeg_scan *b, const gi_jpeg_scan *a)
{
    /* AC scans (ss > 0) of a component share its blocks' masks of
     * nonzero coefficients (jpeg_entropy.h), whatever their bands */
    const int both_ac = a->ss > 0 && b->ss > 0;
    if (!both_ac && (reach(b) < a->ss || reach(a) < b->ss)) return 0;
    for (int i = 0; i < b->n; i++)
        for (int j = 0; j < a->n; j++)
            if (b->comp[i] == a->comp[j]) return 1;
    return 0;
}

/* One step of a thread's wait for another's work, the `spins`th. The
 * waits are short (a row of a scan takes tens of microseconds, a piece of
 * zeroing less) and each thread has a core: spin, then yield, then nap,
 * for a thread that shares its core (a server decoding several files at
 * once). */
static void back_off(int spins)
{
    if (spins >= 2048) {
        const struct timespec nap = {0, 20000};
        nanosleep(&nap, NULL);
    } else if (spins >= 256) {
        sched_yield();
    }
#if defined(__x86_64__) || defined(__i386__)
    else __builtin_ia32_pause();
#endif
}

/* Until scan a has decoded `rows` MCU rows: 1, or 0 once a scan has
 * failed. */
static int wait_rows(gi_jpeg_scan_list *l, int a, long rows)
{
    for (int spins = 0; atomic_load_explicit(&l->job[a].rows_done, memory_order_acquire) < rows;
         spins++) {
        if (atomic_load_explicit(&l->failed, memory_order_relaxed)) return 0;
        back_off(spins);
    }
    return 1;
}

static size_t chunks_of(size_t bytes)
{
    return (bytes + ZERO_CHUNK - 1) / ZERO_CHUNK;
}

/* The planes and masks to zero (zero_storage) into l, and their pieces. */
static void plan_zeroing(gi_jpeg_scan_list *l, const gi_jpeg_coeffs *c)
{
    l->n_zero = 0;
    l->zero_chunks = 0;
    for (int k = 0; k < c->ncomp; k++) {
        if (c->dc_only >> k & 1u) continue;
        const gi_jpeg_plane *p = &c->plane[k];
        const size_t blocks = (size_t)p->blocks_w * (size_t)p->blocks_h;
        const size_t first = p->offset / 64; /* its first block's index in storage */
        l->zero[l->n_zero].at = (uint8_t *)(c->storage + p->offset);
        l->zero[l->n_zero++].bytes = blocks * 64 * sizeof(int16_t);
        l->zero[l->n_zero].at = (uint8_t *)(c->ac_nonzero + first);
        l->zero[l->n_zero++].bytes = blocks * sizeof(uint64_t);
    }
    for (int i = 0; i < l->n_zero; i++) l->zero_chunks += chunks_of(l->zero[i].bytes);
}

/* Zeroes pieces of l->c's storage and masks while there are any, then
 * waits until every piece is zeroed (whoever zeroed it: release/acquire
 * on zero_done). */
static void zero_storage(gi_jpeg_scan_list *l)
{
    for (size_t k; (k = atomic_fetch_add(&l->zero_next, 1)) < l->zero_chunks;) {
        int i = 0;
        while (k >= chunks_of(l->zero[i].bytes)) k -= chunks_of(l->zero[i++].bytes);
        const size_t from = k * ZERO_CHUNK, left = l->zero[i].bytes - from;
        memset(l->zero[i].at + from, 0, left < ZERO_CHUNK ? left : ZERO_CHUNK);
        atomic_fetch_add_explicit(&l->zero_done, 1, memory_order_release);
    }
    for (int spins = 0;
         atomic_load_explicit(&l->zero_done, memory_order_acquire) < l->zero_chunks; spins++)
        back_off(spins);
}

/* One thread: the next scan in the file's order, row after row, each
 * MCU row once the scans before it that it waits for have decoded that
 * row; then the next. Scans are taken in order, so the first scan not
 * done waits for none that is not done: the threads never wait in a
 * circle. */
static void *run_scans(void *arg)
{
    gi_jpeg_scan_list *l = arg;
    gi_jpeg_coeffs *c = l->c;
    zero_storage(l);
    for (int b; (b = atomic_fetch_add(&l->next, 1)) < l->n;) {
        scan_job *job = &l->job[b];
        int waits[MAX_SCANS], nw = 0;
        for (int a = 0; a < b; a++)
            if (gi__jpeg_scan_waits_for(&job->sc, &l->job[a].sc)) waits[nw++] = a;
        gi_jpeg_rows *r = gi__jpeg_rows_new(c, &job->sc, l->bytes + job->at, l->bytes + l->size);
        int ok = r != NULL;
        for (long m = 0; m < c->mcus_y && ok; m++) {
            for (int k = 0; k < nw && ok; k++) ok = wait_rows(l, waits[k], m + 1);
            ok = ok && gi__jpeg_rows_decode(r, m) == 0;
            if (ok) atomic_store_explicit(&job->rows_done, m + 1, memory_order_release);
        }
        ok = ok && gi__jpeg_rows_ended_at(r, l->bytes + job->end);
        gi__jpeg_rows_free(r);
        if (!ok) {
            atomic_store(&l->failed, 1);
            break;
        }
    }
    return NULL;
}

/* The scans on this thread, a row of MCUs at a time (jpeg_entropy.h). */
static int decode_by_rows(gi_jpeg_scan_list *l, gi_jpeg_coeffs *c, const uint8_t *bytes,
                          size_t size)
{
    const gi_jpeg_scan *scans[MAX_SCANS];
    size_t at[MAX_SCANS], end[MAX_SCANS];
    for (int i = 0; i < l->n; i++) {
        scans[i] = &l->job[i].sc;
        at[i] = l->job[i].at;
        end[i] = l->job[i].end;
    }
    return gi__jpeg_decode_scans_by_rows(c, scans, at, end, l->n, bytes, size);
}

int gi__jpeg_scan_list_decode(gi_jpeg_scan_list *l, gi_jpeg_coeffs *c, const uint8_t *bytes,
                              size_t size, int threads)
{
    if (threads <= 1) return decode_by_rows(l, c, bytes, size);
    l->c = c;
    l->bytes = bytes;
    l->size = size;
    plan_zeroing(l, c);
    atomic_store(&l->zero_next, 0);
    atomic_store(&l->zero_done, 0);
    atomic_store(&l->next, 0);
    atomic_store(&l->failed, 0);
    for (int i = 0; i < l->n; i++) atomic_store(&l->job[i].rows_done, 0);
    int n = threads > MAX_THREADS ? MAX_THREADS : threads;
    if (n > l->n) n = l->n;
    pthread_t tid[MAX_THREADS];
    int started = 0;
    while (started + 1 < n && pthread_create(&tid[started], NULL, run_scans, l) == 0) started++;
    run_scans(l);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    return atomic_load(&l->failed) ? -1 : 0;
}
