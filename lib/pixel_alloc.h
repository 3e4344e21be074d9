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

#endif
