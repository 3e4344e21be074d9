/* The pixel allocator's page-locked pool (lib/base/pixel_alloc.h), with a
 * stand-in pinner that counts its calls: buffers for a device are plain
 * until a pinner is installed, then page-locked and
 * pooled apart from the plain ones (a batch's steady state locks no more
 * memory, a smaller buffer reusing a larger block), and unlocked before
 * they are unmapped when the pool overflows; other buffers never are, and
 * a buffer the pinner cannot lock stays plain. A mapping reaches the
 * pinner with every page backed already (the driver would fault them in
 * itself, one thread at a time) and zero. A zeroed buffer is zero even
 * where it reuses a pooled block.
 * Builds with AddressSanitizer keep every buffer plain (malloc'ed, which
 * it checks), and so does this test's expectation there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "base/pixel_alloc.h"

#if defined(__SANITIZE_ADDRESS__)
#define PLAIN_ONLY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PLAIN_ONLY 1
#endif
#endif
#ifndef PLAIN_ONLY
#define PLAIN_ONLY 0
#endif

static int maps, unmaps, refuse;
static void *locked[128];

static int zeroed(const uint8_t *p, size_t n);

/* Every page of [p, p + bytes) backed (mincore), the first one aside
 * (it holds the allocator's header). */
static int backed(void *p, size_t bytes)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = bytes / page;
    unsigned char *in = malloc(pages ? pages : 1);
    int all = in && mincore(p, bytes, in) == 0;
    for (size_t i = 1; all && i < pages; i++) all = in[i] & 1;
    free(in);
    return all;
}

/* Locks whole page-aligned mappings, as cudaHostRegister needs, and
 * remembers them for the unlock; refuses while `refuse` is set. Checks
 * that the mapping's pages are backed and zero. */
static int fake_lock(void *p, size_t bytes)
{
    if (refuse || (uintptr_t)p % 4096 || bytes % 4096 || maps - unmaps >= 128) return -1;
    th_check(backed(p, bytes), "a mapping reaches the pinner with pages not backed");
    th_check(zeroed((const uint8_t *)p + 4096, bytes - 4096),
             "a mapping reaches the pinner not zero past its header");
    for (int i = 0; i < 128; i++)
        if (!locked[i]) {
            locked[i] = p;
            break;
        }
    maps++;
    return 0;
}

static void fake_unlock(void *p)
{
    for (int i = 0; i < 128; i++)
        if (locked[i] == p) {
            locked[i] = NULL;
            unmaps++;
            return;
        }
    th_check(0, "unlock of %p, which was not locked", p);
}

static int zeroed(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

int main(void)
{
    const size_t big = (size_t)2 << 20, small = 1000;
    uint8_t *before = gi__pixels_alloc_for_device(big);
    th_check(before && !gi__pixels_pinned(before), "before a pinner: a device buffer is plain");
    gi__pixels_free(before);

    static const gi__pixels_pinner pinner = {fake_lock, fake_unlock};
    gi__pixels_use_pinned(&pinner);
    uint8_t *a = gi__pixels_alloc_for_device(big);
    th_check(a && gi__pixels_pinned(a) == !PLAIN_ONLY, "a device buffer is page-locked");
    memset(a, 0x5A, big);
    gi__pixels_free(a);
    for (int i = 0; i < 100; i++) { /* a batch's steady state */
        uint8_t *b = gi__pixels_alloc_for_device(big - (size_t)i * 4096);
        if (!th_check(b && gi__pixels_pinned(b) == !PLAIN_ONLY, "a reused buffer is page-locked"))
            break;
        memset(b, 0x77, 4096);
        gi__pixels_free(b);
    }
    th_check(maps == (PLAIN_ONLY ? 0 : 1), "100 buffers in turn: %d locked, not 1", maps);
    uint8_t *quarter = gi__pixels_alloc_for_device(big / 4); /* a batch's small last images */
    th_check(quarter && maps == (PLAIN_ONLY ? 0 : 1),
             "a smaller buffer reuses the locked block: %d locked, not 1", maps);
    gi__pixels_free(quarter);

    uint8_t *plain = gi__pixels_alloc(big), *tiny = gi__pixels_alloc_for_device(small);
    th_check(plain && !gi__pixels_pinned(plain), "other buffers stay plain");
    th_check(tiny && !gi__pixels_pinned(tiny),
             "small device buffers stay plain (malloc'ed)");
    gi__pixels_free(plain);
    gi__pixels_free(tiny);

    /* a mapping the pinner cannot lock: the buffer is plain */
    refuse = 1;
    uint8_t *unlocked = gi__pixels_alloc_for_device(big + 8192);
    th_check(unlocked && !gi__pixels_pinned(unlocked),
             "a device buffer the pinner refuses is plain");
    gi__pixels_free(unlocked);
    refuse = 0;

    /* more at once than the pool keeps: the extra ones are unlocked */
    enum { N = 110 };
    uint8_t *many[N];
    for (int i = 0; i < N; i++) many[i] = gi__pixels_alloc_for_device(big);
    for (int i = 0; i < N; i++) gi__pixels_free(many[i]);
    th_check(PLAIN_ONLY ? unmaps == 0 : unmaps >= N - 96 && maps - unmaps <= 96,
             "%d buffers freed at once: %d unlocked of %d locked", N, unmaps, maps);

    uint8_t *dirty = gi__pixels_alloc(big);
    if (dirty) memset(dirty, 0x33, big);
    gi__pixels_free(dirty);
    uint8_t *clean = gi__pixels_calloc(big);
    th_check(dirty && clean && zeroed(clean, big), "a zeroed buffer that reuses a block is zero");
    gi__pixels_free(clean);
    return th_finish();
}
