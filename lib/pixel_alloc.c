/* Pixel buffers on transparent huge pages.
 *
 * A batch decodes and encodes a photo per core at once, and each photo
 * passes through several buffers of 30 MB and more (stb's planes and
 * output, the filtered PNG rows, the compressed stream, the result). malloc
 * gives each such buffer a fresh mapping of 4 KiB pages that fault in one
 * at a time, and every thread of the process queues on the one
 * address-space lock to fault them. With 2 MiB pages there are 512 times
 * fewer faults: on a 16-core machine a 40-photo batch ran 20% faster, the
 * decode stage 1.3x and the output copy 2.5x (README, "Folders of photos").
 *
 * Freed mappings are kept in a small pool for the next allocations: a
 * batch or a tree comparison allocates the same sizes file after file
 * (the input bytes, the decoded image), and a fresh mapping faults in again
 * page by page. In `compare -r` over 200 pairs of 1 MP PNGs every decode
 * faulted in 3.6 MB, and the kernel's share of the run was 30%.
 *
 * Small buffers, and every buffer in builds with AddressSanitizer (which
 * checks malloc'ed blocks only), stay with malloc. A header in front of
 * each block says which kind it is. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
/* From this size on huge pages (smaller ones would round up to 2 MiB). */
#define HUGE_FROM ((size_t)4 << 20)
/* The pool's bounds: enough for a few images per core in flight, and a
 * cap on the memory it keeps resident. A block is reused for a request of
 * at least half its size. */
#define POOL_BLOCKS 8
#define POOL_BYTES ((size_t)256 << 20)

typedef struct {
    size_t bytes;  /* what the caller asked for */
    size_t mapped; /* length of the mapping, 0 for a malloc'ed block */
} block_header;

/* 64 bytes keep the pixels cache-line aligned behind the header. */
#define HEADER_BYTES 64
_Static_assert(sizeof(block_header) <= HEADER_BYTES, "header fits its slot");

static block_header *header_of(void *p)
{
    return (block_header *)((uint8_t *)p - HEADER_BYTES);
}

static struct {
    pthread_mutex_t lock;
    block_header *blocks[POOL_BLOCKS]; /* oldest first */
    int count;
    size_t bytes;
} pool = {PTHREAD_MUTEX_INITIALIZER, {0}, 0, 0};

/* Keeps a freed mapping, unmapping the oldest ones to make room. */
static void pool_put(block_header *h)
{
    block_header *evicted[POOL_BLOCKS + 1];
    int n = 0;
    pthread_mutex_lock(&pool.lock);
    while (pool.count > 0 && (pool.count == POOL_BLOCKS || pool.bytes + h->mapped > POOL_BYTES)) {
        evicted[n++] = pool.blocks[0];
        pool.bytes -= pool.blocks[0]->mapped;
        memmove(&pool.blocks[0], &pool.blocks[1], (size_t)--pool.count * sizeof pool.blocks[0]);
    }
    if (h->mapped <= POOL_BYTES) {
        pool.blocks[pool.count++] = h;
        pool.bytes += h->mapped;
    } else {
        evicted[n++] = h;
    }
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < n; i++) munmap(evicted[i], evicted[i]->mapped);
}

#ifndef GI_PLAIN_MALLOC /* every block is malloc'ed there */
static void *map_block(size_t total)
{
    size_t page = 4096, mapped = (total + page - 1) / page * page;
    if (mapped < total) return NULL;
    void *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    /* Only advice: where the kernel has no huge pages the buffer still works. */
    if (total >= HUGE_FROM) madvise(base, mapped, MADV_HUGEPAGE);
#endif
    ((block_header *)base)->mapped = mapped;
    return base;
}

/* The smallest pooled mapping that holds total bytes and is at most twice
 * that, taken out of the pool; NULL when there is none. */
static block_header *pool_take(size_t total)
{
    block_header *h = NULL;
    pthread_mutex_lock(&pool.lock);
    int best = -1;
    for (int i = 0; i < pool.count; i++) {
        const size_t m = pool.blocks[i]->mapped;
        if (m >= total && m / 2 <= total && (best < 0 || m < pool.blocks[best]->mapped)) best = i;
    }
    if (best >= 0) {
        h = pool.blocks[best];
        pool.bytes -= h->mapped;
        memmove(&pool.blocks[best], &pool.blocks[best + 1],
                (size_t)(--pool.count - best) * sizeof pool.blocks[0]);
    }
    pthread_mutex_unlock(&pool.lock);
    return h;
}
#endif

/* A block of `bytes`; *fresh set when it is a new mapping (all zero). */
static void *pixels_alloc(size_t bytes, int *fresh)
{
    *fresh = 0;
    if (bytes > SIZE_MAX - HEADER_BYTES) return NULL;
    size_t total = bytes + HEADER_BYTES;
    block_header *h = NULL;
#ifndef GI_PLAIN_MALLOC
    if (bytes >= MAP_FROM) {
        h = pool_take(total);
        if (!h) {
            h = map_block(total);
            *fresh = 1;
        }
    } else
#endif
    {
        h = malloc(total);
        if (h) h->mapped = 0;
    }
    if (!h) return NULL;
    h->bytes = bytes;
    return (uint8_t *)h + HEADER_BYTES;
}

void *gi__pixels_alloc(size_t bytes)
{
    int fresh;
    return pixels_alloc(bytes, &fresh);
}

void *gi__pixels_calloc(size_t bytes)
{
    int fresh;
    void *p = pixels_alloc(bytes, &fresh);
    if (p && !fresh) memset(p, 0, bytes);
    return p;
}

void gi__pixels_free(void *p)
{
    if (!p) return;
    block_header *h = header_of(p);
    if (h->mapped) pool_put(h);
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
