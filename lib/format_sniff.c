/* Signatures and the PNG chunk walk that image_io.c needs before decoding. */
#include <string.h>

#include "format_sniff.h"

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

gi_format gi__sniff_format(const uint8_t *bytes, size_t size)
{
    if (size >= 8 && memcmp(bytes, png_signature, 8) == 0) return GI_FORMAT_PNG;
    if (size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return GI_FORMAT_JPEG;
    return GI_FORMAT_AUTO;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int gi__png_header(const uint8_t *bytes, size_t size, uint32_t *w, uint32_t *h, int *has_trns)
{
    *has_trns = 0;
    if (size < 33 || memcmp(bytes + 12, "IHDR", 4) != 0) return -1;
    *w = be32(bytes + 16);
    *h = be32(bytes + 20);
    /* Each chunk: 4-byte length, 4-byte type, data, 4-byte CRC. */
    for (size_t at = 8; at + 8 <= size;) {
        uint32_t len = be32(bytes + at);
        const uint8_t *type = bytes + at + 4;
        if (memcmp(type, "IDAT", 4) == 0 || memcmp(type, "IEND", 4) == 0) return 0;
        if (memcmp(type, "tRNS", 4) == 0) *has_trns = 1;
        if (len > size - at - 8 || size - at - 8 - len < 4) return -1;
        at += 12 + (size_t)len;
    }
    return -1;
}
