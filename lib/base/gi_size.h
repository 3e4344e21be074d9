/* Overflow-checked size arithmetic for image buffers. */
#ifndef GI_SIZE_H
#define GI_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* *out = a * b; returns 0, or -1 when the product does not fit size_t. */
static inline int gi__mul_size(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}

/* Bytes of a tightly packed image of `sample_bytes` (1 or 2) per sample,
 * or -1 on overflow. */
static inline int gi__image_bytes_at(int width, int height, int channels, int sample_bytes,
                                     size_t *out)
{
    size_t row;
    if (width <= 0 || height <= 0 || channels <= 0) return -1;
    if (gi__mul_size((size_t)width, (size_t)channels * (size_t)sample_bytes, &row)) return -1;
    return gi__mul_size(row, (size_t)height, out);
}

/* The same at 8 bits. */
static inline int gi__image_bytes(int width, int height, int channels, size_t *out)
{
    return gi__image_bytes_at(width, height, channels, 1, out);
}

#endif
