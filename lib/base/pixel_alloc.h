/* Pixel buffers: every image buffer the library allocates, its own and
 * stb's, comes from here and goes back through gi__pixels_free. */
#ifndef GPUIMG_PIXEL_ALLOC_H
#define GPUIMG_PIXEL_ALLOC_H

#include <stddef.h>

void *gi__pixels_alloc(size_t bytes);
/* The same, zeroed: a fresh mapping is zero already, so only a reused one
 * (or a small block) costs a memset. */
void *gi__pixels_calloc(size_t bytes);
/* As realloc: NULL keeps p; p may be NULL. */
void *gi__pixels_realloc(void *p, size_t bytes);
void gi__pixels_free(void *p);

/* Buffers a device copies from in place: a JPEG's coefficients, which the
 * CUDA backend uploads whole (jpeg_coeffs.h). Once a backend has given
 * its page-locked allocator (gi__pixels_use_pinned), large ones are
 * page-locked and pooled apart: the copy then needs no staging through a
 * pinned buffer of its own (a host memcpy of the whole buffer), and the
 * pool keeps both the locking and the page faults off every file after
 * the first few. Until then, and in builds with AddressSanitizer, as
 * gi__pixels_alloc. Not zeroed. */
void *gi__pixels_alloc_for_device(size_t bytes);
/* Whether p (from this allocator) is page-locked. */
int gi__pixels_pinned(const void *p);

/* What page-locks the allocator's own mappings; installed once (later
 * calls change nothing), by the CUDA backend when it starts. lock returns
 * 0, or -1 where the mapping could not be locked (it stays as it was);
 * unlock is called before the mapping is unmapped. */
typedef struct {
    int (*lock)(void *p, size_t bytes);
    void (*unlock)(void *p);
} gi__pixels_pinner;
void gi__pixels_use_pinned(const gi__pixels_pinner *pinner);

#endif
