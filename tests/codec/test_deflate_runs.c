/* The TIFF strips' deflate of literals and runs (lib/codec/tiff/deflate_runs.h).
 *
 * Data of many kinds (noise, zeros, patterns repeating at the distances
 * looked at and at others, runs among noise, few symbols, symbols whose
 * counts grow as Fibonacci's numbers, so that the Huffman code passes 15
 * bits and must be cut down) and of sizes around the places where the
 * encoder changes its way (the SIMD scan's 32 bytes, runs of 258, stored
 * pieces of 65535, blocks of GI_DEFLATE_RUNS_BLOCK), with several sets of
 * distances (none, repeats, out-of-range ones, more than it takes): the
 * stream fits the bound and libdeflate_zlib_decompress (checking the
 * Adler-32) gives the input back exactly, from an output buffer poisoned
 * first. Too small a buffer gives 0. Noise is stored (no larger than the
 * data and its headers), and data made of runs comes out small. Only with
 * libdeflate. */
#include "harness.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/tiff/deflate_runs.h"

enum { NOISE, ZEROS, PERIOD2, PERIOD6, PERIOD7, RUNS_IN_NOISE, FEW, FIBONACCI, KINDS };
static const char *const kind_name[KINDS] = {"noise", "zeros", "period 2", "period 6",
                                             "period 7", "runs in noise", "few symbols",
                                             "Fibonacci counts"};

static uint8_t *make_data(size_t n, int kind)
{
    uint8_t *d = malloc(n ? n : 1);
    if (!d) return NULL;
    /* Fibonacci: symbol k (of 24) once every fib(k) bytes, roughly */
    static const uint32_t fib[24] = {1,   1,   2,   3,    5,    8,    13,   21,
                                     34,  55,  89,  144,  233,  377,  610,  987,
                                     1597, 2584, 4181, 6765, 10946, 17711, 28657, 46368};
    uint32_t total = 0;
    for (int k = 0; k < 24; k++) total += fib[k];
    for (size_t i = 0; i < n; i++) {
        const uint32_t r = (uint32_t)th_rand64();
        switch (kind) {
        case NOISE: d[i] = (uint8_t)r; break;
        case ZEROS: d[i] = 0; break;
        case PERIOD2: d[i] = i % 2 ? 0 : 8; break;
        case PERIOD6: d[i] = (r & 31) == 0 ? (uint8_t)(r >> 8) : i >= 6 ? d[i - 6] : (uint8_t)i; break;
        case PERIOD7: d[i] = i >= 7 ? d[i - 7] : (uint8_t)(r >> 8); break;
        case RUNS_IN_NOISE: d[i] = i % 700 < 300 ? 7 : (uint8_t)r; break;
        case FEW: d[i] = (uint8_t)(r % 3); break;
        default: {
            uint32_t v = r % total, k = 0;
            while (v >= fib[k]) v -= fib[k++];
            d[i] = (uint8_t)(40 + k);
        }
        }
    }
    return d;
}

static int check_stream(const uint8_t *d, size_t n, const uint32_t *dist, int nd, const char *what,
                        size_t *stream)
{
    const size_t bound = gi__deflate_runs_bound(n);
    uint8_t *z = malloc(bound), *back = malloc(n + 1);
    int ok = th_check(z && back, "%s: no memory", what);
    if (ok) {
        memset(z, 0xA5, bound);
        memset(back, 0x5A, n + 1);
        const size_t zn = gi__deflate_runs(d, n, dist, nd, z, bound);
        size_t got = 0;
        struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
        const enum libdeflate_result r =
            zn ? libdeflate_zlib_decompress(dd, z, zn, back, n, &got) : LIBDEFLATE_BAD_DATA;
        libdeflate_free_decompressor(dd);
        ok = th_check(zn > 0 && zn <= bound, "%s: stream of %zu bytes, bound %zu", what, zn, bound) &&
             th_check(r == LIBDEFLATE_SUCCESS && got == n && memcmp(back, d, n) == 0,
                      "%s: inflated to %zu bytes (result %d), not the input", what, got, (int)r);
        *stream = zn;
        if (n && ok)
            th_check(gi__deflate_runs(d, n, dist, nd, z, bound - 1) == 0,
                     "%s: a buffer below the bound must be refused", what);
    }
    free(z);
    free(back);
    return ok;
}

int main(void)
{
    th_seed();
    const size_t B = GI_DEFLATE_RUNS_BLOCK;
    const size_t sizes[] = {0,     1,     3,     4,          5,     31,        32,    33,
                            61,    258,   259,   262,        1000,  65535,     65536, 65537,
                            B - 1, B,     B + 1, 2 * B + 77};
    const uint32_t sets[][5] = {{0}, {1}, {2, 1, 2}, {1, 2, 6, 300}, {32768, 0, 40000},
                                {1, 2, 6, 7, 300}};
    const int set_count[] = {0, 1, 3, 4, 3, 5};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int kind = 0; kind < KINDS; kind++) {
            uint8_t *d = make_data(sizes[s], kind);
            if (!th_check(d != NULL, "no memory")) continue;
            for (int set = 0; set < 6; set++) {
                char what[96];
                snprintf(what, sizeof what, "%s, %zu bytes, distance set %d", kind_name[kind],
                         sizes[s], set);
                size_t zn = 0;
                if (!check_stream(d, sizes[s], sets[set], set_count[set], what, &zn)) continue;
                const size_t n = sizes[s];
                if (kind == NOISE && n >= 1000)
                    th_check(zn <= n + 6 + 5 * (n / 65535 + n / B + 2), "%s: %zu bytes, more than stored",
                             what, zn);
                /* sets 2, 3 and 5 hold a distance of 2 (and of 1 but 2) */
                if (((kind == ZEROS && set >= 1 && set != 4) || (kind == PERIOD2 && (set == 2 || set == 3 || set == 5))) &&
                    n >= 65536)
                    th_check(zn < n / 50, "%s: %zu bytes, runs not taken", what, zn);
                if (kind == PERIOD6 && n >= 65536 && set == 3)
                    th_check(zn < n / 4, "%s: %zu bytes, runs a pixel back not taken", what, zn);
            }
            free(d);
        }
    return th_finish();
}
