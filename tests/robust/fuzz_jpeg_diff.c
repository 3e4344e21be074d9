/* libFuzzer target: the exact JPEG decoder (lib/codec/jpeg/jpeg_decode.c)
 * against stb_image on the same bytes. Whatever ours decodes, stb must
 * decode to the same size, channels and pixels, byte for byte; what ours
 * leaves is stb's alone (gi_load_memory hands it on), so there is nothing
 * to compare. Inputs go through the checks gi_load_memory makes before any
 * decoder (a JPEG signature, the Huffman tables stb would index past its
 * arrays with), so stb sees only what the product gives it. The thread
 * count of the arithmetic half (1-4) comes from the input's size.
 *
 * The same bytes read with the scan deferred for the GPU's Huffman decoder
 * (jpeg_deferred.h): the unstuffed data and its segments must describe the
 * scan within the file, and the CPU's decode of the kept file must give the
 * CPU decoder's verdict. */
#include <limits.h>
#include <string.h>

#include "codec/format_sniff.h"
#include "fuzz.h"
#include "gpuimg.h"
#include "codec/jpeg/jpeg_decode.h"
#include "codec/jpeg/jpeg_deferred.h"
#include "codec/jpeg/jpeg_parse.h"

/* Small enough that a lying header cannot make one run slow. */
#define FUZZ_MAX_PIXELS (1u << 22)

/* The deferred scan's layout, and its CPU decode's verdict (`mine`: the
 * CPU decoder takes the file). */
static void check_deferred(const uint8_t *data, size_t size, int mine)
{
    gi_jpeg_coeffs c;
    if (gi__jpeg_read_coeffs(data, size, FUZZ_MAX_PIXELS, 1, 1, NULL, &c) != GI_JPEG_OK) {
        FUZZ_REQUIRE(!mine);
        return;
    }
    const gi_jpeg_deferred *d = c.deferred;
    if (d) {
        FUZZ_REQUIRE(c.storage == NULL && d->segments >= 1 && d->unit_blocks >= 1 &&
                     d->unit_blocks <= GI_JPEG_MAX_UNIT_BLOCKS && d->ntables >= 1 &&
                     d->ntables <= 8 && d->segment_start[0] == 0 && d->subseq_first[0] == 0);
        for (int s = 0; s < d->segments; s++) {
            FUZZ_REQUIRE(d->segment_start[s] <= d->segment_start[s + 1]);
            FUZZ_REQUIRE(d->subseq_first[s] < d->subseq_first[s + 1]);
        }
        FUZZ_REQUIRE(d->segment_start[d->segments] <= size);
        FUZZ_REQUIRE(d->data_at + d->segment_start[d->segments] + GI_JPEG_DATA_PAD <= d->bytes);
        for (int b = 0; b < d->unit_blocks; b++)
            FUZZ_REQUIRE(d->block[b].comp < c.ncomp && d->block[b].dc < d->ntables &&
                         d->block[b].ac < d->ntables);
        gi_jpeg_coeffs full;
        int r = gi__jpeg_decode_deferred(&c, 1, &full);
        FUZZ_REQUIRE(r != GI_JPEG_OK || mine); /* the CPU's decode, as without deferral */
        FUZZ_REQUIRE(!mine || r == GI_JPEG_OK);
        gi__jpeg_coeffs_free(&full);
    }
    gi__jpeg_coeffs_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[64];
    if (size > INT_MAX || gi__sniff_format(data, size) != GI_FORMAT_JPEG ||
        gi__jpeg_check_tables(data, size, why, sizeof why) != 0)
        return 0;
    gi_image ours;
    int mine = gi__jpeg_decode(&ours, data, size, FUZZ_MAX_PIXELS, 1 + (int)(size % 4));
    check_deferred(data, size, mine);
    if (!mine) return 0;
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
