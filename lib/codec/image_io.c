/* Decoding and encoding by format: PNG and JPEG through stb (compiled in
 * stb_impl.c), but for the files that the exact JPEG decoder
 * (jpeg_decode.c) and the fast PNG decoder (png_fast.c) take, with stb's
 * very pixels (a PNG's CRCs and Adler-32, which stb leaves unread,
 * checked on either way: png_check.h, stb_impl.c); PNG and JPEG written
 * by png_write.c and jpeg_write.c, with stb_image_write's very bytes;
 * Netpbm through pnm.c; TIFF through libtiff (tiff/). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <stb_image.h>

#include "file_io.h"
#include "format_sniff.h"
#include "base/gi_error.h"
#include "codec/jpeg/jpeg_decode.h"
#include "codec/jpeg/jpeg_parse.h"
#include "codec/jpeg/jpeg_write.h"
#include "base/pixel_alloc.h"
#include "codec/png/png_check.h"
#include "codec/png/png_checksum.h"
#include "codec/png/png_fast.h"
#include "codec/png/png_write.h"
#include "codec/pnm/pnm.h"
#include "codec/tiff/gi_tiff.h"
#include "codec/jpeg/jpeg_shrink.h"

void gi_load_limits_default(gi_load_limits *limits)
{
    if (!limits) return;
    limits->max_input_bytes = 1ull << 30;
    limits->max_pixels = 16384ull * 16384ull;
    limits->decode_threads = 0;
    limits->shrink_to = 0;
}

static _Thread_local const char *last_codec = "";

const char *gi_last_codec(void)
{
    return last_codec;
}

void gi_save_options_default(gi_save_options *opts)
{
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    opts->jpeg_quality = 90;
}

/* stb's level and filter for opts (0 = the defaults gi_save_options gives). */
static void png_settings(const gi_save_options *opts, int *level, int *filter)
{
    /* stb's per-row filter choice at libdeflate's level 3: over 21 photos
     * blurred, as large in all as "up" at level 4 (the defaults before)
     * and 7% faster on a folder of RGBA photos; level 4 would be 3%
     * smaller and no faster (docs/performance.md, "PNG writing") */
    *level = opts->png_level ? opts->png_level : gi_png_deflate_is_libdeflate() ? 3 : 8;
    *filter = opts->png_filter == GI_PNG_FILTER_DEFAULT || opts->png_filter == GI_PNG_FILTER_AUTO
                  ? -1
                  : (int)opts->png_filter - GI_PNG_FILTER_NONE;
}

/* Whether gi_load_memory would hand these bytes to the exact decoder
 * (which may still leave them to stb): its checks, in short. */
static int for_exact_decoder(const void *bytes, size_t size, const gi_load_limits *limits)
{
    char why[64];
    return size > 0 && size <= limits->max_input_bytes && size <= (size_t)INT_MAX &&
           gi__sniff_format(bytes, size) == GI_FORMAT_JPEG &&
           gi__jpeg_check_tables(bytes, size, why, sizeof why) == 0;
}

/* gi_load_memory's threads for the exact decoder. */
static int decode_threads(const gi_load_limits *limits)
{
    return limits->decode_threads > 1 ? limits->decode_threads : 1;
}

int gi__load_jpeg_coeffs(const void *bytes, size_t size, const gi_load_limits *limits,
                         int defer, gi_jpeg_coeffs *c)
{
    memset(c, 0, sizeof *c);
    if (!for_exact_decoder(bytes, size, limits)) return 0;
    /* On decode_threads, as gi_load_memory decodes (restart intervals
     * apart): one for a batch's codec workers, the cores for a lone image. */
    if (gi__jpeg_read_coeffs(bytes, size, limits->max_pixels, decode_threads(limits), defer,
                             limits->shrink_to, NULL, c) != GI_JPEG_OK)
        return 0;
    last_codec = "gpuimg-jpeg";
    return 1;
}

int gi__load_jpeg_rows(const void *bytes, size_t size, const gi_load_limits *limits,
                       const gi_jpeg_target *t)
{
    if (!for_exact_decoder(bytes, size, limits) ||
        !gi__jpeg_decode_rows(bytes, size, limits->max_pixels, decode_threads(limits), t))
        return 0;
    last_codec = "gpuimg-jpeg";
    return 1;
}

/* Shrink-on-load (limits->shrink_to): 1 with *img decoded at the
 * reduced size (or at full size, where no shrink keeps the sides large
 * enough); else 0, to decode as ever. */
static int load_jpeg_shrunk(gi_image *img, const void *bytes, size_t size,
                            const gi_load_limits *limits)
{
    return for_exact_decoder(bytes, size, limits) &&
           gi__jpeg_decode_shrunk(img, bytes, size, limits->max_pixels, decode_threads(limits),
                                  limits->shrink_to);
}

/* stb reads no checksum of a PNG: its image data is checked first, and
 * *copy is the file stb is to decode instead (NULL: the file as it is);
 * stb_impl.c says why and how. */
static gi_status check_png_data(const uint8_t *bytes, size_t size, const char *name,
                                uint8_t **copy, size_t *copy_size)
{
    const gi__png_data data = gi__stb_png_check_data(bytes, size, copy, copy_size);
    if (data == GI__PNG_DATA_BAD || data == GI__PNG_DATA_CUT)
        return gi__fail(GI_ERR_DECODE, "%s: corrupt PNG: the image data %s", name,
                        data == GI__PNG_DATA_BAD ? "fails its zlib checksum"
                                                 : "ends before its zlib checksum");
    if (data == GI__PNG_DATA_NO_MEMORY)
        return gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory for a PNG's image data", name);
    return GI_OK;
}

/* stb's refusal of a PNG or JPEG; for a JPEG cut before its EOI, where
 * stb says only "Corrupt JPEG", the cut. */
static gi_status stb_refused(const uint8_t *bytes, size_t size, gi_format format, const char *name)
{
    if (format == GI_FORMAT_JPEG && gi__jpeg_cut_before_eoi(bytes, size))
        return gi__fail(GI_ERR_DECODE, "%s: cannot decode JPEG (truncated: the file ends before "
                        "its EOI marker)", name);
    return gi__fail(GI_ERR_DECODE, "%s: cannot decode %s (%s)", name,
                    format == GI_FORMAT_PNG ? "PNG" : "JPEG", stbi_failure_reason());
}

/* stb's decode of a PNG or JPEG that the exact decoders left: its header
 * against the limits, then its pixels. */
static gi_status load_with_stb(gi_image *img, const uint8_t *bytes, size_t size,
                               gi_format format, const char *name,
                               const gi_load_limits *limits, int trns)
{
    const char *kind = format == GI_FORMAT_PNG ? "PNG" : "JPEG";
    int w, h, comp;
    if (!gi__stb_info_as(bytes, (int)size, format, &w, &h, &comp))
        return stb_refused(bytes, size, format, name);
    if (w <= 0 || h <= 0) return gi__fail(GI_ERR_DECODE, "%s: a %dx%d %s has no pixels", name, w, h, kind);
    if ((uint64_t)w * (uint64_t)h > limits->max_pixels)
        return gi__fail_pixel_limit(name, (uint64_t)w, (uint64_t)h, limits->max_pixels);
    /* stb reports a PNG's stored channels; transparency in tRNS becomes an
     * alpha channel, which a fixed request must include to keep it. */
    if (trns && (comp == 1 || comp == 3)) comp++;
    uint8_t *copy = NULL;
    size_t copy_size = 0;
    gi_status st = format == GI_FORMAT_PNG ? check_png_data(bytes, size, name, &copy, &copy_size)
                                           : GI_OK;
    if (st != GI_OK) return st;
    int depth;
    uint8_t *pixels = gi__stb_load_as(copy ? copy : bytes, (int)(copy ? copy_size : size), format,
                                      &w, &h, comp, &depth);
    gi__pixels_free(copy);
    if (!pixels) return stb_refused(bytes, size, format, name);
    img->width = w;
    img->height = h;
    img->channels = comp;
    img->depth = depth;
    img->stride = (size_t)w * (size_t)comp * (size_t)(depth / 8);
    img->data = pixels; /* stb allocates from pixel_alloc.c, as gi_image_free frees */
    img->owns_data = 1;
    return GI_OK;
}

/* A PNG whose chunks have passed their checks: the fast decoder's, or
 * stb's. */
static gi_status decode_png(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                            const gi_load_limits *limits)
{
    uint32_t w, h;
    int trns = 0;
    /* The common PNG decodes fast, to stb's bytes; the rest, damaged files
     * included, goes to stb. */
    if (gi__png_header(bytes, size, &w, &h, &trns) == 0 && gi__png_fast_load(img, bytes, size)) {
        last_codec = "libdeflate";
        return GI_OK;
    }
    return load_with_stb(img, bytes, size, GI_FORMAT_PNG, name, limits, trns);
}

/* A PNG: its size against the limits before any large allocation, its
 * chunks' lengths and CRCs (png_check.h), then the decoders, on a copy
 * without the ancillary chunks that fail their CRC where there are any. */
static gi_status load_png(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                          const gi_load_limits *limits)
{
    /* IHDR's size is read here, since stb refuses some huge headers with a
     * vaguer reason of its own. */
    uint32_t pw = 0, ph = 0;
    int trns = 0;
    const int header = gi__png_header(bytes, size, &pw, &ph, &trns) == 0;
    if (header && (pw == 0 || ph == 0))
        return gi__fail(GI_ERR_DECODE, "%s: a %ux%u PNG has no pixels", name, pw, ph);
    if (header && (uint64_t)pw * ph > limits->max_pixels)
        return gi__fail_pixel_limit(name, pw, ph, limits->max_pixels);
    const int fit = gi__png_chunks_fit(bytes, size);
    if (fit != 0)
        return gi__fail(GI_ERR_DECODE, "%s: cannot decode PNG (%s)", name,
                        fit == -1 ? "a chunk runs past the end of the file"
                                  : "truncated: the file ends before its IEND chunk");
    char why[64];
    int damaged;
    if (gi__png_check_crcs(bytes, size, &damaged, why, sizeof why) != 0)
        return GI_CHECKSUMS_REFUSE
                   ? gi__fail(GI_ERR_DECODE, "%s: corrupt PNG: %s", name, why)
                   : load_with_stb(img, bytes, size, GI_FORMAT_PNG, name, limits, trns);
    if (!damaged) return decode_png(img, bytes, size, name, limits);
    uint8_t *kept;
    size_t kept_size;
    if (gi__png_drop_damaged(bytes, size, &kept, &kept_size) != 0)
        return gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory for a %ux%u PNG", name, pw, ph);
    gi_status st = decode_png(img, kept, kept_size, name, limits);
    free(kept);
    return st;
}

gi_status gi_load_memory(gi_image *img, const void *bytes, size_t size, const char *name,
                         const gi_load_limits *limits)
{
    GI__REFUSE_NULL(img);
    if (size) GI__REFUSE_NULL(bytes);
    gi_load_limits defaults;
    if (!limits) {
        gi_load_limits_default(&defaults);
        limits = &defaults;
    }
    if (!name) name = "image";
    memset(img, 0, sizeof *img);
    if (size == 0) return gi__fail(GI_ERR_DECODE, "%s: empty file", name);
    if (size > limits->max_input_bytes)
        return gi__fail(GI_ERR_TOO_LARGE, "%s: %zu bytes is over the input limit", name, size);
    gi_format format = gi__sniff_format(bytes, size);
    last_codec = format == GI_FORMAT_PNM ? "pnm" : "stb";
    if (format == GI_FORMAT_PNM) {
        size_t used;
        return gi__pnm_decode(img, bytes, size, &used, name, limits);
    }
    if (format == GI_FORMAT_TIFF) {
        last_codec = "libtiff";
        return gi__tiff_decode(img, bytes, size, name, limits);
    }
    if (format == GI_FORMAT_AUTO)
        return gi__fail(GI_ERR_DECODE, "%s: not a PNG, JPEG, PNM/PAM or TIFF file", name);
    if (size > (size_t)INT_MAX) /* stb counts in int */
        return gi__fail(GI_ERR_TOO_LARGE, "%s: %zu bytes is over the input limit", name, size);
    if (format == GI_FORMAT_PNG) return load_png(img, bytes, size, name, limits);
    char why[64];
    if (gi__jpeg_check_tables(bytes, size, why, sizeof why) != 0)
        return gi__fail(GI_ERR_DECODE, "%s: cannot decode JPEG (%s)", name, why);
    /* The exact decoder gives stb's very pixels, faster; a file it leaves
     * (jpeg_parse.h) goes on to stb, which decodes or refuses it. */
    if (limits->shrink_to > 0 && load_jpeg_shrunk(img, bytes, size, limits)) {
        last_codec = "gpuimg-jpeg";
        return GI_OK;
    }
    if (gi__jpeg_decode(img, bytes, size, limits->max_pixels, decode_threads(limits))) {
        last_codec = "gpuimg-jpeg";
        return GI_OK;
    }
    return load_with_stb(img, bytes, size, GI_FORMAT_JPEG, name, limits, 0);
}

gi_status gi_load_file_with_metadata(gi_image *img, const char *path,
                                     const gi_load_limits *limits, gi_metadata *meta)
{
    GI__REFUSE_NULL(img, path);
    gi_load_limits defaults;
    if (!limits) {
        gi_load_limits_default(&defaults);
        limits = &defaults;
    }
    uint8_t *bytes;
    size_t size;
    memset(img, 0, sizeof *img);
    if (meta) gi_metadata_free(meta);
    gi_status st = gi__read_file(path, limits->max_input_bytes, &bytes, &size);
    if (st != GI_OK) return st;
    st = gi_load_memory(img, bytes, size, strcmp(path, "-") ? gi_quote_name(path) : "standard input", limits);
    /* Out of memory for the metadata only leaves a note in meta->dropped. */
    if (st == GI_OK && meta) (void)gi_metadata_read(bytes, size, meta);
    gi__pixels_free(bytes);
    return st;
}

gi_status gi_load_file(gi_image *img, const char *path, const gi_load_limits *limits)
{
    GI__REFUSE_NULL(img, path);
    return gi_load_file_with_metadata(img, path, limits, NULL);
}

gi_format gi_format_from_path(const char *path)
{
    if (!path) return GI_FORMAT_AUTO;
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/')) return GI_FORMAT_AUTO;
    if (strcasecmp(dot, ".png") == 0) return GI_FORMAT_PNG;
    if (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0) return GI_FORMAT_JPEG;
    if (strcasecmp(dot, ".pnm") == 0 || strcasecmp(dot, ".pgm") == 0 ||
        strcasecmp(dot, ".ppm") == 0)
        return GI_FORMAT_PNM;
    if (strcasecmp(dot, ".pam") == 0) return GI_FORMAT_PAM;
    if (strcasecmp(dot, ".tif") == 0 || strcasecmp(dot, ".tiff") == 0) return GI_FORMAT_TIFF;
    return GI_FORMAT_AUTO;
}

typedef struct {
    uint8_t *data;
    size_t size, cap;
    int failed;
} byte_sink;

static void sink_write(void *context, void *data, int size)
{
    byte_sink *s = context;
    if (s->failed || size <= 0) return;
    if (s->size + (size_t)size > s->cap) {
        size_t cap = s->cap ? s->cap : 1 << 16;
        while (cap < s->size + (size_t)size) cap *= 2;
        uint8_t *bigger = realloc(s->data, cap);
        if (!bigger) {
            s->failed = 1;
            return;
        }
        s->data = bigger;
        s->cap = cap;
    }
    memcpy(s->data + s->size, data, (size_t)size);
    s->size += (size_t)size;
}

static int sink_emit(void *context, const void *bytes, size_t size)
{
    byte_sink *s = context;
    for (const uint8_t *p = bytes; size > 0 && !s->failed;) { /* stb's callback takes an int */
        int part = size > (1u << 30) ? 1 << 30 : (int)size;
        sink_write(s, (void *)p, part);
        p += part;
        size -= (size_t)part;
    }
    return s->failed ? -1 : 0;
}

static int is_netpbm(gi_format format)
{
    return format == GI_FORMAT_PNM || format == GI_FORMAT_PAM;
}

static const char *format_name(gi_format format)
{
    return format == GI_FORMAT_PNG ? "PNG" : format == GI_FORMAT_JPEG ? "JPEG"
           : format == GI_FORMAT_PNM ? "PNM" : format == GI_FORMAT_PAM ? "PAM" : "TIFF";
}

static int jpeg_quality(const gi_save_options *opts)
{
    return opts->jpeg_quality ? opts->jpeg_quality : 90;
}

static gi_status check_save_options(const gi_save_options *opts)
{
    if (opts->format < GI_FORMAT_PNG || opts->format > GI_FORMAT_TIFF)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "no output format given (png, jpeg, pnm, pam "
                        "or tiff)");
    int quality = jpeg_quality(opts);
    if (quality < 1 || quality > 100)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "JPEG quality %d: must be 1..100", quality);
    if (opts->png_level < 0 || opts->png_level > 12 || (unsigned)opts->png_filter > GI_PNG_FILTER_PAETH)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "PNG level %d or filter %d out of range",
                        opts->png_level, (int)opts->png_filter);
    if (opts->depth != 0 && opts->depth != 8 && opts->depth != 16)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "depth %d: 8 or 16 (0 keeps the image's)",
                        opts->depth);
    if ((unsigned)opts->tiff_compression > GI_TIFF_UNCOMPRESSED)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "TIFF compression %d out of range",
                        (int)opts->tiff_compression);
    return GI_OK;
}

/* JPEG holds 8 bits a sample: an image of `have` bits kept at 16, or
 * depth 16 asked of any image, is refused for JPEG. The one check for
 * every way of writing one: the pixels encoded here (at_save_depth) and
 * the file a backend encoded from 8-bit pixels (gi__encoded_jpeg), which
 * is 8-bit whatever depth was asked. */
static gi_status check_jpeg_depth(int have, const gi_save_options *opts)
{
    if (opts->format != GI_FORMAT_JPEG) return GI_OK;
    if (opts->depth == 16)
        return gi__fail(GI_ERR_UNSUPPORTED, "JPEG holds 8 bits a sample, not the 16 asked for "
                        "(--depth 16 or GPUIMG_DEPTH=16; in the library, gi_save_options.depth = "
                        "16): write a PNG, PNM, PAM or TIFF for 16 bits");
    if (have == 16 && opts->depth != 8)
        return gi__fail(GI_ERR_UNSUPPORTED, "a 16-bit image cannot be written as JPEG (8 bits a "
                        "sample): write it at 8 bits (--depth 8; in the library, "
                        "gi_save_options.depth = 8 or gi_convert_depth)");
    return GI_OK;
}

/* img at the depth opts ask for: img itself, or a copy converted into
 * *converted (freed by the caller). */
static gi_status at_save_depth(const gi_image *img, const gi_save_options *opts,
                               gi_image *converted, const gi_image **use)
{
    memset(converted, 0, sizeof *converted);
    *use = img;
    const int have = img->depth == 16 ? 16 : 8, want = opts->depth ? opts->depth : have;
    gi_status st = check_jpeg_depth(have, opts);
    if (st != GI_OK) return st;
    if (want == have) return GI_OK;
    st = gi_image_alloc_depth(converted, img->width, img->height, img->channels, want);
    if (st == GI_OK) st = gi_convert_depth(img, converted);
    if (st != GI_OK) gi_image_free(converted);
    else *use = converted;
    return st;
}

/* The encoded bytes (owned, taken) with opts->metadata embedded; Netpbm
 * has no place for metadata (gi_metadata_unwritable says so). */
static gi_status with_metadata(uint8_t *data, size_t length, const gi_save_options *opts,
                               uint8_t **bytes, size_t *size)
{
    if (opts->metadata && !gi_metadata_empty(opts->metadata) &&
        (opts->format == GI_FORMAT_PNG || opts->format == GI_FORMAT_JPEG)) {
        gi_status st = gi_metadata_embed(data, length, opts->format, opts->metadata, bytes, size);
        free(data);
        return st;
    }
    *bytes = data;
    *size = length;
    return GI_OK;
}

/* gi_encode of an image already at the depth it is written at. */
static gi_status encode_at_depth(const gi_image *img, const gi_save_options *opts,
                                 uint8_t **bytes, size_t *size)
{
    if (opts->format == GI_FORMAT_TIFF) { /* the metadata goes in as the file is written */
        last_codec = "libtiff";
        return gi__tiff_encode(img, opts, bytes, size);
    }
    int quality = jpeg_quality(opts), level, filter;
    png_settings(opts, &level, &filter);
    if (!is_netpbm(opts->format) && img->stride > (size_t)INT_MAX)
        return gi__fail(GI_ERR_TOO_LARGE, "rows of %zu bytes are too long to encode", img->stride);
    last_codec = is_netpbm(opts->format) ? "pnm" : "stb";
    byte_sink sink = {0};
    int ok = opts->format == GI_FORMAT_PNG
                 ? gi__png_write(img->data, img->width, img->height, img->channels,
                                 img->depth == 16 ? 16 : 8, img->stride, level, filter,
                                 opts->encode_threads, &sink.data, &sink.size) == 0
             : opts->format == GI_FORMAT_JPEG
                 ? gi__jpeg_write(img->data, img->width, img->height, img->channels, img->stride,
                                  quality, opts->encode_threads, &sink.data, &sink.size) == 0
             : gi__pnm_write(img, opts->format, sink_emit, &sink) == 0;
    if (!ok || sink.failed) {
        free(sink.data);
        return gi__fail(GI_ERR_ENCODE, "cannot encode a %dx%d %s image", img->width, img->height,
                        format_name(opts->format));
    }
    return with_metadata(sink.data, sink.size, opts, bytes, size);
}

gi_status gi_encode(const gi_image *img, const gi_save_options *opts, uint8_t **bytes,
                    size_t *size)
{
    GI__REFUSE_NULL(img, opts, bytes, size);
    *bytes = NULL;
    *size = 0;
    gi_status st = check_save_options(opts);
    if (st != GI_OK) return st;
    gi_image converted;
    const gi_image *at_depth;
    st = at_save_depth(img, opts, &converted, &at_depth);
    if (st != GI_OK) return st;
    st = encode_at_depth(at_depth, opts, bytes, size);
    gi_image_free(&converted);
    return st;
}

gi_status gi__encoded_jpeg(uint8_t *file, size_t length, const char *codec,
                           const gi_save_options *opts, uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    gi_status st = check_save_options(opts);
    if (st == GI_OK) st = check_jpeg_depth(8, opts); /* the backend encoded 8-bit pixels */
    if (st != GI_OK) {
        free(file);
        return st;
    }
    last_codec = codec ? codec : "";
    return with_metadata(file, length, opts, bytes, size);
}

static int output_emit(void *context, const void *bytes, size_t size)
{
    return gi__output_write(context, bytes, size) == GI_OK ? 0 : -1;
}

/* Netpbm goes straight to the output, rows and all; PNG and JPEG are
 * encoded into memory first (stb's writers do not stream). */
gi_status gi_output_image(gi_output *out, const gi_image *img, const gi_save_options *opts)
{
    GI__REFUSE_NULL(out, img);
    gi_save_options resolved;
    if (opts) resolved = *opts;
    else gi_save_options_default(&resolved);
    const char *path = gi__output_path(out);
    if (resolved.format == GI_FORMAT_AUTO) resolved.format = gi_format_from_path(path);
    if (resolved.format == GI_FORMAT_AUTO)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: cannot tell the format from the name (use "
                        ".png, .jpg, .pnm, .pam, .tif or --format)", gi_quote_name(path));
    gi_status st = check_save_options(&resolved);
    if (st != GI_OK) return gi__fail(st, "%s: %s", gi_quote_name(path), gi_last_error());
    if (is_netpbm(resolved.format)) {
        gi_image converted;
        const gi_image *at_depth;
        st = at_save_depth(img, &resolved, &converted, &at_depth);
        if (st != GI_OK) return gi__fail(st, "%s: %s", gi_quote_name(path), gi_last_error());
        int failed = gi__pnm_write(at_depth, resolved.format, output_emit, out) != 0;
        gi_image_free(&converted);
        if (!failed) return GI_OK;
        st = gi__output_write(out, "", 0); /* the write's failure, if it was one */
        return st != GI_OK ? st
                           : gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory", gi_quote_name(path));
    }
    uint8_t *bytes;
    size_t size;
    st = gi_encode(img, &resolved, &bytes, &size);
    if (st != GI_OK) return gi__fail(st, "%s: %s", gi_quote_name(path), gi_last_error());
    st = gi__output_write(out, bytes, size);
    free(bytes);
    return st;
}

gi_status gi_save_file(const gi_image *img, const char *path, const gi_save_options *opts)
{
    GI__REFUSE_NULL(img, path);
    gi_output *out;
    gi_status st = gi_output_open(&out, path);
    if (st != GI_OK) return st;
    st = gi_output_image(out, img, opts);
    gi_status closed = gi_output_close(out, st == GI_OK);
    return st != GI_OK ? st : closed;
}
