/* The PNG writer (lib/codec/png/png_write.c) against its oracle,
 * stb_image_write's stbi_write_png_to_func (compiled into the library,
 * whose compression hook gives stb's writer the same deflate): the bytes
 * must be the same, byte for byte, for every filter mode (each of the five
 * filters, and stb's per-row choice) and several levels. Images: random
 * pixels, smooth gradients, noisy ramps, flat colours and 0/255
 * checkerboards, of sizes 1x1, 1xN, Nx1, primes and large ones (past one
 * deflate piece, on several threads); channels 1-4; rows read through a
 * stride whose padding holds random bytes that must not show. Then every
 * image of the folders given (samples/ always; photos where the machine
 * has them), through gi_encode, the product's path. Folders that do not
 * exist are skipped, never failed. 16-bit images, which stb does not
 * write, are held to stb's 16-bit decoder instead: every sample back, for
 * every filter mode and thread count (the same bytes on each), IHDR
 * saying 16 bits.
 *
 *   test_png_write DIR...    (GPUIMG_CPU_ISA=base, avx2: those filters) */
#include "harness.h"
#include "testimg.h"

#include <gpuimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#include "codec/png/png_write.h"

/* stb's bytes: its level and filter are globals (one thread here). */
static ti_bytes stb_png(const gi_image *img, int level, int filter)
{
    ti_bytes b = {0};
    stbi_write_png_compression_level = level;
    stbi_write_force_png_filter = filter;
    if (!stbi_write_png_to_func(ti_bytes_append, &b, img->width, img->height, img->channels,
                                img->data, (int)img->stride))
        b.size = 0;
    return b;
}

static int compare_case(const char *what, const gi_image *img, int level, int filter,
                        int threads)
{
    ti_bytes want = stb_png(img, level, filter);
    uint8_t *got = (uint8_t *)"poison";
    size_t size = 12345;
    int st = gi__png_write(img->data, img->width, img->height, img->channels, 8, img->stride, level,
                           filter, threads, &got, &size);
    long at = st == 0 ? ti_first_difference(got, size, want.data, want.size) : 0;
    int ok = th_check(want.size > 0 && st == 0 && at < 0,
                      "%s %dx%dx%d level %d filter %d, %d thread%s: status %d, %zu bytes against "
                      "stb's %zu, first difference at %ld",
                      what, img->width, img->height, img->channels, level, filter, threads,
                      threads == 1 ? "" : "s", st, size, want.size, at);
    if (st == 0) free(got);
    free(want.data);
    return ok;
}

/* --------------------------------------------------------- generated images */

#define COUNT(a) (int)(sizeof(a) / sizeof(a)[0])

/* Every filter mode and a fast, the default and a slow level. */
static void check_sizes(void)
{
    static const int sizes[][2] = {{1, 1},  {1, 2},   {2, 1},   {7, 9},   {1, 31},
                                   {31, 1}, {23, 29}, {37, 41}, {101, 53}, {127, 3},
                                   {3, 127}, {64, 48}};
    static const int levels[] = {1, 3, 4, 9};
    int failed = 0;
    for (int s = 0; s < COUNT(sizes); s++)
        for (int channels = 1; channels <= 4; channels++)
            for (int k = 0; k < TI_PATTERNS; k++) {
                gi_image img = ti_patterned((ti_pattern)k, sizes[s][0], sizes[s][1], channels);
                for (int filter = -1; filter <= 4; filter++)
                    failed += !compare_case(ti_pattern_name[k], &img, levels[th_rand_int(0, 3)], filter,
                                            1);
                ti_free(&img);
                if (failed > 20) return; /* one bug, enough lines */
            }
}

/* Large images: long rows (the vector loops' bodies and tails), filtered
 * data past one deflate piece, compressed on several threads. */
static void check_large(void)
{
    static const int sizes[][2] = {{1023, 769}, {769, 1023}};
    for (int s = 0; s < COUNT(sizes); s++)
        for (int channels = 1; channels <= 4; channels++)
            for (int k = 0; k < 3; k++) {
                const ti_pattern kind = k == 0 ? TI_NOISY : k == 1 ? TI_GRADIENT : TI_RANDOM;
                gi_image img = ti_patterned(kind, sizes[s][0], sizes[s][1], channels);
                for (int filter = -1; filter <= 4; filter++)
                    compare_case("large", &img, 3, filter, th_rand_int(1, 8));
                ti_free(&img);
            }
}

/* What cannot be written, refused, with nothing handed out. */
static void check_refusals(void)
{
    uint8_t px[16] = {0};
    struct { int w, h, c, filter; } bad[] = {
        {0, 1, 3, 0}, {1, 0, 3, 0}, {-1, 1, 3, 0}, {1, 1, 0, 0}, {1, 1, 5, 0}, {1, 1, 3, 5},
        {1, 1, 3, -2},
    };
    for (int i = 0; i < COUNT(bad); i++) {
        uint8_t *got = (uint8_t *)"poison";
        size_t size = 12345;
        int st = gi__png_write(px, bad[i].w, bad[i].h, bad[i].c, 8, 16, 4, bad[i].filter, 1, &got,
                               &size);
        th_check(st == -1 && got == NULL && size == 0,
                 "%dx%dx%d filter %d: status %d (want -1, nothing handed out)", bad[i].w, bad[i].h,
                 bad[i].c, bad[i].filter, st);
    }
}

/* ---------------------------------------------------------- whole files */

/* stb's filter numbering for the API's (png_settings in image_io.c). */
static int stb_filter(gi_png_filter f)
{
    return f == GI_PNG_FILTER_AUTO ? -1 : (int)f - GI_PNG_FILTER_NONE;
}

/* An image file through gi_encode (the product's path), with the per-row
 * choice and with Paeth, against stb's writer. */
static void check_file(const char *path, void *unused)
{
    (void)unused;
    gi_image img;
    if (gi_load_file(&img, path, NULL) != GI_OK) return; /* samples include broken files */
    const gi_png_filter filters[] = {GI_PNG_FILTER_AUTO, GI_PNG_FILTER_PAETH};
    for (int f = 0; f < COUNT(filters); f++) {
        gi_save_options opts;
        gi_save_options_default(&opts);
        opts.format = GI_FORMAT_PNG;
        opts.png_level = 3;
        opts.png_filter = filters[f];
        opts.encode_threads = 1 + f * 3;
        uint8_t *got = NULL;
        size_t size = 0;
        gi_status st = gi_encode(&img, &opts, &got, &size);
        ti_bytes want = stb_png(&img, 3, stb_filter(filters[f]));
        long at = st == GI_OK ? ti_first_difference(got, size, want.data, want.size) : 0;
        th_check(st == GI_OK && want.size > 0 && at < 0,
                 "%s filter %d: status %d, %zu bytes against stb's %zu, first difference at %ld",
                 path, stb_filter(filters[f]), (int)st, size, want.size, at);
        gi_free(got);
        free(want.data);
    }
    gi_image_free(&img);
}

/* A 16-bit image written with each filter mode reads back (through stb:
 * the fast decoder takes 8 bits only) sample for sample. */
static void check_sixteen_bits(int w, int h, int ch)
{
    gi_image src;
    gi_image_alloc_depth(&src, w, h, ch, 16);
    uint16_t *s16 = (uint16_t *)(void *)src.data;
    for (size_t i = 0; i < (size_t)w * h * ch; i++)
        s16[i] = i % 5 == 0 ? 0xFF00 : (uint16_t)th_rand_int(0, 65535);
    for (int filter = -1; filter <= 4; filter++) {
        uint8_t *one = NULL, *four = NULL;
        size_t n1 = 0, n4 = 0;
        int st = gi__png_write(src.data, w, h, ch, 16, src.stride, 3, filter, 1, &one, &n1) |
                 gi__png_write(src.data, w, h, ch, 16, src.stride, 3, filter, 4, &four, &n4);
        gi_image back = {0};
        if (th_check(st == 0 && n1 == n4 && memcmp(one, four, n1) == 0,
                     "16-bit %dx%dx%d filter %d: not the same bytes on 1 and 4 threads", w, h, ch,
                     filter) &&
            th_check(one[24] == 16, "16-bit %dx%dx%d: IHDR says %d bits", w, h, ch, one[24]) &&
            th_check(gi_load_memory(&back, one, n1, "16-bit", NULL) == GI_OK, "decode: %s",
                     gi_last_error()))
            th_check(back.depth == 16 && back.channels == ch && back.stride == src.stride &&
                         memcmp(back.data, src.data, src.stride * (size_t)h) == 0,
                     "16-bit %dx%dx%d filter %d: other samples back", w, h, ch, filter);
        gi_image_free(&back);
        free(one);
        free(four);
    }
    gi_image_free(&src);
}

int main(int argc, char **argv)
{
    th_seed();
    const int sizes16[][2] = {{1, 1}, {1, 13}, {13, 1}, {31, 17}, {97, 5}};
    for (size_t i = 0; i < sizeof sizes16 / sizeof *sizes16; i++)
        for (int ch = 1; ch <= 4; ch++) check_sixteen_bits(sizes16[i][0], sizes16[i][1], ch);
    check_sizes();
    check_large();
    check_refusals();
    for (int i = 1; i < argc; i++) ti_each_image(argv[i], check_file, NULL);
    return th_finish();
}
