/* The fast PNG decoder (png_fast.h): the chunks are walked as stb 2.27
 * walks them, the IDAT data inflated by libdeflate straight into a buffer
 * of the size the header implies, and the filters undone in place there
 * (png_unfilter.c), which becomes the image: one image-sized buffer.
 *
 * It takes a file only when its outcome cannot differ from stb's. Every
 * chunk must lie inside the file; chunks stb would act on in ways not
 * copied here (a second IHDR, PLTE outside palette images, tRNS outside
 * them or after IDAT, CgBI, any unknown critical chunk) send the file to
 * stb, as does any failure: a stream that does not inflate to exactly
 * rows * (1 + row bytes) bytes (stb accepts more, and gives its own reason
 * for less), a bad Adler-32 (which stb_impl.c then reports), a filter
 * type over 4. An index past the palette names opaque black here, as it
 * does for stb (png_palette.h), libpng and browsers. So damaged files get
 * stb's result and reason, and a stream inflates here only when
 * libdeflate's reading of it matches the checksum its writer computed.
 *
 * The chunks' CRCs have been checked before (png_check.h): a file whose
 * critical chunks fail theirs never comes here. That matters beyond the
 * refusal: libdeflate is more lenient than stb's inflate (it decoded a
 * bit-flipped stream, through a code stb calls bad, to the very bytes
 * whose Adler-32 it then checked; regression
 * png-idat-bit-flip-libdeflate-lenient), so damaged image data must not
 * reach it. A crafted stream with valid CRCs that only libdeflate reads
 * would still decode here where stb refuses it. */
#include <libdeflate.h>
#include <string.h>

#include "base/pixel_alloc.h"
#include "png_fast.h"
#include "png_stored.h"
#include "png_unfilter.h"
#include "base/byte_order.h"

#define MAX_DIMENSION (1u << 24) /* stb's STBI_MAX_DIMENSIONS */

enum { COLOR_GRAY = 0, COLOR_RGB = 2, COLOR_PALETTE = 3, COLOR_GRAY_ALPHA = 4, COLOR_RGBA = 6 };

typedef struct {
    uint32_t width, height;
    int color;
    int samples;  /* per pixel in the image data: a palette index is 1 */
    int channels; /* of the decoded image */
    uint8_t palette[256][4];
    uint32_t palette_len;
    size_t idat_count;
} png_plan;

static int is_type(const uint8_t *chunk, const char *type)
{
    return memcmp(chunk + 4, type, 4) == 0;
}

/* IHDR's 13 bytes: a kind this decoder takes, within stb's size limits. */
static int read_ihdr(png_plan *p, const uint8_t *d)
{
    p->width = gi__be32(d);
    p->height = gi__be32(d + 4);
    p->color = d[9];
    if (d[8] != 8 || d[10] || d[11] || d[12]) return 0; /* depth, methods, interlace */
    if (p->width == 0 || p->height == 0 || p->width > MAX_DIMENSION || p->height > MAX_DIMENSION)
        return 0;
    switch (p->color) {
    case COLOR_GRAY: p->samples = 1; break;
    case COLOR_GRAY_ALPHA: p->samples = 2; break;
    case COLOR_RGB: p->samples = 3; break;
    case COLOR_RGBA: p->samples = 4; break;
    case COLOR_PALETTE: p->samples = 1; break;
    default: return 0;
    }
    p->channels = p->color == COLOR_PALETTE ? 3 : p->samples;
    /* stb's bound on the decoded bytes (a palette image counts 4 per pixel) */
    const uint32_t per_pixel = p->color == COLOR_PALETTE ? 4 : (uint32_t)p->samples;
    return (1u << 30) / p->width / per_pixel >= p->height;
}

static int read_plte(png_plan *p, const uint8_t *d, uint32_t len)
{
    if (p->color != COLOR_PALETTE || p->palette_len || p->idat_count || len == 0 || len > 768 ||
        len % 3)
        return 0;
    p->palette_len = len / 3;
    for (uint32_t i = 0; i < 256; i++) {
        static const uint8_t black[3] = {0, 0, 0};
        memcpy(p->palette[i], i < p->palette_len ? d + 3 * i : black, 3);
        p->palette[i][3] = 255;
    }
    return 1;
}

static int read_trns(png_plan *p, const uint8_t *d, uint32_t len)
{
    if (p->color != COLOR_PALETTE || !p->palette_len || p->channels == 4 || p->idat_count ||
        len > p->palette_len)
        return 0;
    for (uint32_t i = 0; i < len; i++) p->palette[i][3] = d[i];
    p->channels = 4;
    return 1;
}

/* A chunk between IHDR and IEND: 1 when this decoder goes on. */
static int read_chunk(png_plan *p, const uint8_t *chunk, uint32_t len)
{
    const uint8_t *data = chunk + 8;
    if (is_type(chunk, "PLTE")) return read_plte(p, data, len);
    if (is_type(chunk, "tRNS")) return read_trns(p, data, len);
    if (is_type(chunk, "IDAT")) {
        p->idat_count++;
        return p->color != COLOR_PALETTE || p->palette_len;
    }
    /* Ancillary chunks are skipped, as stb skips them. A critical one is a
     * second IHDR, CgBI, or one stb refuses. */
    return (chunk[4] & 0x20) != 0;
}

/* Walks the chunks from IHDR to IEND. Returns 1 when the file is one this
 * decoder takes. */
static int plan_png(png_plan *p, const uint8_t *bytes, size_t size)
{
    memset(p, 0, sizeof *p);
    for (size_t at = 8;;) {
        if (size - at < 8) return 0;
        const uint8_t *chunk = bytes + at;
        const uint32_t len = gi__be32(chunk);
        if (len > size - at - 8) return 0;
        if (at == 8) {
            if (!is_type(chunk, "IHDR") || len != 13 || !read_ihdr(p, chunk + 8)) return 0;
        } else if (is_type(chunk, "IEND")) {
            return p->idat_count > 0;
        } else if (!read_chunk(p, chunk, len)) {
            return 0;
        }
        if (size - at - 8 - len < 4) return 0; /* no room for the CRC */
        at += 12 + (size_t)len;
    }
}

/* Inflates the image data into buf: exactly `size` bytes, or fails. */
static int inflate_idat(const uint8_t *bytes, size_t file_size, uint8_t *buf, size_t size)
{
    const uint8_t *stream;
    size_t n;
    uint8_t *joined;
    if (gi__png_idat_stream(bytes, file_size, &stream, &n, &joined) != 0) return 0;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    const int ok =
        d && libdeflate_zlib_decompress(d, stream, n, buf, size, NULL) == LIBDEFLATE_SUCCESS;
    libdeflate_free_decompressor(d);
    gi__pixels_free(joined);
    return ok;
}

/* Indices to palette entries (all 256 defined): a new buffer, or NULL
 * without memory. */
static uint8_t *expand_palette(const png_plan *p, const uint8_t *index, size_t pixels)
{
    uint8_t *out = gi__pixels_alloc(pixels * (size_t)p->channels);
    if (!out) return NULL;
    uint8_t *o = out;
    for (size_t i = 0; i < pixels; i++, o += p->channels)
        memcpy(o, p->palette[index[i]], (size_t)p->channels);
    return out;
}

int gi__png_fast_load(gi_image *img, const uint8_t *bytes, size_t size)
{
    png_plan p;
    if (!plan_png(&p, bytes, size)) return 0;
    const size_t row = (size_t)p.width * (size_t)p.samples;
    const size_t inflated = (row + 1) * p.height;
    uint8_t *buf = gi__pixels_alloc(inflated);
    if (!buf) return 0;
    if (!inflate_idat(bytes, size, buf, inflated) ||
        gi__png_unfilter(buf, row, p.height, p.samples) != 0) {
        gi__pixels_free(buf);
        return 0;
    }
    if (p.color == COLOR_PALETTE) {
        uint8_t *rgb = expand_palette(&p, buf, (size_t)p.width * p.height);
        gi__pixels_free(buf);
        if (!rgb) return 0;
        buf = rgb;
    }
    img->width = (int)p.width;
    img->height = (int)p.height;
    img->channels = p.channels;
    img->stride = (size_t)p.width * (size_t)p.channels;
    img->data = buf;
    img->owns_data = 1;
    return 1;
}
