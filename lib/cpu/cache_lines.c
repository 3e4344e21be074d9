/* Row buffers on cache lines (cache_lines.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache_lines.h"

void *gi__lines_alloc(size_t count, size_t size)
{
    if (size && count > (SIZE_MAX - GI_CACHE_LINE) / size) return NULL;
    /* aligned_alloc wants a multiple of the alignment */
    const size_t bytes = (count * size + GI_CACHE_LINE - 1) / GI_CACHE_LINE * GI_CACHE_LINE;
    void *p = aligned_alloc(GI_CACHE_LINE, bytes ? bytes : GI_CACHE_LINE);
    if (p) memset(p, 0, bytes);
    return p;
}

size_t gi__lines_round(size_t count, size_t size)
{
    const size_t per_line = GI_CACHE_LINE / size;
    return (count + per_line - 1) / per_line * per_line;
}
