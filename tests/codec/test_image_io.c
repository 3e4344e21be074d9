/* Image files: PNG round trips keep every byte and the channel count,
 * JPEG drops alpha, format detection, load limits, and the atomic save
 * (no file left behind on failure). Depth: gi_convert_depth's rule for
 * every sample, gi_save_options.depth 8/16/keep, and a 16-bit JPEG
 * refused with a message naming --depth 8. */
#include "harness.h"
#include "testimg.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[512];

static const char *in_tmp(const char *name)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static int entries_in_tmp(void)
{
    int n = 0;
    DIR *d = opendir(tmpdir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d) closedir(d);
    return n;
}

static void check_format_from_path(void)
{
    const struct { const char *path; gi_format want; } cases[] = {
        {"a.png", GI_FORMAT_PNG},   {"dir/A.PNG", GI_FORMAT_PNG},  {"x.jpg", GI_FORMAT_JPEG},
        {"x.JPEG", GI_FORMAT_JPEG}, {"x.jpeg", GI_FORMAT_JPEG},    {"x.Jpg", GI_FORMAT_JPEG},
        {"x.gif", GI_FORMAT_AUTO},  {"png", GI_FORMAT_AUTO},       {"x", GI_FORMAT_AUTO},
        {"d.png/x", GI_FORMAT_AUTO}, {"x.png.bak", GI_FORMAT_AUTO}, {"-", GI_FORMAT_AUTO},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        th_check(gi_format_from_path(cases[k].path) == cases[k].want,
                 "gi_format_from_path(\"%s\") = %d, want %d", cases[k].path,
                 (int)gi_format_from_path(cases[k].path), (int)cases[k].want);
}

static gi_status encode(const gi_image *img, gi_format format, int quality, uint8_t **bytes,
                        size_t *size)
{
    gi_save_options opts;
    gi_save_options_default(&opts);
    opts.format = format;
    opts.jpeg_quality = quality;
    return gi_encode(img, &opts, bytes, size);
}

static void check_png_round_trip(int w, int h, int ch)
{
    gi_image src = ti_random(w, h, ch), back = {0};
    uint8_t *bytes = NULL;
    size_t size = 0;
    char why[96];
    if (th_check(encode(&src, GI_FORMAT_PNG, 90, &bytes, &size) == GI_OK, "encode png: %s",
                 gi_last_error()) &&
        th_check(gi_load_memory(&back, bytes, size, "mem.png", NULL) == GI_OK,
                 "decode png: %s", gi_last_error()))
        th_check(ti_same(&back, &src, why, sizeof why), "png round trip %dx%dx%d: %s", w, h,
                 ch, why);
    gi_image_free(&back);
    gi_free(bytes);
    ti_free(&src);
}

/* JPEG drops alpha (stb always writes three YCbCr components, so gray may
 * come back as RGB), and a lower quality is smaller. */
static void check_jpeg(int ch)
{
    gi_image src = ti_random(40, 30, ch), back = {0};
    uint8_t *hi = NULL, *lo = NULL;
    size_t hi_size = 0, lo_size = 0;
    if (th_check(encode(&src, GI_FORMAT_JPEG, 95, &hi, &hi_size) == GI_OK &&
                     encode(&src, GI_FORMAT_JPEG, 10, &lo, &lo_size) == GI_OK,
                 "encode jpeg: %s", gi_last_error()) &&
        th_check(gi_load_memory(&back, hi, hi_size, "mem.jpg", NULL) == GI_OK,
                 "decode jpeg: %s", gi_last_error())) {
        th_check((back.channels == 3 || (ch <= 2 && back.channels == 1)) && back.width == 40 &&
                     back.height == 30,
                 "jpeg of %d channels decodes as %dx%dx%d", ch, back.width, back.height,
                 back.channels);
        th_check(lo_size < hi_size, "jpeg quality 10 (%zu bytes) not smaller than 95 (%zu)",
                 lo_size, hi_size);
    }
    gi_image_free(&back);
    gi_free(hi);
    gi_free(lo);
    ti_free(&src);
}

/* gi_load_limits.decode_threads splits a JPEG's decode into bands of rows
 * (and runs of restart intervals): the same pixels from any count. */
static void check_decode_threads(void)
{
    gi_image src = ti_random(701, 517, 3), one = {0}, many = {0};
    uint8_t *bytes = NULL;
    size_t size = 0;
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    th_check(limits.decode_threads == 0, "decode_threads defaults to %d", limits.decode_threads);
    if (th_check(encode(&src, GI_FORMAT_JPEG, 90, &bytes, &size) == GI_OK, "encode: %s",
                 gi_last_error()) &&
        th_check(gi_load_memory(&one, bytes, size, "one.jpg", &limits) == GI_OK, "decode: %s",
                 gi_last_error()))
        for (int threads = 2; threads <= 9; threads += 7) {
            limits.decode_threads = threads;
            int ok = th_check(gi_load_memory(&many, bytes, size, "many.jpg", &limits) == GI_OK,
                              "decode on %d threads: %s", threads, gi_last_error());
            th_check(ok && many.width == one.width && many.height == one.height &&
                         memcmp(many.data, one.data, one.stride * (size_t)one.height) == 0,
                     "decode on %d threads differs from one thread", threads);
            gi_image_free(&many);
        }
    gi_image_free(&one);
    gi_free(bytes);
    ti_free(&src);
}

static void check_decode_errors(void)
{
    gi_image img = ti_random(8, 8, 3), back = {0};
    uint8_t *bytes = NULL;
    size_t size = 0;
    gi_load_limits limits;
    gi_status st = gi_load_memory(&back, "not an image", 12, "junk.png", NULL);
    th_check(st == GI_ERR_DECODE && strstr(gi_last_error(), "junk.png"),
             "decoding junk: status %d, message \"%s\" (want GI_ERR_DECODE naming junk.png)",
             (int)st, gi_last_error());
    if (encode(&img, GI_FORMAT_PNG, 90, &bytes, &size) == GI_OK) {
        st = gi_load_memory(&back, bytes, size / 2, "half.png", NULL);
        th_check(st == GI_ERR_DECODE, "truncated png: status %d, want GI_ERR_DECODE", (int)st);
        gi_image_free(&back);
        gi_load_limits_default(&limits);
        limits.max_pixels = 63;
        st = gi_load_memory(&back, bytes, size, "big.png", &limits);
        th_check(st == GI_ERR_TOO_LARGE, "8x8 image with max_pixels 63: status %d, want "
                 "GI_ERR_TOO_LARGE", (int)st);
        gi_image_free(&back);
    }
    gi_load_limits_default(&limits);
    th_check(limits.max_input_bytes == 1ull << 30 && limits.max_pixels == 16384ull * 16384,
             "default limits %llu bytes, %llu pixels", (unsigned long long)limits.max_input_bytes,
             (unsigned long long)limits.max_pixels);
    gi_free(bytes);
    ti_free(&img);
}

static void check_files(void)
{
    gi_image img = ti_random(9, 7, 4), back = {0};
    gi_save_options opts;
    gi_status st;
    char why[96];
    gi_save_options_default(&opts);
    st = gi_save_file(&img, in_tmp("a.png"), &opts);
    th_check(st == GI_OK, "gi_save_file a.png: %s", gi_last_error());
    st = gi_load_file(&back, in_tmp("a.png"), NULL);
    if (th_check(st == GI_OK, "gi_load_file a.png: %s", gi_last_error()))
        th_check(ti_same(&back, &img, why, sizeof why), "file round trip: %s", why);
    gi_image_free(&back);
    st = gi_load_file(&back, in_tmp("missing.png"), NULL);
    th_check(st == GI_ERR_IO && strstr(gi_last_error(), "missing.png"),
             "loading a missing file: status %d, \"%s\"", (int)st, gi_last_error());
    st = gi_save_file(&img, in_tmp("no/such/dir.png"), &opts);
    th_check(st == GI_ERR_IO && strstr(gi_last_error(), "dir.png"),
             "saving into a missing directory: status %d, \"%s\"", (int)st, gi_last_error());
    /* A directory in the way makes the final rename fail after the
     * temporary file was written: that file must be gone again. */
    if (mkdir(in_tmp("taken.png"), 0700) == 0) {
        st = gi_save_file(&img, in_tmp("taken.png"), &opts);
        th_check(st == GI_ERR_IO, "saving over a directory: status %d", (int)st);
        th_check(entries_in_tmp() == 2, "a failed save left %d entries in %s (want 2)",
                 entries_in_tmp(), tmpdir);
        rmdir(in_tmp("taken.png"));
    }
    st = gi_write_file_atomic(in_tmp("t.txt"), "hello\n", 6);
    th_check(st == GI_OK, "gi_write_file_atomic: %s", gi_last_error());
    remove(in_tmp("t.txt"));
    remove(in_tmp("a.png"));
    gi_image_free(&back);
    ti_free(&img);
}

/* PNG settings are per call: threads encoding at once with different
 * levels and filters each get the bytes a lone encode with theirs gives. */
#define SETTINGS 6
static gi_image shared_img;
static uint8_t *expected[SETTINGS];
static size_t expected_size[SETTINGS];

static gi_save_options settings_of(int k)
{
    return (gi_save_options){.format = GI_FORMAT_PNG, .png_level = 1 + k % 3,
                             .png_filter = (gi_png_filter)(k % 7)};
}

static void *encode_many(void *arg)
{
    int k0 = (int)(intptr_t)arg, bad = 0;
    for (int r = 0; r < 12; r++) {
        int k = (k0 + r) % SETTINGS;
        gi_save_options o = settings_of(k);
        uint8_t *bytes;
        size_t size;
        if (gi_encode(&shared_img, &o, &bytes, &size) != GI_OK) bad++;
        else if (size != expected_size[k] || memcmp(bytes, expected[k], size) != 0) bad++;
        else gi_free(bytes);
    }
    return (void *)(intptr_t)bad;
}

static void check_png_settings_per_call(void)
{
    shared_img = ti_random(61, 37, 4);
    for (int k = 0; k < SETTINGS; k++) {
        gi_save_options o = settings_of(k);
        th_check(gi_encode(&shared_img, &o, &expected[k], &expected_size[k]) == GI_OK,
                 "encode with settings %d", k);
    }
    /* settings 3 and 4 force two filters (sub, up): their rows' filter
     * bytes differ, whichever deflate (stb's gives levels 1-4 alike) */
    th_check(expected_size[3] != expected_size[4] || memcmp(expected[3], expected[4],
                                                            expected_size[3]) != 0,
             "other PNG settings gave the same bytes");
    pthread_t t[8];
    for (int i = 0; i < 8; i++) pthread_create(&t[i], NULL, encode_many, (void *)(intptr_t)i);
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (int)(intptr_t)r;
    }
    th_check(bad == 0, "%d concurrent encodes gave other bytes than alone", bad);
    for (int k = 0; k < SETTINGS; k++) gi_free(expected[k]);
    ti_free(&shared_img);
}

/* gi_convert_depth on every sample: 8 -> 16 is v * 257, 16 -> 8 the
 * nearest of v * 255 / 65535 (never a tie), and 8 -> 16 -> 8 the identity. */
static void check_convert_depth(void)
{
    gi_image wide, narrow, back;
    gi_image_alloc_depth(&wide, 65536, 1, 1, 16);
    gi_image_alloc_depth(&narrow, 65536, 1, 1, 8);
    uint16_t *w16 = (uint16_t *)(void *)wide.data;
    for (uint32_t v = 0; v < 65536; v++) w16[v] = (uint16_t)v;
    th_check(gi_convert_depth(&wide, &narrow) == GI_OK, "16 -> 8: %s", gi_last_error());
    int bad = 0;
    for (uint32_t v = 0; v < 65536; v++) {
        /* the nearest integer to v * 255 / 65535, found without division by 257 */
        const uint64_t twice = 2ull * v * 255;
        const uint32_t nearest = (uint32_t)((twice + 65535) / (2ull * 65535));
        bad += narrow.data[v] != nearest;
        bad += (2ull * v * 255) % (2ull * 65535) == 65535; /* a tie would be this */
    }
    th_check(bad == 0, "16 -> 8: %d samples not the nearest", bad);
    th_check(narrow.data[0xFF00] == 254 && narrow.data[0xFFFF] == 255 && narrow.data[128] == 0 &&
                 narrow.data[129] == 1,
             "16 -> 8: 0xFF00 -> %d, 0xFFFF -> %d, 128 -> %d, 129 -> %d", narrow.data[0xFF00],
             narrow.data[0xFFFF], narrow.data[128], narrow.data[129]);
    gi_image_alloc_depth(&back, 256, 1, 1, 16);
    gi_image bytes = narrow;
    bytes.width = 256;
    for (int v = 0; v < 256; v++) bytes.data[v] = (uint8_t)v;
    th_check(gi_convert_depth(&bytes, &back) == GI_OK, "8 -> 16: %s", gi_last_error());
    const uint16_t *b16 = (const uint16_t *)(const void *)back.data;
    for (int v = 0; v < 256; v++) bad += b16[v] != v * 257;
    th_check(bad == 0 && b16[255] == 65535, "8 -> 16: not v * 257");
    th_check(gi_convert_depth(&back, &bytes) == GI_OK, "8 -> 16 -> 8: %s", gi_last_error());
    for (int v = 0; v < 256; v++) bad += bytes.data[v] != v;
    th_check(bad == 0, "8 -> 16 -> 8 is not the identity");
    th_check(gi_convert_depth(&wide, &back) == GI_ERR_INVALID_ARGUMENT,
             "another width accepted");
    gi_image_free(&wide);
    gi_image_free(&narrow);
    gi_image_free(&back);
}

/* gi_save_options.depth: keep, 8 or 16, in every format; a 16-bit image
 * as JPEG only with depth 8. */
static void check_save_depth(void)
{
    gi_image img;
    gi_image_alloc_depth(&img, 3, 2, 3, 16);
    uint16_t *s16 = (uint16_t *)(void *)img.data;
    for (int i = 0; i < 18; i++) s16[i] = (uint16_t)(i * 3641 + 0xFF00 * (i == 0));
    const gi_format formats[] = {GI_FORMAT_PNG, GI_FORMAT_PNM, GI_FORMAT_PAM};
    for (int f = 0; f < 3; f++)
        for (int depth = 0; depth <= 16; depth += 8) {
            gi_save_options o = {.format = formats[f], .depth = depth};
            uint8_t *bytes = NULL;
            size_t size = 0;
            gi_image back = {0};
            const int want = depth ? depth : 16;
            if (th_check(gi_encode(&img, &o, &bytes, &size) == GI_OK, "encode: %s",
                         gi_last_error()) &&
                th_check(gi_load_memory(&back, bytes, size, "depth", NULL) == GI_OK, "decode: %s",
                         gi_last_error()) &&
                th_check((back.depth == 16 ? 16 : 8) == want, "format %d depth %d: read at %d",
                         (int)formats[f], depth, back.depth)) {
                int same = 1;
                for (int i = 0; i < 18; i++)
                    same &= want == 16 ? ((uint16_t *)(void *)back.data)[i] == s16[i]
                                       : back.data[i] == (s16[i] + 128) / 257;
                th_check(same && (want == 16 || back.data[0] == 254),
                         "format %d depth %d: other samples", (int)formats[f], depth);
            }
            gi_image_free(&back);
            gi_free(bytes);
        }
    gi_save_options jpeg = {.format = GI_FORMAT_JPEG};
    uint8_t *bytes = NULL;
    size_t size = 0;
    th_check(gi_encode(&img, &jpeg, &bytes, &size) == GI_ERR_UNSUPPORTED &&
                 strstr(gi_last_error(), "--depth 8") && !bytes,
             "a 16-bit JPEG: %s", gi_last_error());
    jpeg.depth = 8;
    th_check(gi_encode(&img, &jpeg, &bytes, &size) == GI_OK, "a 16-bit image as an 8-bit JPEG: %s",
             gi_last_error());
    gi_free(bytes);
    gi_save_options odd = {.format = GI_FORMAT_PNG, .depth = 12};
    th_check(gi_encode(&img, &odd, &bytes, &size) == GI_ERR_INVALID_ARGUMENT, "depth 12 taken");
    gi_image_free(&img);
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/gpuimg-io-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    th_seed();
    check_format_from_path();
    for (int ch = 1; ch <= 4; ch++) {
        check_png_round_trip(1, 1, ch);
        check_png_round_trip(13, 5, ch);
        check_jpeg(ch);
    }
    check_decode_threads();
    check_decode_errors();
    check_files();
    check_png_settings_per_call();
    check_convert_depth();
    check_save_depth();
    rmdir(tmpdir);
    return th_finish();
}
