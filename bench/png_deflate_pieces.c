/* The PNG deflate in pieces (lib/codec/png/zlib_pieces.h) by piece size: an
 * image's rows filtered "up" as gpuimg's default PNG filter does (stb
 * turns the first row's to none), compressed as one stream
 * (libdeflate_zlib_compress) and in pieces of each size given, on 1 and
 * on THREADS threads. Prints the zlib size and the median wall and CPU
 * time of REPS runs; the pieces' bytes must not depend on the threads.
 *   usage: png_deflate_pieces IMAGE [LEVEL [THREADS [REPS [KIB...]]]]
 *   (defaults 4, 2, 5, pieces of 256 512 1024 2048 4096 KiB) */
#define _POSIX_C_SOURCE 200809L
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuimg.h"
#include "base/pixel_alloc.h"
#include "codec/png/zlib_pieces.h"

static double clock_ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One configuration: piece_kib 0 is one stream. */
static void run(const uint8_t *data, size_t size, int level, int threads, size_t piece_kib,
                int reps, uint8_t **keep, size_t *keep_size)
{
    double wall[64], cpu[64];
    size_t n = 0;
    for (int r = 0; r < reps; r++) {
        const double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
        uint8_t *z;
        if (piece_kib == 0) {
            struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
            const size_t bound = libdeflate_zlib_compress_bound(c, size);
            z = malloc(bound);
            n = libdeflate_zlib_compress(c, data, size, z, bound);
            libdeflate_free_compressor(c);
        } else {
            z = gi__zlib_compress_pieces(data, size, level, threads, piece_kib << 10, &n, NULL);
        }
        wall[r] = clock_ms(CLOCK_MONOTONIC) - w0;
        cpu[r] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (!z || !n) {
            fprintf(stderr, "png_deflate_pieces: compression failed\n");
            exit(1);
        }
        if (keep && r == 0) {
            *keep = z;
            *keep_size = n;
        } else if (piece_kib == 0) {
            free(z);
        } else {
            gi__pixels_free(z);
        }
    }
    qsort(wall, reps, sizeof *wall, by_value);
    qsort(cpu, reps, sizeof *cpu, by_value);
    if (piece_kib) printf("pieces %5zu KiB ", piece_kib);
    else printf("one stream       ");
    printf("threads %2d  %10zu bytes  wall %7.1f ms  cpu %7.1f ms\n", threads, n, wall[reps / 2],
           cpu[reps / 2]);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: png_deflate_pieces IMAGE [LEVEL [THREADS [REPS [KIB...]]]]\n");
        return 2;
    }
    const int level = argc > 2 ? atoi(argv[2]) : 4, threads = argc > 3 ? atoi(argv[3]) : 2;
    int reps = argc > 4 ? atoi(argv[4]) : 5;
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    gi_image img;
    if (gi_load_file(&img, argv[1], NULL) != GI_OK) {
        fprintf(stderr, "png_deflate_pieces: %s\n", gi_last_error());
        return 1;
    }
    const size_t row = (size_t)img.width * img.channels, size = (row + 1) * img.height;
    uint8_t *data = malloc(size);
    if (!data) return 1;
    for (int y = 0; y < img.height; y++) {
        uint8_t *out = data + (size_t)y * (row + 1);
        const uint8_t *cur = img.data + (size_t)y * img.stride, *up = cur - img.stride;
        out[0] = y ? 2 : 0;
        for (size_t k = 0; k < row; k++) out[1 + k] = (uint8_t)(cur[k] - (y ? up[k] : 0));
    }
    printf("%s: %dx%dx%d, %zu filtered bytes, level %d\n", argv[1], img.width, img.height,
           img.channels, size, level);
    run(data, size, level, 1, 0, reps, NULL, NULL);
    static const size_t sizes[] = {256, 512, 1024, 2048, 4096};
    const int given = argc > 5 ? argc - 5 : 0;
    for (int i = 0; i < (given ? given : 5); i++) {
        const size_t kib = given ? (size_t)atol(argv[5 + i]) : sizes[i];
        uint8_t *a, *b;
        size_t na, nb;
        run(data, size, level, 1, kib, reps, &a, &na);
        run(data, size, level, threads, kib, reps, &b, &nb);
        if (na != nb || memcmp(a, b, na) != 0) {
            fprintf(stderr, "png_deflate_pieces: %d threads gave other bytes\n", threads);
            return 1;
        }
        gi__pixels_free(a);
        gi__pixels_free(b);
    }
    free(data);
    gi_image_free(&img);
    return 0;
}
