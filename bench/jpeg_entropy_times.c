/* The JPEG decoder's entropy half (markers and Huffman decoding into
 * coefficients, gi__jpeg_read_coeffs) against libjpeg-turbo's
 * (jpeg_read_coefficients: the same work, into whole-image coefficient
 * arrays; where the build found libjpeg) and against stb_image 2.27's
 * whole decode (compiled in here, as gpuimg calls it: 3 channels for
 * colour, 1 for gray), each file read once into memory, REPS times each,
 * alternated; medians of CPU time (the process is single-threaded) in
 * milliseconds.
 * With -t THREADS the entropy half decodes restart intervals on threads:
 * its CPU time is then summed over them (see the wall time elsewhere).
 *   usage: jpeg_entropy_times [-r REPS] [-t THREADS] FILE...   (9, 1) */
#define _POSIX_C_SOURCE 200809L
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#include "codec/stb_warnings.h"
GI_STB_WARNINGS_OFF
#include <stb_image.h>
GI_STB_WARNINGS_ON
#pragma GCC diagnostic ignored "-Wunused-function" /* stb_warnings.h says why */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/jpeg/jpeg_parse.h"

#ifdef GI_BENCH_LIBJPEG
#include <jpeglib.h>

static double now_ms(void);

static double time_libjpeg(const uint8_t *bytes, size_t size)
{
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr err;
    d.err = jpeg_std_error(&err);
    double t = now_ms();
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, bytes, (unsigned long)size);
    jpeg_read_header(&d, TRUE);
    (void)jpeg_read_coefficients(&d);
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    return now_ms() - t;
}
#else
static double time_libjpeg(const uint8_t *bytes, size_t size)
{
    (void)bytes;
    (void)size;
    return 0;
}
#endif

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU time: the machine may be shared */
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

static double time_entropy(const uint8_t *bytes, size_t size, int threads, int *ours)
{
    gi_jpeg_coeffs c;
    double t = now_ms();
    *ours = gi__jpeg_read_coeffs(bytes, size, 1ull << 32, threads, 0, 0, NULL, &c) == GI_JPEG_OK;
    t = now_ms() - t;
    gi__jpeg_coeffs_free(&c);
    return t;
}

static double time_stb(const uint8_t *bytes, size_t size)
{
    int w, h, comp;
    if (!stbi_info_from_memory(bytes, (int)size, &w, &h, &comp)) return -1;
    double t = now_ms();
    uint8_t *p = stbi_load_from_memory(bytes, (int)size, &w, &h, &comp, comp);
    t = now_ms() - t;
    if (!p) return -1;
    stbi_image_free(p);
    return t;
}

int main(int argc, char **argv)
{
    int reps = 9, threads = 1, first = 1;
    while (first + 1 < argc && (!strcmp(argv[first], "-r") || !strcmp(argv[first], "-t"))) {
        *(argv[first][1] == 'r' ? &reps : &threads) = atoi(argv[first + 1]);
        first += 2;
    }
    if (reps < 1 || threads < 1 || first >= argc) {
        fprintf(stderr, "usage: jpeg_entropy_times [-r REPS] [-t THREADS] FILE...\n");
        return 2;
    }
    double *ent = malloc(sizeof *ent * reps), *stb = malloc(sizeof *stb * reps);
    double *lj = malloc(sizeof *lj * reps);
    printf("%-36s %10s %11s %10s %8s %8s\n", "file", "entropy", "libjpeg-t.", "stb", "ent/lj",
           "ent/stb");
    for (int i = first; i < argc; i++) {
        size_t size;
        uint8_t *bytes = read_all(argv[i], &size);
        if (!bytes) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            return 1;
        }
        int ours = 0;
        for (int r = 0; r < reps; r++) {
            ent[r] = time_entropy(bytes, size, threads, &ours);
            lj[r] = time_libjpeg(bytes, size);
            stb[r] = time_stb(bytes, size);
        }
        qsort(ent, reps, sizeof *ent, by_value);
        qsort(lj, reps, sizeof *lj, by_value);
        qsort(stb, reps, sizeof *stb, by_value);
        const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        printf("%-36.36s %7.2f ms %8.2f ms %7.2f ms %8.2f %8.3f%s\n", base, ent[reps / 2],
               lj[reps / 2], stb[reps / 2], ent[reps / 2] / lj[reps / 2],
               ent[reps / 2] / stb[reps / 2], ours ? "" : "  (left to stb)");
        free(bytes);
    }
    free(ent);
    free(lj);
    free(stb);
    return 0;
}
