/* Pixel buffers: pooled mappings, on transparent huge pages where they pay.
 *
 * A batch decodes and encodes a photo per core at once, and each photo
 * passes through several buffers of 30 MB and more (stb's planes and
 * output, the filtered PNG rows, the compressed stream, the result). malloc
 * gives each such buffer a fresh mapping of 4 KiB pages that fault in one
 * at a time, and every thread of the process queues on the one
 * address-space lock to fault them. With 2 MiB pages there are 512 times
 * fewer faults: on a 16-core machine a 40-photo batch ran 20% faster, the
 * decode stage 1.3x and the output copy 2.5x (README, "Folders of photos").
 * On few cores there is little queueing, and a huge page's first touch
 * costs more than its 512 small pages': on the 2-core virtual machine a
 * fresh 2 MiB page faulted in at 0.5-0.6 GB/s against 2.7 GB/s for 4 KiB
 * pages (the host backs the guest's free huge blocks anew), and a batch of
 * 40 JPEGs spent 0.2-0.5 s of kernel time against 0.13-0.24 s without
 * them (median wall 1.70 s against 1.62). On the 16-core GPU machine huge
 * pages fault in at 4.4 GB/s against 2.1, and the mixed folder took 0.88 s
 * with them against 0.95 without. So huge pages from HUGE_CORES cores on.
 *
 * Freed mappings are kept in a small pool for the next allocations: a
 * batch or a tree comparison allocates the same sizes file after file
 * (the input bytes, the decoded image), and a fresh mapping faults in again
 * page by page. In `compare -r` over 200 pairs of 1 MP PNGs every decode
 * faulted in 3.6 MB, and the kernel's share of the run was 30%.
 *
 * A JPEG's coefficients, which the CUDA backend uploads whole, come from
 * a pool of page-locked blocks once the backend has started
 * (gi__pixels_alloc_for_device): DMA reads them where they are, where a
 * plain block went through a pinned stage first, a host memcpy of 50 MB
 * for a 9 MP 4:4:4 photo (1.5 ms a megapixel on the lanes). Those blocks
 * are this file's mappings, locked by the backend (cudaHostRegister), not
 * the driver's own page-locked allocations (cudaHostAlloc): on the H200
 * machine 16 threads asking 40 MB each at once, as a batch's codec
 * workers do at its start, waited 185 ms a call for cudaHostAlloc, which
 * the driver serializes, against 38 ms to map, fault in on huge pages and
 * register; alone 17 ms against 11.
 *
 * Small buffers, and every buffer in builds with AddressSanitizer (which
 * checks malloc'ed blocks only), stay with malloc. A header in front of
 * each block says which kind it is. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cores.h"
#include "pixel_alloc.h"

#if defined(__SANITIZE_ADDRESS__)
#define GI_PLAIN_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GI_PLAIN_MALLOC 1
#endif
#endif

/* From this size buffers are mappings of their own, pooled when freed;
 * below it malloc reuses its memory anyway. */
#define MAP_FROM ((size_t)1 << 20)
/* From this size on huge pages (smaller ones would round up to 2 MiB),
 * on machines of at least HUGE_CORES cores. */
#define HUGE_FROM ((size_t)4 << 20)
#define HUGE_CORES 8
/* The pool's bounds: enough for the images a batch has in flight (a
 * mixed folder on 2 cores held 9 buffers of 35 MB; with 8 blocks and 256
 * MB it mapped 15 afresh, and the batch ran 1-2% slower), and a cap on the
 * memory it keeps resident: POOL_BYTES or an eighth of the machine's. A
 * block is reused for a request of at least half its size. */
#define POOL_BLOCKS 16
#define POOL_BYTES ((size_t)512 << 20)

typedef struct {
    size_t bytes;  /* what the caller asked for */
    size_t mapped; /* length of the mapping, 0 for a malloc'ed block */
    int pinned;    /* page-locked by the pinner (gi__pixels_use_pinned) */
} block_header;

/* 64 bytes keep the pixels cache-line aligned behind the header. */
#define HEADER_BYTES 64
_Static_assert(sizeof(block_header) <= HEADER_BYTES, "header fits its slot");

static block_header *header_of(void *p)
{
    return (block_header *)((uint8_t *)p - HEADER_BYTES);
}

/* Page-locked blocks are pooled apart, in a larger pool: a batch on the
 * GPU holds a coefficient buffer per codec worker and per lane (on a host
 * of 32 cores and 2 GPUs, 40 of up to 70 MB), and
 * locking and unlocking memory costs far more than mapping it (unlocking
 * may wait for the device). Bounded by PINNED_POOL_BYTES and by a
 * sixteenth of the machine's memory. A pooled block serves any request it
 * holds, however much smaller: it is locked already, and a batch, which
 * starts with its largest images, would otherwise lock new blocks for the
 * small ones at its end. */
#define PINNED_POOL_BLOCKS 96
#define PINNED_POOL_BYTES ((size_t)4 << 30)

typedef struct {
    pthread_mutex_t lock;
    block_header *blocks[PINNED_POOL_BLOCKS]; /* oldest first */
    int count, max_blocks;
    size_t bytes, max_bytes;
} block_pool;

static block_pool pool = {PTHREAD_MUTEX_INITIALIZER, {0}, 0, POOL_BLOCKS, 0, POOL_BYTES};
static block_pool pinned_pool = {PTHREAD_MUTEX_INITIALIZER, {0}, 0, PINNED_POOL_BLOCKS, 0, 0};

static pthread_mutex_t pinner_lock = PTHREAD_MUTEX_INITIALIZER;
static gi__pixels_pinner pinner; /* set once, then pinner_ready */
static atomic_int pinner_ready;

static void unmap_block(block_header *h)
{
    if (h->pinned) pinner.unlock(h);
    munmap(h, h->mapped);
}

/* Keeps a freed mapping, unmapping the oldest ones to make room. */
static void pool_put(block_pool *p, block_header *h)
{
    block_header *evicted[PINNED_POOL_BLOCKS + 1];
    int n = 0;
    pthread_mutex_lock(&p->lock);
    while (p->count > 0 && (p->count == p->max_blocks || p->bytes + h->mapped > p->max_bytes)) {
        evicted[n++] = p->blocks[0];
        p->bytes -= p->blocks[0]->mapped;
        memmove(&p->blocks[0], &p->blocks[1], (size_t)--p->count * sizeof p->blocks[0]);
    }
    if (h->mapped <= p->max_bytes) {
        p->blocks[p->count++] = h;
        p->bytes += h->mapped;
    } else {
        evicted[n++] = h;
    }
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < n; i++) unmap_block(evicted[i]);
}

void gi__pixels_use_pinned(const gi__pixels_pinner *p)
{
    pthread_mutex_lock(&pinner_lock);
    if (!pinner.lock && p && p->lock && p->unlock) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        size_t bound = pages > 0 && page > 0 ? (size_t)pages / 16 * (size_t)page : 0;
        pthread_mutex_lock(&pinned_pool.lock);
        pinned_pool.max_bytes = bound < PINNED_POOL_BYTES ? bound : PINNED_POOL_BYTES;
        pthread_mutex_unlock(&pinned_pool.lock);
        pinner = *p;
        atomic_store_explicit(&pinner_ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&pinner_lock);
}

int gi__pixels_pinned(const void *p)
{
    return p && header_of((void *)p)->pinned;
}

#ifndef GI_PLAIN_MALLOC /* every block is malloc'ed there */
/* What the machine's size decides, once: huge pages, and the pool's cap. */
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;
static int huge_pages_pay;

static void learn_machine(void)
{
    huge_pages_pay = gi__process_cores() >= HUGE_CORES;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const size_t eighth = pages > 0 && page > 0 ? (size_t)pages / 8 * (size_t)page : POOL_BYTES;
    pthread_mutex_lock(&pool.lock);
    pool.max_bytes = eighth < POOL_BYTES ? eighth : POOL_BYTES;
    pthread_mutex_unlock(&pool.lock);
}

/* The page a mapping is rounded to and touched by (the smallest there is:
 * where pages are larger, touching every MAP_PAGE still backs them all). */
#define MAP_PAGE 4096

static void *map_block(size_t total)
{
    pthread_once(&machine_once, learn_machine); /* before any block reaches the pool */
    size_t mapped = (total + MAP_PAGE - 1) / MAP_PAGE * MAP_PAGE;
    if (mapped < total) return NULL;
    void *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    /* Only advice: where the kernel has no huge pages the buffer still works. */
    if (total >= HUGE_FROM && huge_pages_pay) madvise(base, mapped, MADV_HUGEPAGE);
#endif
    ((block_header *)base)->mapped = mapped;
    ((block_header *)base)->pinned = 0;
    return base;
}

/* Touches every page of a fresh mapping, so that the kernel backs it now,
 * on the calling thread. cudaHostRegister faults the pages in itself, but
 * inside the driver, one thread at a time: on the H200 machine 16 threads
 * each registering a fresh 40 MB mapping took 127 ms (1000 ms summed),
 * against 31 ms once each had touched its own pages first (their touches
 * run side by side); a folder's codec workers all pin their first buffers
 * at once, 2.2-3.0 s summed over 400 progressive photos. Writing zeros
 * keeps the mapping zero; the first page, which holds the header, is
 * backed already. */
static void fault_in(block_header *h)
{
    volatile uint8_t *p = (uint8_t *)h;
    for (size_t at = MAP_PAGE; at < h->mapped; at += MAP_PAGE) p[at] = 0;
}

/* A fresh mapping, page-locked by the pinner (zero, as fresh mappings
 * are), or NULL. */
static block_header *pin_block(size_t total)
{
    block_header *h = map_block(total);
    if (!h) return NULL;
    fault_in(h);
    if (pinner.lock(h, h->mapped) != 0) {
        munmap(h, h->mapped);
        return NULL;
    }
    h->pinned = 1;
    return h;
}

/* The smallest pooled mapping that holds total bytes (and, in the plain
 * pool, is at most twice that), taken out of the pool; NULL when there is
 * none. */
static block_header *pool_take(block_pool *p, size_t total)
{
    block_header *h = NULL;
    pthread_mutex_lock(&p->lock);
    int best = -1;
    for (int i = 0; i < p->count; i++) {
        const size_t m = p->blocks[i]->mapped;
        const int fits = m >= total && (p == &pinned_pool || m / 2 <= total);
        if (fits && (best < 0 || m < p->blocks[best]->mapped)) best = i;
    }
    if (best >= 0) {
        h = p->blocks[best];
        p->bytes -= h->mapped;
        memmove(&p->blocks[best], &p->blocks[best + 1],
                (size_t)(--p->count - best) * sizeof p->blocks[0]);
    }
    pthread_mutex_unlock(&p->lock);
    return h;
}
#endif

/* A block of `bytes`, zeroed when asked (a fresh mapping is zero already,
 * so only a reused block or a small one costs a memset). for_device:
 * page-locked where a pinner is installed. */
static void *pixels_alloc(size_t bytes, int for_device, int zeroed)
{
    int fresh = 0;
    if (bytes > SIZE_MAX - HEADER_BYTES) return NULL;
    size_t total = bytes + HEADER_BYTES;
    block_header *h = NULL;
#ifndef GI_PLAIN_MALLOC
    if (bytes >= MAP_FROM && for_device && atomic_load_explicit(&pinner_ready, memory_order_acquire)) {
        h = pool_take(&pinned_pool, total);
        if (!h) fresh = (h = pin_block(total)) != NULL;
    }
    if (!h && bytes >= MAP_FROM) {
        h = pool_take(&pool, total);
        if (!h) {
            h = map_block(total);
            fresh = 1;
        }
        if (!h) return NULL;
    }
#else
    (void)for_device;
#endif
    if (!h) {
        h = malloc(total);
        if (!h) return NULL;
        h->mapped = 0;
        h->pinned = 0;
    }
    h->bytes = bytes;
    uint8_t *p = (uint8_t *)h + HEADER_BYTES;
    if (zeroed && !fresh) memset(p, 0, bytes);
    return p;
}

void *gi__pixels_alloc(size_t bytes)
{
    return pixels_alloc(bytes, 0, 0);
}

void *gi__pixels_calloc(size_t bytes)
{
    return pixels_alloc(bytes, 0, 1);
}

void *gi__pixels_alloc_for_device(size_t bytes)
{
    return pixels_alloc(bytes, 1, 0);
}

void gi__pixels_free(void *p)
{
    if (!p) return;
    block_header *h = header_of(p);
    if (h->pinned) pool_put(&pinned_pool, h);
    else if (h->mapped) pool_put(&pool, h);
    else free(h);
}

void *gi__pixels_realloc(void *p, size_t bytes)
{
    if (!p) return gi__pixels_alloc(bytes);
    void *q = gi__pixels_alloc(bytes);
    if (!q) return NULL;
    size_t old = header_of(p)->bytes;
    memcpy(q, p, old < bytes ? old : bytes);
    gi__pixels_free(p);
    return q;
}
