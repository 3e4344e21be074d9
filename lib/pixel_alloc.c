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
 * Small buffers, and every buffer in builds with AddressSanitizer (which
 * checks malloc'ed blocks only), stay with malloc. A header in front of
 * each block says which kind it is. */
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

/* Below this, faults are few and malloc reuses its memory anyway. */
#define HUGE_FROM ((size_t)4 << 20)

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

static void *map_huge(size_t total)
{
    size_t page = 4096, mapped = (total + page - 1) / page * page;
    if (mapped < total) return NULL;
    void *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    /* Only advice: where the kernel has no huge pages the buffer still works. */
    madvise(base, mapped, MADV_HUGEPAGE);
#endif
    ((block_header *)base)->mapped = mapped;
    return base;
}

void *gi__pixels_alloc(size_t bytes)
{
    if (bytes > SIZE_MAX - HEADER_BYTES) return NULL;
    size_t total = bytes + HEADER_BYTES;
    block_header *h = NULL;
#ifndef GI_PLAIN_MALLOC
    if (bytes >= HUGE_FROM) h = map_huge(total);
    else
#endif
    {
        h = malloc(total);
        if (h) h->mapped = 0;
    }
    if (!h) return NULL;
    h->bytes = bytes;
    return (uint8_t *)h + HEADER_BYTES;
}

void gi__pixels_free(void *p)
{
    if (!p) return;
    block_header *h = header_of(p);
    if (h->mapped) munmap(h, h->mapped);
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
