/* Completing a PNG's palette with black entries for stb (png_palette.h). */
#include "png_palette.h"
#include "base/byte_order.h"

#include <stdlib.h>
#include <string.h>

#define FULL_PLTE 768 /* 256 entries of 3 bytes */

/* A PLTE stb takes but would leave short: 1 to 255 whole entries. */
static int short_plte(const uint8_t *chunk, uint32_t len)
{
    return memcmp(chunk + 4, "PLTE", 4) == 0 && len > 0 && len < FULL_PLTE && len % 3 == 0;
}

/* How many short PLTE chunks the chunks that lie wholly inside the file
 * have; -1 where a tRNS is longer than the PLTE before it (stb refuses
 * that file). A walk that meets a chunk running past the end stops there:
 * the rest is copied as it is, for stb to judge. */
static int count_short_plte(const uint8_t *bytes, size_t size)
{
    int count = 0;
    uint32_t plte_len = 0;
    for (size_t at = 8; size - at >= 12;) {
        const uint8_t *chunk = bytes + at;
        const uint32_t len = gi__be32(chunk);
        if (len > size - at - 12) break;
        if (memcmp(chunk + 4, "PLTE", 4) == 0) plte_len = len;
        if (memcmp(chunk + 4, "tRNS", 4) == 0 && plte_len && len > plte_len / 3) return -1;
        count += short_plte(chunk, len);
        at += 12 + (size_t)len;
    }
    return count;
}

int gi__png_complete_palette(const uint8_t *bytes, size_t size, uint8_t **completed,
                             size_t *out_size)
{
    *completed = NULL;
    /* IHDR first with colour type 3: stb's palette is used only then */
    if (size < 8 + 8 + 13 || memcmp(bytes + 12, "IHDR", 4) != 0 || bytes[8 + 8 + 9] != 3)
        return 0;
    const int count = count_short_plte(bytes, size);
    if (count <= 0) return 0;
    uint8_t *out = malloc(size + (size_t)count * FULL_PLTE);
    if (!out) return -1;
    memcpy(out, bytes, 8);
    size_t at = 8, used = 8;
    while (size - at >= 12) {
        const uint8_t *chunk = bytes + at;
        const uint32_t len = gi__be32(chunk);
        if (len > size - at - 12) break;
        if (short_plte(chunk, len)) {
            gi__put_be32(out + used, FULL_PLTE);
            memcpy(out + used + 4, chunk + 4, 4 + (size_t)len);
            memset(out + used + 8 + len, 0, FULL_PLTE - (size_t)len);
            memcpy(out + used + 8 + FULL_PLTE, chunk + 8 + len, 4);
            used += 12 + FULL_PLTE;
        } else {
            memcpy(out + used, chunk, 12 + (size_t)len);
            used += 12 + (size_t)len;
        }
        at += 12 + (size_t)len;
    }
    memcpy(out + used, bytes + at, size - at);
    *out_size = used + (size - at);
    *completed = out;
    return 1;
}
