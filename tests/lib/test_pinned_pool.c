/* The pixel allocator's page-locked pool (lib/base/pixel_alloc.h), with a
 * stand-in pinner that counts its calls: buffers for a device are plain
 * until a pinner is installed, then page-locked, zeroed even when reused,
 * pooled apart from the plain ones (a batch's steady state locks no more
 * memory), and unlocked when the pool overflows; other buffers never are.
 * Builds with AddressSanitizer keep every buffer plain (malloc'ed, which
 * it checks), and so does this test's expectation there. */
#include <stdlib.h>
#include <string.h>

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

static int maps, unmaps;

static void *fake_map(size_t bytes)
{
    maps++;
    void *p = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (p) memset(p, 0xA5, bytes); /* not zero, as cudaHostAlloc's need not be */
    return p;
}

static void fake_unmap(void *p)
{
    unmaps++;
    free(p);
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
    uint8_t *before = gi__pixels_calloc_for_device(big);
    th_check(before && !gi__pixels_pinned(before) && zeroed(before, big),
             "before a pinner: a device buffer is plain and zero");
    gi__pixels_free(before);

    static const gi__pixels_pinner pinner = {fake_map, fake_unmap};
    gi__pixels_use_pinned(&pinner);
    uint8_t *a = gi__pixels_calloc_for_device(big);
    th_check(a && gi__pixels_pinned(a) == !PLAIN_ONLY && zeroed(a, big),
             "a device buffer is page-locked and zero");
    memset(a, 0x5A, big);
    gi__pixels_free(a);
    for (int i = 0; i < 100; i++) { /* a batch's steady state */
        uint8_t *b = gi__pixels_calloc_for_device(big - (size_t)i * 4096);
        if (!th_check(b && zeroed(b, big - (size_t)i * 4096), "a reused buffer is zeroed"))
            break;
        memset(b, 0x77, 4096);
        gi__pixels_free(b);
    }
    th_check(maps == (PLAIN_ONLY ? 0 : 1), "100 buffers in turn: %d locked, not 1", maps);

    uint8_t *plain = gi__pixels_alloc(big), *tiny = gi__pixels_calloc_for_device(small);
    th_check(plain && !gi__pixels_pinned(plain), "other buffers stay plain");
    th_check(tiny && !gi__pixels_pinned(tiny) && zeroed(tiny, small),
             "small device buffers stay plain (malloc'ed)");
    gi__pixels_free(plain);
    gi__pixels_free(tiny);

    /* more at once than the pool keeps: the extra ones are unlocked */
    enum { N = 60 };
    uint8_t *many[N];
    for (int i = 0; i < N; i++) many[i] = gi__pixels_calloc_for_device(big);
    for (int i = 0; i < N; i++) gi__pixels_free(many[i]);
    th_check(PLAIN_ONLY ? unmaps == 0 : unmaps >= N - 48 && maps - unmaps <= 48,
             "%d buffers freed at once: %d unlocked of %d locked", N, unmaps, maps);
    return th_finish();
}
