/* Decode time of one JPEG, from memory (the file is read once;
 * gi_load_memory, output in host memory as every load): it decodes REPS
 * times, and the median and the fastest are printed.
 *   usage: jpeg_decode_times FILE [REPS]                     (default 10) */
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
static double decode_ms(const void *bytes, size_t size, const char *name)
{
    gi_image img;
    double start = now_ms();
    if (gi_load_memory(&img, bytes, size, name, NULL) != GI_OK) {
        fprintf(stderr, "jpeg_decode_times: %s\n", gi_last_error());
        exit(1);
    }
    double ms = now_ms() - start;
    gi_image_free(&img);
    return ms;
}

static void report(const void *bytes, size_t size, const char *name, int reps)
{
    double *ms = malloc(sizeof *ms * reps);
    if (!ms) exit(1);
    for (int i = 0; i < reps; i++) ms[i] = decode_ms(bytes, size, name);
    qsort(ms, reps, sizeof *ms, by_value);
    printf("%-11s median %8.2f ms   fastest %8.2f ms   (%d decodes)\n", gi_last_codec(),
           ms[reps / 2], ms[0], reps);
    free(ms);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: jpeg_decode_times FILE [REPS]\n");
        return 2;
    }
    int reps = argc == 3 ? atoi(argv[2]) : 10;
    if (reps < 1) reps = 1;
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
    if (gi_load_memory(&img, bytes, (size_t)size, argv[1], NULL) != GI_OK) {
        fprintf(stderr, "jpeg_decode_times: %s\n", gi_last_error());
        return 1;
    }
    printf("%s: %dx%d, %d channels, %ld bytes\n", argv[1], img.width, img.height, img.channels,
           size);
    gi_image_free(&img);
    report(bytes, (size_t)size, argv[1], reps);
    free(bytes);
    return 0;
}
