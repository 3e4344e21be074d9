/* Writing metadata into encoded PNG or JPEG bytes, in the output's own
 * container whatever the input's was: the encoder made the pixels' bytes,
 * the metadata goes in around them (after PNG's IHDR, after JPEG's SOI
 * and JFIF APP0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/format_sniff.h"
#include "codec/png/png_checksum.h"
#include "base/gi_error.h"
#include "metadata.h"

#define JPEG_SEGMENT_MAX 65533 /* payload of one segment: 65535 less the length field */
static const char JPEG_XMP[] = "http://ns.adobe.com/xap/1.0/";
static const char ICC_SIGNATURE[] = "ICC_PROFILE";
#define EXIF_MAX (JPEG_SEGMENT_MAX - 6)
#define XMP_MAX (JPEG_SEGMENT_MAX - sizeof JPEG_XMP)
#define ICC_PART_MAX (JPEG_SEGMENT_MAX - sizeof ICC_SIGNATURE - 2)

/* An output buffer that remembers running out of memory. */
typedef struct {
    uint8_t *data;
    size_t size, cap;
    int failed;
} out_buf;

static void put(out_buf *o, const void *bytes, size_t size)
{
    if (o->failed || size == 0) return;
    if (size > o->cap - o->size) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap - o->size < size) cap *= 2;
        uint8_t *bigger = realloc(o->data, cap);
        if (!bigger) {
            o->failed = 1;
            return;
        }
        o->data = bigger;
        o->cap = cap;
    }
    memcpy(o->data + o->size, bytes, size);
    o->size += size;
}

static void put_be32(out_buf *o, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(o, b, 4);
}

int gi_metadata_unwritable(const gi_metadata *m, gi_format format, char *why, size_t size)
{
    if (why && size) why[0] = '\0';
    if (!m) return 0; /* nothing to leave out, as gi_metadata_empty says */
    const char *parts[5];
    int n = 0;
    const char *container = format == GI_FORMAT_JPEG ? "JPEG"
                            : format == GI_FORMAT_TIFF ? "TIFF" : "Netpbm";
    if (format != GI_FORMAT_PNG && format != GI_FORMAT_JPEG && format != GI_FORMAT_TIFF &&
        !gi_metadata_empty(m))
        parts[n++] = "all metadata";
    if (format == GI_FORMAT_TIFF) { /* the writer keeps the ICC profile, XMP and Orientation */
        if (m->exif && !gi__exif_is_orientation_alone(m->exif, m->exif_size)) parts[n++] = "Exif";
        if (m->has_srgb) parts[n++] = "PNG sRGB";
        if (m->gamma) parts[n++] = "PNG gAMA";
        if (m->has_chrm) parts[n++] = "PNG cHRM";
    }
    if (format == GI_FORMAT_JPEG) {
        if (m->exif && m->exif_size > EXIF_MAX) parts[n++] = "Exif over 64 KB";
        if (m->xmp && m->xmp_size > XMP_MAX) parts[n++] = "XMP over 64 KB";
        if (m->icc && m->icc_size > 255 * (size_t)ICC_PART_MAX)
            parts[n++] = "an ICC profile over 255 APP2 segments";
        if (m->gamma) parts[n++] = "PNG gAMA";
        if (m->has_chrm) parts[n++] = "PNG cHRM";
    }
    size_t used = 0;
    for (int i = 0; why && i < n && used < size; i++) {
        int w = snprintf(why + used, size - used, "%s%s", i ? ", " : "", parts[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (why && n && used < size) snprintf(why + used, size - used, " (no place in %s)", container);
    return n;
}

/* ---------------------------------------------------------------- PNG */

/* A chunk of a header part and a body part (either may be empty). */
static void put_chunk(out_buf *o, const char *type, const void *head, size_t head_size,
                      const uint8_t *body, size_t body_size)
{
    if (head_size + body_size > 0x7fffffffu) {
        o->failed = 1;
        return;
    }
    put_be32(o, (uint32_t)(head_size + body_size));
    put(o, type, 4);
    put(o, head, head_size);
    put(o, body, body_size);
    uint32_t crc = gi__crc32(0, (const uint8_t *)type, 4);
    crc = gi__crc32(crc, head, head_size);
    put_be32(o, gi__crc32(crc, body, body_size));
}

static gi_status embed_png(const uint8_t *png, size_t size, const gi_metadata *m, out_buf *o)
{
    /* signature (8) + IHDR: length (4), type (4), 13 bytes, CRC (4) */
    if (size < 33 || gi__be32(png + 8) != 13 || memcmp(png + 12, "IHDR", 4) != 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "the PNG does not start with its IHDR");
    put(o, png, 33);
    if (m->icc) {
        uint8_t *z;
        size_t z_size;
        if (gi__zlib_deflate(m->icc, m->icc_size, &z, &z_size) != 0)
            return gi__fail(GI_ERR_NO_MEMORY, "out of memory compressing the ICC profile");
        put_chunk(o, "iCCP", "ICC profile\0", 13, z, z_size); /* name, NUL, method 0 */
        free(z);
    } else if (m->has_srgb) {
        uint8_t intent = (uint8_t)m->srgb_intent;
        put_chunk(o, "sRGB", &intent, 1, NULL, 0);
    }
    if (m->gamma) {
        uint8_t g[4] = {(uint8_t)(m->gamma >> 24), (uint8_t)(m->gamma >> 16),
                        (uint8_t)(m->gamma >> 8), (uint8_t)m->gamma};
        put_chunk(o, "gAMA", g, 4, NULL, 0);
    }
    if (m->has_chrm) {
        uint8_t c[32];
        for (int i = 0; i < 8; i++)
            for (int k = 0; k < 4; k++) c[4 * i + k] = (uint8_t)(m->chrm[i] >> (24 - 8 * k));
        put_chunk(o, "cHRM", c, 32, NULL, 0);
    }
    if (m->exif) put_chunk(o, "eXIf", NULL, 0, m->exif, m->exif_size);
    /* keyword, NUL, uncompressed (0, 0), no language, no translation */
    if (m->xmp) put_chunk(o, "iTXt", "XML:com.adobe.xmp\0\0\0\0", 22, m->xmp, m->xmp_size);
    put(o, png + 33, size - 33);
    return GI_OK;
}

/* ---------------------------------------------------------------- JPEG */

static void put_segment(out_buf *o, int marker, const void *head, size_t head_size,
                        const uint8_t *body, size_t body_size)
{
    size_t len = 2 + head_size + body_size;
    uint8_t b[4] = {0xff, (uint8_t)marker, (uint8_t)(len >> 8), (uint8_t)len};
    put(o, b, 4);
    put(o, head, head_size);
    put(o, body, body_size);
}

static void put_icc_segments(out_buf *o, const uint8_t *icc, size_t size)
{
    size_t count = (size + ICC_PART_MAX - 1) / ICC_PART_MAX;
    if (count == 0) count = 1;
    for (size_t i = 0; i < count; i++) {
        uint8_t head[sizeof ICC_SIGNATURE + 2];
        memcpy(head, ICC_SIGNATURE, sizeof ICC_SIGNATURE);
        head[sizeof ICC_SIGNATURE] = (uint8_t)(i + 1);
        head[sizeof ICC_SIGNATURE + 1] = (uint8_t)count;
        size_t part = size - i * ICC_PART_MAX < ICC_PART_MAX ? size - i * ICC_PART_MAX
                                                            : ICC_PART_MAX;
        put_segment(o, 0xe2, head, sizeof head, icc + i * ICC_PART_MAX, part);
    }
}

static gi_status embed_jpeg(const uint8_t *jpg, size_t size, const gi_metadata *m, out_buf *o)
{
    if (size < 4 || jpg[0] != 0xff || jpg[1] != 0xd8 || jpg[2] != 0xff)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "the JPEG does not start with SOI");
    size_t keep = 2;
    if (size >= 11 && jpg[3] == 0xe0 && memcmp(jpg + 6, "JFIF\0", 5) == 0) {
        size_t app0 = 2 + gi__be16(jpg + 4);
        if (app0 <= size - 2) keep += app0;
    }
    put(o, jpg, keep);
    if (m->exif && m->exif_size <= EXIF_MAX)
        put_segment(o, 0xe1, "Exif\0\0", 6, m->exif, m->exif_size);
    if (m->xmp && m->xmp_size <= XMP_MAX)
        put_segment(o, 0xe1, JPEG_XMP, sizeof JPEG_XMP, m->xmp, m->xmp_size);
    if (m->icc && m->icc_size <= 255 * (size_t)ICC_PART_MAX)
        put_icc_segments(o, m->icc, m->icc_size);
    put(o, jpg + keep, size - keep);
    return GI_OK;
}

gi_status gi_metadata_embed(const uint8_t *encoded, size_t size, gi_format format,
                            const gi_metadata *m, uint8_t **out, size_t *out_size)
{
    GI__REFUSE_NULL(m, out, out_size);
    if (size) GI__REFUSE_NULL(encoded);
    *out = NULL;
    *out_size = 0;
    if (format == GI_FORMAT_AUTO) format = gi__sniff_format(encoded, size);
    if (format != GI_FORMAT_PNG && format != GI_FORMAT_JPEG)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "metadata goes into PNG or JPEG bytes only");
    out_buf o = {0};
    size_t extra = m->exif_size + m->icc_size + m->xmp_size + 1024 + m->icc_size / 64;
    if (size > SIZE_MAX - extra) return gi__fail(GI_ERR_TOO_LARGE, "the output is too large");
    o.data = malloc(size + extra); /* one allocation in the usual case */
    o.cap = o.data ? size + extra : 0;
    gi_status st = format == GI_FORMAT_PNG ? embed_png(encoded, size, m, &o)
                                           : embed_jpeg(encoded, size, m, &o);
    if (st == GI_OK && o.failed) st = gi__fail(GI_ERR_NO_MEMORY, "out of memory adding metadata");
    if (st != GI_OK) {
        free(o.data);
        return st;
    }
    *out = o.data;
    *out_size = o.size;
    return GI_OK;
}
