/* The JPEG writer (lib/codec/jpeg/jpeg_write.c) against its oracle,
 * stb_image_write's stbi_write_jpg_to_func (still compiled into the
 * library for its PNG writer): the bytes must be the same, byte for byte.
 * Images: random pixels, smooth gradients, flat colours and 0/255
 * checkerboards (the largest coefficients), of sizes 1x1, 1xN, Nx1, below,
 * at and past one and two blocks, primes and one large; channels 1-4;
 * qualities around each of stb's thresholds (4:2:0 up to 90, 4:4:4 above;
 * the scale's bend at 50) and the ends. Our writer reads rows through a
 * stride; the padding between them holds random bytes that must not show.
 * Then every image of the folders given (samples/ always; photos where the
 * machine has them), through gi_encode, the product's path. Folders that
 * do not exist are skipped, never failed.
 *
 *   test_jpeg_write DIR...    (GPUIMG_CPU_ISA=base: the SSE2 scan) */
#include "harness.h"
#include "testimg.h"

#include <gpuimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#include "codec/jpeg/jpeg_write.h"

/* stb's bytes for packed pixels. */
static ti_bytes stb_jpeg(const uint8_t *packed, int w, int h, int channels, int quality)
{
    ti_bytes b = {0};
    if (!stbi_write_jpg_to_func(ti_bytes_append, &b, w, h, channels, packed, quality)) b.size = 0;
    return b;
}

static int compare_case(const char *what, const gi_image *img, int quality)
{
    size_t row = (size_t)img->width * (size_t)img->channels;
    uint8_t *packed = malloc(row * (size_t)img->height);
    if (!packed) abort();
    for (int y = 0; y < img->height; y++) memcpy(packed + row * y, ti_px(img, 0, y), row);
    ti_bytes want = stb_jpeg(packed, img->width, img->height, img->channels, quality);
    free(packed);
    /* One thread, and (where the image has rows enough for pieces) 2-8
     * threads coding pieces of MCU rows that are joined bit by bit. */
    int ok = 1;
    for (int pass = 0; pass < (img->height >= 128 ? 2 : 1); pass++) {
        int threads = pass ? th_rand_int(2, 8) : 1;
        uint8_t *got = (uint8_t *)"poison";
        size_t size = 12345;
        int st = gi__jpeg_write(img->data, img->width, img->height, img->channels, img->stride,
                                quality, threads, &got, &size);
        long at = st == 0 ? ti_first_difference(got, size, want.data, want.size) : 0;
        ok &= th_check(want.size > 0 && st == 0 && at < 0,
                       "%s %dx%dx%d q%d, %d thread%s: status %d, %zu bytes against stb's %zu, "
                       "first difference at %ld",
                       what, img->width, img->height, img->channels, quality, threads,
                       threads == 1 ? "" : "s", st, size, want.size, at);
        if (st == 0) free(got);
    }
    free(want.data);
    return ok;
}

/* ------------------------------------------------------------ test images */

static const int qualities[] = {1, 2, 10, 50, 75, 89, 90, 91, 95, 100};
#define COUNT(a) (int)(sizeof(a) / sizeof(a)[0])

static void check_sizes(void)
{
    static const int sizes[][2] = {{1, 1},   {1, 2},   {2, 1},   {7, 9},   {8, 8},
                                   {15, 17}, {16, 16}, {17, 33}, {1, 31},  {31, 1},
                                   {9, 8},   {8, 9},   {23, 29}, {37, 41}, {101, 53},
                                   {64, 48}, {127, 3}, {3, 127}, {48, 64}, {33, 17}};
    int failed = 0;
    for (int s = 0; s < COUNT(sizes); s++)
        for (int channels = 1; channels <= 4; channels++)
            for (int k = 0; k < TI_PATTERNS; k++) {
                gi_image img = ti_patterned((ti_pattern)k, sizes[s][0], sizes[s][1], channels);
                for (int q = 0; q < COUNT(qualities); q++)
                    failed += !compare_case(ti_pattern_name[k], &img, qualities[q]);
                ti_free(&img);
                if (failed > 20) return; /* one bug, enough lines */
            }
}

/* Large images: many MCUs per row and column, and odd edges. */
static void check_large(void)
{
    static const int sizes[][2] = {{1023, 769}, {769, 1023}};
    for (int s = 0; s < COUNT(sizes); s++)
        for (int channels = 1; channels <= 4; channels++)
            for (int k = 0; k < 3; k++) {
                gi_image img = ti_patterned((ti_pattern)k, sizes[s][0], sizes[s][1], channels);
                /* the finest steps of each subsampling: a value one ulp
                 * off shows most often there */
                compare_case(ti_pattern_name[k], &img, 90);
                compare_case(ti_pattern_name[k], &img, 100);
                if (channels == 3) compare_case(ti_pattern_name[k], &img, 50);
                ti_free(&img);
            }
}

/* A photo's size: a value one ulp off changes the bytes only where it
 * moves a coefficient across a rounding boundary, a few times in millions
 * of samples, so an order change shows in a photo-sized image (and in
 * the photos below, where the machine has them), not in small ones. */
static void check_photo_sized(void)
{
    gi_image img = ti_patterned(TI_NOISY, 4001, 3001, 3);
    compare_case("photo-sized", &img, 90);
    compare_case("photo-sized", &img, 100);
    ti_free(&img);
}

/* Sides past 65535: stb writes them modulo 65536 into the frame header
 * (a broken file, but stb's bytes are the promise). */
static void check_wide(void)
{
    for (int channels = 1; channels <= 3; channels += 2) {
        gi_image wide = ti_patterned(TI_GRADIENT, 65537, 2, channels);
        compare_case("wide", &wide, 90);
        ti_free(&wide);
        gi_image tall = ti_patterned(TI_RANDOM, 3, 65539, channels);
        compare_case("tall", &tall, 95);
        ti_free(&tall);
    }
}

/* Every quality 1..100 (and 0, stb's "default"), on one small image each
 * of RGB and grey. */
static void check_every_quality(void)
{
    for (int channels = 1; channels <= 3; channels += 2) {
        gi_image img = ti_patterned(TI_RANDOM, 21, 19, channels);
        for (int q = 0; q <= 100; q++) compare_case("every-quality", &img, q);
        ti_free(&img);
    }
}

/* What stb refuses, refused, with nothing handed out. */
static void check_refusals(void)
{
    uint8_t px[16] = {0};
    struct { int w, h, c; const uint8_t *p; } bad[] = {
        {0, 1, 3, px}, {1, 0, 3, px}, {1, 1, 0, px}, {1, 1, 5, px}, {1, 1, 3, NULL}};
    for (int i = 0; i < COUNT(bad); i++) {
        uint8_t *out = (uint8_t *)"poison";
        size_t size = 7;
        int st = gi__jpeg_write(bad[i].p, bad[i].w, bad[i].h, bad[i].c, 16, 90, 4, &out, &size);
        th_check(st == -1 && out == NULL && size == 0, "refusal %d: status %d", i, st);
    }
}

/* --------------------------------------------------- files, through gi_encode */

static void check_file(const char *path, void *unused)
{
    (void)unused;
    gi_image img;
    if (gi_load_file(&img, path, NULL) != GI_OK) return; /* samples include broken files */
    size_t row = (size_t)img.width * (size_t)img.channels;
    uint8_t *packed = malloc(row * (size_t)img.height);
    if (!packed) abort();
    for (int y = 0; y < img.height; y++)
        memcpy(packed + row * y, img.data + img.stride * y, row);
    static const int file_qualities[] = {75, 90, 95};
    for (int q = 0; q < COUNT(file_qualities); q++) {
        ti_bytes want = stb_jpeg(packed, img.width, img.height, img.channels, file_qualities[q]);
        gi_save_options opts;
        gi_save_options_default(&opts);
        opts.format = GI_FORMAT_JPEG;
        opts.jpeg_quality = file_qualities[q];
        uint8_t *got = NULL;
        size_t size = 0;
        gi_status st = gi_encode(&img, &opts, &got, &size);
        long at = st == GI_OK ? ti_first_difference(got, size, want.data, want.size) : 0;
        th_check(st == GI_OK && at < 0, "%s q%d: %s, %zu bytes against stb's %zu, first "
                 "difference at %ld", path, file_qualities[q], st == GI_OK ? "ok" :
                 gi_last_error(), size, want.size, at);
        gi_free(got);
        free(want.data);
    }
    free(packed);
    gi_image_free(&img);
}

int main(int argc, char **argv)
{
    th_seed();
    check_refusals();
    check_sizes();
    check_every_quality();
    check_large();
    check_wide();
    check_photo_sized();
    for (int i = 1; i < argc; i++) ti_each_image(argv[i], check_file, NULL);
    return th_finish();
}
