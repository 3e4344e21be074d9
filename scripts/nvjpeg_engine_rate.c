/* nvjpeg_engine_rate: how many images a second the JPEG engines decode
 * when T threads each call nvjpegDecodeBatched on groups of N files, with
 * a state and a stream apiece, as the device lanes of lib/batch.c do; and,
 * with ENCODE=1, when each thread also encodes every decoded image with
 * nvJPEG (quality 90, 4:2:0) as the lanes do. It tells the engines' own
 * rate from what the lanes' other work costs. On the GPU machine:
 *   cc -O2 -pthread -I/usr/local/cuda/include nvjpeg_engine_rate.c \
 *      -L/usr/local/cuda/lib64 -lnvjpeg -lcudart -o rate
 *   ./rate THREADS GROUP ROUNDS FILE.jpg [FILE.jpg...]
 * The files (all baseline JPEGs the engines take) are read once; each
 * group takes them in turn. Prints images/s over the timed rounds (after
 * one untimed round per thread). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cuda_runtime_api.h>
#include <nvjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void check(const char *what, int failed)
{
    if (failed) {
        fprintf(stderr, "%s: failed (%d)\n", what, failed);
        exit(1);
    }
}

static nvjpegHandle_t handle;
static int group, rounds, n_files, encode;
static unsigned char **file_bytes;
static size_t *file_sizes;
static int *widths, *heights;
static pthread_barrier_t start_line;

static void *lane(void *arg)
{
    int id = (int)(long)arg;
    nvjpegJpegState_t state;
    cudaStream_t stream;
    check("cudaStreamCreate", cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    check("nvjpegJpegStateCreate", nvjpegJpegStateCreate(handle, &state));
    check("nvjpegDecodeBatchedInitialize",
          nvjpegDecodeBatchedInitialize(handle, state, group, 1, NVJPEG_OUTPUT_RGBI));
    nvjpegEncoderState_t es;
    nvjpegEncoderParams_t ep;
    check("nvjpegEncoderStateCreate", nvjpegEncoderStateCreate(handle, &es, stream));
    check("nvjpegEncoderParamsCreate", nvjpegEncoderParamsCreate(handle, &ep, stream));
    check("quality", nvjpegEncoderParamsSetQuality(ep, 90, stream));
    check("sampling", nvjpegEncoderParamsSetSamplingFactors(ep, NVJPEG_CSS_420, stream));
    const unsigned char **data = malloc(sizeof *data * group);
    size_t *sizes = malloc(sizeof *sizes * group);
    nvjpegImage_t *out = calloc(group, sizeof *out);
    int *which = malloc(sizeof *which * group);
    for (int i = 0; i < group; i++) {
        int f = (id + i) % n_files;
        which[i] = f;
        data[i] = file_bytes[f];
        sizes[i] = file_sizes[f];
        out[i].pitch[0] = (size_t)widths[f] * 3;
        check("cudaMalloc", cudaMalloc((void **)&out[i].channel[0],
                                       out[i].pitch[0] * heights[f]));
    }
    unsigned char *bitstream = malloc(64u << 20);
    for (int r = 0; r <= rounds; r++) {
        if (r == 1) pthread_barrier_wait(&start_line); /* round 0 warms up */
        check("nvjpegDecodeBatched",
              nvjpegDecodeBatched(handle, state, data, sizes, out, stream));
        check("cudaStreamSynchronize", cudaStreamSynchronize(stream));
        for (int i = 0; encode && i < group; i++) {
            int f = which[i];
            check("nvjpegEncodeImage", nvjpegEncodeImage(handle, es, ep, &out[i],
                                                         NVJPEG_INPUT_RGBI, widths[f],
                                                         heights[f], stream));
            size_t length = 64u << 20;
            check("nvjpegEncodeRetrieveBitstream",
                  nvjpegEncodeRetrieveBitstream(handle, es, bitstream, &length, stream));
            check("cudaStreamSynchronize", cudaStreamSynchronize(stream));
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return fprintf(stderr, "usage: rate THREADS GROUP ROUNDS FILE.jpg...\n"), 2;
    int threads = atoi(argv[1]);
    group = atoi(argv[2]);
    rounds = atoi(argv[3]);
    n_files = argc - 4;
    encode = getenv("ENCODE") && atoi(getenv("ENCODE"));
    file_bytes = calloc(n_files, sizeof *file_bytes);
    file_sizes = calloc(n_files, sizeof *file_sizes);
    widths = calloc(n_files, sizeof *widths);
    heights = calloc(n_files, sizeof *heights);
    check("cudaFree(0)", cudaFree(0));
    check("nvjpegCreateEx", nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, 0, &handle));
    for (int f = 0; f < n_files; f++) {
        FILE *in = fopen(argv[4 + f], "rb");
        check(argv[4 + f], !in);
        fseek(in, 0, SEEK_END);
        file_sizes[f] = (size_t)ftell(in);
        rewind(in);
        file_bytes[f] = malloc(file_sizes[f]);
        check("fread", fread(file_bytes[f], 1, file_sizes[f], in) != file_sizes[f]);
        fclose(in);
        int components, w[NVJPEG_MAX_COMPONENT], h[NVJPEG_MAX_COMPONENT];
        nvjpegChromaSubsampling_t sub;
        check("nvjpegGetImageInfo", nvjpegGetImageInfo(handle, file_bytes[f], file_sizes[f],
                                                       &components, &sub, w, h));
        widths[f] = w[0];
        heights[f] = h[0];
    }
    pthread_barrier_init(&start_line, NULL, (unsigned)threads + 1);
    pthread_t *t = malloc(sizeof *t * threads);
    for (int i = 0; i < threads; i++)
        check("pthread_create", pthread_create(&t[i], NULL, lane, (void *)(long)i));
    pthread_barrier_wait(&start_line);
    double start = now_ms();
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    double ms = now_ms() - start;
    int images = threads * group * rounds;
    printf("threads %d group %d%s: %d images in %.1f ms, %.0f images/s\n", threads, group,
           encode ? " +encode" : "", images, ms, images / ms * 1e3);
    return 0;
}
