/* JPEG files decoded into device memory, images/s: gpuimg's side of the
 * comparison with nvImageCodec (bench/nvimgcodec_decode.py).
 *   usage: jpeg_device_decode [-t THREADS] [-r ROUNDS] FILE...
 *
 * Reads the files into memory, then THREADS threads (default 16), each
 * with its own CUDA context (its own stream and buffers, as a batch's
 * lanes have), take the files in turn and run a histogram job on each
 * (gi_job_run_memory): the entropy half's markers and unstuffing on the
 * thread, Huffman decoding, IDCT, upsampling and colour conversion into
 * device memory, then the histogram kernel reads the pixels once and 256
 * counts a channel come back. One untimed pass warms every context; then
 * ROUNDS (default 3) timed passes, best and median printed. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuimg.h"

typedef struct {
    void *bytes;
    size_t size;
    const char *name;
} input;

static input *inputs;
static int n_inputs;
static int next_input;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static gi_job job;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
    gi_context *ctx = arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        int i = next_input++;
        pthread_mutex_unlock(&lock);
        if (i >= n_inputs) return NULL;
        static gi_histogram h; /* 2 MiB each: not on the stack */
        if (gi_job_run_memory(ctx, &job, inputs[i].bytes, inputs[i].size, inputs[i].name, NULL,
                              NULL, &h) != GI_OK) {
            fprintf(stderr, "jpeg_device_decode: %s\n", gi_last_error());
            exit(1);
        }
    }
}

static double pass(gi_context **ctx, int threads)
{
    pthread_t tid[256];
    next_input = 0;
    double start = now_s();
    for (int t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, worker, ctx[t]) != 0) {
            fprintf(stderr, "jpeg_device_decode: cannot start a thread\n");
            exit(1);
        }
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    return n_inputs / (now_s() - start);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int threads = 16, rounds = 3, a = 1;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (strcmp(argv[a], "-t") == 0) threads = atoi(argv[a + 1]);
        else if (strcmp(argv[a], "-r") == 0) rounds = atoi(argv[a + 1]);
        else break;
    }
    if (a >= argc || threads < 1 || threads > 256 || rounds < 1 || rounds > 100) {
        fprintf(stderr, "usage: jpeg_device_decode [-t THREADS] [-r ROUNDS] FILE...\n");
        return 2;
    }
    n_inputs = argc - a;
    inputs = calloc((size_t)n_inputs, sizeof *inputs);
    if (!inputs) return 1;
    for (int i = 0; i < n_inputs; i++) {
        inputs[i].name = argv[a + i];
        FILE *f = fopen(argv[a + i], "rb");
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
        if (size > 0 && fseek(f, 0, SEEK_SET) == 0 && (inputs[i].bytes = malloc((size_t)size)) &&
            fread(inputs[i].bytes, 1, (size_t)size, f) == (size_t)size) {
            inputs[i].size = (size_t)size;
        } else {
            fprintf(stderr, "jpeg_device_decode: cannot read %s\n", argv[a + i]);
            return 1;
        }
        fclose(f);
    }
    gi_op hist = {.kind = GI_OP_HIST, .bins = 256};
    gi_job_default(&job);
    job.steps = &hist;
    job.n_steps = 1;
    job.strip = 1;
    gi_context *ctx[256];
    gi_context_options opts = {GI_DEVICE_CUDA, 0, 0};
    for (int t = 0; t < threads; t++)
        if (gi_context_create(&ctx[t], &opts) != GI_OK) {
            fprintf(stderr, "jpeg_device_decode: %s\n", gi_last_error());
            return 1;
        }
    pass(ctx, threads); /* warm: every context's start-up and buffers */
    double rate[100];
    for (int r = 0; r < rounds; r++) rate[r] = pass(ctx, threads);
    qsort(rate, (size_t)rounds, sizeof *rate, by_value);
    printf("gpuimg, %d threads: %d files, best %.0f images/s, median %.0f\n", threads, n_inputs,
           rate[rounds - 1], rate[rounds / 2]);
    for (int t = 0; t < threads; t++) gi_context_destroy(ctx[t]);
    return 0;
}
