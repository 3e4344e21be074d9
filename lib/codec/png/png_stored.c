/* A PNG's image data as stb takes it (png_stored.h). */
#include "png_stored.h"

#include <limits.h>
#include <string.h>

#include "base/pixel_alloc.h"
#include "base/byte_order.h"

#define STORED_MAX 65535u /* the most bytes a stored block holds */
#define MAX_SIDE (1u << 24) /* stb's STBI_MAX_DIMENSIONS: it refuses longer sides */

static int is_type(const uint8_t *chunk, const char *type)
{
    return memcmp(chunk + 4, type, 4) == 0;
}

/* The offset of the chunk after the one at `at`, or 0 where the one at
 * `at` does not lie wholly inside the file (its CRC may be cut off: stb
 * does not read it). */
static size_t next_chunk(const uint8_t *bytes, size_t size, size_t at)
{
    if (size - at < 8 || gi__be32(bytes + at) > size - at - 8) return 0;
    return at + 12 + (size_t)gi__be32(bytes + at);
}

/* Where IEND starts, the count and bytes of the IDAT data before it in
 * *count and *total, and the first IDAT's offset in *first; 0 where IEND
 * never comes. */
static size_t find_iend(const uint8_t *bytes, size_t size, size_t *count, size_t *total,
                        size_t *first)
{
    *count = *total = *first = 0;
    for (size_t at = 8; at && at < size; at = next_chunk(bytes, size, at)) {
        if (size - at < 8) return 0;
        if (is_type(bytes + at, "IEND")) return at;
        if (is_type(bytes + at, "CgBI")) return 0;
        if (is_type(bytes + at, "IDAT")) {
            if (!(*count)++) *first = at;
            *total += gi__be32(bytes + at);
        }
    }
    return 0;
}

int gi__png_idat_stream(const uint8_t *bytes, size_t size, const uint8_t **stream, size_t *n,
                        uint8_t **joined)
{
    size_t count, total, first;
    *joined = NULL;
    if (!find_iend(bytes, size, &count, &total, &first) || !count) return 1;
    *n = total;
    if (count == 1) {
        *stream = bytes + first + 8;
        return 0;
    }
    uint8_t *out = gi__pixels_alloc(total ? total : 1);
    if (!out) return -1;
    size_t used = 0;
    for (size_t at = first; used < total; at = next_chunk(bytes, size, at)) {
        const uint32_t len = gi__be32(bytes + at);
        if (is_type(bytes + at, "IDAT")) {
            memcpy(out + used, bytes + at + 8, len);
            used += len;
        }
    }
    *stream = *joined = out;
    return 0;
}

/* Samples a pixel in the image data: a palette index is one. */
static int samples_of(int color)
{
    return color == 2 ? 3 : color == 4 ? 2 : color == 6 ? 4 : 1;
}

uint64_t gi__png_filtered_size(const uint8_t *bytes, size_t size)
{
    static const int x0[7] = {0, 4, 0, 2, 0, 1, 0}, y0[7] = {0, 0, 4, 0, 2, 0, 1};
    static const int dx[7] = {8, 8, 4, 4, 2, 2, 1}, dy[7] = {8, 8, 8, 4, 4, 2, 2};
    if (size < 33 || gi__be32(bytes + 8) != 13 || !is_type(bytes + 8, "IHDR")) return 0;
    const uint8_t *h = bytes + 16;
    const uint64_t width = gi__be32(h), height = gi__be32(h + 4);
    const int depth = h[8], color = h[9], interlace = h[12];
    if ((depth != 1 && depth != 2 && depth != 4 && depth != 8 && depth != 16) ||
        (color != 0 && color != 2 && color != 3 && color != 4 && color != 6) ||
        (color == 3 && depth == 16) || interlace > 1 || !width || !height ||
        width > MAX_SIDE || height > MAX_SIDE)
        return 0;
    const uint64_t bits = (uint64_t)samples_of(color) * (uint64_t)depth;
    if (!interlace) return ((width * bits + 7) / 8 + 1) * height;
    uint64_t total = 0;
    for (int p = 0; p < 7; p++) {
        const uint64_t w = (width + (uint64_t)(dx[p] - 1 - x0[p])) / (uint64_t)dx[p];
        const uint64_t rows = (height + (uint64_t)(dy[p] - 1 - y0[p])) / (uint64_t)dy[p];
        if (w && rows) total += ((w * bits + 7) / 8 + 1) * rows;
    }
    return total;
}

/* A zlib stream of data[0..n) in stored blocks at o: zlib's header, the
 * blocks (a final one, empty, for no data) and room for the checksum. */
static uint8_t *put_stored(uint8_t *o, const uint8_t *data, size_t n)
{
    *o++ = 0x78; /* deflate, 32 KiB window; 0x7801 is a multiple of 31 */
    *o++ = 0x01;
    do {
        const size_t part = n < STORED_MAX ? n : STORED_MAX;
        *o++ = part == n; /* BFINAL, and BTYPE 00: stored */
        o[0] = (uint8_t)part;
        o[1] = (uint8_t)(part >> 8);
        o[2] = (uint8_t)~part;
        o[3] = (uint8_t)(~part >> 8);
        memcpy(o + 4, data, part);
        o += 4 + part;
        data += part;
        n -= part;
    } while (n);
    memset(o, 0, 4); /* the Adler-32, which stb does not read */
    return o + 4;
}

/* The bytes of put_stored's stream: a 5-byte header a block. */
static size_t stored_size(size_t n)
{
    const size_t blocks = n ? (n + STORED_MAX - 1) / STORED_MAX : 1;
    return 2 + 5 * blocks + n + 4;
}

uint8_t *gi__png_with_stored_data(const uint8_t *bytes, size_t size, const uint8_t *data,
                                  size_t n, size_t *out_size)
{
    size_t count, total, first;
    const size_t iend = find_iend(bytes, size, &count, &total, &first);
    if (!iend || !count) return NULL;
    const size_t want = size - total + stored_size(n); /* the IDATs' data replaced */
    if (want > INT_MAX) return NULL;
    uint8_t *out = gi__pixels_alloc(want), *o = out;
    if (!out) return NULL;
    memcpy(o, bytes, first);
    o += first;
    for (size_t at = first; at < iend; at = next_chunk(bytes, size, at)) {
        const uint32_t len = gi__be32(bytes + at);
        if (!is_type(bytes + at, "IDAT")) {
            memcpy(o, bytes + at, 12 + (size_t)len);
            o += 12 + (size_t)len;
            continue;
        }
        const size_t stream = at == first ? stored_size(n) : 0;
        gi__put_be32(o, (uint32_t)stream);
        memcpy(o + 4, "IDAT", 4);
        o = at == first ? put_stored(o + 8, data, n) : o + 8;
        memset(o, 0, 4); /* the CRC, which stb does not read */
        o += 4;
    }
    memcpy(o, bytes + iend, size - iend); /* IEND, as far as the file has it */
    *out_size = (size_t)(o - out) + (size - iend);
    return out;
}
