/* TIFF: round trips through gi_encode and gi_load_memory (8 and 16 bits,
 * 1-4 channels, odd sizes, ICC, XMP and the orientation), every layout
 * libtiff writes that gpuimg reads (compressions, predictor, strips and
 * tiles, byte orders, planar configurations, MinIsWhite, extra samples,
 * several pages), the Orientation tag read into the metadata, what is
 * refused and why (every palette TIFF, with or without its colour map),
 * damaged files, and a strip cut short named for what it is (not for an
 * error libtiff reported on the way); the file named by the first
 * argument (a deflate strip libtiff decodes short) decodes to the same
 * samples whatever the heap held. In a build without libtiff: the refusal,
 * then skipped (77). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuimg.h>

#ifndef GPUIMG_HAVE_LIBTIFF
int main(void)
{
    static const uint8_t header[8] = {'I', 'I', 42, 0, 8, 0, 0, 0};
    gi_image img;
    gi_status st = gi_load_memory(&img, header, sizeof header, "mem.tif", NULL);
    th_check(st == GI_ERR_UNSUPPORTED && strstr(gi_last_error(), "mem.tif") &&
                 strstr(gi_last_error(), "no TIFF support"),
             "a build without libtiff: \"%s\"", gi_last_error());
    if (th_finish() != 0) return 1;
    printf("skip: this build has no libtiff\n");
    return 77;
}
#else

#include <tiffio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "codec/tiff/gi_tiff.h"

static char tmpdir[256];

/* A sample of (x, y, c) at `bits`, from a pattern that differs between
 * neighbours and channels and spans the whole range. */
static uint32_t pattern(int x, int y, int c, int bits)
{
    uint32_t v = (uint32_t)(x * 2654435761u) ^ (uint32_t)(y * 40503u + c * 977u) ^ (uint32_t)(x * y);
    return bits == 16 ? (v ^ v >> 16) & 0xFFFF : (v ^ v >> 8 ^ v >> 16) & 0xFF;
}

typedef struct {
    int w, h, samples, bits;
    uint16_t compression, predictor, photometric, planar, extra; /* extra: ExtraSamples value */
    int tile;          /* tile side (multiple of 16), 0 for strips */
    int rows;          /* rows per strip, 0: libtiff's default */
    int big_endian;
    int pages;         /* 0 or 1: one page */
    uint16_t sample_format;
    uint16_t orientation; /* 0: no Orientation tag */
    int no_colormap;   /* a palette without its ColorMap */
    int bigtiff;
} layout;

/* The file libtiff writes for `l`, its bytes malloc'ed into *size. Page k
 * holds pattern(x, y, c) + k. */
static uint8_t *write_tiff(const layout *l, size_t *size)
{
    char path[320];
    snprintf(path, sizeof path, "%s/variant.tif", tmpdir);
    TIFF *tif = TIFFOpen(path, l->bigtiff ? (l->big_endian ? "wb8" : "wl8")
                                          : (l->big_endian ? "wb" : "wl"));
    if (!tif) return NULL;
    const int planes = l->planar == PLANARCONFIG_SEPARATE ? l->samples : 1;
    const int per = l->samples / planes, sb = (l->bits + 7) / 8;
    /* bytes a block row: whole bytes, or packed bits (left zero) */
    const size_t bits_row = l->bits < 8 ? 1 : 0;
    for (int page = 0; page < (l->pages > 1 ? l->pages : 1); page++) {
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)l->w);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)l->h);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)l->bits);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)l->samples);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, l->photometric);
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, l->planar ? l->planar : PLANARCONFIG_CONTIG);
        TIFFSetField(tif, TIFFTAG_COMPRESSION, l->compression);
        if (l->sample_format) TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, l->sample_format);
        if (l->predictor) TIFFSetField(tif, TIFFTAG_PREDICTOR, l->predictor);
        if (l->orientation) TIFFSetField(tif, TIFFTAG_ORIENTATION, l->orientation);
        int colour = l->photometric == PHOTOMETRIC_RGB ? 3 : 1;
        if (l->samples > colour) {
            uint16_t extra[4] = {l->extra, l->extra, l->extra, l->extra};
            TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)(l->samples - colour), extra);
        }
        if (l->pages > 1) {
            TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
            TIFFSetField(tif, TIFFTAG_PAGENUMBER, (uint16_t)page, (uint16_t)l->pages);
        }
        const int bw = l->tile ? l->tile : l->w;
        const int bh = l->tile ? l->tile : l->rows ? l->rows : l->h;
        if (l->tile) {
            TIFFSetField(tif, TIFFTAG_TILEWIDTH, (uint32_t)l->tile);
            TIFFSetField(tif, TIFFTAG_TILELENGTH, (uint32_t)l->tile);
        } else {
            TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)bh);
        }
        if (l->photometric == PHOTOMETRIC_PALETTE && !l->no_colormap) {
            static uint16_t map[3][256];
            TIFFSetField(tif, TIFFTAG_COLORMAP, map[0], map[1], map[2]);
        }
        uint8_t *block = calloc((size_t)bw * bh * per * sb, 1);
        uint32_t index = 0;
        for (int plane = 0; plane < planes; plane++)
            for (int y0 = 0; y0 < l->h; y0 += bh)
                for (int x0 = 0; x0 < (l->tile ? l->w : 1); x0 += bw) {
                    int rows = l->tile ? bh : (l->h - y0 < bh ? l->h - y0 : bh);
                    memset(block, 0, (size_t)bw * bh * per * sb);
                    for (int y = 0; y < rows; y++)
                        for (int x = 0; x < bw; x++)
                            for (int k = 0; k < per && !bits_row; k++) {
                                int c = planes > 1 ? plane : k;
                                uint32_t v = x0 + x < l->w && y0 + y < l->h
                                                 ? pattern(x0 + x, y0 + y, c, l->bits) + page
                                                 : 0;
                                size_t at = ((size_t)y * bw + x) * per + k;
                                if (sb == 2) ((uint16_t *)block)[at] = (uint16_t)v;
                                else block[at] = (uint8_t)v;
                            }
                    tmsize_t n = bits_row ? (tmsize_t)((bw * per * l->bits + 7) / 8) * rows
                                          : (tmsize_t)bw * rows * per * sb;
                    if (l->tile) TIFFWriteEncodedTile(tif, index++, block, n);
                    else TIFFWriteEncodedStrip(tif, index++, block, n);
                }
        free(block);
        TIFFWriteDirectory(tif);
    }
    TIFFClose(tif);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    rewind(f);
    uint8_t *bytes = malloc(*size);
    if (fread(bytes, 1, *size, f) != *size) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    return bytes;
}

static uint32_t sample_at(const gi_image *img, int x, int y, int c)
{
    const uint8_t *row = img->data + (size_t)y * img->stride;
    return img->depth == 16 ? ((const uint16_t *)row)[(size_t)x * img->channels + c]
                            : row[(size_t)x * img->channels + c];
}

/* What gpuimg must give for pattern pixels stored as `l`. */
static uint32_t expected(const layout *l, int x, int y, int c)
{
    const uint32_t max = l->bits == 16 ? 65535 : 255;
    const int colour = l->photometric == PHOTOMETRIC_RGB ? 3 : 1;
    uint32_t v = pattern(x, y, c, l->bits) & max;
    if (c >= colour) return v;
    if (l->photometric == PHOTOMETRIC_MINISWHITE) v = max - v;
    if (l->samples > colour && l->extra == EXTRASAMPLE_ASSOCALPHA) {
        uint32_t a = pattern(x, y, colour, l->bits) & max;
        v = a == 0 ? 0 : (v * max + a / 2) / a;
        if (v > max) v = max;
    }
    return v;
}

static const char *describe(const layout *l)
{
    static char s[200];
    snprintf(s, sizeof s, "%dx%d %d samples %d-bit compression %u predictor %u photometric %u "
             "planar %u extra %u tile %d rows %d %s-endian%s", l->w, l->h, l->samples, l->bits,
             l->compression, l->predictor, l->photometric, l->planar, l->extra, l->tile, l->rows,
             l->big_endian ? "big" : "little", l->bigtiff ? " BigTIFF" : "");
    return s;
}

/* Decoding on 3 threads gives what one thread gives: the same samples, or
 * the same failure and message. */
static void check_threads_agree(const uint8_t *bytes, size_t size, const char *what)
{
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    gi_image one, three;
    const gi_status st1 = gi_load_memory(&one, bytes, size, "t.tif", &limits);
    char why1[300];
    snprintf(why1, sizeof why1, "%s", st1 == GI_OK ? "" : gi_last_error());
    limits.decode_threads = 3;
    const gi_status st3 = gi_load_memory(&three, bytes, size, "t.tif", &limits);
    if (!th_check(st1 == st3, "%s: status %d on one thread, %d on three", what, (int)st1,
                  (int)st3)) {
    } else if (st1 != GI_OK) {
        th_check(strcmp(why1, gi_last_error()) == 0, "%s: \"%s\" on one thread, \"%s\" on three",
                 what, why1, gi_last_error());
    } else {
        int same = one.width == three.width && one.height == three.height &&
                   one.channels == three.channels && one.depth == three.depth &&
                   one.stride == three.stride;
        same = same && memcmp(one.data, three.data, one.stride * (size_t)one.height) == 0;
        th_check(same, "%s: other samples on three threads", what);
    }
    gi_image_free(&one);
    gi_image_free(&three);
}

static void check_variant(const layout *l)
{
    size_t size;
    uint8_t *bytes = write_tiff(l, &size);
    if (!th_check(bytes != NULL, "libtiff could not write %s", describe(l))) return;
    gi_image img;
    gi_status st = gi_load_memory(&img, bytes, size, "mem.tif", NULL);
    if (th_check(st == GI_OK, "%s: %s", describe(l), gi_last_error()) &&
        th_check(img.width == l->w && img.height == l->h && img.channels == l->samples &&
                     img.depth == l->bits,
                 "%s: %dx%dx%d at %d bits", describe(l), img.width, img.height, img.channels,
                 img.depth)) {
        int bad = 0;
        for (int y = 0; y < l->h && !bad; y++)
            for (int x = 0; x < l->w && !bad; x++)
                for (int c = 0; c < l->samples && !bad; c++)
                    bad = !th_check(sample_at(&img, x, y, c) == expected(l, x, y, c),
                                    "%s: (%d,%d) channel %d is %u, want %u", describe(l), x, y,
                                    c, sample_at(&img, x, y, c), expected(l, x, y, c));
    }
    gi_image_free(&img);
    check_threads_agree(bytes, size, describe(l));
    free(bytes);
}

static void check_layouts(void)
{
    static const uint16_t compressions[] = {COMPRESSION_NONE, COMPRESSION_LZW,
                                            COMPRESSION_ADOBE_DEFLATE, COMPRESSION_DEFLATE,
                                            COMPRESSION_PACKBITS};
    for (size_t k = 0; k < sizeof compressions / sizeof *compressions; k++)
        for (int bits = 8; bits <= 16; bits += 8)
            for (int samples = 1; samples <= 4; samples++)
                for (int shape = 0; shape < 4; shape++)
                    for (int big = 0; big <= 1; big++) {
                        layout l = {.w = 37, .h = 19, .samples = samples, .bits = bits,
                                    .compression = compressions[k],
                                    .photometric = samples >= 3 ? PHOTOMETRIC_RGB
                                                                : PHOTOMETRIC_MINISBLACK,
                                    .planar = shape & 1 ? PLANARCONFIG_SEPARATE
                                                        : PLANARCONFIG_CONTIG,
                                    .extra = EXTRASAMPLE_UNASSALPHA,
                                    .tile = shape & 2 ? 16 : 0, .rows = 5, .big_endian = big};
                        /* the horizontal predictor where it applies, in
                         * either byte order */
                        if (compressions[k] == COMPRESSION_LZW ||
                            compressions[k] == COMPRESSION_ADOBE_DEFLATE)
                            l.predictor = big || samples % 2 ? PREDICTOR_HORIZONTAL
                                                             : PREDICTOR_NONE;
                        check_variant(&l);
                    }
    /* MinIsWhite, premultiplied alpha, an extra sample of no stated meaning,
     * one strip, strips of one row */
    layout l = {.w = 23, .h = 11, .samples = 1, .bits = 8, .compression = COMPRESSION_NONE,
                .photometric = PHOTOMETRIC_MINISWHITE, .planar = PLANARCONFIG_CONTIG};
    check_variant(&l);
    l.bits = 16;
    check_variant(&l);
    l.samples = 2;
    l.extra = EXTRASAMPLE_ASSOCALPHA;
    check_variant(&l);
    l = (layout){.w = 23, .h = 11, .samples = 4, .bits = 8, .compression = COMPRESSION_LZW,
                 .photometric = PHOTOMETRIC_RGB, .planar = PLANARCONFIG_CONTIG,
                 .extra = EXTRASAMPLE_ASSOCALPHA};
    check_variant(&l);
    l.bits = 16;
    check_variant(&l);
    l.extra = EXTRASAMPLE_UNSPECIFIED;
    check_variant(&l);
    l.rows = 1;
    check_variant(&l);
    l.rows = 1000;
    check_variant(&l);
}

/* Several pages: the first is read, and the note counts them. */
static void check_pages(void)
{
    layout l = {.w = 9, .h = 7, .samples = 3, .bits = 8, .compression = COMPRESSION_LZW,
                .photometric = PHOTOMETRIC_RGB, .planar = PLANARCONFIG_CONTIG, .pages = 3};
    check_variant(&l);
    size_t size;
    uint8_t *bytes = write_tiff(&l, &size);
    char note[120] = "";
    th_check(bytes && gi__tiff_pages_note(bytes, size, note, sizeof note) == 1 &&
                 strstr(note, "3 pages") && strstr(note, "first"),
             "pages note: \"%s\"", note);
    free(bytes);
    l.pages = 1;
    bytes = write_tiff(&l, &size);
    th_check(bytes && gi__tiff_pages_note(bytes, size, note, sizeof note) == 0,
             "a one-page TIFF has a pages note");
    free(bytes);
}

static void expect_refused(const layout *l, gi_status want, const char *phrase)
{
    size_t size;
    uint8_t *bytes = write_tiff(l, &size);
    if (!th_check(bytes != NULL, "libtiff could not write %s", describe(l))) return;
    gi_image img;
    gi_status st = gi_load_memory(&img, bytes, size, "mem.tif", NULL);
    th_check(st == want && !img.data && strstr(gi_last_error(), "mem.tif") &&
                 strstr(gi_last_error(), phrase),
             "%s: status %d \"%s\", want %d with \"%s\"", describe(l), (int)st, gi_last_error(),
             (int)want, phrase);
    free(bytes);
}

static void check_refusals(void)
{
    layout l = {.w = 8, .h = 4, .samples = 1, .bits = 8, .compression = COMPRESSION_NONE,
                .photometric = PHOTOMETRIC_PALETTE, .planar = PLANARCONFIG_CONTIG};
    expect_refused(&l, GI_ERR_UNSUPPORTED, "palette (colour-mapped) TIFF is not supported");
    /* without its colour map, which libtiff reads as gray (8 bits), RGB (3
     * samples) or fails (4 bits), in either byte order and in BigTIFF */
    l.no_colormap = 1;
    for (int big = 0; big <= 1; big++) {
        l.big_endian = big;
        expect_refused(&l, GI_ERR_UNSUPPORTED, "palette (colour-mapped) TIFF is not supported");
        l.bigtiff = 1;
        expect_refused(&l, GI_ERR_UNSUPPORTED, "palette (colour-mapped) TIFF is not supported");
        l.bigtiff = 0;
    }
    l.samples = 3;
    expect_refused(&l, GI_ERR_UNSUPPORTED, "palette (colour-mapped) TIFF is not supported");
    l.samples = 1;
    l.bits = 4;
    expect_refused(&l, GI_ERR_UNSUPPORTED, "palette (colour-mapped) TIFF is not supported");
    l = (layout){.w = 8, .h = 4, .samples = 1, .bits = 8, .compression = COMPRESSION_NONE,
                 .planar = PLANARCONFIG_CONTIG};
    l.photometric = PHOTOMETRIC_MINISBLACK;
    l.bits = 1;
    expect_refused(&l, GI_ERR_UNSUPPORTED, "1-bit");
    l.bits = 32;
    l.sample_format = SAMPLEFORMAT_IEEEFP;
    expect_refused(&l, GI_ERR_UNSUPPORTED, "32-bit floating-point");
    l.bits = 16;
    l.sample_format = SAMPLEFORMAT_INT;
    expect_refused(&l, GI_ERR_UNSUPPORTED, "signed samples (sample format 2)");
    l.sample_format = SAMPLEFORMAT_VOID; /* neither signed nor complex */
    expect_refused(&l, GI_ERR_UNSUPPORTED, "untyped (void) samples (sample format 4)");
    l.sample_format = SAMPLEFORMAT_COMPLEXINT;
    expect_refused(&l, GI_ERR_UNSUPPORTED, "complex or unknown samples (sample format 5)");
    l.sample_format = 0;
    l.bits = 8;
    l.samples = 4;
    l.photometric = PHOTOMETRIC_SEPARATED;
    expect_refused(&l, GI_ERR_UNSUPPORTED, "CMYK");
    l.samples = 3;
    l.photometric = PHOTOMETRIC_YCBCR;
    expect_refused(&l, GI_ERR_UNSUPPORTED, "YCbCr");
    l.photometric = PHOTOMETRIC_RGB;
    l.samples = 5;
    l.extra = EXTRASAMPLE_UNASSALPHA;
    expect_refused(&l, GI_ERR_UNSUPPORTED, "5 samples");
    if (TIFFIsCODECConfigured(COMPRESSION_JPEG)) {
        l = (layout){.w = 16, .h = 16, .samples = 3, .bits = 8, .compression = COMPRESSION_JPEG,
                     .photometric = PHOTOMETRIC_YCBCR, .planar = PLANARCONFIG_CONTIG};
        expect_refused(&l, GI_ERR_UNSUPPORTED, "YCbCr");
        l.photometric = PHOTOMETRIC_RGB;
        expect_refused(&l, GI_ERR_UNSUPPORTED, "compression 7 (JPEG)");
    }
}

/* gi_encode's TIFF comes back sample for sample, with its depth. */
static void check_round_trip(int w, int h, int ch, int depth)
{
    gi_image src, back;
    if (!th_check(gi_image_alloc_depth(&src, w, h, ch, depth) == GI_OK, "alloc")) return;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                uint8_t *row = src.data + (size_t)y * src.stride;
                uint32_t v = pattern(x, y, c, depth);
                if (depth == 16) ((uint16_t *)row)[x * ch + c] = (uint16_t)v;
                else row[x * ch + c] = (uint8_t)v;
            }
    gi_save_options opts = {.format = GI_FORMAT_TIFF};
    uint8_t *bytes = NULL;
    size_t size = 0;
    if (th_check(gi_encode(&src, &opts, &bytes, &size) == GI_OK, "encode %dx%dx%d/%d: %s", w, h,
                 ch, depth, gi_last_error()) &&
        th_check(strcmp(gi_last_codec(), "libtiff") == 0, "encoded by %s", gi_last_codec()) &&
        th_check(gi_load_memory(&back, bytes, size, "mem.tif", NULL) == GI_OK, "decode: %s",
                 gi_last_error())) {
        int same = back.width == w && back.height == h && back.channels == ch &&
                   back.depth == depth;
        for (int y = 0; y < h && same; y++)
            same = memcmp(back.data + (size_t)y * back.stride, src.data + (size_t)y * src.stride,
                          (size_t)w * ch * depth / 8) == 0;
        th_check(same, "round trip %dx%dx%d at %d bits: %dx%dx%d at %d bits or other samples",
                 w, h, ch, depth, back.width, back.height, back.channels, back.depth);
        gi_image_free(&back);
    }
    /* the bytes do not depend on the threads the strips are compressed on */
    gi_save_options threaded = {.format = GI_FORMAT_TIFF, .encode_threads = 4};
    uint8_t *again = NULL;
    size_t again_size = 0;
    if (bytes &&
        th_check(gi_encode(&src, &threaded, &again, &again_size) == GI_OK, "encode on 4 threads"))
        th_check(again_size == size && memcmp(again, bytes, size) == 0,
                 "%dx%dx%d/%d: other bytes on 4 threads", w, h, ch, depth);
    gi_free(again);
    /* uncompressed: the same samples, no predictor */
    gi_save_options plain = {.format = GI_FORMAT_TIFF, .tiff_compression = GI_TIFF_UNCOMPRESSED};
    uint8_t *raw = NULL;
    size_t raw_size = 0;
    gi_image raw_back;
    if (th_check(gi_encode(&src, &plain, &raw, &raw_size) == GI_OK, "encode uncompressed: %s",
                 gi_last_error()) &&
        th_check(gi_load_memory(&raw_back, raw, raw_size, "raw.tif", NULL) == GI_OK,
                 "decode uncompressed: %s", gi_last_error())) {
        int same = raw_back.width == w && raw_back.height == h && raw_back.channels == ch &&
                   raw_back.depth == depth;
        for (int y = 0; y < h && same; y++)
            same = memcmp(raw_back.data + (size_t)y * raw_back.stride,
                          src.data + (size_t)y * src.stride, (size_t)w * ch * depth / 8) == 0;
        th_check(same, "uncompressed round trip %dx%dx%d at %d bits", w, h, ch, depth);
        th_check(raw_size >= (size_t)w * h * ch * depth / 8, "uncompressed: %zu bytes", raw_size);
        gi_image_free(&raw_back);
    }
    gi_free(raw);
    /* the file itself: deflate, the predictor, alpha unassociated */
    char path[320];
    snprintf(path, sizeof path, "%s/written.tif", tmpdir);
    FILE *f = fopen(path, "wb");
    if (f && bytes) fwrite(bytes, 1, size, f);
    if (f) fclose(f);
    TIFF *tif = TIFFOpen(path, "r");
    uint16_t compression = 0, predictor = 0, count = 0, *extra = NULL;
    if (th_check(tif != NULL, "libtiff cannot open what gpuimg wrote")) {
        TIFFGetField(tif, TIFFTAG_COMPRESSION, &compression);
        TIFFGetField(tif, TIFFTAG_PREDICTOR, &predictor);
        TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &count, &extra);
        th_check(compression == COMPRESSION_ADOBE_DEFLATE && predictor == PREDICTOR_HORIZONTAL &&
                     count == (ch == 2 || ch == 4) &&
                     (!count || extra[0] == EXTRASAMPLE_UNASSALPHA),
                 "written with compression %u predictor %u, %u extra samples", compression,
                 predictor, count);
        TIFFClose(tif);
    }
    gi_free(bytes);
    gi_image_free(&src);
}

/* Strips of a photo (a ramp and noise of +-64) above strips of a smooth
 * render (a paraboloid, noise of +-2), at 16 bits: groups of strips
 * coded as runs and groups coded by libdeflate (tiff_write.c chooses for
 * each group). The samples come back, and the bytes are the same on 1, 3
 * and 4 threads, whichever thread chooses for a group. */
static void check_strip_coders(void)
{
    const int w = 2000, h = 1200, ch = 3;
    gi_image src, back;
    if (!th_check(gi_image_alloc_depth(&src, w, h, ch, 16) == GI_OK, "alloc")) return;
    for (int y = 0; y < h; y++) {
        uint16_t *row = (uint16_t *)(src.data + (size_t)y * src.stride);
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                const uint32_t noise = pattern(x, y, c, 16);
                const long d = (long)(x - 1000) * (x - 1000) + (long)(y - 900) * (y - 900);
                const long v = y < h / 2 ? 20000 + 5 * x + (long)(noise % 129) - 64
                                         : 20000 + d / 128 + (long)(noise % 5) - 2;
                row[x * ch + c] = (uint16_t)v;
            }
    }
    uint8_t *bytes[3] = {NULL, NULL, NULL};
    size_t size[3] = {0, 0, 0};
    const int threads[3] = {1, 3, 4};
    for (int t = 0; t < 3; t++) {
        gi_save_options opts = {.format = GI_FORMAT_TIFF, .encode_threads = threads[t]};
        th_check(gi_encode(&src, &opts, &bytes[t], &size[t]) == GI_OK, "strip coders on %d threads: %s",
                 threads[t], gi_last_error());
        if (t && bytes[t] && bytes[0])
            th_check(size[t] == size[0] && memcmp(bytes[t], bytes[0], size[0]) == 0,
                     "strip coders: other bytes on %d threads than on 1", threads[t]);
    }
    if (bytes[0] && th_check(gi_load_memory(&back, bytes[0], size[0], "coders.tif", NULL) == GI_OK,
                             "strip coders: decode: %s", gi_last_error())) {
        int same = back.width == w && back.height == h && back.channels == ch && back.depth == 16;
        for (int y = 0; y < h && same; y++)
            same = memcmp(back.data + (size_t)y * back.stride, src.data + (size_t)y * src.stride,
                          (size_t)w * ch * 2) == 0;
        th_check(same, "strip coders: other samples back");
        gi_image_free(&back);
    }
    for (int t = 0; t < 3; t++) gi_free(bytes[t]);
    gi_image_free(&src);
}

/* A little-endian TIFF of w x h 8-bit gray in one strip, made by hand for
 * what libtiff does not write: a byte count past the end of the file, an
 * Orientation outside 1..8 (0: none). The IFD follows the header; the
 * strip, `n` bytes of `data` said to be `claimed`, follows the IFD.
 * malloc'ed, its size in *size. */
static uint8_t *hand_tiff(uint32_t w, uint32_t h, uint16_t compression, uint16_t orientation,
                          const uint8_t *data, size_t n, uint32_t claimed, size_t *size)
{
    const uint32_t tags[][3] = { /* tag, type (3 SHORT, 4 LONG), value */
        {256, 4, w}, {257, 4, h}, {258, 3, 8}, {259, 3, compression},
        {262, 3, PHOTOMETRIC_MINISBLACK}, {273, 4, 0}, {274, 3, orientation}, {277, 3, 1},
        {278, 4, h}, {279, 4, claimed}};
    const int count = sizeof tags / sizeof *tags - (orientation == 0);
    const size_t at = 8 + 2 + 12 * (size_t)count + 4;
    uint8_t *b = calloc(at + n, 1);
    if (!b) return NULL;
    memcpy(b, "II*\0\x08\0\0\0", 8);
    b[8] = (uint8_t)count;
    uint8_t *e = b + 10;
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++) {
        if (tags[i][0] == 274 && orientation == 0) continue;
        const uint32_t v = tags[i][0] == 273 ? (uint32_t)at : tags[i][2];
        const uint8_t entry[12] = {(uint8_t)tags[i][0], (uint8_t)(tags[i][0] >> 8),
                                   (uint8_t)tags[i][1], 0, 1, 0, 0, 0, (uint8_t)v,
                                   (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
        memcpy(e, entry, 12);
        e += 12;
    }
    memcpy(b + at, data, n);
    *size = at + n;
    return b;
}

/* The Orientation tag (274) is read into the metadata, 1..8 in either
 * byte order and in BigTIFF, the pixels left as stored; absent, it is 1;
 * outside 1..8 it is 1, noted. */
static void check_orientation_read(void)
{
    for (uint16_t o = 1; o <= 8; o++)
        for (int kind = 0; kind < 3; kind++) {
            layout l = {.w = 9, .h = 7, .samples = 3, .bits = 8, .compression = COMPRESSION_LZW,
                        .photometric = PHOTOMETRIC_RGB, .planar = PLANARCONFIG_CONTIG,
                        .orientation = o, .big_endian = kind == 1, .bigtiff = kind == 2};
            check_variant(&l);
            size_t size;
            uint8_t *bytes = write_tiff(&l, &size);
            gi_metadata m;
            th_check(bytes && gi_metadata_read(bytes, size, &m) == GI_OK &&
                         m.orientation == o && !m.dropped[0],
                     "Orientation %u (%s): read as %d, dropped \"%s\"", o, describe(&l),
                     bytes ? m.orientation : 0, bytes ? m.dropped : "");
            gi_metadata_free(&m);
            free(bytes);
        }
    const uint8_t pixels[6] = {1, 2, 3, 4, 5, 6};
    const uint16_t values[] = {0, 9, 300};
    for (size_t k = 0; k < sizeof values / sizeof *values; k++) {
        size_t size;
        uint8_t *bytes = hand_tiff(3, 2, COMPRESSION_NONE, values[k], pixels, 6, 6, &size);
        gi_metadata m;
        gi_image img;
        char want[80] = "";
        if (values[k]) snprintf(want, sizeof want, "TIFF Orientation %u is not 1..8", values[k]);
        th_check(bytes && gi_metadata_read(bytes, size, &m) == GI_OK && m.orientation == 1 &&
                     (values[k] ? strstr(m.dropped, want) != NULL : !m.dropped[0]),
                 "Orientation %u: read as %d, dropped \"%s\"", values[k], m.orientation,
                 m.dropped);
        th_check(bytes && gi_load_memory(&img, bytes, size, "hand.tif", NULL) == GI_OK &&
                     img.width == 3 && img.height == 2 && memcmp(img.data, pixels, 6) == 0,
                 "Orientation %u: the pixels: %s", values[k], gi_last_error());
        gi_image_free(&img);
        gi_metadata_free(&m);
        free(bytes);
    }
}

/* The orientation is written as the Orientation tag for 2..8, none for 1,
 * and read back. */
static void check_orientation_written(void)
{
    gi_image img;
    gi_image_alloc(&img, 5, 3, 1);
    memset(img.data, 90, img.stride * 3);
    for (int o = 1; o <= 8; o++) {
        gi_metadata m = {.orientation = o};
        gi_save_options opts = {.format = GI_FORMAT_TIFF, .metadata = &m};
        uint8_t *bytes = NULL;
        size_t size = 0;
        if (!th_check(gi_encode(&img, &opts, &bytes, &size) == GI_OK, "encode with orientation "
                      "%d: %s", o, gi_last_error()))
            continue;
        char path[320];
        snprintf(path, sizeof path, "%s/oriented.tif", tmpdir);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(bytes, 1, size, f);
            fclose(f);
        }
        TIFF *tif = TIFFOpen(path, "r");
        uint16_t tag = 0;
        const int has = tif && TIFFGetField(tif, TIFFTAG_ORIENTATION, &tag);
        th_check(tif && (o == 1 ? !has : has && tag == o),
                 "orientation %d written as %s %u", o, has ? "tag" : "no tag", tag);
        if (tif) TIFFClose(tif);
        unlink(path);
        gi_metadata back;
        th_check(gi_metadata_read(bytes, size, &back) == GI_OK && back.orientation == o,
                 "orientation %d read back as %d", o, back.orientation);
        gi_metadata_free(&back);
        gi_free(bytes);
    }
    gi_image_free(&img);
}

/* A strip cut short, uncompressed or PackBits (its bytes past the end of
 * the file, or zeroed), fails naming the strip and libtiff's reason for
 * it: not an error libtiff reported before it read the strip (a predictor
 * asked of a compression that has none, an Orientation it set aside). */
static void check_short_strip(void)
{
    enum { W = 53, H = 37 };
    uint8_t pixels[W * H], packed[W * H + W * H / 128 + 1];
    size_t packed_size = 0;
    for (int i = 0; i < W * H; i++) pixels[i] = (uint8_t)pattern(i % W, i / W, 0, 8);
    for (int i = 0; i < W * H; i += 128) { /* PackBits literal runs of up to 128 */
        const int n = W * H - i < 128 ? W * H - i : 128;
        packed[packed_size++] = (uint8_t)(n - 1);
        memcpy(packed + packed_size, pixels + i, (size_t)n);
        packed_size += (size_t)n;
    }
    static const uint8_t zeros[sizeof packed]; /* as long as any packed strip */
    const struct {
        uint16_t compression, orientation;
        const uint8_t *data;
        size_t present, claimed;
        const char *phrase;
    } cases[] = {
        {COMPRESSION_NONE, 0, pixels, 500, W * H, "Read error on strip 0"},
        {COMPRESSION_NONE, 9, pixels, 500, W * H, "Read error on strip 0"},
        {COMPRESSION_PACKBITS, 0, packed, packed_size / 2, packed_size, "Read error on strip 0"},
        {COMPRESSION_PACKBITS, 0, zeros, packed_size, packed_size, "Not enough data"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t size;
        uint8_t *bytes = hand_tiff(W, H, cases[k].compression, cases[k].orientation,
                                   cases[k].data, cases[k].present, (uint32_t)cases[k].claimed,
                                   &size);
        if (!bytes) continue;
        gi_image img;
        const gi_status st = gi_load_memory(&img, bytes, size, "short.tif", NULL);
        const char *why = gi_last_error();
        th_check(st == GI_ERR_DECODE && !img.data && strstr(why, "short.tif") &&
                     strstr(why, "strip 0: ") && strstr(why, cases[k].phrase) &&
                     !strstr(why, "Predictor"),
                 "compression %u, Orientation %u, %zu of %zu bytes: %d \"%s\", want \"%s\"",
                 cases[k].compression, cases[k].orientation, cases[k].present, cases[k].claimed,
                 (int)st, why, cases[k].phrase);
        check_threads_agree(bytes, size, "a strip cut short");
        free(bytes);
    }
    /* the whole strip is read */
    size_t size;
    uint8_t *bytes = hand_tiff(W, H, COMPRESSION_PACKBITS, 0, packed, packed_size,
                               (uint32_t)packed_size, &size);
    gi_image img;
    th_check(bytes && gi_load_memory(&img, bytes, size, "whole.tif", NULL) == GI_OK &&
                 memcmp(img.data, pixels, sizeof pixels) == 0,
             "the PackBits strip whole: %s", gi_last_error());
    gi_image_free(&img);
    free(bytes);
}

/* The ICC profile and XMP packet go into their tags and come back; Exif
 * is left out, and gi_metadata_unwritable says so. */
static void check_metadata(void)
{
    gi_image img;
    gi_image_alloc(&img, 3, 2, 3);
    memset(img.data, 40, 18);
    uint8_t icc[300], exif[8] = {'I', 'I', 42, 0, 8, 0, 0, 0};
    for (int i = 0; i < 300; i++) icc[i] = (uint8_t)(i * 7);
    char xmp[] = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"></x:xmpmeta>";
    gi_metadata m = {.icc = icc, .icc_size = sizeof icc, .xmp = (uint8_t *)xmp,
                     .xmp_size = strlen(xmp), .exif = exif, .exif_size = 8, .orientation = 1};
    char why[200];
    th_check(gi_metadata_unwritable(&m, GI_FORMAT_TIFF, why, sizeof why) == 1 &&
                 strstr(why, "Exif") && strstr(why, "TIFF"),
             "unwritable in TIFF: \"%s\"", why);
    gi_save_options opts = {.format = GI_FORMAT_TIFF, .metadata = &m};
    uint8_t *bytes;
    size_t size;
    gi_metadata back;
    if (th_check(gi_encode(&img, &opts, &bytes, &size) == GI_OK, "encode: %s", gi_last_error())) {
        th_check(gi_metadata_read(bytes, size, &back) == GI_OK && back.icc_size == sizeof icc &&
                     memcmp(back.icc, icc, sizeof icc) == 0 && back.xmp_size == strlen(xmp) &&
                     memcmp(back.xmp, xmp, strlen(xmp)) == 0 && !back.exif,
                 "metadata back from TIFF: icc %zu xmp %zu exif %zu", back.icc_size,
                 back.xmp_size, back.exif_size);
        gi_metadata_free(&back);
        gi_free(bytes);
    }
    gi_image_free(&img);
}

/* A failed TIFF save names the file, then the encoder's reason, whole
 * (the reason wrapped in the message, not overwritten by it). */
static void check_save_failure(void)
{
    gi_image img;
    gi_image_alloc(&img, 2, 2, 3);
    img.channels = 5;
    char path[320], want[400];
    snprintf(path, sizeof path, "%s/five.tif", tmpdir);
    snprintf(want, sizeof want, "%s: cannot encode a 2x2x5 8-bit image as TIFF", path);
    gi_status st = gi_save_file(&img, path, NULL);
    th_check(st == GI_ERR_INVALID_ARGUMENT && strcmp(gi_last_error(), want) == 0,
             "saving 5 channels as TIFF: %d \"%s\", want \"%s\"", (int)st, gi_last_error(), want);
    img.channels = 3;
    gi_save_options odd = {.format = GI_FORMAT_TIFF, .tiff_compression = (gi_tiff_compression)7};
    uint8_t *bytes = NULL;
    size_t size = 0;
    st = gi_encode(&img, &odd, &bytes, &size);
    th_check(st == GI_ERR_INVALID_ARGUMENT && !bytes &&
                 strcmp(gi_last_error(), "TIFF compression 7 out of range") == 0,
             "an unknown TIFF compression: %d \"%s\"", (int)st, gi_last_error());
    gi_image_free(&img);
}

/* Damaged and lying files fail with a message naming the input, never
 * crash (the sanitizer builds and valgrind watch the reads). */
static void check_damaged(const layout *damaged)
{
    layout l = *damaged;
    size_t size;
    uint8_t *bytes = write_tiff(&l, &size);
    if (!bytes) return;
    int failed = 0, named = 0;
    for (size_t cut = 0; cut < size; cut += 1 + cut / 16) {
        gi_image img;
        gi_status st = gi_load_memory(&img, bytes, cut, "cut.tif", NULL);
        if (st != GI_OK) {
            failed++;
            named += strstr(gi_last_error(), "cut.tif") != NULL;
        }
        gi_image_free(&img);
        check_threads_agree(bytes, cut, "a cut copy");
    }
    th_check(failed > 0 && named == failed, "truncated copies: %d failed, %d named the file",
             failed, named);
    /* the image is over the pixel limit: refused from the header */
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    limits.max_pixels = 40 * 29;
    gi_image img;
    gi_status st = gi_load_memory(&img, bytes, size, "big.tif", &limits);
    th_check(st == GI_ERR_TOO_LARGE && strstr(gi_last_error(), "big.tif") &&
                 strstr(gi_last_error(), "40x30"),
             "over the pixel limit: %d \"%s\"", (int)st, gi_last_error());
    /* every byte of the first 200 flipped in turn: decodes or fails, naming it */
    for (size_t at = 0; at < size && at < 200; at++) {
        bytes[at] ^= 0x5A;
        st = gi_load_memory(&img, bytes, size, "flip.tif", NULL);
        if (st != GI_OK) th_check(strstr(gi_last_error(), "flip.tif") != NULL, "\"%s\"",
                                  gi_last_error());
        gi_image_free(&img);
        check_threads_agree(bytes, size, "a flipped copy");
        bytes[at] ^= 0x5A;
    }
    free(bytes);
}

/* The samples do not depend on memory the decoder did not set: the file
 * decodes alike with the heap's new blocks filled with one byte, then
 * another (glibc's M_PERTURB), on one thread and on three. */
static void check_heap_independent(const char *path)
{
#ifdef __GLIBC__
    FILE *f = fopen(path, "rb");
    static uint8_t bytes[1 << 16];
    const size_t size = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f) fclose(f);
    if (!th_check(size > 0, "cannot read %s", path)) return;
    gi_image img[4];
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    for (int k = 0; k < 4; k++) {
        mallopt(M_PERTURB, k % 2 ? 0xA5 : 0x5A);
        limits.decode_threads = k < 2 ? 1 : 3;
        th_check(gi_load_memory(&img[k], bytes, size, "short.tif", &limits) == GI_OK,
                 "%s: %s", path, gi_last_error());
    }
    mallopt(M_PERTURB, 0);
    for (int k = 1; k < 4; k++)
        th_check(img[k].data && img[0].data && img[k].stride == img[0].stride &&
                     memcmp(img[k].data, img[0].data, img[0].stride * (size_t)img[0].height) == 0,
                 "%s: decode %d differs from decode 0", path, k);
    for (int k = 0; k < 4; k++) gi_image_free(&img[k]);
#else
    (void)path;
#endif
}

int main(int argc, char **argv)
{
    if (argc > 1) check_heap_independent(argv[1]);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gpuimg-test-tiff-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    TIFFSetWarningHandler(NULL); /* libtiff's notes on the files written here */
    check_layouts();
    check_pages();
    check_refusals();
    const int sizes[][2] = {{1, 1}, {13, 7}, {301, 299}, {2, 1000}, {1201, 377}};
    for (int s = 0; s < 5; s++)
        for (int ch = 1; ch <= 4; ch++)
            for (int depth = 8; depth <= 16; depth += 8)
                check_round_trip(sizes[s][0], sizes[s][1], ch, depth);
    check_strip_coders();
    check_metadata();
    check_orientation_read();
    check_orientation_written();
    check_short_strip();
    check_save_failure();
    /* damaged LZW strips, deflate strips (libdeflate's path) and tiles */
    check_damaged(&(layout){.w = 40, .h = 30, .samples = 3, .bits = 16,
                            .compression = COMPRESSION_LZW, .photometric = PHOTOMETRIC_RGB,
                            .planar = PLANARCONFIG_CONTIG, .rows = 4});
    check_damaged(&(layout){.w = 40, .h = 30, .samples = 3, .bits = 16,
                            .compression = COMPRESSION_ADOBE_DEFLATE,
                            .predictor = PREDICTOR_HORIZONTAL, .photometric = PHOTOMETRIC_RGB,
                            .planar = PLANARCONFIG_CONTIG, .rows = 4});
    check_damaged(&(layout){.w = 40, .h = 30, .samples = 2, .bits = 8,
                            .compression = COMPRESSION_PACKBITS,
                            .photometric = PHOTOMETRIC_MINISBLACK,
                            .planar = PLANARCONFIG_SEPARATE, .extra = EXTRASAMPLE_UNASSALPHA,
                            .tile = 16});
    char path[320];
    snprintf(path, sizeof path, "%s/variant.tif", tmpdir);
    unlink(path);
    snprintf(path, sizeof path, "%s/written.tif", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    return th_finish();
}
#endif
