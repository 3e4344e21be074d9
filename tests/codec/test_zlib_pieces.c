/* The PNG deflate in pieces (lib/codec/png/zlib_pieces.h) and its block walker
 * (lib/codec/png/deflate_walk.h).
 *
 * Pieces: random, compressible and constant data of sizes 0, 1, the piece
 * size and one either side, several pieces and a short last one, at
 * levels 1, 4, 6 (and 12 on small pieces), in pieces of the real size and
 * of small ones (many pieces: stored, fixed and dynamic blocks), each
 * compressed on 1, 2, 3 and 8 threads: the bytes must be the same for
 * every count, libdeflate_zlib_decompress must give the input back
 * exactly, a stream of one piece must be libdeflate_zlib_compress's very
 * bytes and one of several must have been joined (not the fallback).
 * Walker: on libdeflate's streams, the final block found carries BFINAL
 * and ends in the last byte; every shorter prefix fails; random and
 * bit-flipped bytes never read past their buffer (exact-size copies, so
 * AddressSanitizer sees a read past the end). PNGs: gi_encode with
 * encode_threads 1 and 4 gives the same bytes, which stb and the fast
 * decoder both decode to the pixels encoded.
 * Exit 77 in builds without libdeflate (the test is not built there). */
#include "harness.h"
#include "testimg.h"

#include <gpuimg.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/png/deflate_walk.h"
#include "codec/format_sniff.h"
#include "base/pixel_alloc.h"
#include "codec/png/png_fast.h"
#include "codec/png/zlib_pieces.h"

static int block_types_seen[3];

/* Data of a kind: 0 random, 1 compressible (few symbols, repeats),
 * 2 constant, 3 an image-like ramp with noise. */
static uint8_t *make_data(size_t n, int kind)
{
    uint8_t *d = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case 0: d[i] = (uint8_t)th_rand64(); break;
        case 1:
            d[i] = i >= 300 && th_rand_int(0, 3) ? d[i - (size_t)th_rand_int(1, 300)]
                                                  : (uint8_t)th_rand_int('a', 'h');
            break;
        case 2: d[i] = 7; break;
        default: d[i] = (uint8_t)(i / 97 + (th_rand64() & 3)); break;
        }
    }
    return d;
}

/* Walks libdeflate's raw deflate of data and checks what the walker says
 * of it, and that every prefix fails. */
static void check_walk(const uint8_t *data, size_t n, int level, const char *what)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    const size_t bound = libdeflate_deflate_compress_bound(c, n);
    uint8_t *z = malloc(bound);
    const size_t m = libdeflate_deflate_compress(c, data, n, z, bound);
    libdeflate_free_compressor(c);
    uint64_t fb = 0, eb = 0;
    if (th_check(m > 0 && gi__deflate_walk(z, m, &fb, &eb) == 0, "%s: walk failed", what)) {
        th_check((eb + 7) / 8 == m && fb < eb && (z[fb / 8] >> (fb % 8) & 1),
                 "%s: final block at bit %llu, end %llu of %zu bytes", what,
                 (unsigned long long)fb, (unsigned long long)eb, m);
        const int type = (z[0] >> 1) & 3; /* the first block's */
        if (type < 3) block_types_seen[type] = 1;
    }
    /* every prefix, each in a buffer of its exact size */
    for (size_t k = 0; k < m; k += m > 4000 ? m / 500 + 1 : 1) {
        uint8_t *p = malloc(k ? k : 1);
        memcpy(p, z, k);
        uint64_t a, b;
        if (!th_check(gi__deflate_walk(p, k, &a, &b) != 0, "%s: prefix of %zu bytes walked", what, k)) {
            free(p);
            break;
        }
        free(p);
    }
    free(z);
}

/* Compressed on several thread counts: same bytes, decompresses to data. */
static void check_pieces(const uint8_t *data, size_t n, int level, size_t piece, const char *what)
{
    static const int thread_counts[] = {1, 2, 3, 8};
    uint8_t *first = NULL;
    size_t first_size = 0;
    int first_joined = 0;
    for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
        size_t m = 0;
        int joined = -1;
        uint8_t *z = gi__zlib_compress_pieces(data, n, level, thread_counts[t], piece, &m, &joined);
        if (!th_check(z != NULL && m > 0, "%s: no stream on %d threads", what, thread_counts[t]))
            return;
        if (!first) {
            first = z;
            first_size = m;
            first_joined = joined;
            continue;
        }
        th_check(m == first_size && memcmp(z, first, m) == 0 && joined == first_joined,
                 "%s: %d threads gave other bytes (%zu against %zu)", what, thread_counts[t], m,
                 first_size);
        gi__pixels_free(z);
    }
    const size_t pieces = n <= piece ? 1 : (n - 1) / piece + 1;
    th_check(first_joined == (pieces > 1), "%s: %zu pieces, joined %d", what, pieces, first_joined);
    /* the zlib header's check */
    th_check(first_size >= 6 && (first[0] << 8 | first[1]) % 31 == 0 && (first[0] & 15) == 8,
             "%s: bad zlib header %02x %02x", what, first[0], first[1]);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    uint8_t *back = malloc(n ? n : 1);
    size_t got = 0;
    const enum libdeflate_result r = libdeflate_zlib_decompress(d, first, first_size, back, n, &got);
    th_check(r == LIBDEFLATE_SUCCESS && got == n && memcmp(back, data, n) == 0,
             "%s: decompresses to other data (result %d, %zu of %zu bytes)", what, (int)r, got, n);
    libdeflate_free_decompressor(d);
    free(back);
    if (pieces == 1) { /* libdeflate_zlib_compress's very stream */
        struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
        const size_t bound = libdeflate_zlib_compress_bound(c, n);
        uint8_t *z = malloc(bound);
        const size_t m = libdeflate_zlib_compress(c, data, n, z, bound);
        th_check(m == first_size && memcmp(z, first, m) == 0,
                 "%s: one piece, not libdeflate_zlib_compress's bytes", what);
        libdeflate_free_compressor(c);
        free(z);
    } else { /* the header libdeflate would write, the Adler-32 of it all */
        const uint32_t adler = libdeflate_adler32(1, data, n);
        const uint8_t *a = first + first_size - 4;
        th_check(((uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3]) == adler,
                 "%s: Adler-32 not the data's", what);
    }
    gi__pixels_free(first);
}

static void check_data(size_t piece, const size_t *sizes, int n_sizes, const int *levels,
                       int n_levels)
{
    static const char *const kinds[] = {"random", "compressible", "constant", "ramp"};
    for (int s = 0; s < n_sizes; s++) {
        for (int kind = 0; kind < 4; kind++) {
            uint8_t *data = make_data(sizes[s], kind);
            for (int l = 0; l < n_levels; l++) {
                char what[160];
                snprintf(what, sizeof what, "%s, %zu bytes, level %d, pieces of %zu", kinds[kind],
                         sizes[s], levels[l], piece);
                check_pieces(data, sizes[s], levels[l], piece, what);
                if (piece != GI_ZLIB_PIECE_BYTES && sizes[s] > 0 && sizes[s] <= 3 * piece)
                    check_walk(data, sizes[s] < piece ? sizes[s] : piece, levels[l], what);
            }
            free(data);
        }
    }
}

/* Random bytes, and libdeflate's streams with bits flipped: the walker may
 * say anything but must stay in the buffer (and end). */
static void check_hostile(void)
{
    for (int i = 0; i < 3000; i++) {
        const size_t n = (size_t)th_rand_int(0, 200);
        uint8_t *p = malloc(n ? n : 1);
        for (size_t k = 0; k < n; k++) p[k] = (uint8_t)th_rand64();
        if (n && i % 3 == 0) p[0] = (uint8_t)((p[0] & ~6) | 4); /* a dynamic block */
        uint64_t a, b;
        if (gi__deflate_walk(p, n, &a, &b) == 0)
            th_check((b + 7) / 8 <= n && a < b, "random bytes: walked past the end");
        free(p);
    }
    uint8_t *data = make_data(20000, 1);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    uint8_t z[30000];
    const size_t m = libdeflate_deflate_compress(c, data, 20000, z, sizeof z);
    libdeflate_free_compressor(c);
    for (int i = 0; i < 2000; i++) {
        uint8_t *p = malloc(m);
        memcpy(p, z, m);
        for (int f = th_rand_int(1, 4); f > 0; f--) {
            const size_t at = (size_t)th_rand_int(0, (int)m * 8 - 1);
            p[at / 8] ^= (uint8_t)(1u << (at % 8));
        }
        uint64_t a, b;
        if (gi__deflate_walk(p, m, &a, &b) == 0)
            th_check((b + 7) / 8 <= m && a < b, "flipped bits: walked past the end");
        free(p);
    }
    free(data);
}

/* A PNG of img through gi_encode on 1 and 4 threads: the same bytes, which
 * stb and the fast decoder decode to img's pixels. */
static void check_png(const gi_image *img, const char *what)
{
    gi_save_options o;
    gi_save_options_default(&o);
    o.format = GI_FORMAT_PNG;
    uint8_t *one = NULL, *four = NULL;
    size_t n1 = 0, n4 = 0;
    o.encode_threads = 1;
    gi_status s1 = gi_encode(img, &o, &one, &n1);
    o.encode_threads = 4;
    gi_status s4 = gi_encode(img, &o, &four, &n4);
    if (!th_check(s1 == GI_OK && s4 == GI_OK, "%s: encode failed: %s", what, gi_last_error()))
        return;
    th_check(n1 == n4 && memcmp(one, four, n1) == 0, "%s: 4 threads wrote other bytes", what);
    const size_t row = (size_t)img->width * img->channels;
    int w, h;
    int depth;
    uint8_t *stb = gi__stb_load_as(one, (int)n1, GI_FORMAT_PNG, &w, &h, img->channels, &depth);
    int same = stb && depth == 8 && w == img->width && h == img->height;
    for (int y = 0; same && y < h; y++)
        same = memcmp(stb + (size_t)y * row, img->data + (size_t)y * img->stride, row) == 0;
    th_check(same, "%s: stb decodes other pixels", what);
    gi__pixels_free(stb);
    gi_image fast;
    if (th_check(gi__png_fast_load(&fast, one, n1), "%s: the fast decoder refused it", what)) {
        same = fast.width == img->width && fast.height == img->height &&
               fast.channels == img->channels;
        for (int y = 0; same && y < fast.height; y++)
            same = memcmp(fast.data + (size_t)y * fast.stride,
                          img->data + (size_t)y * img->stride, row) == 0;
        th_check(same, "%s: the fast decoder decodes other pixels", what);
        gi_image_free(&fast);
    }
    gi_free(one);
    gi_free(four);
}

static void check_pngs(void)
{
    /* 1.4 MB of filtered rows (two pieces), random pixels */
    gi_image a = ti_random(700, 500, 4);
    check_png(&a, "random 700x500 RGBA");
    ti_free(&a);
    /* 3.3 MB, smooth with noise (four pieces, mostly matches) */
    gi_image b = ti_blank(1100, 1000, 3);
    for (int y = 0; y < b.height; y++)
        for (int x = 0; x < b.width; x++)
            for (int c = 0; c < 3; c++)
                ti_px(&b, x, y)[c] = (uint8_t)((x * (c + 1) + y) / 5 + (th_rand64() & 1));
    check_png(&b, "ramp 1100x1000 RGB");
    ti_free(&b);
    /* small: one piece */
    gi_image s = ti_random(31, 17, 2);
    check_png(&s, "random 31x17 gray+alpha");
    ti_free(&s);
}

int main(void)
{
    th_seed();
    const size_t P = GI_ZLIB_PIECE_BYTES;
    /* the real piece size */
    const size_t real_sizes[] = {0, 1, P - 1, P, P + 1, 3 * P + 12345};
    const int real_levels[] = {1, 4, 6};
    check_data(P, real_sizes, 6, real_levels, 3);
    /* small pieces: many of them, every kind of block */
    const size_t small = 1000;
    const size_t small_sizes[] = {0, 1, small - 1, small, small + 1, 2 * small, 7 * small + 3,
                                  100 * small + 999};
    const int small_levels[] = {1, 4, 6, 12};
    check_data(small, small_sizes, 8, small_levels, 4);
    check_data(65536, (const size_t[]){65535, 65537, 300000}, 3, small_levels, 4);
    th_check(block_types_seen[0] && block_types_seen[1] && block_types_seen[2],
             "block types walked: stored %d, fixed %d, dynamic %d", block_types_seen[0],
             block_types_seen[1], block_types_seen[2]);
    check_hostile();
    check_pngs();
    return th_finish();
}
