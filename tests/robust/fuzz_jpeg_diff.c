/* libFuzzer target: the exact JPEG decoder (lib/codec/jpeg_decode.c)
 * against stb_image on the same bytes. Whatever ours decodes, stb must
 * decode to the same size, channels and pixels, byte for byte; what ours
 * leaves is stb's alone (gi_load_memory hands it on), so there is nothing
 * to compare. Inputs go through the checks gi_load_memory makes before any
 * decoder (a JPEG signature, the Huffman tables stb would index past its
 * arrays with), so stb sees only what the product gives it. The thread
 * count of the arithmetic half (1-4) comes from the input's size. */
#include <limits.h>
#include <string.h>

#include "format_sniff.h"
#include "fuzz.h"
#include "gpuimg.h"
#include "jpeg_decode.h"

/* Small enough that a lying header cannot make one run slow. */
#define FUZZ_MAX_PIXELS (1u << 22)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INT_MAX || gi__sniff_format(data, size) != GI_FORMAT_JPEG ||
        gi__jpeg_check_huffman(data, size) != 0)
        return 0;
    gi_image ours;
    if (!gi__jpeg_decode(&ours, data, size, FUZZ_MAX_PIXELS, 1 + (int)(size % 4))) return 0;
    FUZZ_REQUIRE(ours.width >= 1 && ours.height >= 1 &&
                 (uint64_t)ours.width * (uint64_t)ours.height <= FUZZ_MAX_PIXELS);
    FUZZ_REQUIRE(ours.channels == 1 || ours.channels == 3);
    int w, h, comp;
    FUZZ_REQUIRE(gi__stb_info_as(data, (int)size, GI_FORMAT_JPEG, &w, &h, &comp));
    FUZZ_REQUIRE(w == ours.width && h == ours.height && comp == ours.channels);
    gi_image stb = {0, 0, comp, (size_t)w * (size_t)comp, NULL, 1};
    stb.data = gi__stb_load_as(data, (int)size, GI_FORMAT_JPEG, &stb.width, &stb.height, comp);
    FUZZ_REQUIRE(stb.data != NULL); /* ours decoded a file that stb refuses */
    FUZZ_REQUIRE(stb.width == w && stb.height == h);
    for (int y = 0; y < h; y++)
        FUZZ_REQUIRE(memcmp(ours.data + (size_t)y * ours.stride, stb.data + (size_t)y * stb.stride,
                            stb.stride) == 0);
    gi_image_free(&stb);
    gi_image_free(&ours);
    return 0;
}
