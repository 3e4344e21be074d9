/* Decode time of one JPEG, from memory (the file is read once;
 * gi_load_memory, output in host memory as every load): it decodes REPS
 * times on THREADS threads (gi_load_limits.decode_threads: a lone file's
 * decode in a batch, a served call or `gpuimg hist`), and the median and
 * the fastest are printed. Each decode after the first reuses the buffers
 * the one before freed, as a server does.
 *   usage: jpeg_decode_times FILE [REPS [THREADS]]           (default 10, 1) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuimg.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed decode; exits on failure (a benchmark has nothing to go on). */
static double decode_ms(const void *bytes, size_t size, const char *name,
                        const gi_load_limits *limits)
{
    gi_image img;
    double start = now_ms();
    if (gi_load_memory(&img, bytes, size, name, limits) != GI_OK) {
        fprintf(stderr, "jpeg_decode_times: %s\n", gi_last_error());
        exit(1);
    }
    double ms = now_ms() - start;
    gi_image_free(&img);
    return ms;
}

static void report(const void *bytes, size_t size, const char *name, int reps,
                   const gi_load_limits *limits)
{
    double *ms = malloc(sizeof *ms * reps);
    if (!ms) exit(1);
    for (int i = 0; i < reps; i++) ms[i] = decode_ms(bytes, size, name, limits);
    qsort(ms, reps, sizeof *ms, by_value);
    printf("%-11s median %8.2f ms   fastest %8.2f ms   (%d decodes, %d threads)\n",
           gi_last_codec(), ms[reps / 2], ms[0], reps, limits->decode_threads);
    free(ms);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: jpeg_decode_times FILE [REPS [THREADS]]\n");
        return 2;
    }
    int reps = argc >= 3 ? atoi(argv[2]) : 10;
    if (reps < 1) reps = 1;
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    limits.decode_threads = argc == 4 ? atoi(argv[3]) : 1;
    if (limits.decode_threads < 1 || limits.decode_threads > 256) {
        fprintf(stderr, "jpeg_decode_times: THREADS must be 1..256\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    void *bytes = malloc(size > 0 ? (size_t)size : 1);
    if (!bytes || size <= 0 || fread(bytes, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "jpeg_decode_times: cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    gi_image img;
    if (gi_load_memory(&img, bytes, (size_t)size, argv[1], &limits) != GI_OK) {
        fprintf(stderr, "jpeg_decode_times: %s\n", gi_last_error());
        return 1;
    }
    printf("%s: %dx%d, %d channels, %ld bytes\n", argv[1], img.width, img.height, img.channels,
           size);
    gi_image_free(&img);
    report(bytes, (size_t)size, argv[1], reps, &limits);
    free(bytes);
    return 0;
}
