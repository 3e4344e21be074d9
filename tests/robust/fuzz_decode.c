/* libFuzzer target: gi_load_memory on any bytes (the PNG and JPEG decoders
 * of stb behind the header check and the limits). */
#include <string.h>

#include "fuzz.h"
#include "gpuimg.h"

/* Small enough that a lying header cannot make one run slow. */
#define FUZZ_MAX_PIXELS (1u << 22)

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
        return 0;
    }
    FUZZ_REQUIRE(img.width >= 1 && img.height >= 1 && img.channels >= 1 && img.channels <= 4);
    FUZZ_REQUIRE((uint64_t)img.width * (uint64_t)img.height <= FUZZ_MAX_PIXELS);
    FUZZ_REQUIRE(img.stride == (size_t)img.width * (size_t)img.channels);
    /* Read every byte: a short buffer or uninitialised pixels show here. */
    unsigned sum = 0;
    for (size_t i = 0; i < img.stride * (size_t)img.height; i++) sum += img.data[i];
    volatile unsigned sink = sum;
    (void)sink;
    gi_image_free(&img);
    return 0;
}
