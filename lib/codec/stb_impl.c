/* The one translation unit that compiles stb_image and stb_image_write,
 * with the project's configuration:
 *   - only the PNG and JPEG decoders (less hostile-input surface);
 *   - no stdio: image_io.c reads files itself, with a size cap;
 *   - user-readable failure strings for error messages.
 *   - image buffers from pixel_alloc.c (huge pages for large ones);
 * Callers always request an explicit component count and never flip. */
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#define STBI_FAILURE_USERMSG
#define STB_IMAGE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include "base/pixel_alloc.h"
#define STBI_MALLOC gi__pixels_alloc
#define STBI_REALLOC gi__pixels_realloc
#define STBI_FREE gi__pixels_free
#define STBIW_MALLOC gi__pixels_alloc
#define STBIW_REALLOC gi__pixels_realloc
#define STBIW_FREE gi__pixels_free

#ifdef GPUIMG_HAVE_LIBDEFLATE
/* stb_image_write's PNG writer is the oracle of ours (png_write.h), which
 * deflates with libdeflate in pieces: stb's writer gets the same stream
 * through its compression hook, on one thread (the bytes do not depend on
 * the count). */
#include <libdeflate.h>

#include "codec/png/zlib_pieces.h"

static unsigned char *gi__libdeflate_zlib(unsigned char *data, int len, int *out_len, int level)
{
    size_t n = 0;
    unsigned char *out = gi__zlib_compress_pieces(data, (size_t)(len < 0 ? 0 : len), level, 1,
                                                  GI_ZLIB_PIECE_BYTES, &n,
                                                  NULL); /* stb frees it with STBIW_FREE */
    if (out && n > 0x7fffffff) {
        gi__pixels_free(out);
        return NULL;
    }
    if (out) *out_len = (int)n;
    return out;
}
#define STBIW_ZLIB_COMPRESS gi__libdeflate_zlib
/* The chunks' CRC-32: stb's own goes a byte at a time through a table,
 * 2% of a batch of RGBA PNGs (4.5 ms a 9 MP photo's IDAT); libdeflate's
 * folds with carry-less multiplies. The same CRC, so the same bytes. */
#define STBIW_CRC32(buffer, len) libdeflate_crc32(0, (buffer), (size_t)(len))
#endif

#include "stb_warnings.h"
GI_STB_WARNINGS_OFF
#include <stb_image.h>
#include <stb_image_write.h>
GI_STB_WARNINGS_ON

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format_sniff.h"
#include "gpuimg.h"
#include "codec/metadata/metadata.h"
#include "codec/png/png_palette.h"

uint8_t *gi__stb_zlib_compress(const uint8_t *data, size_t size, int level, size_t *out_size)
{
    int n = 0;
    if (size > (size_t)INT_MAX) return NULL;
    uint8_t *out = stbi_zlib_compress((unsigned char *)data, (int)size, &n, level);
    if (out) *out_size = (size_t)n;
    return out;
}

int gi_png_deflate_is_libdeflate(void)
{
#ifdef GPUIMG_HAVE_LIBDEFLATE
    return 1;
#else
    return 0;
#endif
}

/* stbi_info_from_memory tries every decoder in turn, so on a damaged file
 * the failure reason it leaves is the last decoder's: a truncated JPEG is
 * reported as "Corrupt PNG". Asking the one decoder that matches the file's
 * signature keeps the reason about the file. */
int gi__stb_info_as(const void *bytes, int size, gi_format format, int *w, int *h, int *comp)
{
    stbi__context s;
    stbi__start_mem(&s, bytes, size);
    return format == GI_FORMAT_PNG ? stbi__png_info(&s, w, h, comp)
                                   : stbi__jpeg_info(&s, w, h, comp);
}

/* The same for decoding: stbi_load_from_memory would try the JPEG test on
 * a PNG and the PNG test on a damaged JPEG, and report the last failure.
 * A 16-bit PNG keeps its 16 bits (stb's 16-bit loader: samples as stored,
 * in the machine's byte order; tRNS compared at 16 bits; sBIT ignored, as
 * the PNG spec lets a decoder do). */
uint8_t *gi__stb_load_as(const void *bytes, int size, gi_format format, int *w, int *h,
                         int req_comp, int *depth)
{
    stbi__context s;
    stbi__result_info ri;
    int comp;
    /* Palette entries the file does not define are black (png_palette.h),
     * never stb's uninitialised ones. */
    uint8_t *completed = NULL;
    size_t completed_size = 0;
    if (format == GI_FORMAT_PNG &&
        gi__png_complete_palette(bytes, (size_t)size, &completed, &completed_size) < 0)
        return stbi__errpuc("outofmem", "Out of memory");
    if (completed && completed_size > (size_t)INT_MAX) {
        free(completed);
        return stbi__errpuc("too large", "Corrupt PNG");
    }
    if (completed) {
        bytes = completed;
        size = (int)completed_size;
    }
    stbi__start_mem(&s, bytes, size);
    memset(&ri, 0, sizeof ri);
    ri.bits_per_channel = 8;
    ri.channel_order = STBI_ORDER_RGB;
    void *pixels = format == GI_FORMAT_PNG ? stbi__png_load(&s, w, h, &comp, req_comp, &ri)
                                           : stbi__jpeg_load(&s, w, h, &comp, req_comp, &ri);
    *depth = ri.bits_per_channel == 16 ? 16 : 8;
    free(completed);
    return pixels;
}

/* zlib for the metadata (metadata.h). stb's own inflate grows its buffer
 * without a limit, so the bounded one decodes into fixed buffers, four
 * times larger on each try up to max_out: a small stream costs one try,
 * and a bomb stops at the bound. */
int gi__zlib_inflate(const uint8_t *in, size_t size, size_t max_out, uint8_t **out,
                     size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    if (size > (size_t)INT_MAX || max_out > (size_t)INT_MAX) return -1;
    for (size_t cap = 1 << 16;; cap *= 4) {
        if (cap > max_out) cap = max_out;
        char *buf = malloc(cap);
        if (!buf) return -1;
        int n = stbi_zlib_decode_buffer(buf, (int)cap, (const char *)in, (int)size);
        if (n >= 0) {
            char *fitted = realloc(buf, n ? (size_t)n : 1);
            *out = (uint8_t *)(fitted ? fitted : buf);
            *out_size = (size_t)n;
            return 0;
        }
        free(buf);
        if (cap == max_out) return -1;
    }
}

int gi__zlib_deflate(const uint8_t *in, size_t size, uint8_t **out, size_t *out_size)
{
    int n = 0;
    *out = NULL;
    *out_size = 0;
    if (size > (size_t)INT_MAX) return -1;
    /* stb reads the data without changing it, through a pointer that is
     * not const. */
    unsigned char *z = stbi_zlib_compress((unsigned char *)(uintptr_t)in, (int)size, &n, 8);
    if (!z) return -1;
    *out = malloc(n ? (size_t)n : 1);
    if (*out) memcpy(*out, z, (size_t)n);
    STBIW_FREE(z);
    *out_size = *out ? (size_t)n : 0;
    return *out ? 0 : -1;
}
