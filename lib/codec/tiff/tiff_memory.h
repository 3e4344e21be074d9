/* libtiff over bytes in memory: a TIFF opened on a buffer (reading: the
 * caller's bytes, mapped, never copied; writing: a buffer that grows),
 * with libtiff's errors kept for the caller's message and its warnings
 * dropped, so that nothing of the library prints. */
#ifndef GI_TIFF_MEMORY_H
#define GI_TIFF_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "tiff_lib.h"

typedef struct {
    uint8_t *data;      /* reading: the caller's bytes; writing: malloc'ed, the caller's to free */
    size_t size, cap, at;
    int writing;
    int failed;         /* writing: out of memory */
    char error[200];    /* libtiff's first error message, or "" */
} gi_tiff_memory;

/* Opens `bytes` for reading. libtiff allocates at most max_alloc bytes
 * at once. NULL on failure, with the reason in m->error. */
TIFF *gi__tiff_open_read(gi_tiff_memory *m, const uint8_t *bytes, size_t size, size_t max_alloc);

/* Opens an empty buffer for writing a TIFF (BigTIFF when `big`). NULL on
 * failure, with the reason in m->error. */
TIFF *gi__tiff_open_write(gi_tiff_memory *m, int big);

#endif
