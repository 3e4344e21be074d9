/* Row buffers on cache lines, for the CPU operations whose vector loops
 * load whole rows of them. malloc and calloc align to 16 bytes (a large
 * block starts 16 bytes past a page, where glibc maps it), so every
 * 64-byte load of such a row reads two lines, and every other 32-byte
 * load does. lib/base/pixel_alloc's blocks sit on lines only from its
 * mapped sizes on, and it keeps them for the next image, not for a
 * thread's scratch rows. */
#ifndef GI_CACHE_LINES_H
#define GI_CACHE_LINES_H

#include <stddef.h>

#define GI_CACHE_LINE 64

/* count values of size bytes, zeroed, from the start of a line and in
 * whole lines; NULL where memory is short. Freed with free. */
void *gi__lines_alloc(size_t count, size_t size);

/* count rounded up so that count values of size bytes (a power of two up
 * to a line) fill whole lines: the stride of rows that each start on
 * one. */
size_t gi__lines_round(size_t count, size_t size);

#endif
