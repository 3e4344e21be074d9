/* libFuzzer target: gi_load_memory on any bytes (the PNG and JPEG decoders
 * of stb behind the header check and the limits, and the Netpbm decoder),
 * then the same bytes as a stream through gi_reader, which splits them
 * into images as a pipe from ffmpeg would be split. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "gpuimg.h"

/* Small enough that a lying header cannot make one run slow. */
#define FUZZ_MAX_PIXELS (1u << 22)

static void check_image(const gi_image *img)
{
    FUZZ_REQUIRE(img->width >= 1 && img->height >= 1 && img->channels >= 1 && img->channels <= 4);
    FUZZ_REQUIRE((uint64_t)img->width * (uint64_t)img->height <= FUZZ_MAX_PIXELS);
    FUZZ_REQUIRE(img->stride == (size_t)img->width * (size_t)img->channels);
    /* Read every byte: a short buffer or uninitialised pixels show here. */
    unsigned sum = 0;
    for (size_t i = 0; i < img->stride * (size_t)img->height; i++) sum += img->data[i];
    volatile unsigned sink = sum;
    (void)sink;
}

/* The bytes as a file read by gi_reader: every image it returns is
 * whole, a failure names the file, and it ends in at most one image per
 * two bytes (the shortest PNM is longer). */
static void check_stream(const uint8_t *data, size_t size, const gi_load_limits *limits)
{
    int fd = memfd_create("fuzz-stream", 0);
    if (fd < 0) return;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    gi_reader *reader;
    if (write(fd, data, size) == (ssize_t)size && gi_reader_open(&reader, path, limits) == GI_OK) {
        for (size_t n = 0;; n++) {
            FUZZ_REQUIRE(n <= size / 2 + 1);
            gi_image img;
            gi_status st = gi_reader_next(reader, &img);
            if (st != GI_OK) {
                FUZZ_REQUIRE(img.data == NULL && strstr(gi_last_error(), path) != NULL);
                break;
            }
            if (!img.data) break;
            check_image(&img);
            gi_image_free(&img);
        }
        gi_reader_close(reader);
    }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    limits.max_pixels = FUZZ_MAX_PIXELS;
    gi_image img;
    gi_status st = gi_load_memory(&img, data, size, "fuzz-input", &limits);
    if (st != GI_OK) {
        /* A failure leaves no image and a reason that names the input. */
        FUZZ_REQUIRE(img.data == NULL && img.width == 0);
        FUZZ_REQUIRE(strstr(gi_last_error(), "fuzz-input") != NULL);
    } else {
        check_image(&img);
        gi_image_free(&img);
    }
    check_stream(data, size, &limits);
    return 0;
}
