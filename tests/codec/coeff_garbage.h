/* For the JPEG decoder's tests: memory the next read reuses, left dirty. */
#ifndef GI_TEST_COEFF_GARBAGE_H
#define GI_TEST_COEFF_GARBAGE_H

#include <stdint.h>
#include <string.h>

#include "base/pixel_alloc.h"

/* Blocks of the sizes a read allocates for a frame of storage_bytes of
 * coefficients and for its masks (gi_jpeg_coeffs), filled with garbage
 * and freed, so that the next read reuses dirty memory: what it must zero
 * it zeroes, and what it leaves as allocated it never reads. */
static inline void leave_coeff_garbage(size_t storage_bytes)
{
    const size_t mask_bytes = sizeof(uint64_t) * (storage_bytes / (64 * sizeof(int16_t)));
    void *storage = gi__pixels_alloc_for_device(storage_bytes), *masks = gi__pixels_alloc(mask_bytes);
    if (storage) memset(storage, 0xA5, storage_bytes);
    if (masks) memset(masks, 0x5A, mask_bytes);
    gi__pixels_free(masks);
    gi__pixels_free(storage);
}

#endif
