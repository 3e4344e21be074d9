/* Signatures (PNG, JPEG, Netpbm, TIFF) and the PNG chunk walk that image_io.c needs before decoding. */
#include <stdio.h>
#include <string.h>

#include "format_sniff.h"
#include "codec/pnm/pnm.h"
#include "base/byte_order.h"

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

gi_format gi__sniff_format(const uint8_t *bytes, size_t size)
{
    if (size >= 8 && memcmp(bytes, png_signature, 8) == 0) return GI_FORMAT_PNG;
    if (size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return GI_FORMAT_JPEG;
    if (gi__pnm_sniff(bytes, size)) return GI_FORMAT_PNM;
    if (size >= 4 && (memcmp(bytes, "II*\0", 4) == 0 || memcmp(bytes, "MM\0*", 4) == 0 ||
                      memcmp(bytes, "II+\0", 4) == 0 || memcmp(bytes, "MM\0+", 4) == 0))
        return GI_FORMAT_TIFF; /* classic TIFF or BigTIFF, either byte order */
    return GI_FORMAT_AUTO;
}

int gi__png_chunks_fit(const uint8_t *bytes, size_t size)
{
    for (size_t at = 8; at + 8 <= size;) {
        uint32_t len = gi__be32(bytes + at);
        if (len > size - at - 8) return -1;
        if (memcmp(bytes + at + 4, "IEND", 4) == 0) return 0;
        at += 12 + (size_t)len;
    }
    return -2;
}

int gi__png_header(const uint8_t *bytes, size_t size, uint32_t *w, uint32_t *h, int *has_trns)
{
    *has_trns = 0;
    if (size < 33 || memcmp(bytes + 12, "IHDR", 4) != 0) return -1;
    *w = gi__be32(bytes + 16);
    *h = gi__be32(bytes + 20);
    /* Each chunk: 4-byte length, 4-byte type, data, 4-byte CRC. */
    for (size_t at = 8; at + 8 <= size;) {
        uint32_t len = gi__be32(bytes + at);
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

/* The tables a JPEG has defined so far, as stb 2.27 would have them, the
 * first frame, and the first scan whose data is shorter than its blocks
 * can be coded in. */
typedef struct {
    int huffman[2][4]; /* [DC, AC][table] */
    int quant[4];
    int progressive;
    int components;     /* of the first SOF; 0 before it */
    int id[4], tq[4];   /* each component's id and quantization table */
    int h[4], v[4];     /* sampling factors */
    uint32_t width, height;
    size_t short_data, short_need; /* bytes of that scan and the fewest it needs; 0: none */
    int eoi;            /* the walk reached the end-of-image marker */
} jpeg_walk;

/* A DHT segment's tables (p to end): 16 code-length counts whose sum is at
 * most 256 (a table holds at most 256 symbols), and DC symbols of at most
 * 15 bits. stb 2.27 builds its tables without that check and indexes past
 * a 257-entry array (the regression jpeg-dht-counts-over-256). stb reads
 * zeros past the end of a truncated file; so do we. */
static int read_dht(const uint8_t *bytes, size_t size, size_t p, size_t end, jpeg_walk *t)
{
    while (p < end) {
        int dc = p < size && (bytes[p] >> 4) == 0;
        if (p < size && (bytes[p] >> 4) < 2) t->huffman[bytes[p] >> 4][bytes[p] & 3] = 1;
        size_t symbols = 0;
        for (size_t i = p + 1; i <= p + 16; i++) symbols += i < size ? bytes[i] : 0;
        if (symbols > 256) return -1;
        /* A DC symbol is a bit count: at most 15 (11 for 8-bit data).
         * stb 2.27 indexes a 17-entry mask with it unchecked. */
        for (size_t i = p + 17; dc && i < p + 17 + symbols && i < size; i++)
            if (bytes[i] > 15) return -1;
        p += 17 + symbols;
    }
    return 0;
}

/* A DQT segment's tables (p to end), as stb reads them: an empty segment
 * defines none. Bad precisions and numbers stb refuses itself. */
static void read_dqt(const uint8_t *bytes, size_t size, size_t p, size_t end, jpeg_walk *t)
{
    while (p < end && p < size) {
        const int precision = bytes[p] >> 4, table = bytes[p] & 15;
        if (precision > 1 || table > 3) return;
        t->quant[table] = 1;
        p += precision ? 129 : 65;
    }
}

/* The first SOF's components (p after the length); stb refuses the rest. */
static void read_sof(const uint8_t *bytes, size_t size, size_t p, jpeg_walk *t)
{
    if (t->components || p + 6 > size) return;
    const int n = bytes[p + 5];
    if (n < 1 || n > 4 || p + 6 + 3 * (size_t)n > size) return;
    for (int c = 0; c < n; c++) {
        t->id[c] = bytes[p + 6 + 3 * c];
        t->h[c] = bytes[p + 6 + 3 * c + 1] >> 4;
        t->v[c] = bytes[p + 6 + 3 * c + 1] & 15;
        t->tq[c] = bytes[p + 6 + 3 * c + 2] & 3; /* stb refuses a number over 3 */
        if (t->h[c] < 1 || t->v[c] < 1) return; /* stb refuses it */
    }
    t->height = (uint32_t)bytes[p + 1] << 8 | bytes[p + 2];
    t->width = (uint32_t)bytes[p + 3] << 8 | bytes[p + 4];
    t->components = n;
}

static uint64_t blocks_across(uint64_t pixels, int sampling, int most)
{
    return ((pixels * (uint64_t)sampling + (uint64_t)most - 1) / (uint64_t)most + 7) / 8;
}

/* The fewest bytes the scan at `p` (its header, after the length) can be
 * coded in: each block of a sequential scan takes at least 2 bits (a DC
 * code and an AC end of block), of a progressive first DC pass 1; other
 * progressive passes can code any number of blocks in a few bits. */
static uint64_t scan_fewest_bytes(const uint8_t *bytes, size_t size, size_t p, const jpeg_walk *t)
{
    if (!t->components || p >= size) return 0;
    const size_t n = bytes[p], after = p + 1 + 2 * n;
    if (n < 1 || n > 4 || after + 3 > size) return 0;
    const int bits = !t->progressive ? 2 : bytes[after] == 0 && bytes[after + 2] >> 4 == 0 ? 1 : 0;
    int hmax = 1, vmax = 1;
    for (int k = 0; k < t->components; k++) {
        hmax = t->h[k] > hmax ? t->h[k] : hmax;
        vmax = t->v[k] > vmax ? t->v[k] : vmax;
    }
    const uint64_t mcus = blocks_across(t->width, 1, hmax) * blocks_across(t->height, 1, vmax);
    uint64_t blocks = 0;
    for (size_t c = 0; c < n; c++)
        for (int k = 0; k < t->components; k++) {
            if (t->id[k] != bytes[p + 1 + 2 * c]) continue;
            blocks += n == 1 ? blocks_across(t->width, t->h[k], hmax) *
                                   blocks_across(t->height, t->v[k], vmax)
                             : mcus * (uint64_t)(t->h[k] * t->v[k]);
        }
    return blocks * (uint64_t)bits / 8;
}

/* The scan header at `p` (after its length): 0 when it uses only tables
 * that were defined, else -1 with the reason in why. stb 2.27 decodes with an undefined
 * Huffman table's zeroed arrays and reads past them, and dequantizes with
 * whatever memory its undefined quantization tables hold (in a batch, the
 * previous file's tables). Baseline scans use both Huffman tables of each
 * component; progressive ones the DC table in a first DC pass, the AC
 * table in an AC pass. Every scan needs its components' quantization
 * tables, as libjpeg requires at a component's first scan. */
static int check_scan(const uint8_t *bytes, size_t size, size_t p, const jpeg_walk *t,
                      char *why, size_t why_size)
{
    if (p >= size) return 0;
    size_t n = bytes[p], after = p + 1 + 2 * n;
    if (after + 3 > size) return 0; /* truncated: stb reports it */
    int ss = bytes[after], ah = bytes[after + 2] >> 4;
    int need_dc = !t->progressive || (ss == 0 && ah == 0), need_ac = !t->progressive || ss > 0;
    for (size_t c = 0; c < n; c++) {
        int id = bytes[p + 1 + 2 * c], td = bytes[p + 2 + 2 * c] >> 4, ta = bytes[p + 2 + 2 * c] & 15;
        if ((need_dc && (td > 3 || !t->huffman[0][td])) ||
            (need_ac && (ta > 3 || !t->huffman[1][ta]))) {
            snprintf(why, why_size, "an invalid Huffman table");
            return -1;
        }
        for (int k = 0; k < t->components; k++)
            if (t->id[k] == id && !t->quant[t->tq[k]]) {
                snprintf(why, why_size, "quantization table %d not defined", t->tq[k]);
                return -1;
            }
    }
    return 0;
}

/* Walks the JPEG segments, scans included (progressive files define
 * tables between scans), and checks the tables as they are defined and
 * as the scans use them; *t tells the rest. */
static int walk_jpeg(const uint8_t *bytes, size_t size, jpeg_walk *w, char *why, size_t why_size)
{
    size_t at = 2; /* after SOI */
    jpeg_walk t;
    memset(&t, 0, sizeof t);
    memset(w, 0, sizeof *w);
    while (at + 2 <= size) {
        if (bytes[at] != 0xFF) { /* stb skips bytes between segments to the next marker */
            at++;
            continue;
        }
        uint8_t marker = bytes[at + 1];
        if (marker == 0xFF) { /* fill byte */
            at++;
            continue;
        }
        if (marker == 0xD9) { /* end of image */
            t.eoi = 1;
            break;
        }
        if (at + 4 > size) break;
        size_t len = (size_t)bytes[at + 2] << 8 | bytes[at + 3];
        if (len < 2) break;
        if (marker == 0xC4 && read_dht(bytes, size, at + 4, at + 2 + len, &t) != 0) {
            snprintf(why, why_size, "an invalid Huffman table");
            return -1;
        }
        if (marker == 0xDB) read_dqt(bytes, size, at + 4, at + 2 + len, &t);
        if (marker == 0xC0 || marker == 0xC1 || marker == 0xC2) read_sof(bytes, size, at + 4, &t);
        if (marker == 0xC2) t.progressive = 1;
        if (marker == 0xDA && check_scan(bytes, size, at + 4, &t, why, why_size) != 0) return -1;
        if (len > size - at - 2) break; /* truncated: stb reports it */
        const size_t header = at + 4;
        at += 2 + len;
        if (marker != 0xDA) continue;
        const size_t data = at; /* start of scan */
        at = skip_scan(bytes, size, at);
        const uint64_t fewest = scan_fewest_bytes(bytes, size, header, &t);
        if (!t.short_need && at - data < fewest) {
            t.short_data = at - data;
            t.short_need = fewest;
        }
    }
    *w = t;
    return 0;
}

int gi__jpeg_check_tables(const uint8_t *bytes, size_t size, char *why, size_t why_size)
{
    jpeg_walk w;
    return walk_jpeg(bytes, size, &w, why, why_size);
}

int gi__jpeg_cut_before_eoi(const uint8_t *bytes, size_t size)
{
    jpeg_walk w;
    char why[64];
    return walk_jpeg(bytes, size, &w, why, sizeof why) == 0 && !w.eoi;
}

int gi__jpeg_data_short(const uint8_t *bytes, size_t size, char *note, size_t note_size)
{
    jpeg_walk w;
    char why[64];
    if (walk_jpeg(bytes, size, &w, why, sizeof why) != 0 || !w.short_need) return 0;
    snprintf(note, note_size, "premature end of JPEG data: a scan of %zu bytes where its "
             "blocks of %ux%u pixels take at least %zu", w.short_data, w.width, w.height,
             w.short_need);
    return 1;
}
