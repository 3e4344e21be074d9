/* libFuzzer target: the TIFF reader (lib/codec/tiff, libtiff behind the
 * checks and the limits) on any bytes. A failure leaves no image and
 * names the input; a decoded image is whole (every byte read), and the
 * writer's TIFF of it decodes to the same samples; on 3 decode threads the
 * samples, or the failure and its message, are the same as on one. The
 * page count and the metadata are read from the same bytes. In a build without libtiff every
 * input is refused, saying so. */
#include <stdio.h>
#include <string.h>

#include "codec/tiff/gi_tiff.h"
#include "fuzz.h"
#include "gpuimg.h"

/* Small enough that a lying header cannot make one run slow. */
#define FUZZ_MAX_PIXELS (1u << 22)

static void check_image(const gi_image *img)
{
    FUZZ_REQUIRE(img->width >= 1 && img->height >= 1 && img->channels >= 1 && img->channels <= 4);
    FUZZ_REQUIRE(img->depth == 8 || img->depth == 16);
    FUZZ_REQUIRE((uint64_t)img->width * (uint64_t)img->height <= FUZZ_MAX_PIXELS);
    FUZZ_REQUIRE(img->stride == (size_t)img->width * (size_t)img->channels * (size_t)(img->depth / 8));
    unsigned sum = 0;
    for (size_t i = 0; i < img->stride * (size_t)img->height; i++) sum += img->data[i];
    volatile unsigned sink = sum;
    (void)sink;
}

static void check_rewritten(const gi_image *img, gi_tiff_compression compression)
{
    uint8_t *bytes;
    size_t size;
    const gi_save_options opts = {.format = GI_FORMAT_TIFF, .encode_threads = 2,
                                  .tiff_compression = compression};
    gi_status st = gi__tiff_encode(img, &opts, &bytes, &size);
    if (st == GI_ERR_NO_MEMORY) return;
    FUZZ_REQUIRE(st == GI_OK);
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    gi_image back;
    FUZZ_REQUIRE(gi__tiff_decode(&back, bytes, size, "rewritten", &limits) == GI_OK);
    FUZZ_REQUIRE(back.width == img->width && back.height == img->height &&
                 back.channels == img->channels && back.depth == img->depth &&
                 memcmp(back.data, img->data, img->stride * (size_t)img->height) == 0);
    gi_image_free(&back);
    free(bytes);
}

/* Decoding on 3 threads ends as decoding on one did: the same samples, or
 * the same failure and message (`why`). */
static void check_threads_agree(const uint8_t *data, size_t size, gi_load_limits limits,
                                gi_status st, const gi_image *img, const char *why)
{
    limits.decode_threads = 3;
    gi_image again;
    FUZZ_REQUIRE(gi__tiff_decode(&again, data, size, "fuzz-input", &limits) == st);
    if (st != GI_OK) {
        FUZZ_REQUIRE(strcmp(gi_last_error(), why) == 0);
        return;
    }
    FUZZ_REQUIRE(again.stride == img->stride && again.height == img->height &&
                 memcmp(again.data, img->data, img->stride * (size_t)img->height) == 0);
    gi_image_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    limits.max_pixels = FUZZ_MAX_PIXELS;
    gi_image img;
    gi_status st = gi__tiff_decode(&img, data, size, "fuzz-input", &limits);
    char why[1024]; /* gi_last_error's size */
    snprintf(why, sizeof why, "%s", st == GI_OK ? "" : gi_last_error());
    check_threads_agree(data, size, limits, st, &img, why);
    if (st != GI_OK) {
        FUZZ_REQUIRE(img.data == NULL && img.width == 0);
        FUZZ_REQUIRE(strstr(gi_last_error(), "fuzz-input") != NULL);
        FUZZ_REQUIRE(gi__tiff_available() || st == GI_ERR_UNSUPPORTED);
    } else {
        check_image(&img);
        check_rewritten(&img, GI_TIFF_DEFLATE);
        check_rewritten(&img, GI_TIFF_UNCOMPRESSED);
        gi_image_free(&img);
    }
    char note[120] = "";
    if (gi__tiff_pages_note(data, size, note, sizeof note)) FUZZ_REQUIRE(strstr(note, "pages"));
    gi_metadata m = {0};
    m.orientation = 1;
    if (gi__tiff_metadata_read(data, size, &m) == 0)
        FUZZ_REQUIRE(m.icc_size <= GI_METADATA_MAX_BYTES && m.xmp_size <= GI_METADATA_MAX_BYTES);
    gi_metadata_free(&m);
    return 0;
}
