/* The streamed histogram (gi_hist_file_streamed, lib/batch/hist_stream.c)
 * against the counts of the image gi_load_file gives, on 1 to 4 decoding
 * threads: for every JPEG in the folders given, and for copies of each
 * made to go wrong after the rows were counted (cut short; a second scan
 * after the first; a colour transform changed by an Adobe segment after
 * the scan, where stb reads it too), which must be counted again from
 * zero or left to the load-then-count path. A file it leaves must be one
 * the caller can still load (or that the load refuses).
 *
 *   test_hist_stream WORKDIR DIR...   (the copies go to WORKDIR) */
#include "harness.h"
#include "testimg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/file_io.h"
#include "gpuimg.h"
#include "base/pixel_alloc.h"

static gi_context *ctx;
static int streamed, left;

static int write_all(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static void check_file(const char *path, int threads)
{
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    limits.decode_threads = threads;
    const int bins[2] = {256, 7};
    static gi_histogram got[2]; /* 2 MiB each: not on the stack */
    int w = -1, h = -1, counted = -1;
    if (!th_check(gi_hist_file_streamed(path, &limits, bins, 2, got, &w, &h, &counted) == GI_OK,
                  "%s: %s", path, gi_last_error()))
        return;
    gi_image img;
    gi_status st = gi_load_file(&img, path, &limits);
    if (!counted) {
        left++;
        if (st == GI_OK) gi_image_free(&img);
        return;
    }
    streamed++;
    if (!th_check(st == GI_OK, "%s: streamed, but the load fails: %s", path, gi_last_error()))
        return;
    th_check(w == img.width && h == img.height, "%s: %dx%d streamed, %dx%d loaded", path, w, h,
             img.width, img.height);
    for (int i = 0; i < 2; i++) {
        static gi_histogram want; /* 2 MiB each: not on the stack */
        if (!th_check(gi_hist(ctx, &img, bins[i], &want) == GI_OK, "%s: gi_hist", path)) break;
        int same = got[i].channels == want.channels && got[i].bins == want.bins &&
                   memcmp(got[i].counts, want.counts, sizeof want.counts) == 0;
        th_check(same, "%s, %d threads, %d bins: the streamed counts differ from the image's",
                 path, threads, bins[i]);
    }
    gi_image_free(&img);
}

/* The offset of the first SOS marker's segment, of EOI, and of the first
 * APP0 JFIF segment (0: none), walking segments by their lengths up to the
 * first scan. */
static void find_markers(const uint8_t *b, size_t n, size_t *sos, size_t *app0, size_t *app0_len)
{
    *sos = *app0 = *app0_len = 0;
    for (size_t i = 2; i + 4 <= n && b[i] == 0xFF;) {
        size_t len = (size_t)b[i + 2] << 8 | b[i + 3];
        if (b[i + 1] == 0xDA) {
            *sos = i;
            return;
        }
        if (b[i + 1] == 0xE0 && !*app0) {
            *app0 = i;
            *app0_len = 2 + len;
        }
        i += 2 + len;
    }
}

/* The copies of one file that go wrong after its scan. */
static void check_broken_copies(const char *work, const char *name, const uint8_t *b, size_t n)
{
    size_t sos, app0, app0_len;
    find_markers(b, n, &sos, &app0, &app0_len);
    if (!sos || n < 4 || b[n - 2] != 0xFF || b[n - 1] != 0xD9) return;
    uint8_t *copy = malloc(n + 64 + (n - sos));
    if (!copy) abort();
    char path[4096];
    /* cut short in the last quarter */
    snprintf(path, sizeof path, "%s/%s.cut.jpg", work, name);
    if (write_all(path, b, n - (n - sos) / 4 - 1) == 0) check_file(path, th_rand_int(1, 4));
    /* the file's scan once more before EOI: a second scan of the same
     * components, which the exact decoder leaves to stb */
    memcpy(copy, b, n - 2);
    memcpy(copy + n - 2, b + sos, n - sos);
    snprintf(path, sizeof path, "%s/%s.twice.jpg", work, name);
    if (write_all(path, copy, n - 2 + n - sos) == 0) check_file(path, th_rand_int(2, 4));
    /* without JFIF, then an Adobe segment with transform 0 after the scan:
     * a 3-component file's colour conversion changes when it is read */
    size_t m = 0;
    memcpy(copy, b, app0 ? app0 : 0);
    m = app0;
    memcpy(copy + m, b + app0 + app0_len, n - 2 - app0 - app0_len);
    m += n - 2 - app0 - app0_len;
    static const uint8_t adobe[] = {0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 0};
    memcpy(copy + m, adobe, sizeof adobe);
    m += sizeof adobe;
    copy[m++] = 0xFF;
    copy[m++] = 0xD9;
    snprintf(path, sizeof path, "%s/%s.adobe.jpg", work, name);
    if (write_all(path, copy, m) == 0) check_file(path, th_rand_int(2, 4));
    free(copy);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_hist_stream WORKDIR DIR...\n");
        return 2;
    }
    th_seed();
    ctx = ti_cpu_context(2);
    for (int d = 2; d < argc; d++) {
        char *names[4096];
        int n = ti_jpeg_names(argv[d], names, 4096);
        for (int i = 0; i < n; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[d], names[i]);
            for (int threads = 1; threads <= 4; threads++) check_file(path, threads);
            size_t size;
            uint8_t *b = NULL;
            if (gi__read_file(path, 1u << 30, &b, &size) == GI_OK && size < (8u << 20))
                check_broken_copies(argv[1], names[i], b, size);
            gi__pixels_free(b);
            free(names[i]);
        }
    }
    printf("%d streamed, %d left to the load\n", streamed, left);
    th_check(streamed > 0 && left > 0, "both ways taken: %d streamed, %d left", streamed, left);
    gi_context_destroy(ctx);
    return th_finish();
}
