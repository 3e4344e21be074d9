/* The PNG writer (png_write.h). */
#include "png_write.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpu_isa.h"
#include "codec/format_sniff.h"
#include "base/pixel_alloc.h"
#include "png_checksum.h"
#include "png_filter.h"
#include "base/share_work.h"

#ifdef GPUIMG_HAVE_LIBDEFLATE
#include "zlib_pieces.h"
#endif

png_filter_fn *gi__png_filter_rows(void)
{
#if defined(__x86_64__) && defined(__GNUC__) /* meson builds the sets there */
    if (gi__cpu_isa() >= GI__ISA_AVX512) return gi__png_filter_rows_avx512;
    if (gi__cpu_isa() >= GI__ISA_AVX2) return gi__png_filter_rows_avx2;
#endif
    return gi__png_filter_rows_base;
}

/* The rows filtered on several threads, bands of BAND_ROWS taken in turn:
 * a lone photo's deflate runs in pieces on every thread, and its filtering
 * (the per-row choice: 8 ms for a 9 MP RGBA photo on one Zen 4 core)
 * would be the longest stage left on one. */
#define BAND_ROWS 64

typedef struct {
    png_filter_fn *filter_rows;
    const uint8_t *pixels, *zeros;
    size_t stride, len;
    int channels, filter, height;
    atomic_int next_band;
    uint8_t *out;
} filter_job;

static void *filter_bands(void *arg)
{
    filter_job *j = arg;
    for (;;) {
        const int y0 = atomic_fetch_add(&j->next_band, 1) * BAND_ROWS;
        if (y0 >= j->height) return NULL;
        const int y1 = j->height - y0 < BAND_ROWS ? j->height : y0 + BAND_ROWS;
        j->filter_rows(j->pixels, j->stride, j->len, j->channels, j->filter, y0, y1, j->zeros,
                       j->out);
    }
}

static void filter_image(filter_job *j, int threads)
{
    const int bands = (j->height + BAND_ROWS - 1) / BAND_ROWS;
    gi__share_work(threads < bands ? threads : bands, filter_bands, j);
}

/* The zlib stream of the filtered rows, from the pixel allocator. */
static uint8_t *deflate_rows(const uint8_t *rows, size_t size, int level, int threads,
                             size_t *out_size)
{
#ifdef GPUIMG_HAVE_LIBDEFLATE
    return gi__zlib_compress_pieces(rows, size, level, threads, GI_ZLIB_PIECE_BYTES, out_size,
                                    NULL);
#else
    (void)threads;
    return gi__stb_zlib_compress(rows, size, level, out_size);
#endif
}

static uint8_t *put32(uint8_t *o, uint32_t v)
{
    o[0] = (uint8_t)(v >> 24);
    o[1] = (uint8_t)(v >> 16);
    o[2] = (uint8_t)(v >> 8);
    o[3] = (uint8_t)v;
    return o + 4;
}

/* A chunk of `length` data bytes whose length, tag and data are already
 * at o: its CRC (over the tag and data) after them. */
static uint8_t *end_chunk(uint8_t *o, size_t length)
{
    return put32(o + 8 + length, gi__crc32(0, o + 4, 4 + length));
}

/* A 16-bit image's rows as PNG stores them, big-endian, packed (len bytes
 * a row); the filters then work on those bytes, a pixel being 2 * channels
 * of them, as the PNG standard defines them. */
static uint8_t *big_endian_copy(const uint8_t *pixels, size_t stride, size_t len, int height)
{
    uint8_t *out = gi__pixels_alloc(len * (size_t)height);
    for (int y = 0; out && y < height; y++) {
        const uint16_t *src = (const uint16_t *)(const void *)(pixels + stride * (size_t)y);
        uint8_t *dst = out + len * (size_t)y;
        for (size_t i = 0; i < len / 2; i++) {
            dst[2 * i] = (uint8_t)(src[i] >> 8);
            dst[2 * i + 1] = (uint8_t)src[i];
        }
    }
    return out;
}

int gi__png_write(const uint8_t *pixels, int width, int height, int channels, int depth,
                  size_t stride, int level, int filter, int threads, uint8_t **bytes,
                  size_t *size)
{
    *bytes = NULL;
    *size = 0;
    if (width <= 0 || height <= 0 || channels < 1 || channels > 4 || filter < -1 || filter > 4 ||
        (depth != 8 && depth != 16))
        return -1;
    const int pixel_bytes = channels * (depth / 8);
    const size_t len = (size_t)width * (size_t)pixel_bytes, row = len + 1;
    if ((size_t)height > SIZE_MAX / row) return -1;
    uint8_t *wide = depth == 16 ? big_endian_copy(pixels, stride, len, height) : NULL;
    if (depth == 16 && !wide) return -1;
    if (wide) {
        pixels = wide;
        stride = len;
    }
    const size_t filtered_size = row * (size_t)height;
    uint8_t *filtered = gi__pixels_alloc(filtered_size);
    uint8_t *zeros = calloc(len, 1); /* the row above the first */
    if (!filtered || !zeros) {
        gi__pixels_free(filtered);
        gi__pixels_free(wide);
        free(zeros);
        return -1;
    }
    filter_job job = {gi__png_filter_rows(), pixels, zeros, stride, len, pixel_bytes, filter,
                      height, 0, filtered};
    filter_image(&job, threads);
    gi__pixels_free(wide);
    free(zeros);
    size_t zlen = 0;
    uint8_t *zlib = deflate_rows(filtered, filtered_size, level, threads, &zlen);
    gi__pixels_free(filtered);
    if (!zlib || zlen > (size_t)INT_MAX) { /* one IDAT: a chunk holds < 2^31 bytes */
        gi__pixels_free(zlib);
        return -1;
    }
    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    static const uint8_t colour_type[5] = {0, 0, 4, 2, 6}; /* by channels */
    const size_t total = 8 + (12 + 13) + (12 + zlen) + 12;
    uint8_t *out = malloc(total), *o = out;
    if (!out) {
        gi__pixels_free(zlib);
        return -1;
    }
    memcpy(o, signature, 8);
    o += 8;
    uint8_t *chunk = o;
    o = put32(o, 13);
    memcpy(o, "IHDR", 4);
    o = put32(o + 4, (uint32_t)width);
    o = put32(o, (uint32_t)height);
    o[0] = (uint8_t)depth; /* bits a sample */
    o[1] = colour_type[channels];
    o[2] = o[3] = o[4] = 0; /* deflate, adaptive filtering, no interlace */
    o = end_chunk(chunk, 13);
    chunk = o;
    o = put32(o, (uint32_t)zlen);
    memcpy(o, "IDAT", 4);
    memcpy(o + 4, zlib, zlen);
    gi__pixels_free(zlib);
    o = end_chunk(chunk, zlen);
    chunk = o;
    o = put32(o, 0);
    memcpy(o, "IEND", 4);
    o = end_chunk(chunk, 0);
    *bytes = out;
    *size = (size_t)(o - out);
    return 0;
}
