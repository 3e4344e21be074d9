/* libFuzzer target: gi_load_memory on any bytes (the PNG and JPEG decoders
 * of stb behind the header check and the limits, the fast PNG decoder of
 * builds with libdeflate, whose pixels must be stb's, and the Netpbm
 * decoder),
 * then the same bytes as a stream through gi_reader, which splits them
 * into images as a pipe from ffmpeg would be split, and the metadata read
 * from them (gi_metadata_read), written into a PNG and a JPEG
 * (gi_metadata_embed) and read back unchanged. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codec/format_sniff.h"
#include "codec/png/png_check.h"
#include "fuzz.h"
#include "gpuimg.h"

/* Small enough that a lying header cannot make one run slow. */
#define FUZZ_MAX_PIXELS (1u << 22)

static void check_image(const gi_image *img)
{
    FUZZ_REQUIRE(img->width >= 1 && img->height >= 1 && img->channels >= 1 && img->channels <= 4);
    FUZZ_REQUIRE((uint64_t)img->width * (uint64_t)img->height <= FUZZ_MAX_PIXELS);
    FUZZ_REQUIRE(img->stride == (size_t)img->width * (size_t)img->channels *
                               (size_t)gi_image_sample_bytes(img));
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

static int same(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && (an == 0 || (a && b && memcmp(a, b, an) == 0));
}

/* What was kept goes into `format` and comes back byte for byte (in JPEG,
 * where it fits), with the same orientation. */
static void check_round_trip(const gi_metadata *m, gi_format format)
{
    static uint8_t *encoded[3];
    static size_t encoded_size[3];
    if (!encoded[format]) {
        gi_image img;
        gi_save_options opts = {.format = format};
        FUZZ_REQUIRE(gi_image_alloc(&img, 2, 2, 3) == GI_OK);
        memset(img.data, 7, 12);
        FUZZ_REQUIRE(gi_encode(&img, &opts, &encoded[format], &encoded_size[format]) == GI_OK);
        gi_image_free(&img);
    }
    uint8_t *out;
    size_t out_size;
    gi_metadata back;
    gi_status st = gi_metadata_embed(encoded[format], encoded_size[format], format, m, &out,
                                     &out_size);
    if (st == GI_ERR_NO_MEMORY) return;
    FUZZ_REQUIRE(st == GI_OK);
    FUZZ_REQUIRE(gi_metadata_read(out, out_size, &back) == GI_OK);
    if (format == GI_FORMAT_PNG || gi_metadata_unwritable(m, format, NULL, 0) == 0) {
        FUZZ_REQUIRE(same(back.exif, back.exif_size, m->exif, m->exif_size));
        FUZZ_REQUIRE(same(back.icc, back.icc_size, m->icc, m->icc_size));
        FUZZ_REQUIRE(same(back.xmp, back.xmp_size, m->xmp, m->xmp_size));
        FUZZ_REQUIRE(back.orientation == m->orientation);
    }
    gi_metadata_free(&back);
    gi_free(out);
}

static void check_metadata(const uint8_t *data, size_t size)
{
    gi_metadata m;
    if (gi_metadata_read(data, size, &m) != GI_OK) {
        FUZZ_REQUIRE(gi_metadata_empty(&m));
        return;
    }
    FUZZ_REQUIRE(m.orientation >= 1 && m.orientation <= 8);
    FUZZ_REQUIRE(m.icc_size <= GI_METADATA_MAX_BYTES && m.xmp_size <= size + GI_METADATA_MAX_BYTES);
    FUZZ_REQUIRE(memchr(m.dropped, 0, sizeof m.dropped) != NULL);
    check_round_trip(&m, GI_FORMAT_PNG);
    check_round_trip(&m, GI_FORMAT_JPEG);
    FUZZ_REQUIRE(gi_metadata_set_orientation(&m, 1) == GI_OK && m.orientation == 1);
    gi_metadata_free(&m);
    FUZZ_REQUIRE(gi_metadata_empty(&m));
}

/* What the fast PNG decoder made is what stb makes of the same bytes: the
 * file without its ancillary chunks that fail their CRC, which the
 * decoders drop (png_check.h; regression png-damaged-trns-dropped, a tRNS
 * stb alone would have read). */
static void check_same_as_stb(const gi_image *img, const uint8_t *data, size_t size)
{
    char why[64];
    int damaged = 0;
    uint8_t *kept = NULL;
    if (gi__png_check_crcs(data, size, &damaged, why, sizeof why) == 0 && damaged) {
        FUZZ_REQUIRE(gi__png_drop_damaged(data, size, &kept, &size) == 0);
        data = kept;
    }
    int w, h, comp;
    FUZZ_REQUIRE(gi__stb_info_as(data, (int)size, GI_FORMAT_PNG, &w, &h, &comp));
    gi_image stb = {0, 0, img->channels, img->stride, NULL, 1, 8};
    stb.data = gi__stb_load_as(data, (int)size, GI_FORMAT_PNG, &stb.width, &stb.height,
                               img->channels, &stb.depth);
    FUZZ_REQUIRE(stb.data && stb.width == img->width && stb.height == img->height &&
                 comp == img->channels && stb.depth == 8);
    FUZZ_REQUIRE(memcmp(stb.data, img->data, img->stride * (size_t)img->height) == 0);
    gi_image_free(&stb);
    free(kept);
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
        if (strcmp(gi_last_codec(), "libdeflate") == 0) check_same_as_stb(&img, data, size);
        gi_image_free(&img);
    }
    check_stream(data, size, &limits);
    check_metadata(data, size);
    return 0;
}
