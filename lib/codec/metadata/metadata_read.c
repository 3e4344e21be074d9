/* Reading the metadata out of PNG chunks and JPEG segments. Every length
 * is checked against the bytes that are left before it is used; what
 * cannot be read is dropped with a note, and the walk stops at the first
 * damage it cannot step over. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/format_sniff.h"
#include "codec/png/png_checksum.h"
#include "codec/tiff/gi_tiff.h"
#include "base/gi_error.h"
#include "metadata.h"

static const char XMP_KEYWORD[] = "XML:com.adobe.xmp";
static const char JPEG_XMP[] = "http://ns.adobe.com/xap/1.0/";
static const char JPEG_XMP_EXTENDED[] = "http://ns.adobe.com/xmp/extension/";

/* Appends "what: why" to m->dropped, "; " between notes. */
static void note(gi_metadata *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(gi_metadata *m, const char *fmt, ...)
{
    size_t used = strlen(m->dropped);
    if (used && used + 2 < sizeof m->dropped) {
        memcpy(m->dropped + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->dropped + used, sizeof m->dropped - used, fmt, ap);
    va_end(ap);
}

static uint8_t *copy_of(const uint8_t *bytes, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (copy) memcpy(copy, bytes, size);
    return copy;
}

/* Keeps a copy of the Exif when its structure holds, and its orientation.
 * Returns -1 only when out of memory. */
static int keep_exif(gi_metadata *m, const uint8_t *exif, size_t size)
{
    size_t at;
    const char *why;
    if (m->exif) return 0; /* the first one counts */
    if (gi__exif_check(exif, size, &at, &why) != 0) {
        note(m, "Exif dropped: %s", why);
        return 0;
    }
    if (!(m->exif = copy_of(exif, size))) return -1;
    m->exif_size = size;
    int value = at == SIZE_MAX ? 1 : gi__exif_u16(exif, at);
    if (value < 1 || value > 8) note(m, "Exif Orientation %d is not 1..8: read as 1", value);
    m->orientation = value >= 1 && value <= 8 ? value : 1;
    return 0;
}

static int keep_copy(uint8_t **dst, size_t *dst_size, const uint8_t *bytes, size_t size)
{
    if (*dst) return 0;
    if (!(*dst = copy_of(bytes, size))) return -1;
    *dst_size = size;
    return 0;
}

/* A zlib stream of an ICC profile or XMP packet, bounded. */
static void keep_inflated(gi_metadata *m, const char *what, uint8_t **dst, size_t *dst_size,
                          const uint8_t *z, size_t size)
{
    if (*dst) return;
    if (gi__zlib_inflate(z, size, GI_METADATA_MAX_BYTES, dst, dst_size) != 0)
        note(m, "%s dropped: damaged, or over %u MiB inflated", what,
             GI_METADATA_MAX_BYTES >> 20);
}

/* ---------------------------------------------------------------- JPEG */

typedef struct {
    const uint8_t *part[256]; /* ICC segment n's bytes, n = 1..255 */
    size_t size[256];
    int count;                /* the count every segment must repeat */
    int bad;
} icc_parts;

static void add_icc_part(icc_parts *icc, const uint8_t *body, size_t size)
{
    if (size < 14) {
        icc->bad = 1;
        return;
    }
    int seq = body[12], count = body[13];
    if (seq == 0 || count == 0 || seq > count || (icc->count && count != icc->count) ||
        icc->part[seq])
        icc->bad = 1;
    else {
        icc->count = count;
        icc->part[seq] = body + 14;
        icc->size[seq] = size - 14;
    }
}

static int join_icc(gi_metadata *m, const icc_parts *icc)
{
    size_t total = 0;
    int missing = icc->bad;
    for (int i = 1; i <= icc->count; i++) {
        if (!icc->part[i]) missing = 1;
        total += icc->size[i];
    }
    if (missing) {
        note(m, "ICC profile dropped: its APP2 segments are missing, repeated or misnumbered");
        return 0;
    }
    if (!(m->icc = malloc(total ? total : 1))) return -1;
    for (int i = 1; i <= icc->count; i++) {
        memcpy(m->icc + m->icc_size, icc->part[i], icc->size[i]);
        m->icc_size += icc->size[i];
    }
    return 0;
}

static int starts_with(const uint8_t *body, size_t size, const char *prefix, size_t len)
{
    return size >= len && memcmp(body, prefix, len) == 0;
}

static int jpeg_segment(gi_metadata *m, icc_parts *icc, int marker, const uint8_t *body,
                        size_t size)
{
    if (marker == 0xe1 && starts_with(body, size, "Exif\0", 5))
        return size >= 6 ? keep_exif(m, body + 6, size - 6) : 0;
    if (marker == 0xe1 && starts_with(body, size, JPEG_XMP, sizeof JPEG_XMP))
        return keep_copy(&m->xmp, &m->xmp_size, body + sizeof JPEG_XMP, size - sizeof JPEG_XMP);
    if (marker == 0xe1 && starts_with(body, size, JPEG_XMP_EXTENDED, sizeof JPEG_XMP_EXTENDED)) {
        if (!strstr(m->dropped, "Extended XMP")) note(m, "Extended XMP dropped: not supported");
        return 0;
    }
    if (marker == 0xe2 && starts_with(body, size, "ICC_PROFILE", 12)) add_icc_part(icc, body, size);
    return 0;
}

/* The segments before the first scan; metadata never follows it. */
static int read_jpeg(gi_metadata *m, const uint8_t *b, size_t n)
{
    icc_parts *icc = calloc(1, sizeof *icc);
    if (!icc) return -1;
    size_t at = 2;
    int rc = 0;
    while (rc == 0 && at + 4 <= n) {
        int marker = b[at + 1];
        if (b[at] != 0xff) {
            note(m, "metadata after byte %zu unread: no JPEG marker there", at);
            break;
        }
        if (marker == 0xff || marker == 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
            at += marker == 0xff ? 1 : 2; /* fill byte, or a marker without a length */
            continue;
        }
        if (marker == 0xda || marker == 0xd9) break;
        size_t len = gi__be16(b + at + 2);
        if (len < 2 || len > n - at - 2) {
            note(m, "metadata after byte %zu unread: a segment runs past the end", at);
            break;
        }
        rc = jpeg_segment(m, icc, marker, b + at + 4, len - 2);
        at += 2 + len;
    }
    if (rc == 0 && (icc->count || icc->bad)) rc = join_icc(m, icc);
    free(icc);
    return rc;
}

/* ---------------------------------------------------------------- PNG */

/* The text after a keyword and its NUL, or NULL when the keyword is not
 * `keyword` (or has no NUL in the chunk). */
static const uint8_t *after_keyword(const uint8_t *data, size_t size, const char *keyword)
{
    size_t len = strlen(keyword);
    return size > len && memcmp(data, keyword, len) == 0 && data[len] == 0 ? data + len + 1
                                                                             : NULL;
}

/* iTXt: keyword, compression flag and method, language, translated
 * keyword, text. */
static int png_itxt(gi_metadata *m, const uint8_t *data, size_t size)
{
    const uint8_t *p = after_keyword(data, size, XMP_KEYWORD), *end = data + size;
    if (!p || m->xmp) return 0;
    if (end - p < 2) {
        note(m, "XMP dropped: its iTXt chunk is cut short");
        return 0;
    }
    int compressed = p[0];
    p += 2;
    for (int field = 0; field < 2; field++) { /* language tag, translated keyword */
        const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
        if (!nul) {
            note(m, "XMP dropped: its iTXt chunk is cut short");
            return 0;
        }
        p = nul + 1;
    }
    if (compressed) keep_inflated(m, "XMP", &m->xmp, &m->xmp_size, p, (size_t)(end - p));
    else return keep_copy(&m->xmp, &m->xmp_size, p, (size_t)(end - p));
    return 0;
}

static int png_chunk(gi_metadata *m, const uint8_t *type, const uint8_t *data, size_t size)
{
    if (memcmp(type, "eXIf", 4) == 0) return keep_exif(m, data, size);
    if (memcmp(type, "iTXt", 4) == 0) return png_itxt(m, data, size);
    if (memcmp(type, "zTXt", 4) == 0) {
        const uint8_t *p = after_keyword(data, size, XMP_KEYWORD);
        if (p && p < data + size)
            keep_inflated(m, "XMP", &m->xmp, &m->xmp_size, p + 1, (size_t)(data + size - p - 1));
    } else if (memcmp(type, "iCCP", 4) == 0 && !m->icc) {
        const uint8_t *nul = memchr(data, 0, size < 80 ? size : 80);
        if (!nul || (size_t)(nul - data) + 2 > size)
            note(m, "ICC profile dropped: its iCCP chunk has no profile name");
        else
            keep_inflated(m, "ICC profile", &m->icc, &m->icc_size, nul + 2,
                          size - (size_t)(nul - data) - 2);
    } else if (memcmp(type, "sRGB", 4) == 0 && size == 1 && data[0] <= 3) {
        m->has_srgb = 1;
        m->srgb_intent = data[0];
    } else if (memcmp(type, "gAMA", 4) == 0 && size == 4) {
        m->gamma = gi__be32(data);
    } else if (memcmp(type, "cHRM", 4) == 0 && size == 32) {
        m->has_chrm = 1;
        for (int i = 0; i < 8; i++) m->chrm[i] = gi__be32(data + 4 * i);
    }
    return 0;
}

/* Whether the chunk at `chunk` (len data bytes) is one png_chunk reads
 * and its CRC fails: it is dropped, as libpng drops an ancillary chunk
 * that fails its CRC (png_check.h). Only those chunks' CRCs are computed
 * here: the image data's is the decoder's. */
static int read_but_damaged(const uint8_t *chunk, size_t len)
{
    static const char read[][5] = {"eXIf", "iTXt", "zTXt", "iCCP", "sRGB", "gAMA", "cHRM"};
    for (size_t i = 0; i < sizeof read / sizeof *read; i++)
        if (memcmp(chunk + 4, read[i], 4) == 0)
            return GI_CHECKSUMS_REFUSE &&
                   gi__crc32(0, chunk + 4, 4 + len) != gi__be32(chunk + 8 + len);
    return 0;
}

/* Every chunk up to IEND: eXIf may follow the image data. */
static int read_png(gi_metadata *m, const uint8_t *b, size_t n)
{
    size_t at = 8;
    while (at + 12 <= n) {
        size_t len = gi__be32(b + at);
        if (len > n - at - 12) {
            note(m, "metadata after byte %zu unread: a chunk runs past the end", at);
            break;
        }
        const uint8_t *type = b + at + 4;
        if (memcmp(type, "IEND", 4) == 0) break;
        if (read_but_damaged(b + at, len))
            note(m, "%.4s chunk at byte %zu dropped: it fails its CRC", (const char *)type, at);
        else if (png_chunk(m, type, b + at + 8, len) != 0)
            return -1;
        at += 12 + len;
    }
    return 0;
}

/* A TIFF's metadata: its tags, and for an Orientation of 2..8 an Exif of
 * IFD0 with that tag alone, so that a PNG or JPEG written from it shows
 * the pixels as the TIFF does (they have no place for the tag but Exif)
 * and gi_metadata_set_orientation has a tag to set. Returns -1 only when
 * out of memory. */
static int read_tiff(gi_metadata *m, const uint8_t *bytes, size_t size)
{
    if (gi__tiff_metadata_read(bytes, size, m) != 0) return -1;
    if (m->orientation == 1 || m->exif) return 0;
    return (m->exif = gi__exif_of_orientation(m->orientation, &m->exif_size)) ? 0 : -1;
}

/* ---------------------------------------------------------------- API */

static void metadata_clear(gi_metadata *m)
{
    memset(m, 0, sizeof *m);
    m->orientation = 1;
    m->pages = 1;
}

gi_status gi_metadata_read(const void *bytes, size_t size, gi_metadata *out)
{
    GI__REFUSE_NULL(out);
    if (size) GI__REFUSE_NULL(bytes);
    metadata_clear(out);
    gi_format format = size ? gi__sniff_format(bytes, size) : GI_FORMAT_AUTO;
    int rc = format == GI_FORMAT_PNG    ? read_png(out, bytes, size)
             : format == GI_FORMAT_JPEG ? read_jpeg(out, bytes, size)
             : format == GI_FORMAT_TIFF ? read_tiff(out, bytes, size)
                                        : 0;
    if (rc == 0) return GI_OK;
    gi_metadata_free(out);
    note(out, "all metadata dropped: out of memory");
    return gi__fail(GI_ERR_NO_MEMORY, "out of memory reading the metadata");
}

void gi_metadata_free(gi_metadata *m)
{
    if (!m) return;
    free(m->exif);
    free(m->icc);
    free(m->xmp);
    metadata_clear(m);
}

int gi_metadata_empty(const gi_metadata *m)
{
    return !m || (!m->exif && !m->icc && !m->xmp && !m->has_srgb && !m->gamma && !m->has_chrm);
}
