/* test_jpeg_scans_parallel DIR: a progressive file's scans decoded on
 * threads (jpeg_scans_parallel.h). First which scans wait for which, on
 * jpegtran's script and on the reach of an AC first scan past its band;
 * then over every .jpg in DIR (the kinds of tests/gpu/jpegs-exact), whole,
 * cut short in its last scan and with bytes of its data changed: read on
 * 1 and on 2, 3 and 16 threads, the same verdict and the same coefficients. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/file_io.h"
#include "codec/jpeg/jpeg_parse.h"
#include "codec/jpeg/jpeg_scans_parallel.h"
#include "coeff_garbage.h"
#include "harness.h"
#include "testimg.h"

static gi_jpeg_scan scan_of(int comp, int ss, int se, int ah)
{
    gi_jpeg_scan sc = {.n = comp < 0 ? 3 : 1, .ss = ss, .se = se, .ah = ah};
    for (int i = 0; i < sc.n; i++) sc.comp[i] = comp < 0 ? i : comp;
    return sc;
}

/* jpegtran -progressive's script for a YCbCr file (jcparam.c): which of
 * its ten scans wait for which earlier ones. */
static void check_jpegtran_script(void)
{
    const gi_jpeg_scan s[10] = {
        scan_of(-1, 0, 0, 0), scan_of(0, 1, 5, 0), scan_of(2, 1, 63, 0), scan_of(1, 1, 63, 0),
        scan_of(0, 6, 63, 0), scan_of(0, 1, 63, 2), scan_of(-1, 0, 0, 1), scan_of(2, 1, 63, 1),
        scan_of(1, 1, 63, 1), scan_of(0, 1, 63, 1)};
    /* waits[b]: the scans before b that it waits for, as bits */
    const unsigned waits[10] = {0, 0, 0, 0, 1u << 1, 1u << 1 | 1u << 4, 1u << 0, 1u << 2,
                                1u << 3, 1u << 1 | 1u << 4 | 1u << 5};
    for (int b = 0; b < 10; b++)
        for (int a = 0; a < b; a++) {
            int want = (waits[b] >> a) & 1;
            th_check(gi__jpeg_scan_waits_for(&s[b], &s[a]) == want,
                     "jpegtran's scan %d %s for scan %d", b, want ? "does not wait" : "waits", a);
        }
}

/* An AC first scan's runs may carry a coefficient past its band (stb
 * puts it there): a later band of the component waits for it; the DC and
 * other components do not. A component's AC scans wait for each other
 * whatever their bands: they keep its blocks' masks of nonzero
 * coefficients, a word a block. */
static void check_reach(void)
{
    gi_jpeg_scan low = scan_of(0, 1, 5, 0), high = scan_of(0, 40, 63, 0);
    gi_jpeg_scan refine_low = scan_of(0, 1, 5, 1), dc = scan_of(-1, 0, 0, 1);
    gi_jpeg_scan other = scan_of(1, 40, 63, 0);
    th_check(gi__jpeg_scan_waits_for(&high, &low), "a band does not wait for an AC first below it");
    th_check(gi__jpeg_scan_waits_for(&low, &high), "a band does not wait for an AC first above it");
    gi_jpeg_scan refine_high = scan_of(0, 40, 63, 1);
    th_check(gi__jpeg_scan_waits_for(&refine_high, &refine_low),
             "refinements of bands apart do not wait for each other");
    th_check(gi__jpeg_scan_waits_for(&high, &refine_low),
             "an AC first band does not wait for a refinement below it");
    th_check(gi__jpeg_scan_waits_for(&dc, &low) == 0, "a DC scan waits for an AC band");
    th_check(gi__jpeg_scan_waits_for(&other, &low) == 0, "another component's band waits");
}

/* bytes[0..size) read on 1 thread and on 2, 3 and 16 (more threads than
 * most files have scans): the same verdict and, where decoded, the same
 * coefficients. */
static void check_bytes(const char *what, const uint8_t *bytes, size_t size)
{
    gi_jpeg_coeffs one;
    int r1 = gi__jpeg_read_coeffs(bytes, size, 1ull << 32, 1, 0, 0, NULL, &one);
    static const int threads[] = {2, 3, 16};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        gi_jpeg_coeffs many;
        if (r1 == GI_JPEG_OK) leave_coeff_garbage(one.storage_bytes);
        int rn = gi__jpeg_read_coeffs(bytes, size, 1ull << 32, threads[t], 0, 0, NULL, &many);
        th_check(r1 == rn, "%s: %d on %d threads, %d on one", what, rn, threads[t], r1);
        if (r1 == GI_JPEG_OK && rn == GI_JPEG_OK)
            th_check(one.storage_bytes == many.storage_bytes &&
                         memcmp(one.storage, many.storage, one.storage_bytes) == 0,
                     "%s: other coefficients on %d threads", what, threads[t]);
        if (rn == GI_JPEG_OK) gi__jpeg_coeffs_free(&many);
    }
    if (r1 == GI_JPEG_OK) gi__jpeg_coeffs_free(&one);
}

static void check_path(const char *path, void *unused)
{
    (void)unused;
    uint8_t *bytes;
    size_t size;
    if (!th_check(gi__read_file(path, 1u << 30, &bytes, &size) == GI_OK, "%s: read", path)) return;
    check_bytes(path, bytes, size);
    /* cut short, the marker after the last scan lost: its data has no end */
    char what[4200];
    for (size_t cut = size > 64 ? size - 64 : 0; cut < size; cut += 16) {
        snprintf(what, sizeof what, "%s cut at %zu", path, cut);
        check_bytes(what, bytes, cut);
    }
    /* bytes changed in the data (markers kept): scans that fail, or
     * decode to other values, after the markers were read */
    unsigned seed = (unsigned)size;
    for (int i = 0; i < 8 && size > 1024; i++) {
        uint8_t *copy = malloc(size);
        if (!th_check(copy != NULL, "out of memory")) break;
        memcpy(copy, bytes, size);
        seed = seed * 1103515245u + 12345u;
        size_t p = size / 4 + (seed >> 8) % (size / 2);
        if (copy[p] != 0xFF && copy[p + 1] != 0x00 && copy[p - 1] != 0xFF)
            copy[p] = (uint8_t)((seed >> 20) & 0xFE);
        snprintf(what, sizeof what, "%s with byte %zu changed", path, p);
        check_bytes(what, copy, size);
        free(copy);
    }
    gi__pixels_free(bytes);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_jpeg_scans_parallel DIR\n");
        return 2;
    }
    check_jpegtran_script();
    check_reach();
    ti_each_jpeg_alternating(argv[1], check_path, NULL);
    return th_finish();
}
