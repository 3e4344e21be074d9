/* JPEG shrink-on-load (lib/codec/jpeg_shrink.h) against its definition:
 *   - the reduced IDCT's tables are round(2^12 C(u) cos((2x+1) u pi / 2N) / 2);
 *   - each block's samples equal the definition evaluated in float64 (its
 *     sums are exact integers there), for rows of 1 to 40 random blocks
 *     and random tables, extremes and sums far past 0..255 included, under
 *     each instruction set (AVX-512 takes 16 blocks at a time, AVX2 8;
 *     meson.build), with nothing written past a row's samples;
 *   - the shrink chosen is the largest that keeps both sides >= the size;
 *   - gi_load_memory with shrink_to, over every JPEG in the folders given
 *     (the decoder's variants: gray, YCbCr of every sampling, progressive,
 *     restarts, CMYK; odd sizes down to 1x1): the reduced size for gray
 *     and YCbCr files, pixels near the full decode's box average, and the
 *     full decode's very bytes where no shrink is possible or the file is
 *     another kind; a progressive file's AC scans that the shrunk image
 *     does not read left out, the image the same as every scan's;
 *   - a copy of each baseline YCbCr JFIF file that an Adobe segment after
 *     its scan makes RGB: the thumbnail's read as the whole decode;
 *   - damaged copies of each baseline file (cut short, bytes changed, a
 *     code of all ones),
 *     whose AC codes a thumbnail passes over: the decoder takes such a
 *     copy for a thumbnail exactly where it takes it whole, with the same
 *     shrunk image as the whole read's reduction.
 * test_jpeg_shrink [DIR...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coeff_garbage.h"
#include "harness.h"
#include "codec/jpeg/jpeg_decode.h"
#include "codec/jpeg/jpeg_parse.h"
#include "codec/jpeg/jpeg_recon_plan.h"
#include "codec/jpeg/jpeg_shrink.h"
#include "testimg.h"

static const int32_t *table(int n)
{
    return gi__jpeg_reduced_table(n);
}

static void check_tables(void)
{
    for (int n = 1; n <= 8; n *= 2)
        for (int x = 0; x < n; x++)
            for (int u = 0; u < n; u++) {
                double c = u == 0 ? 1 / sqrt(2) : 1;
                long want = lround(4096 * c * cos((2 * x + 1) * u * M_PI / (2 * n)) / 2);
                th_check(table(n)[x * n + u] == want, "A_%d[%d][%d] = %d, want %ld", n, x, u,
                         table(n)[x * n + u], want);
            }
}

/* The definition in float64: every sum is an exact integer in a double. */
static int defined_sample(const int16_t *coeffs, const uint16_t *quant, int nx, int ny, int x,
                          int y)
{
    const int32_t *ax = table(nx), *ay = table(ny);
    double f = 0;
    for (int u = 0; u < nx; u++)
        for (int v = 0; v < ny; v++) {
            double dq = (int16_t)(coeffs[8 * v + u] * quant[8 * v + u]);
            f += (double)ax[x * nx + u] * ay[y * ny + v] * dq;
        }
    double s = floor(f / 16777216.0 + 0.5) + 128;
    return s < 0 ? 0 : s > 255 ? 255 : (int)s;
}

/* Rows of 1 to 40 blocks (the vector path's 16 at a time, and the blocks
 * after them one by one), each block's coefficients its own, every block
 * size, into poisoned rows. */
static void check_blocks(void)
{
    enum { MOST = 40, STRIDE = 8 * MOST + 3 };
    static int16_t coeffs[MOST * 64];
    static uint8_t out[8 * STRIDE];
    for (int trial = 0; trial < 600; trial++) {
        uint16_t quant[64];
        /* saturating: each block's coefficients near one end of int16, its
         * sums far past 0 and 255 (a vector path's packing must clamp them) */
        const int extreme = trial % 10 == 0, saturating = trial % 10 == 5;
        const int blocks = 1 + trial % MOST;
        for (int i = 0; i < 64; i++)
            quant[i] = (uint16_t)(saturating ? 1 : extreme ? th_rand_int(1, 65535) : th_rand_int(1, 99));
        for (int b = 0; b < blocks; b++) {
            const int sign = th_rand_int(0, 1) ? 1 : -1;
            for (int i = 0; i < 64; i++)
                coeffs[b * 64 + i] = (int16_t)(saturating ? sign * th_rand_int(30000, 32767)
                                               : extreme  ? th_rand_int(-32768, 32767)
                                                          : th_rand_int(-300, 300));
        }
        for (int nx = 1; nx <= 8; nx *= 2)
            for (int ny = 1; ny <= 8; ny *= 2) {
                memset(out, 0xA5, sizeof out);
                gi__jpeg_reduced_idct_row(coeffs, blocks, quant, nx, ny, out, STRIDE);
                int bad = 0, fb = 0, fx = 0, fy = 0;
                for (int b = 0; b < blocks; b++)
                    for (int y = 0; y < ny; y++)
                        for (int x = 0; x < nx; x++)
                            if (out[y * STRIDE + b * nx + x] !=
                                    defined_sample(coeffs + 64 * b, quant, nx, ny, x, y) &&
                                bad++ == 0)
                                fb = b, fx = x, fy = y;
                int past = 0; /* bytes written past the row's samples */
                for (int y = 0; y < 8; y++)
                    for (int x = y < ny ? blocks * nx : 0; x < STRIDE; x++)
                        past += out[y * STRIDE + x] != 0xA5;
                th_check(bad == 0 && past == 0,
                         "reduced IDCT %dx%d, trial %d (%d blocks): %d samples off, first block %d "
                         "(%d,%d): %d, defined %d; %d bytes written past the samples",
                         nx, ny, trial, blocks, bad, fb, fx, fy, out[fy * STRIDE + fb * nx + fx],
                         defined_sample(coeffs + 64 * fb, quant, nx, ny, fx, fy), past);
            }
        /* a plane of DCs alone (jpeg_coeffs.h, block_len 1): the 1 x 1
         * samples of the same blocks, and nothing past them */
        int16_t dcs[MOST];
        for (int b = 0; b < blocks; b++) dcs[b] = coeffs[64 * b];
        memset(out, 0xA5, sizeof out);
        gi__jpeg_dc_idct_row(dcs, blocks, quant, out);
        int bad = 0, past = 0;
        for (int b = 0; b < blocks; b++) bad += out[b] != defined_sample(coeffs + 64 * b, quant, 1, 1, 0, 0);
        for (size_t x = (size_t)blocks; x < sizeof out; x++) past += out[x] != 0xA5;
        th_check(bad == 0 && past == 0, "DC row, trial %d (%d blocks): %d samples off, %d bytes past",
                 trial, blocks, bad, past);
    }
}

/* The DC row on every dequantized DC: each int16 value f once (quant 1),
 * then every DC times quants whose products wrap past int16, against the
 * defined sample. */
static void check_dc_values(void)
{
    enum { N = 65536 };
    static int16_t dcs[N];
    static uint8_t out[N + 64];
    static const uint16_t quants[] = {1, 3, 255, 4099, 65535};
    for (size_t qi = 0; qi < sizeof quants / sizeof *quants; qi++) {
        uint16_t quant[64] = {0};
        quant[0] = quants[qi];
        for (int i = 0; i < N; i++) dcs[i] = (int16_t)(i - 32768);
        memset(out, 0xA5, sizeof out);
        gi__jpeg_dc_idct_row(dcs, N, quant, out);
        int bad = 0, first = -1, past = 0;
        for (int i = 0; i < N; i++) {
            int16_t block[64] = {0};
            block[0] = dcs[i];
            if (out[i] != defined_sample(block, quant, 1, 1, 0, 0) && bad++ == 0) first = i;
        }
        for (size_t x = N; x < sizeof out; x++) past += out[x] != 0xA5;
        th_check(bad == 0 && past == 0, "DC row, quant %u: %d of 65536 DCs off (first %d), %d bytes past",
                 quant[0], bad, first < 0 ? 0 : dcs[first], past);
    }
}

static void check_factor(void)
{
    static const int cases[][4] = {{4000, 3000, 256, 8}, {4000, 3000, 375, 8}, {4000, 3000, 376, 4},
                                   {2049, 2049, 256, 8}, {100, 100, 51, 1},    {100, 100, 50, 2},
                                   {1, 1, 1, 8},         {9, 17, 2, 8},        {8000, 900, 256, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int s = gi__jpeg_shrink_factor(cases[i][0], cases[i][1], cases[i][2]);
        th_check(s == cases[i][3], "shrink of %dx%d to at least %d: %d, want %d", cases[i][0],
                 cases[i][1], cases[i][2], s, cases[i][3]);
    }
}

static int read_file(const char *path, uint8_t **bytes, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *bytes = malloc(n > 0 ? (size_t)n : 1);
    *size = *bytes && n > 0 ? fread(*bytes, 1, (size_t)n, f) : 0;
    fclose(f);
    return *size == (size_t)n ? 0 : -1;
}

/* Whether output position p's s pixels lie in whole 32-pixel spans of the
 * image (every block that makes it, chroma's of 4x subsampling too, lies
 * inside: a block that passes the edge holds the encoder's padding). */
static int inside_blocks(int p, int s, int n)
{
    return (p * s / 32 + 1) * 32 <= n;
}

/* The shrunk image against the full decode's s x s box means: the IDCT's
 * low frequencies are a block's means, up to the quantization and the
 * chroma's sampling, so near them on average. */
static double mean_distance(const gi_image *full, const gi_image *small, int s)
{
    double sum = 0;
    long count = 0;
    for (int y = 0; y < small->height; y++)
        for (int x = 0; x < small->width; x++) {
            if (!inside_blocks(x, s, full->width) || !inside_blocks(y, s, full->height)) continue;
            for (int c = 0; c < small->channels; c++) {
                double box = 0;
                for (int j = y * s; j < (y + 1) * s; j++)
                    for (int i = x * s; i < (x + 1) * s; i++) box += ti_px(full, i, j)[c];
                sum += fabs(box / (s * s) - ti_px(small, x, y)[c]);
                count++;
            }
        }
    return count ? sum / count : 0;
}

static int shrinkable_files, files_left_out;

/* A file read for a shrunk image does not decode the AC coefficients of
 * components whose shrunk planes read only the DC (gi__jpeg_read_coeffs):
 * a progressive file leaves their AC scans out, a baseline one passes
 * over their AC codes (gi_jpeg_scan.skip). The image equals the reduction
 * of every scan's coefficients, on one thread and on four (the scans side
 * by side), from dirty memory.
 * files_left_out counts the reads that left scans out, so that the test
 * sees some. */
static void check_scans_left_out(const char *path, const uint8_t *bytes, size_t size,
                                 const gi_image *small, int at_least, int s)
{
    gi_load_limits whole_limits;
    gi_load_limits_default(&whole_limits);
    gi_jpeg_coeffs all;
    if (!gi__load_jpeg_coeffs(bytes, size, &whole_limits, 0, &all)) return;
    gi_image reduced = {0};
    char why[128];
    if (th_check(gi__jpeg_image_shrunk(&reduced, &all, s, 1), "%s: every scan reduced by %d", path, s))
        th_check(ti_same(small, &reduced, why, sizeof why),
                 "%s shrink 1/%d: differs from every scan's reduction: %s", path, s, why);
    if (reduced.data) gi_image_free(&reduced);
    for (int threads = 1; threads <= 4; threads += 3) {
        gi_load_limits limits = whole_limits;
        limits.shrink_to = at_least;
        limits.decode_threads = threads;
        gi_jpeg_coeffs part;
        leave_coeff_garbage(all.storage_bytes);
        if (!th_check(gi__load_jpeg_coeffs(bytes, size, &limits, 0, &part),
                      "%s shrink_to %d on %d threads: not read", path, at_least, threads))
            continue;
        th_check(part.dc_only == gi__jpeg_dc_only_components(&part, at_least),
                 "%s shrink_to %d: components read for their DC %#x", path, at_least, part.dc_only);
        /* those components' blocks hold their DC alone, after the others' */
        size_t dc_values = 0, full_values = 0;
        for (int k = 0; k < part.ncomp; k++) {
            const gi_jpeg_plane *pl = &part.plane[k];
            const int alone = (int)(part.dc_only >> k & 1u);
            const size_t rows = (size_t)(pl->ring_rows ? pl->ring_rows : pl->blocks_h);
            th_check(pl->block_len == (alone ? 1 : 64), "%s shrink_to %d: plane %d of %d int16s a "
                     "block", path, at_least, k, pl->block_len);
            if (alone) dc_values += (size_t)pl->blocks_w * rows;
            else full_values += (size_t)pl->blocks_w * rows * 64;
        }
        th_check(part.storage_bytes == (dc_values + full_values) * sizeof(int16_t),
                 "%s shrink_to %d: storage of %zu bytes for %zu values", path, at_least,
                 part.storage_bytes, dc_values + full_values);
        if (threads == 1 && part.dc_only) files_left_out++;
        gi_image shrunk = {0};
        gi__jpeg_plan_shrink(&part, at_least);
        if (th_check(part.shrink == s && gi__jpeg_image_from_coeffs(&shrunk, &part, threads),
                     "%s shrink_to %d on %d threads: not shrunk by %d", path, at_least, threads, s))
            th_check(ti_same(small, &shrunk, why, sizeof why),
                     "%s shrink_to %d on %d threads: %s", path, at_least, threads, why);
        if (shrunk.data) gi_image_free(&shrunk);
        gi__jpeg_coeffs_free(&part);
    }
    gi__jpeg_coeffs_free(&all);
}

/* One damaged copy, read for the largest shrink (1/8: its components of
 * one sample a block pass over their AC codes) and whole, on `threads`
 * threads (restart intervals decode apart): both taken or neither, and
 * the same shrunk image. Returns whether it was taken. */
static int check_damaged_copy(const char *path, const uint8_t *bytes, size_t size, int threads,
                              const char *how)
{
    gi_jpeg_coeffs part, all;
    const int p = gi__jpeg_read_coeffs(bytes, size, UINT64_MAX, threads, 0, 1, NULL, &part) ==
                  GI_JPEG_OK;
    const int a = gi__jpeg_read_coeffs(bytes, size, UINT64_MAX, threads, 0, 0, NULL, &all) ==
                  GI_JPEG_OK;
    th_check(p == a, "%s %s on %d threads: taken for a thumbnail %d, whole %d", path, how,
             threads, p, a);
    if (p && a) {
        gi__jpeg_plan_shrink(&part, 1);
        if (part.shrink > 1) {
            gi_image x = {0}, y = {0};
            char why[128];
            const int rx = gi__jpeg_image_from_coeffs(&x, &part, 1);
            const int ry = gi__jpeg_image_shrunk(&y, &all, part.shrink, 1);
            if (th_check(rx && ry, "%s %s: shrunk %d, whole reduced %d", path, how, rx, ry))
                th_check(ti_same(&x, &y, why, sizeof why), "%s %s on %d threads: %s", path, how,
                         threads, why);
            if (rx) gi_image_free(&x);
            if (ry) gi_image_free(&y);
        }
    }
    if (p) gi__jpeg_coeffs_free(&part);
    if (a) gi__jpeg_coeffs_free(&all);
    return p && a;
}

static int damaged_taken;

static void check_damaged(const char *path, const uint8_t *bytes, size_t size)
{
    uint8_t *copy = malloc(size);
    if (!th_check(copy != NULL, "%s: no memory for a copy", path)) return;
    for (int k = 1; k <= 15; k++) {
        char how[64];
        /* cut at twelfths of the file, and 12, 9, 6 and 3 bytes before its end */
        const size_t cut = k < 12 ? size * (size_t)k / 12 : size - (size_t)(16 - k) * 3;
        if (cut < size && cut > 2) {
            snprintf(how, sizeof how, "cut at %zu", cut);
            for (int threads = 1; threads <= 3; threads += 2)
                damaged_taken += check_damaged_copy(path, bytes, cut, threads, how);
        }
        /* a byte changed past the headers (the last half of the file) */
        const size_t at = size / 2 + (size / 2) * (size_t)(k - 1) / 15;
        if (at < size - 2) {
            memcpy(copy, bytes, size);
            copy[at] ^= (uint8_t)(0x11 * k);
            snprintf(how, sizeof how, "byte %zu changed", at);
            for (int threads = 1; threads <= 3; threads += 2)
                damaged_taken += check_damaged_copy(path, copy, size, threads, how);
            /* 32 one bits (stuffed 0xFF bytes): a code no table holds, as
             * the JPEG standard leaves the code of all ones unused */
            if (at + 4 < size - 2) {
                memcpy(copy, bytes, size);
                memcpy(copy + at, "\xff\x00\xff\x00", 4);
                snprintf(how, sizeof how, "ones at %zu", at);
                damaged_taken += check_damaged_copy(path, copy, size, 1, how);
            }
        }
    }
    free(copy);
}

static void check_bytes(const char *path, const uint8_t *bytes, size_t size, int variants);

/* A copy of a baseline JFIF file without its JFIF segment and with an
 * Adobe segment of colour transform 0 before its end: stb reads its
 * components as RGB, which is known only after the scan, so a thumbnail's
 * read that judged them YCbCr at the scan (and passed over their AC
 * codes) must end as the whole file's decode. NULL where the file does
 * not begin with a JFIF segment or end with its EOI. */
static uint8_t *late_adobe_copy(const uint8_t *bytes, size_t size, size_t *out_size)
{
    static const uint8_t adobe[] = {0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 0};
    if (size < 8 || bytes[2] != 0xFF || bytes[3] != 0xE0 || bytes[size - 2] != 0xFF ||
        bytes[size - 1] != 0xD9)
        return NULL;
    const size_t app0 = 2 + ((size_t)bytes[4] << 8 | bytes[5]);
    if (2 + app0 > size - 2) return NULL;
    uint8_t *copy = malloc(size + sizeof adobe);
    if (!copy) return NULL;
    size_t n = 0;
    memcpy(copy, bytes, 2);
    n = 2;
    memcpy(copy + n, bytes + 2 + app0, size - 2 - app0 - 2);
    n += size - 2 - app0 - 2;
    memcpy(copy + n, adobe, sizeof adobe);
    n += sizeof adobe;
    memcpy(copy + n, bytes + size - 2, 2);
    *out_size = n + 2;
    return copy;
}

static void check_file(const char *path, void *arg)
{
    (void)arg;
    uint8_t *bytes = NULL;
    size_t size = 0;
    if (!th_check(read_file(path, &bytes, &size) == 0, "%s: cannot read", path)) {
        free(bytes);
        return;
    }
    check_bytes(path, bytes, size, 1);
    free(bytes);
}

static int late_adobe_copies;

/* variants: also the file's damaged and late-Adobe copies */
static void check_bytes(const char *path, const uint8_t *bytes, size_t size, int variants)
{
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    gi_image full, small;
    if (gi_load_memory(&full, bytes, size, path, &limits) != GI_OK) return; /* not for this test */
    /* which files shrink: those of the exact decoder, gray or YCbCr */
    gi_jpeg_coeffs c;
    int gray_or_ycc = 0;
    if (gi__load_jpeg_coeffs(bytes, size, &limits, 0, &c)) {
        gi_jpeg_colour_mode mode = gi__jpeg_colour_mode(&c);
        gray_or_ycc = mode == GI_JPEG_GRAY || mode == GI_JPEG_YCC;
        for (int k = 0; k < gi__jpeg_components_used(mode); k++) {
            int fx = c.hmax / c.plane[k].h, fy = c.vmax / c.plane[k].v;
            if (c.hmax % c.plane[k].h || c.vmax % c.plane[k].v || fx == 3 || fy == 3 || fx > 4 ||
                fy > 4)
                gray_or_ycc = 0; /* left at full size: jpeg_shrink.h */
        }
        gi__jpeg_coeffs_free(&c);
    }
    shrinkable_files += gray_or_ycc;
    if (variants && gray_or_ycc && gi__load_jpeg_coeffs(bytes, size, &limits, 0, &c)) {
        const int baseline = !c.progressive, three = c.ncomp == 3;
        gi__jpeg_coeffs_free(&c);
        if (baseline) check_damaged(path, bytes, size);
        size_t late_size;
        uint8_t *late = baseline && three ? late_adobe_copy(bytes, size, &late_size) : NULL;
        if (late) {
            char name[512];
            snprintf(name, sizeof name, "%s (late Adobe segment)", path);
            check_bytes(name, late, late_size, 0);
            late_adobe_copies++;
            free(late);
        }
    }
    for (int at_least = 1; at_least <= 64; at_least *= 4) {
        limits.shrink_to = at_least;
        gi_status st = gi_load_memory(&small, bytes, size, path, &limits);
        if (!th_check(st == GI_OK, "%s shrink_to %d: %s", path, at_least, gi_last_error())) continue;
        const int s = gi__jpeg_shrink_factor(full.width, full.height, at_least);
        const int shrunk = gray_or_ycc && s > 1;
        if (shrunk) {
            th_check(small.width == (full.width + s - 1) / s &&
                         small.height == (full.height + s - 1) / s &&
                         small.channels == full.channels,
                     "%s shrink_to %d: %dx%dx%d, want 1/%d of %dx%dx%d", path, at_least,
                     small.width, small.height, small.channels, s, full.width, full.height,
                     full.channels);
            double d = mean_distance(&full, &small, s);
            th_check(d < 5, "%s shrink 1/%d: mean distance %.2f from the box means", path, s, d);
            /* reduced as the entropy decoding goes (baseline) or from the
             * whole frame (progressive): the same bytes either way */
            gi_image whole = {0};
            char why[128];
            if (th_check(gi__load_jpeg_coeffs(bytes, size, &limits, 0, &c) &&
                             gi__jpeg_image_shrunk(&whole, &c, s, 3),
                         "%s shrink 1/%d from the whole frame's coefficients", path, s))
                th_check(ti_same(&small, &whole, why, sizeof why),
                         "%s shrink 1/%d: loaded differs from the whole frame's reduction: %s",
                         path, s, why);
            if (whole.data) gi_image_free(&whole);
            gi__jpeg_coeffs_free(&c);
            check_scans_left_out(path, bytes, size, &small, at_least, s);
        } else {
            char why[128];
            th_check(ti_same(&small, &full, why, sizeof why),
                     "%s shrink_to %d (no shrink): differs from the full decode: %s", path,
                     at_least, why);
        }
        gi_image_free(&small);
    }
    gi_image_free(&full);
}

int main(int argc, char **argv)
{
    th_seed();
    check_tables();
    check_blocks();
    check_dc_values();
    check_factor();
    for (int i = 1; i < argc; i++) ti_each_image(argv[i], check_file, NULL);
    th_check(argc < 2 || shrinkable_files > 0, "no gray or YCbCr JPEG among the files");
    th_check(argc < 2 || files_left_out > 0, "no progressive file had scans left out");
    th_check(argc < 2 || damaged_taken > 0, "no damaged baseline copy was taken");
    th_check(argc < 2 || late_adobe_copies > 0, "no baseline JFIF file for a late Adobe copy");
    return th_finish();
}
