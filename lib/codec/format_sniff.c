/* Signatures (PNG, JPEG, Netpbm) and the PNG chunk walk that image_io.c needs before decoding. */
#include <string.h>

#include "format_sniff.h"
#include "codec/pnm/pnm.h"

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

gi_format gi__sniff_format(const uint8_t *bytes, size_t size)
{
    if (size >= 8 && memcmp(bytes, png_signature, 8) == 0) return GI_FORMAT_PNG;
    if (size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return GI_FORMAT_JPEG;
    if (gi__pnm_sniff(bytes, size)) return GI_FORMAT_PNM;
    return GI_FORMAT_AUTO;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int gi__png_chunks_fit(const uint8_t *bytes, size_t size)
{
    for (size_t at = 8; at + 8 <= size;) {
        uint32_t len = be32(bytes + at);
        if (len > size - at - 8) return -1;
        if (memcmp(bytes + at + 4, "IEND", 4) == 0) return 0;
        at += 12 + (size_t)len;
    }
    return 0;
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

/* Past the entropy-coded data of a scan that starts at `at`, read as stb
 * 2.27 reads it (stbi__grow_buffer_unsafe): 0xFF, any number of 0xFF fill
 * bytes, then 0x00 is a stuffed data byte; with a restart marker
 * (0xD0-0xD7) instead of 0x00 the scan goes on; any other byte ends it.
 * Returns the offset of the first 0xFF of the marker that ends the scan.
 * When stb decodes every block before reaching it, stb takes the byte after
 * the next 0xFF as the marker; an earlier 0xFF is followed by 0x00, a
 * restart or fill bytes, all of which stb refuses as markers, so stb either
 * processes the same marker or fails. */
static size_t skip_scan(const uint8_t *bytes, size_t size, size_t at)
{
    while (at < size) {
        const uint8_t *ff = memchr(bytes + at, 0xFF, size - at); /* most bytes are data */
        if (!ff) return size;
        at = (size_t)(ff - bytes);
        size_t next = at + 1;
        while (next < size && bytes[next] == 0xFF) next++; /* fill bytes */
        if (next == size) return size; /* stb reads zeros past the end: data */
        if (bytes[next] != 0x00 && (bytes[next] < 0xD0 || bytes[next] > 0xD7)) return at;
        at = next + 1;
    }
    return size;
}

/* Does the scan header at `p` (after its length) use only Huffman tables
 * that were defined? stb 2.27 decodes with an undefined table's zeroed
 * arrays and reads past them. Baseline scans use both tables of each
 * component; progressive ones the DC table in a first DC pass, the AC table
 * in an AC pass. */
static int scan_tables_defined(const uint8_t *bytes, size_t size, size_t p, int progressive,
                               const int defined[2][4])
{
    if (p >= size) return 1;
    size_t n = bytes[p], after = p + 1 + 2 * n;
    if (after + 3 > size) return 1; /* truncated: stb reports it */
    int ss = bytes[after], ah = bytes[after + 2] >> 4;
    int need_dc = !progressive || (ss == 0 && ah == 0), need_ac = !progressive || ss > 0;
    for (size_t c = 0; c < n; c++) {
        int td = bytes[p + 2 + 2 * c] >> 4, ta = bytes[p + 2 + 2 * c] & 15;
        if (need_dc && (td > 3 || !defined[0][td])) return 0;
        if (need_ac && (ta > 3 || !defined[1][ta])) return 0;
    }
    return 1;
}

/* Walks the JPEG segments, scans included, and checks each Huffman
 * table definition (progressive files define tables between scans): 16
 * code-length counts whose sum is at most 256 (a table holds at most 256
 * symbols), and DC symbols of at most 15 bits. stb 2.27 builds
 * its tables without that check and indexes past a 257-entry array (the
 * regression jpeg-dht-counts-over-256), so such files are refused here. */
int gi__jpeg_check_huffman(const uint8_t *bytes, size_t size)
{
    size_t at = 2; /* after SOI */
    int defined[2][4] = {{0}}, progressive = 0;
    while (at + 4 <= size) {
        if (bytes[at] != 0xFF) { /* stb skips bytes between segments to the next marker */
            at++;
            continue;
        }
        uint8_t marker = bytes[at + 1];
        if (marker == 0xFF) { /* fill byte */
            at++;
            continue;
        }
        if (marker == 0xD9) return 0; /* end of image */
        size_t len = (size_t)bytes[at + 2] << 8 | bytes[at + 3];
        if (len < 2) return 0;
        if (marker == 0xC4) {
            /* stb reads zeros past the end of a truncated file; so do we. */
            size_t p = at + 4, end = at + 2 + len;
            while (p < end) {
                int dc = p < size && (bytes[p] >> 4) == 0;
                if (p < size && (bytes[p] >> 4) < 2) defined[bytes[p] >> 4][bytes[p] & 3] = 1;
                size_t symbols = 0;
                for (size_t i = p + 1; i <= p + 16; i++) symbols += i < size ? bytes[i] : 0;
                if (symbols > 256) return -1;
                /* A DC symbol is a bit count: at most 15 (11 for 8-bit data).
                 * stb 2.27 indexes a 17-entry mask with it unchecked. */
                for (size_t i = p + 17; dc && i < p + 17 + symbols && i < size; i++)
                    if (bytes[i] > 15) return -1;
                p += 17 + symbols;
            }
        }
        if (marker == 0xC2) progressive = 1;
        if (marker == 0xDA && !scan_tables_defined(bytes, size, at + 4, progressive, defined))
            return -1;
        if (len > size - at - 2) return 0; /* truncated: stb reports it */
        at += 2 + len;
        if (marker == 0xDA) at = skip_scan(bytes, size, at); /* start of scan */
    }
    return 0;
}
