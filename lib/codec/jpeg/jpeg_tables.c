/* jpeg_tables.h */
#include "jpeg_tables.h"

#include <stdlib.h>

const uint8_t gi__jpeg_natural_order[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33,
    40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36,
    29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
    47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

int gi__jpeg_reserve(jpeg_buffer *b, size_t count)
{
    if ((size_t)(b->end - b->p) >= count) return 1;
    size_t used = (size_t)(b->p - b->data), cap = (size_t)(b->end - b->data) * 2;
    if (cap < used + count) cap = used + count;
    uint8_t *bigger = realloc(b->data, cap);
    if (!bigger) return 0;
    b->data = bigger;
    b->p = bigger + used;
    b->end = bigger + cap;
    return 1;
}
