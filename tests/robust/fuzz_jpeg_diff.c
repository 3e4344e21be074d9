/* libFuzzer target: the exact JPEG decoder (lib/codec/jpeg/jpeg_decode.c)
 * against stb_image on the same bytes. Whatever ours decodes, stb must
 * decode to the same size, channels and pixels, byte for byte; what ours
 * leaves is stb's alone (gi_load_memory hands it on), so there is nothing
 * to compare. Inputs go through the checks gi_load_memory makes before any
 * decoder (a JPEG signature, the Huffman tables stb would index past its
 * arrays with), so stb sees only what the product gives it. The thread
 * count of the arithmetic half (1-4) comes from the input's size.
 *
 * The same bytes read with the scans deferred for the GPU's Huffman decoder
 * (jpeg_deferred.h), baseline and progressive: each scan's unstuffed data
 * and segments must describe it within the file, and the CPU's decode of
 * the kept file must give the CPU decoder's verdict.
 *
 * And read for a thumbnail (shrink_to: AC coefficients that the shrunk
 * planes do not read are not decoded, a progressive file's AC scans of
 * them skipped, a baseline file's codes passed over; jpeg_shrink.h): where the
 * decoder takes the file whole, that read takes it too and its shrunk
 * image is the reduction of every scan's coefficients; where it does not,
 * the read may take the file (damage in a skipped scan is not seen) and
 * only has to run clean. */
#include <limits.h>
#include <string.h>

#include "codec/format_sniff.h"
#include "fuzz.h"
#include "gpuimg.h"
#include "codec/jpeg/jpeg_decode.h"
#include "codec/jpeg/jpeg_deferred.h"
#include "codec/jpeg/jpeg_parse.h"
#include "codec/jpeg/jpeg_shrink.h"

/* Small enough that a lying header cannot make one run slow. */
#define FUZZ_MAX_PIXELS (1u << 22)

/* The deferred scan's layout, and its CPU decode's verdict (`mine`: the
 * CPU decoder takes the file). */
static void check_deferred(const uint8_t *data, size_t size, int mine)
{
    gi_jpeg_coeffs c;
    if (gi__jpeg_read_coeffs(data, size, FUZZ_MAX_PIXELS, 1, 1, 0, NULL, &c) != GI_JPEG_OK) {
        FUZZ_REQUIRE(!mine);
        return;
    }
    const gi_jpeg_deferred *d = c.deferred;
    if (d) {
        FUZZ_REQUIRE(c.storage == NULL && d->nscans >= 1 && d->upload != NULL);
        for (int i = 0; i < d->nscans; i++) {
            const gi_jpeg_deferred_scan *sc = &d->scan[i];
            const uint32_t *segment_start = (const uint32_t *)(d->upload + sc->segment_start_at);
            const uint32_t *subseq_first = (const uint32_t *)(d->upload + sc->subseq_first_at);
            FUZZ_REQUIRE(sc->kind == GI_JPEG_BASELINE ? !c.progressive && sc->ss == 0 && sc->se == 63
                                                      : c.progressive);
            FUZZ_REQUIRE(sc->segments >= 1 && sc->unit_blocks >= 1 &&
                         sc->unit_blocks <= GI_JPEG_MAX_UNIT_BLOCKS && sc->ntables <= 8 &&
                         (sc->ntables >= 1 || sc->kind == GI_JPEG_DC_REFINE) &&
                         (sc->n == 1 || sc->kind <= GI_JPEG_DC_REFINE) &&
                         segment_start[0] == 0 && subseq_first[0] == 0);
            for (int s = 0; s < sc->segments; s++) {
                FUZZ_REQUIRE(segment_start[s] <= segment_start[s + 1]);
                FUZZ_REQUIRE(subseq_first[s] < subseq_first[s + 1]);
                FUZZ_REQUIRE(subseq_first[s + 1] - subseq_first[s] <= sc->segment_subseqs);
            }
            FUZZ_REQUIRE(subseq_first[sc->segments] == sc->subseqs);
            FUZZ_REQUIRE(segment_start[sc->segments] <= size);
            FUZZ_REQUIRE(sc->data_at + segment_start[sc->segments] + GI_JPEG_DATA_PAD <= d->bytes);
            for (int b = 0; b < sc->unit_blocks; b++)
                FUZZ_REQUIRE(sc->block[b].comp < c.ncomp && sc->block[b].dc < 8 &&
                             sc->block[b].ac < 8 &&
                             (sc->ntables == 0 || (sc->block[b].dc < sc->ntables &&
                                                   sc->block[b].ac < sc->ntables)));
        }
        gi_jpeg_coeffs full;
        int r = gi__jpeg_decode_deferred(&c, 1, &full);
        FUZZ_REQUIRE(r != GI_JPEG_OK || mine); /* the CPU's decode, as without deferral */
        FUZZ_REQUIRE(!mine || r == GI_JPEG_OK);
        gi__jpeg_coeffs_free(&full);
    }
    gi__jpeg_coeffs_free(&c);
}

/* The thumbnail's read against the whole file's (`mine`: the CPU decoder
 * takes the file), shrunk to at least 1-97 pixels a side on 1-3 threads,
 * by the input's size. */
static void check_shrunk(const uint8_t *data, size_t size, int mine)
{
    const int at_least = 1 + (int)(size % 97), threads = 1 + (int)(size % 3);
    gi_jpeg_coeffs part, all;
    if (gi__jpeg_read_coeffs(data, size, FUZZ_MAX_PIXELS, threads, 0, at_least, NULL, &part) !=
        GI_JPEG_OK) {
        FUZZ_REQUIRE(!mine);
        return;
    }
    if (mine && gi__jpeg_read_coeffs(data, size, FUZZ_MAX_PIXELS, 1, 0, 0, NULL, &all) == GI_JPEG_OK) {
        gi__jpeg_plan_shrink(&part, at_least);
        if (part.shrink > 1) {
            gi_image a = {0}, b = {0};
            const int ra = gi__jpeg_image_from_coeffs(&a, &part, threads);
            const int rb = gi__jpeg_image_shrunk(&b, &all, part.shrink, 1);
            FUZZ_REQUIRE(ra == rb);
            if (ra && rb) {
                FUZZ_REQUIRE(a.width == b.width && a.height == b.height && a.channels == b.channels);
                for (int y = 0; y < a.height; y++)
                    FUZZ_REQUIRE(memcmp(a.data + (size_t)y * a.stride, b.data + (size_t)y * b.stride,
                                        (size_t)a.width * (size_t)a.channels) == 0);
            }
            if (ra) gi_image_free(&a);
            if (rb) gi_image_free(&b);
        }
        gi__jpeg_coeffs_free(&all);
    } else {
        gi_image a = {0};
        gi__jpeg_plan_shrink(&part, at_least);
        if (gi__jpeg_image_from_coeffs(&a, &part, threads)) gi_image_free(&a);
    }
    gi__jpeg_coeffs_free(&part);
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
    check_shrunk(data, size, mine);
    if (!mine) return 0;
    FUZZ_REQUIRE(ours.width >= 1 && ours.height >= 1 &&
                 (uint64_t)ours.width * (uint64_t)ours.height <= FUZZ_MAX_PIXELS);
    FUZZ_REQUIRE(ours.channels == 1 || ours.channels == 3);
    int w, h, comp;
    FUZZ_REQUIRE(gi__stb_info_as(data, (int)size, GI_FORMAT_JPEG, &w, &h, &comp));
    FUZZ_REQUIRE(w == ours.width && h == ours.height && comp == ours.channels);
    gi_image stb = {0, 0, comp, (size_t)w * (size_t)comp, NULL, 1, 8};
    int depth;
    stb.data = gi__stb_load_as(data, (int)size, GI_FORMAT_JPEG, &stb.width, &stb.height, comp,
                               &depth);
    FUZZ_REQUIRE(stb.data != NULL); /* ours decoded a file that stb refuses */
    FUZZ_REQUIRE(stb.width == w && stb.height == h);
    for (int y = 0; y < h; y++)
        FUZZ_REQUIRE(memcmp(ours.data + (size_t)y * ours.stride, stb.data + (size_t)y * stb.stride,
                            stb.stride) == 0);
    gi_image_free(&stb);
    gi_image_free(&ours);
    return 0;
}
