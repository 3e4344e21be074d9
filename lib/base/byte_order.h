/* Big-endian integers in byte buffers (PNG chunks, JPEG segments, Exif,
 * TIFF headers), read and written a byte at a time: any alignment, any
 * host. */
#ifndef GI_BYTE_ORDER_H
#define GI_BYTE_ORDER_H

#include <stdint.h>

static inline uint16_t gi__be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t gi__be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void gi__put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

#endif
