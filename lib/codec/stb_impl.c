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
#include "codec/png/png_checksum.h"
#include "codec/png/png_palette.h"
#include "codec/png/png_stored.h"

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

/* stb 2.27 inflates a PNG's image data without checking the Adler-32 that
 * ends it, and unfilters the data in the same call (stbi__parse_png_file),
 * with no way in between: a flipped bit decoded to wrong pixels in silence.
 * So the stream is inflated here first and checked, and stb is given a
 * copy of the file with those bytes in stored blocks (png_stored.h), which
 * it copies rather than inflates: the data is inflated once. libdeflate
 * inflates it where the build has it, 2.5 times as fast as stb (a 16-bit
 * 9 MP photo: 103 ms against 263), checking the Adler-32 itself, as the
 * fast decoder does (png_fast.c says what that reads beyond stb); where it
 * fails, and in a build without it, stb's own inflate does (the same
 * bytes, the same refusals), and its data's checksum is checked here. The
 * copies cost about what libdeflate saves at 8 bits, far less than it
 * saves at 16 (docs/performance.md, "PNG reading: the checksums"). */

/* The stream z[0..n) inflated as stbi__parse_png_file inflates it, into a
 * buffer of `guess` bytes grown as needed: the data (from the pixel
 * allocator), its length in *out_n, and in *end the offset just past the
 * deflate data, where the Adler-32 starts. NULL where stb refuses the
 * stream. */
static char *stb_inflate(const uint8_t *z, size_t n, int guess, size_t *out_n, size_t *end)
{
    char *buf = stbi__malloc((size_t)guess);
    if (!buf) return NULL;
    stbi__zbuf a;
    a.zbuffer = (stbi_uc *)(uintptr_t)z; /* read, never written */
    a.zbuffer_end = a.zbuffer + n;
    if (!stbi__do_zlib(&a, buf, guess, 1, 1)) {
        STBI_FREE(a.zout_start);
        return NULL;
    }
    *out_n = (size_t)(a.zout - a.zout_start);
    /* the whole bytes stb took into its bit buffer and did not use; past
     * the end of z it takes zeros, which can only leave *end past n - 4 */
    const ptrdiff_t used = (a.zbuffer - (stbi_uc *)(uintptr_t)z) - a.num_bits / 8;
    *end = used < 0 ? n : (size_t)used;
    return a.zout_start;
}

/* What the Adler-32 after the deflate data of z[0..zn) (at `end`) says of
 * the n bytes it inflated to. */
static gi__png_data adler_verdict(const uint8_t *z, size_t zn, size_t end, const char *data,
                                  size_t n)
{
    if (end > zn || zn - end < 4) return GI_CHECKSUMS_REFUSE ? GI__PNG_DATA_CUT : GI__PNG_DATA_OK;
    const uint8_t *a = z + end;
    const uint32_t stored =
        (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
    return GI_CHECKSUMS_REFUSE && gi__adler32(1, (const uint8_t *)data, n) != stored
               ? GI__PNG_DATA_BAD
               : GI__PNG_DATA_OK;
}

/* libdeflate's inflate of z[0..n) into at most `kept` bytes, its Adler-32
 * checked: the data (from the pixel allocator) and its length, or NULL
 * where libdeflate refuses the stream (damaged, the checksum wrong or
 * missing, or more data than stb keeps), or the build has no libdeflate. */
static char *libdeflate_inflate(const uint8_t *z, size_t n, size_t kept, size_t *out_n)
{
#ifdef GPUIMG_HAVE_LIBDEFLATE
    char *buf = gi__pixels_alloc(kept);
    struct libdeflate_decompressor *d = buf ? libdeflate_alloc_decompressor() : NULL;
    size_t in_used;
    const int ok = d && libdeflate_zlib_decompress_ex(d, z, n, buf, kept, &in_used, out_n) ==
                            LIBDEFLATE_SUCCESS;
    libdeflate_free_decompressor(d);
    if (ok) return buf;
    gi__pixels_free(buf);
#else
    (void)z, (void)n, (void)kept, (void)out_n;
#endif
    return NULL;
}

gi__png_data gi__stb_png_check_data(const uint8_t *bytes, size_t size, uint8_t **out,
                                    size_t *out_size)
{
    *out = NULL;
    const uint64_t kept = gi__png_filtered_size(bytes, size);
    if (!kept) return GI__PNG_DATA_OK;
    const uint8_t *z;
    size_t zn, n, end;
    uint8_t *joined;
    const int found = gi__png_idat_stream(bytes, size, &z, &zn, &joined);
    if (found) return found < 0 ? GI__PNG_DATA_NO_MEMORY : GI__PNG_DATA_OK;
    gi__png_data verdict = GI__PNG_DATA_OK;
    char *data = libdeflate_inflate(z, zn, (size_t)kept, &n);
    if (!data && (data = stb_inflate(z, zn, kept < INT_MAX ? (int)kept : INT_MAX, &n, &end)))
        verdict = adler_verdict(z, zn, end, data, n);
    gi__pixels_free(joined);
    /* stb keeps only the bytes its rows take: the copy holds no more,
     * whatever the stream holds past them */
    if (data && verdict == GI__PNG_DATA_OK)
        *out = gi__png_with_stored_data(bytes, size, (const uint8_t *)data,
                                        n < kept ? n : (size_t)kept, out_size);
    gi__pixels_free(data);
    return verdict;
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
