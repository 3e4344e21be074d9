/* The chunks' CRCs (png_check.h). */
#include "png_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_checksum.h"
#include "base/byte_order.h"

/* The length of the chunk at `at` when it lies wholly inside the file,
 * its CRC included; else -1, which ends a walk. */
static int64_t whole_chunk(const uint8_t *bytes, size_t size, size_t at)
{
    if (size - at < 12) return -1;
    const uint32_t len = gi__be32(bytes + at);
    return len <= size - at - 12 ? (int64_t)len : -1;
}

/* Whether the chunk at `chunk` (len data bytes) fails its CRC, which
 * covers its type and data. */
static int fails_crc(const uint8_t *chunk, uint32_t len)
{
    return gi__crc32(0, chunk + 4, 4 + (size_t)len) != gi__be32(chunk + 8 + len);
}

static int is_critical(const uint8_t *chunk)
{
    return (chunk[4] & 0x20) == 0; /* the type's first letter a capital */
}

static int is_iend(const uint8_t *chunk)
{
    return memcmp(chunk + 4, "IEND", 4) == 0;
}

/* A type as text: its four bytes where they are printable, else '?'. */
static void type_text(const uint8_t *chunk, char out[5])
{
    for (int i = 0; i < 4; i++) {
        const uint8_t c = chunk[4 + i];
        out[i] = c >= 0x21 && c <= 0x7e ? (char)c : '?';
    }
    out[4] = 0;
}

int gi__png_check_crcs(const uint8_t *bytes, size_t size, int *damaged, char *why,
                       size_t why_size)
{
    *damaged = 0;
    for (size_t at = 8;;) {
        const int64_t len = whole_chunk(bytes, size, at);
        if (len < 0) return 0;
        const uint8_t *chunk = bytes + at;
        if (fails_crc(chunk, (uint32_t)len)) {
            if (is_critical(chunk)) {
                char type[5];
                type_text(chunk, type);
                snprintf(why, why_size, "chunk %s at byte %zu fails its CRC", type, at);
                return -1;
            }
            ++*damaged;
        }
        if (is_iend(chunk)) return 0;
        at += 12 + (size_t)len;
    }
}

int gi__png_drop_damaged(const uint8_t *bytes, size_t size, uint8_t **out, size_t *out_size)
{
    uint8_t *copy = malloc(size);
    if (!(*out = copy)) return -1;
    memcpy(copy, bytes, 8);
    size_t at = 8, used = 8;
    for (int64_t len; (len = whole_chunk(bytes, size, at)) >= 0;) {
        const uint8_t *chunk = bytes + at;
        const size_t whole = 12 + (size_t)len;
        if (is_critical(chunk) || !fails_crc(chunk, (uint32_t)len)) {
            memcpy(copy + used, chunk, whole);
            used += whole;
        }
        at += whole;
        if (is_iend(chunk)) break;
    }
    memcpy(copy + used, bytes + at, size - at); /* the rest, as it is */
    *out_size = used + (size - at);
    return 0;
}
