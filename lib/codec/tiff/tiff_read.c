/* The first page of a TIFF, decoded by libtiff strip by strip or tile by
 * tile into an 8- or 16-bit gi_image (gpuimg.h, TIFF). Every tag is
 * checked before the image is allocated: what gpuimg cannot represent
 * exactly is refused, naming the property.
 *
 * Deflate strips of contiguous samples (what gpuimg and libvips write)
 * are inflated with libdeflate, where the build has it, on the decode's
 * threads, straight into the image's rows: libtiff inflates with zlib,
 * one strip after another (0.47-0.55 s for a
 * 24 MP 16-bit photo on the 2-core machine). The other blocks (LZW,
 * PackBits, uncompressed, tiles, separate planes) libtiff decodes on the
 * decode's threads, each thread with a TIFF handle of its own over the
 * same bytes. A block that fails there, or that libdeflate does not take
 * (damaged, or a stream that runs past the strip), is decoded again in
 * order on one handle, so the files read, their samples and the message
 * for a damaged one stay libtiff's, whatever the thread count. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GPUIMG_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "gi_tiff.h"
#include "tiff_memory.h"
#include "base/gi_error.h"
#include "base/share_work.h"

int gi__tiff_available(void)
{
    return gi__tiff_load();
}

/* What the first page holds, from its tags. */
typedef struct {
    uint32_t width, height;
    uint16_t bits, samples, photometric, planar, compression, sample_format;
    int channels;        /* = samples: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int associated;      /* the alpha is premultiplied (ExtraSamples 1) */
    int tiled;
    uint32_t tile_w, tile_h, rows_per_strip;
} page_layout;

/* libtiff allocates at most this much at once: enough for any tag array or
 * compressed strip of a file of `size` bytes, far less than a lying header
 * would ask for. */
static size_t libtiff_alloc_limit(size_t size)
{
    size_t floor = 64u << 20;
    return size < floor / 2 ? floor : size > SIZE_MAX / 2 ? SIZE_MAX / 2 : 2 * size;
}

static const char *compression_name(uint16_t c)
{
    switch (c) {
    case COMPRESSION_JPEG: return "JPEG";
    case COMPRESSION_OJPEG: return "old-style JPEG";
    case COMPRESSION_CCITTRLE: case COMPRESSION_CCITTFAX3: case COMPRESSION_CCITTFAX4:
        return "CCITT fax";
    case COMPRESSION_LZMA: return "LZMA";
    case COMPRESSION_ZSTD: return "Zstandard";
    case COMPRESSION_WEBP: return "WebP";
    case COMPRESSION_JBIG: return "JBIG";
    default: return "unknown";
    }
}

/* The unsigned integer of n bytes (1, 2, 4 or 8) at p, in the file's order. */
static uint64_t file_uint(const uint8_t *p, int n, int big_endian)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
    return v;
}

/* The value of `tag` in the first IFD as the file stores it (one BYTE,
 * SHORT or LONG), or -1 when the tag is absent, of another form, or the
 * header or IFD lies outside the bytes. libtiff does not say what it set
 * aside: it reads a palette TIFF without a colour map as gray or RGB, and
 * drops an Orientation outside 1..8. */
static int64_t stored_tag(const uint8_t *b, size_t size, uint16_t tag)
{
    if (size < 16 || !((b[0] == 'I' && b[1] == 'I') || (b[0] == 'M' && b[1] == 'M'))) return -1;
    const int be = b[0] == 'M', big = file_uint(b + 2, 2, be) == 43;
    if (!big && file_uint(b + 2, 2, be) != 42) return -1;
    /* classic: a 2-byte count, entries of 12 bytes with a 4-byte value;
     * BigTIFF: an 8-byte count, entries of 20 with an 8-byte value */
    const int count_bytes = big ? 8 : 2, entry_bytes = big ? 20 : 12, value_at = big ? 12 : 8;
    const uint64_t ifd = big ? file_uint(b + 8, 8, be) : file_uint(b + 4, 4, be);
    if (ifd > size || size - ifd < (uint64_t)count_bytes) return -1;
    const uint64_t entries = file_uint(b + ifd, count_bytes, be);
    const uint64_t room = (size - ifd - (uint64_t)count_bytes) / (uint64_t)entry_bytes;
    for (uint64_t i = 0; i < entries && i < room; i++) {
        const uint8_t *e = b + ifd + count_bytes + i * entry_bytes;
        const uint64_t type = file_uint(e + 2, 2, be), n = file_uint(e + 4, big ? 8 : 4, be);
        if (file_uint(e, 2, be) != tag) continue;
        if (n != 1 || (type != TIFF_BYTE && type != TIFF_SHORT && type != TIFF_LONG)) return -1;
        return (int64_t)file_uint(e + value_at, type == TIFF_LONG ? 4 : type == TIFF_SHORT ? 2 : 1,
                                  be);
    }
    return -1;
}

static gi_status refuse_palette(const char *name)
{
    return gi__fail(GI_ERR_UNSUPPORTED, "%s: a palette (colour-mapped) TIFF is not supported",
                    name);
}

/* Reads and checks the tags; GI_OK, or the failure naming `name` and the
 * property gpuimg does not read. */
static gi_status read_layout(TIFF *tif, const char *name, const gi_load_limits *limits,
                             page_layout *p)
{
    memset(p, 0, sizeof *p);
    uint16_t extra_count = 0, *extra = NULL;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &p->width) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &p->height))
        return gi__fail(GI_ERR_DECODE, "%s: cannot decode TIFF (no image width or length)", name);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &p->bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &p->samples);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &p->planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &p->compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &p->sample_format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &p->photometric))
        return gi__fail(GI_ERR_DECODE, "%s: cannot decode TIFF (no photometric interpretation)",
                        name);
    switch (p->photometric) {
    case PHOTOMETRIC_MINISBLACK: case PHOTOMETRIC_MINISWHITE: case PHOTOMETRIC_RGB: break;
    case PHOTOMETRIC_PALETTE: return refuse_palette(name);
    case PHOTOMETRIC_SEPARATED:
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: a CMYK (separated) TIFF is not supported", name);
    case PHOTOMETRIC_YCBCR:
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: a YCbCr TIFF is not supported%s", name,
                        p->compression == COMPRESSION_JPEG ? " (JPEG-compressed)" : "");
    default:
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: TIFF photometric interpretation %u is not "
                        "supported (gray and RGB are)", name, p->photometric);
    }
    if (p->sample_format == SAMPLEFORMAT_IEEEFP)
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: a TIFF of %u-bit floating-point samples is not "
                        "supported", name, p->bits);
    /* named for what they are: format 4 (void) is neither signed nor complex */
    if (p->sample_format != SAMPLEFORMAT_UINT)
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: a TIFF of %s samples (sample format %u) is not "
                        "supported", name,
                        p->sample_format == SAMPLEFORMAT_INT    ? "signed"
                        : p->sample_format == SAMPLEFORMAT_VOID ? "untyped (void)"
                                                                : "complex or unknown",
                        p->sample_format);
    if (p->bits != 8 && p->bits != 16)
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: a TIFF of %u-bit samples is not supported (8 "
                        "and 16 are)", name, p->bits);
    switch (p->compression) {
    case COMPRESSION_NONE: case COMPRESSION_LZW: case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: case COMPRESSION_PACKBITS: break;
    default:
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: TIFF compression %u (%s) is not supported "
                        "(none, LZW, deflate and PackBits are)", name, p->compression,
                        compression_name(p->compression));
    }
    const int colour = p->photometric == PHOTOMETRIC_RGB ? 3 : 1;
    if (p->samples != colour && !(p->samples == colour + 1 && extra_count == 1))
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: %s TIFF of %u samples a pixel (%u extra) is "
                        "not supported (%s)", name, colour == 3 ? "an RGB" : "a gray", p->samples,
                        extra_count, colour == 3 ? "3, or 4 with alpha" : "1, or 2 with alpha");
    p->channels = p->samples;
    p->associated = p->samples > colour && extra && extra[0] == EXTRASAMPLE_ASSOCALPHA;
    if (p->planar != PLANARCONFIG_CONTIG && p->planar != PLANARCONFIG_SEPARATE)
        return gi__fail(GI_ERR_DECODE, "%s: cannot decode TIFF (planar configuration %u)", name,
                        p->planar);
    if (p->width == 0 || p->height == 0)
        return gi__fail(GI_ERR_DECODE, "%s: a %ux%u TIFF has no pixels", name, p->width,
                        p->height);
    if (p->width > INT_MAX || p->height > INT_MAX ||
        (uint64_t)p->width * p->height > limits->max_pixels)
        return gi__fail_pixel_limit(name, p->width, p->height, limits->max_pixels);
    p->tiled = TIFFIsTiled(tif);
    if (p->tiled) {
        if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &p->tile_w) ||
            !TIFFGetField(tif, TIFFTAG_TILELENGTH, &p->tile_h) || p->tile_w == 0 || p->tile_h == 0)
            return gi__fail(GI_ERR_DECODE, "%s: cannot decode TIFF (no tile size)", name);
        /* A tile may overhang the image, but not by more than a tile of
         * 1024 pixels a side would: a lying tile size cannot make a small
         * file allocate gigabytes. */
        if (p->tile_w > (p->width > 1024 ? p->width : 1024) + 15 ||
            p->tile_h > (p->height > 1024 ? p->height : 1024) + 15)
            return gi__fail(GI_ERR_DECODE, "%s: cannot decode TIFF (tiles of %ux%u for an "
                            "image of %ux%u)", name, p->tile_w, p->tile_h, p->width, p->height);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &p->rows_per_strip);
        if (p->rows_per_strip == 0 || p->rows_per_strip > p->height)
            p->rows_per_strip = p->height;
    }
    return GI_OK;
}

/* Copies a decoded block (a strip, or a tile) into the image: `rows` rows
 * of `cols` pixels at (x, y), `in_stride` bytes apart. Contiguous blocks
 * hold every channel; a separate plane's block holds channel `plane`. */
static void place_block(gi_image *img, const page_layout *p, const uint8_t *block,
                        size_t in_stride, uint32_t x, uint32_t y, uint32_t cols, uint32_t rows,
                        int plane)
{
    const size_t sb = p->bits / 8, ch = (size_t)p->channels;
    for (uint32_t r = 0; r < rows; r++) {
        const uint8_t *in = block + r * in_stride;
        uint8_t *out = img->data + (size_t)(y + r) * img->stride + (size_t)x * ch * sb;
        if (plane < 0) {
            memcpy(out, in, (size_t)cols * ch * sb);
            continue;
        }
        out += (size_t)plane * sb;
        for (uint32_t c = 0; c < cols; c++, in += sb, out += ch * sb) memcpy(out, in, sb);
    }
}

/* The rows of strip k of a plane (the last may be short). */
static uint32_t strip_rows(const page_layout *p, uint32_t k)
{
    const uint32_t y = k * p->rows_per_strip;
    return p->height - y < p->rows_per_strip ? p->height - y : p->rows_per_strip;
}

/* The page's blocks (strips, or tiles) in libtiff's order: plane by
 * plane, each plane's blocks row by row. */
typedef struct {
    uint32_t count;     /* every plane's */
    uint32_t per_plane; /* strips or tiles a plane */
    uint32_t across;    /* tiles a row of tiles (strips: 1) */
    size_t row_bytes;   /* bytes a row of a block */
    size_t block_bytes; /* bytes a whole block (a short last strip uses fewer) */
} block_grid;

static block_grid grid_of(const page_layout *p)
{
    const int planes = p->planar == PLANARCONFIG_SEPARATE ? p->channels : 1;
    block_grid g = {.row_bytes = (size_t)(p->tiled ? p->tile_w : p->width) *
                                 (size_t)(p->channels / planes) * (p->bits / 8)};
    if (p->tiled) {
        g.across = (p->width - 1) / p->tile_w + 1;
        g.per_plane = g.across * ((p->height - 1) / p->tile_h + 1);
    } else {
        g.across = 1;
        g.per_plane = (p->height - 1) / p->rows_per_strip + 1;
    }
    g.count = g.per_plane * (uint32_t)planes;
    g.block_bytes = g.row_bytes * (p->tiled ? p->tile_h : p->rows_per_strip);
    return g;
}

#ifdef GPUIMG_HAVE_LIBDEFLATE
/* The strips libdeflate inflates (inflate_job), shared by the threads. */
typedef struct {
    const uint8_t *bytes;
    size_t size;
    const page_layout *p;
    gi_image *img;
    const uint64_t *offset, *count; /* each strip's place in bytes */
    uint32_t strips;
    size_t row_bytes;
    int predictor, swap;
    int next;
    uint8_t *done; /* 1: the strip is in the image; 0: libtiff decodes it */
} inflate_job;

/* Undoes the horizontal predictor on one row in place (16-bit samples
 * byte-swapped first where the file's order is not the host's), as
 * libtiff does. */
static void unpredict_row(const inflate_job *j, uint8_t *row)
{
    const size_t ch = (size_t)j->p->channels;
    if (j->p->bits == 8) {
        if (j->predictor == PREDICTOR_HORIZONTAL)
            for (size_t i = ch; i < j->row_bytes; i++) row[i] = (uint8_t)(row[i] + row[i - ch]);
        return;
    }
    uint16_t *v = (uint16_t *)row;
    const size_t n = j->row_bytes / 2;
    if (j->swap)
        for (size_t i = 0; i < n; i++) v[i] = (uint16_t)(v[i] << 8 | v[i] >> 8);
    if (j->predictor == PREDICTOR_HORIZONTAL)
        for (size_t i = ch; i < n; i++) v[i] = (uint16_t)(v[i] + v[i - ch]);
}

static void *inflate_worker(void *arg)
{
    inflate_job *j = arg;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d) return NULL; /* libtiff takes the strips no thread took */
    for (;;) {
        const int s = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if ((uint32_t)s >= j->strips) break;
        if (j->offset[s] > j->size || j->count[s] > j->size - j->offset[s]) continue;
        const uint32_t rows = strip_rows(j->p, (uint32_t)s);
        uint8_t *out = j->img->data + (size_t)s * j->p->rows_per_strip * j->img->stride;
        /* exactly the strip's bytes, its Adler-32 right */
        if (libdeflate_zlib_decompress(d, j->bytes + j->offset[s], j->count[s], out,
                                       (size_t)rows * j->row_bytes, NULL) != LIBDEFLATE_SUCCESS)
            continue;
        for (uint32_t r = 0; r < rows; r++) unpredict_row(j, out + (size_t)r * j->row_bytes);
        j->done[s] = 1;
    }
    libdeflate_free_decompressor(d);
    return NULL;
}

/* Inflates what strips it can into img on up to `threads` threads,
 * marking each in done[] (one flag a strip); a page of another kind, or
 * short memory, leaves them all to libtiff. */
static void inflate_strips(TIFF *tif, const page_layout *p, const block_grid *g, gi_image *img,
                           const uint8_t *bytes, size_t size, int threads, uint8_t *done)
{
    if (p->tiled || p->planar != PLANARCONFIG_CONTIG ||
        (p->compression != COMPRESSION_ADOBE_DEFLATE && p->compression != COMPRESSION_DEFLATE) ||
        img->stride != g->row_bytes)
        return;
    /* asked of deflate alone: asked of a compression that has none
     * (uncompressed, PackBits), libtiff reports an error */
    uint16_t predictor = PREDICTOR_NONE;
    TIFFGetFieldDefaulted(tif, TIFFTAG_PREDICTOR, &predictor);
    if (predictor != PREDICTOR_NONE && predictor != PREDICTOR_HORIZONTAL) return;
    const uint32_t strips = g->count; /* one plane: a strip a block */
    if (TIFFNumberOfStrips(tif) < strips) return; /* libtiff names the damage */
    inflate_job j = {.bytes = bytes, .size = size, .p = p, .img = img, .strips = strips,
                     .row_bytes = g->row_bytes, .predictor = predictor,
                     .swap = TIFFIsByteSwapped(tif), .done = done};
    uint64_t *offset = malloc(sizeof *offset * strips), *count = malloc(sizeof *count * strips);
    if (offset && count) {
        /* libtiff's strip tables are read here, on this thread: it is not
         * thread-safe */
        for (uint32_t s = 0; s < strips; s++) {
            offset[s] = TIFFGetStrileOffset(tif, s);
            count[s] = TIFFGetStrileByteCount(tif, s);
        }
        j.offset = offset;
        j.count = count;
        gi__share_work(threads < 1 ? 1 : threads > (int)strips ? (int)strips : threads,
                       inflate_worker, &j);
    }
    free(offset);
    free(count);
}
#else
static void inflate_strips(TIFF *tif, const page_layout *p, const block_grid *g, gi_image *img,
                           const uint8_t *bytes, size_t size, int threads, uint8_t *done)
{
    (void)tif, (void)p, (void)g, (void)img, (void)bytes, (void)size, (void)threads;
    (void)done; /* libtiff reads every strip */
}
#endif

/* Decodes block b with `tif` through buf (a block's bytes) into the image:
 * 1, or 0 when libtiff cannot, with its strip or tile index in *index.
 * buf is zeroed first: libtiff (4.5, its deflate through libdeflate) can
 * report a short deflate strip as whole and leave its end unwritten, and
 * the image must not depend on what the buffer held before. */
static int read_block(TIFF *tif, const page_layout *p, const block_grid *g, gi_image *img,
                      uint8_t *buf, uint32_t b, uint32_t *index)
{
    const int plane = (int)(b / g->per_plane), planes = (int)(g->count / g->per_plane);
    const uint32_t k = b % g->per_plane;
    uint32_t x = 0, y, cols = p->width, rows;
    if (p->tiled) {
        x = k % g->across * p->tile_w;
        y = k / g->across * p->tile_h;
        cols = p->width - x < p->tile_w ? p->width - x : p->tile_w;
        rows = p->height - y < p->tile_h ? p->height - y : p->tile_h;
        *index = TIFFComputeTile(tif, x, y, 0, (uint16_t)plane);
        const tmsize_t want = (tmsize_t)g->block_bytes;
        memset(buf, 0, (size_t)want);
        if (TIFFReadEncodedTile(tif, *index, buf, want) != want) return 0;
    } else {
        y = k * p->rows_per_strip;
        rows = strip_rows(p, k);
        *index = b;
        const tmsize_t want = (tmsize_t)(rows * g->row_bytes);
        memset(buf, 0, (size_t)want);
        if (TIFFReadEncodedStrip(tif, b, buf, want) != want) return 0;
    }
    place_block(img, p, buf, g->row_bytes, x, y, cols, rows, planes > 1 ? plane : -1);
    return 1;
}

/* The blocks libtiff decodes on several threads, each with a TIFF of its
 * own over the same bytes (one TIFF is not to be used by two threads). */
typedef struct {
    const uint8_t *bytes;
    size_t size;
    const page_layout *p;
    const block_grid *g;
    gi_image *img;
    uint8_t *done; /* 1: the block is in the image */
    int next;
} block_job;

static void *block_worker(void *arg)
{
    block_job *j = arg;
    gi_tiff_memory m;
    TIFF *tif = gi__tiff_open_read(&m, j->bytes, j->size, libtiff_alloc_limit(j->size));
    uint8_t *buf = tif ? malloc(j->g->block_bytes) : NULL;
    for (;;) {
        const int b = buf ? __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED) : INT_MAX;
        if ((uint32_t)b >= j->g->count) break;
        uint32_t index;
        /* a block that fails is left for the pass in order, which names it */
        if (!j->done[b] && read_block(tif, j->p, j->g, j->img, buf, (uint32_t)b, &index))
            j->done[b] = 1;
    }
    free(buf);
    if (tif) TIFFClose(tif);
    return NULL;
}

/* Decodes the blocks `done` does not mark: first on up to `threads`
 * threads, then what is left in order with `tif` (opened over m), so that
 * a failure is the first block's, named as one thread would name it. */
static gi_status read_blocks(TIFF *tif, gi_tiff_memory *m, const page_layout *p,
                             const block_grid *g, gi_image *img, uint8_t *buf, uint8_t *done,
                             const uint8_t *bytes, size_t size, int threads, const char *name)
{
    if (threads > 1 && g->count > 1) {
        block_job j = {.bytes = bytes, .size = size, .p = p, .g = g, .img = img, .done = done};
        gi__share_work(threads > (int)g->count ? (int)g->count : threads, block_worker, &j);
    }
    for (uint32_t b = 0; b < g->count; b++) {
        uint32_t index;
        if (done[b]) continue;
        /* The message is the failing block's own: an error libtiff
         * reported before (a tag it set aside) did not stop the decode. */
        m->error[0] = '\0';
        if (!read_block(tif, p, g, img, buf, b, &index))
            return gi__fail(GI_ERR_DECODE, "%s: cannot decode TIFF (%s %u: %s)", name,
                            p->tiled ? "tile" : "strip", index,
                            *m->error ? m->error : "short or damaged");
    }
    return GI_OK;
}

/* MinIsWhite gray becomes MinIsBlack (v -> max - v); premultiplied
 * colour is divided by alpha as gpuimg.h defines. */
static void to_plain_samples(gi_image *img, const page_layout *p)
{
    const uint32_t max = p->bits == 16 ? 65535 : 255;
    const int ch = p->channels, colour = ch >= 3 ? 3 : 1;
    const int invert = p->photometric == PHOTOMETRIC_MINISWHITE;
    if (!invert && !p->associated) return;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row8 = img->data + (size_t)y * img->stride;
        uint16_t *row16 = (uint16_t *)row8;
        for (size_t i = 0; i < (size_t)img->width * ch; i += (size_t)ch) {
            uint32_t a = ch > colour ? (p->bits == 16 ? row16[i + colour] : row8[i + colour]) : max;
            for (int c = 0; c < colour; c++) {
                uint32_t v = p->bits == 16 ? row16[i + c] : row8[i + c];
                if (invert) v = max - v;
                if (p->associated) v = a == 0 ? 0 : (v * max + a / 2) / a;
                if (v > max) v = max;
                if (p->bits == 16) row16[i + c] = (uint16_t)v;
                else row8[i + c] = (uint8_t)v;
            }
        }
    }
}

gi_status gi__tiff_decode(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                          const gi_load_limits *limits)
{
    memset(img, 0, sizeof *img);
    if (!gi__tiff_load()) return gi__fail(GI_ERR_UNSUPPORTED, "%s: %s", name, gi__tiff_load_error());
    /* libtiff would read a palette without its colour map as gray or RGB,
     * or fail it (under 8 bits) for the missing map */
    if (stored_tag(bytes, size, TIFFTAG_PHOTOMETRIC) == PHOTOMETRIC_PALETTE)
        return refuse_palette(name);
    gi_tiff_memory m;
    TIFF *tif = gi__tiff_open_read(&m, bytes, size, libtiff_alloc_limit(size));
    if (!tif) return gi__fail(GI_ERR_DECODE, "%s: cannot decode TIFF (%s)", name, m.error);
    page_layout p;
    gi_status st = read_layout(tif, name, limits, &p);
    if (st != GI_OK) {
        TIFFClose(tif);
        return st;
    }
    /* The page's blocks, and one block's bytes to decode them through. */
    const block_grid g = grid_of(&p);
    const int threads = limits && limits->decode_threads > 1 ? limits->decode_threads : 1;
    uint8_t *buf = malloc(g.block_bytes);
    uint8_t *done = calloc(g.count, 1);
    if (!buf || !done ||
        gi_image_alloc_depth(img, (int)p.width, (int)p.height, p.channels, p.bits) != GI_OK) {
        free(buf);
        free(done);
        TIFFClose(tif);
        return gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory for a %ux%u TIFF", name, p.width,
                        p.height);
    }
    inflate_strips(tif, &p, &g, img, bytes, size, threads, done);
    st = read_blocks(tif, &m, &p, &g, img, buf, done, bytes, size, threads, name);
    free(done);
    free(buf);
    TIFFClose(tif);
    if (st != GI_OK) {
        gi_image_free(img);
        return st;
    }
    to_plain_samples(img, &p);
    return GI_OK;
}

int gi__tiff_pages_note(const uint8_t *bytes, size_t size, char *note, size_t note_size)
{
    gi_tiff_memory m;
    TIFF *tif = gi__tiff_open_read(&m, bytes, size, libtiff_alloc_limit(size));
    if (!tif) return 0;
    tdir_t pages = TIFFNumberOfDirectories(tif);
    TIFFClose(tif);
    if (pages < 2) return 0;
    snprintf(note, note_size, "the TIFF has %u pages; only the first was read", (unsigned)pages);
    return 1;
}

/* The Orientation tag (274) into out->orientation: 1..8 as stored, 1 when
 * absent or out of range (noted, as an Exif one is). */
static void read_orientation(const uint8_t *bytes, size_t size, gi_metadata *out)
{
    const int64_t value = stored_tag(bytes, size, TIFFTAG_ORIENTATION);
    const int known = value >= ORIENTATION_TOPLEFT && value <= ORIENTATION_LEFTBOT;
    out->orientation = known ? (int)value : 1;
    if (value != -1 && !known)
        snprintf(out->dropped, sizeof out->dropped, "TIFF Orientation %lld is not 1..8: read as 1",
                 (long long)value);
}

int gi__tiff_metadata_read(const uint8_t *bytes, size_t size, gi_metadata *out)
{
    read_orientation(bytes, size, out);
    gi_tiff_memory m;
    TIFF *tif = gi__tiff_open_read(&m, bytes, size, libtiff_alloc_limit(size));
    if (!tif) return 0;
    const tdir_t pages = TIFFNumberOfDirectories(tif);
    if (pages > 1) out->pages = pages < INT_MAX ? (int)pages : INT_MAX;
    uint32_t n = 0;
    const void *data = NULL;
    int failed = 0;
    /* the tag's bytes as stored: the ICC profile, the XMP packet */
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &n, &data) && n > 0 && n <= GI_METADATA_MAX_BYTES) {
        if ((out->icc = malloc(n))) {
            memcpy(out->icc, data, n);
            out->icc_size = n;
        } else failed = 1;
    }
    n = 0;
    if (TIFFGetField(tif, TIFFTAG_XMLPACKET, &n, &data) && n > 0 && n <= GI_METADATA_MAX_BYTES) {
        if ((out->xmp = malloc(n))) {
            memcpy(out->xmp, data, n);
            out->xmp_size = n;
        } else failed = 1;
    }
    TIFFClose(tif);
    return failed ? -1 : 0;
}
