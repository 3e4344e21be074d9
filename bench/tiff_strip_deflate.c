/* The TIFF writer's two strip coders on an image's strips, each alone: an
 * image loaded by gpuimg (8 or 16 bits), its rows predicted as the writer
 * predicts them (each sample less the one a pixel before), cut into
 * strips of 256 KiB, coded by deflate_runs (lib/codec/tiff/deflate_runs.h;
 * runs a byte, a sample and a pixel back, as the writer looks for them)
 * and by libdeflate at level 1. Prints each one's size over the samples'
 * and its speed (the median of REPS runs, one thread), and checks that
 * both streams inflate to the strips.
 *   usage: tiff_strip_deflate IMAGE [REPS]   (default 5) */
#define _POSIX_C_SOURCE 200809L
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuimg.h"
#include "codec/tiff/deflate_runs.h"

#define STRIP ((size_t)256 << 10)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The image's rows, predicted, one after another. */
static uint8_t *predicted(const gi_image *img, size_t *bytes)
{
    const int depth = img->depth ? img->depth : 8, ch = img->channels;
    const size_t row = (size_t)img->width * ch * (depth / 8);
    uint8_t *p = malloc(row * img->height);
    if (!p) return NULL;
    for (int y = 0; y < img->height; y++) {
        const uint8_t *s = img->data + (size_t)y * img->stride;
        uint8_t *d = p + (size_t)y * row;
        if (depth == 8) {
            for (size_t i = 0; i < row; i++) d[i] = (uint8_t)(i < (size_t)ch ? s[i] : s[i] - s[i - ch]);
        } else {
            const uint16_t *s16 = (const uint16_t *)s;
            uint16_t *d16 = (uint16_t *)d;
            for (size_t i = 0; i < row / 2; i++)
                d16[i] = (uint16_t)(i < (size_t)ch ? s16[i] : s16[i] - s16[i - ch]);
        }
    }
    *bytes = row * img->height;
    return p;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: tiff_strip_deflate IMAGE [REPS]\n");
        return 2;
    }
    const int reps = argc > 2 ? atoi(argv[2]) : 5;
    gi_image img;
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    if (gi_load_file(&img, argv[1], &limits) != GI_OK) {
        fprintf(stderr, "tiff_strip_deflate: %s\n", gi_last_error());
        return 1;
    }
    const int depth = img.depth ? img.depth : 8;
    const size_t row = (size_t)img.width * img.channels * (depth / 8);
    size_t n = 0;
    uint8_t *data = predicted(&img, &n);
    const uint32_t dist[3] = {1, (uint32_t)(depth / 8), (uint32_t)(img.channels * depth / 8)};
    const size_t rows = STRIP / row ? STRIP / row : 1, strip = rows * row;
    struct libdeflate_compressor *lz = libdeflate_alloc_compressor(1);
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    const size_t runs_cap = gi__deflate_runs_bound(strip), lz_cap = libdeflate_zlib_compress_bound(lz, strip);
    uint8_t *out = malloc(runs_cap > lz_cap ? runs_cap : lz_cap), *back = malloc(strip);
    double *times = malloc(sizeof *times * (size_t)(reps > 0 ? reps : 1));
    if (!data || !lz || !inflater || !out || !back || !times || reps < 1) {
        fprintf(stderr, "tiff_strip_deflate: no memory\n");
        return 1;
    }
    printf("%s: %dx%dx%d, %d bits, %zu bytes predicted, strips of %zu\n", argv[1], img.width,
           img.height, img.channels, depth, n, strip);
    int bad = 0;
    for (int coder = 0; coder < 2; coder++) {
        size_t total = 0;
        for (int r = 0; r < reps; r++) {
            total = 0;
            const double t0 = now_s();
            for (size_t at = 0; at < n; at += strip) {
                const size_t m = n - at < strip ? n - at : strip;
                const size_t z = coder ? libdeflate_zlib_compress(lz, data + at, m, out, lz_cap)
                                       : gi__deflate_runs(data + at, m, dist, 3, out, runs_cap);
                total += z;
                if (r == 0) { /* checked once, outside the timing that matters */
                    size_t got = 0;
                    bad |= !z || libdeflate_zlib_decompress(inflater, out, z, back, m, &got) !=
                                     LIBDEFLATE_SUCCESS ||
                           got != m || memcmp(back, data + at, m) != 0;
                }
            }
            times[r] = now_s() - t0;
        }
        qsort(times, (size_t)reps, sizeof *times, by_value);
        printf("  %-16s %.4f of the size, %.0f MB/s (median of %d; first run checked)\n",
               coder ? "libdeflate L1" : "deflate_runs", (double)total / (double)n,
               (double)n / times[reps / 2] / 1e6, reps);
    }
    if (bad) printf("  A STREAM DID NOT INFLATE TO ITS STRIP\n");
    libdeflate_free_compressor(lz);
    libdeflate_free_decompressor(inflater);
    free(out);
    free(back);
    free(times);
    free(data);
    gi_image_free(&img);
    return bad;
}
