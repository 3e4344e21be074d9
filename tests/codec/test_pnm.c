/* Netpbm: round trips of every channel count at 8 and 16 bits, maxval
 * scaling against a float reference (to 8 bits up to maxval 255, to 16
 * past it), comments and plain formats, hostile headers, and image
 * streams (gi_reader, gi_output) with truncated and empty ones. */
#include "harness.h"
#include "testimg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[512];

static const char *in_tmp(const char *name)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static gi_status decode(gi_image *img, const void *bytes, size_t size)
{
    return gi_load_memory(img, bytes, size, "mem.pnm", NULL);
}

/* Decodes text-and-bytes `bytes` and checks the shape, depth and samples
 * (want: uint8_t, or uint16_t at 16 bits). */
static void expect_pixels_at(const char *what, const void *bytes, size_t size, int w, int h,
                             int ch, int depth, const void *want)
{
    gi_image img;
    gi_status st = decode(&img, bytes, size);
    if (th_check(st == GI_OK, "%s: %s", what, gi_last_error()) &&
        th_check(img.width == w && img.height == h && img.channels == ch &&
                     (img.depth == 16 ? 16 : 8) == depth,
                 "%s: %dx%dx%d at %d bits, want %dx%dx%d at %d", what, img.width, img.height,
                 img.channels, img.depth, w, h, ch, depth))
        th_check(memcmp(img.data, want, (size_t)w * h * ch * (size_t)(depth / 8)) == 0,
                 "%s: wrong samples", what);
    gi_image_free(&img);
}

static void expect_pixels(const char *what, const void *bytes, size_t size, int w, int h, int ch,
                          const uint8_t *want)
{
    expect_pixels_at(what, bytes, size, w, h, ch, 8, want);
}

static void expect_failure(const char *what, const char *bytes, size_t size, gi_status want,
                           const char *phrase)
{
    gi_image img;
    gi_status st = decode(&img, bytes, size);
    th_check(st == want && strstr(gi_last_error(), phrase) && strstr(gi_last_error(), "mem.pnm") &&
                 !img.data,
             "%s: status %d \"%s\", want %d with \"%s\"", what, (int)st, gi_last_error(),
             (int)want, phrase);
}

/* PAM keeps every channel; PNM (P5/P6) drops alpha. */
static void check_round_trip(int w, int h, int ch, gi_format format)
{
    gi_image src = ti_random(w, h, ch), back = {0};
    gi_save_options opts = {.format = format};
    uint8_t *bytes = NULL;
    size_t size = 0;
    int kept = format == GI_FORMAT_PAM ? ch : ch >= 3 ? 3 : 1;
    if (th_check(gi_encode(&src, &opts, &bytes, &size) == GI_OK, "encode: %s", gi_last_error()) &&
        th_check(decode(&back, bytes, size) == GI_OK, "decode: %s", gi_last_error()) &&
        th_check(back.width == w && back.height == h && back.channels == kept,
                 "%dx%dx%d as %s came back %dx%dx%d", w, h, ch,
                 format == GI_FORMAT_PAM ? "PAM" : "PNM", back.width, back.height, back.channels)) {
        int same = 1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                same &= memcmp(ti_px(&src, x, y), back.data + ((size_t)y * w + x) * kept,
                               (size_t)kept) == 0;
        th_check(same, "%dx%dx%d %s round trip: samples differ", w, h, ch,
                 format == GI_FORMAT_PAM ? "PAM" : "PNM");
        char magic = format == GI_FORMAT_PAM ? '7' : kept == 1 ? '5' : '6';
        th_check(bytes[0] == 'P' && bytes[1] == magic, "%d channels as %s: magic P%c, want P%c",
                 ch, format == GI_FORMAT_PAM ? "PAM" : "PNM", bytes[1], magic);
    }
    gi_image_free(&back);
    gi_free(bytes);
    ti_free(&src);
}

/* 16-bit images written as maxval 65535 and read back sample for sample:
 * PAM keeps every channel, PNM (P5/P6) drops alpha. */
static void check_round_trip_16(int w, int h, int ch, gi_format format)
{
    gi_image src, back = {0};
    gi_image_alloc_depth(&src, w, h, ch, 16);
    uint16_t *s16 = (uint16_t *)(void *)src.data;
    for (size_t i = 0; i < (size_t)w * h * ch; i++) s16[i] = (uint16_t)th_rand_int(0, 65535);
    s16[0] = 0xFF00; /* read at 8 bits it would be 254 or 255 */
    gi_save_options opts = {.format = format};
    uint8_t *bytes = NULL;
    size_t size = 0;
    const int kept = format == GI_FORMAT_PAM ? ch : ch >= 3 ? 3 : 1;
    if (th_check(gi_encode(&src, &opts, &bytes, &size) == GI_OK, "encode: %s", gi_last_error()) &&
        th_check(strstr((const char *)bytes, "65535") != NULL, "%dx%dx%d: no maxval 65535", w,
                 h, ch) &&
        th_check(decode(&back, bytes, size) == GI_OK, "decode: %s", gi_last_error()) &&
        th_check(back.width == w && back.height == h && back.channels == kept &&
                     back.depth == 16,
                 "%dx%dx%d 16-bit came back %dx%dx%d at %d bits", w, h, ch, back.width,
                 back.height, back.channels, back.depth)) {
        const uint16_t *b16 = (const uint16_t *)(const void *)back.data;
        int same = 1;
        for (size_t p = 0; p < (size_t)w * h; p++)
            same &= memcmp(s16 + p * ch, b16 + p * kept, (size_t)kept * 2) == 0;
        th_check(same, "%dx%dx%d 16-bit %s round trip: samples differ", w, h, ch,
                 format == GI_FORMAT_PAM ? "PAM" : "PNM");
        /* big-endian in the file: the last sample's bytes end it */
        const uint16_t last = s16[(size_t)w * h * ch - 1];
        if (kept == ch)
            th_check(bytes[size - 2] == last >> 8 && bytes[size - 1] == (last & 255),
                     "%dx%dx%d: samples not big-endian", w, h, ch);
    }
    gi_image_free(&back);
    gi_free(bytes);
    gi_image_free(&src);
}

/* Every sample of maxval m against round(v * top / m), halves up: top 255
 * up to maxval 255 (8-bit images), else 65535 (16-bit images). */
static void check_maxval(uint32_t maxval)
{
    uint32_t count = maxval + 1;
    size_t header_len;
    char header[64];
    header_len = (size_t)snprintf(header, sizeof header, "P5 %u 1 %u\n", count, maxval);
    int wide = maxval > 255;
    uint8_t *file = malloc(header_len + (size_t)count * 2), *want = malloc(count);
    uint16_t *want16 = malloc((size_t)count * 2);
    memcpy(file, header, header_len);
    for (uint32_t v = 0; v < count; v++) {
        if (wide) {
            file[header_len + 2 * v] = (uint8_t)(v >> 8);
            file[header_len + 2 * v + 1] = (uint8_t)v;
        } else {
            file[header_len + v] = (uint8_t)v;
        }
        want[v] = (uint8_t)floor(v * 255.0 / maxval + 0.5);
        want16[v] = (uint16_t)floor(v * 65535.0 / maxval + 0.5);
    }
    char what[64];
    snprintf(what, sizeof what, "maxval %u", maxval);
    expect_pixels_at(what, file, header_len + (size_t)count * (wide ? 2 : 1), (int)count, 1, 1,
                     wide ? 16 : 8, wide ? (const void *)want16 : want);
    /* A sample over maxval is refused. */
    if (maxval < 65535) {
        if (wide) file[header_len] = 0xff, file[header_len + 1] = 0xff;
        else file[header_len] = 0xff;
        if (maxval < 255 || wide)
            expect_failure(what, (char *)file, header_len + (size_t)count * (wide ? 2 : 1),
                           GI_ERR_DECODE, "over the maxval");
    }
    free(file);
    free(want);
    free(want16);
}

static void check_headers(void)
{
    static const uint8_t rgb2[] = {1, 2, 3, 4, 5, 6};
    static const char commented[] = "P6 # a comment\n#another\n 2 # width\n 1\n# before maxval\n"
                                    "255#right after it\n\1\2\3\4\5\6";
    expect_pixels("comments", commented, sizeof commented - 1, 2, 1, 3, rgb2);
    static const char pam[] = "P7\n# comment\n\nWIDTH 2\n  HEIGHT 1\nDEPTH 3\nMAXVAL 255\n"
                              "TUPLTYPE RGB\nENDHDR\n\1\2\3\4\5\6";
    expect_pixels("PAM with comments", pam, sizeof pam - 1, 2, 1, 3, rgb2);
    static const char pam_no_type[] = "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 1\nENDHDR\n\1\0";
    expect_pixels("PAM without TUPLTYPE, maxval 1", pam_no_type, sizeof pam_no_type - 1, 1, 1,
                  2, (const uint8_t[]){255, 0});
    static const char plain_rgb[] = "P3\n# plain\n2 1\n# m\n10\n0 5 10\n 10 # c\n 0 1\n";
    expect_pixels("P3", plain_rgb, sizeof plain_rgb - 1, 2, 1, 3,
                  (const uint8_t[]){0, 128, 255, 255, 0, 26});
    static const char plain_gray[] = "P2 3 1 65535 0 32896 65535";
    expect_pixels_at("P2 16-bit, no newline at the end", plain_gray, sizeof plain_gray - 1, 3, 1,
                     1, 16, (const uint16_t[]){0, 32896, 65535});
    static const char plain_1000[] = "P2 3 1 1000 0 500 1000\n";
    expect_pixels_at("P2 maxval 1000", plain_1000, sizeof plain_1000 - 1, 3, 1, 1, 16,
                     (const uint16_t[]){0, 32768, 65535});
    static const char plain_bits[] = "P1 3 2\n101\n0 1 0\n";
    expect_pixels("P1", plain_bits, sizeof plain_bits - 1, 3, 2, 1,
                  (const uint8_t[]){0, 255, 0, 255, 0, 255});
    static const char raw_bits[] = "P4 10 2\n\xa0\x40\xff\xc0";
    expect_pixels("P4", raw_bits, sizeof raw_bits - 1, 10, 2, 1,
                  (const uint8_t[]){0, 255, 0, 255, 255, 255, 255, 255, 255, 0,
                                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}

static void check_hostile_headers(void)
{
    const struct {
        const char *what, *bytes;
        gi_status want;
        const char *phrase;
    } cases[] = {
        {"maxval 0", "P5 1 1 0\n", GI_ERR_DECODE, "maxval 0"},
        {"maxval 65536", "P5 1 1 65536\n", GI_ERR_DECODE, "maxval 65536"},
        {"width 0", "P5 0 1 255\n", GI_ERR_DECODE, "no pixels"},
        {"negative width", "P5 -1 1 255\n\0", GI_ERR_DECODE, "not a number"},
        {"overflowing height", "P6 1 99999999999 255\n", GI_ERR_TOO_LARGE, "over 2147483647"},
        {"over max_pixels", "P5 16385 16384 255\n", GI_ERR_TOO_LARGE, "pixel limit"},
        {"no blank after maxval", "P5 1 1 255x", GI_ERR_DECODE, "no blank"},
        {"truncated header", "P6 1 1 25", GI_ERR_DECODE, "truncated"},
        {"truncated raster", "P6 2 1 255\n\1\2\3", GI_ERR_DECODE, "truncated"},
        {"truncated plain", "P2 2 2 255 1 2 3", GI_ERR_DECODE, "truncated"},
        {"plain over maxval", "P2 1 1 7 8", GI_ERR_DECODE, "over the maxval"},
        {"plain sample past 65535", "P2 1 1 1000 70000", GI_ERR_DECODE,
         "a sample of more than 65535 is over the maxval 1000"},
        {"plain junk", "P3 1 1 255 1 x 3", GI_ERR_DECODE, "not a number"},
        {"bitmap junk", "P1 2 1 1 2", GI_ERR_DECODE, "not a number"},
        {"PAM depth 5", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n12345",
         GI_ERR_UNSUPPORTED, "DEPTH 5"},
        {"PAM depth 0", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 0\nMAXVAL 255\nENDHDR\n",
         GI_ERR_UNSUPPORTED, "DEPTH 0"},
        {"PAM type against depth", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\n"
         "TUPLTYPE RGB_ALPHA\nENDHDR\n123", GI_ERR_DECODE, "TUPLTYPE RGB_ALPHA with DEPTH 3"},
        {"PAM unknown type", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE CMYK\n"
         "ENDHDR\n1234", GI_ERR_UNSUPPORTED, "CMYK"},
        {"PAM no ENDHDR", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\n", GI_ERR_DECODE,
         "truncated"},
        {"PAM no MAXVAL", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nENDHDR\n1", GI_ERR_DECODE,
         "all needed"},
        {"PAM twice WIDTH", "P7\nWIDTH 1\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n1",
         GI_ERR_DECODE, "twice"},
        {"PAM unknown line", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nCOLOUR red\nENDHDR\n1",
         GI_ERR_DECODE, "unknown line"},
        {"PAM number junk", "P7\nWIDTH 1x\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n1",
         GI_ERR_DECODE, "WIDTH is not a number"},
        {"XV thumbnail", "P7 332\n#END_OF_COMMENTS\n1 1 255\n1", GI_ERR_DECODE,
         "not a PAM header"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        expect_failure(cases[k].what, cases[k].bytes, strlen(cases[k].bytes), cases[k].want,
                       cases[k].phrase);
    }
    /* Dimensions whose bytes overflow size_t get past a raised pixel limit
     * only to be refused by the byte count. */
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    limits.max_pixels = UINT64_MAX;
    limits.max_input_bytes = UINT64_MAX;
    gi_image img;
    const char *huge = "P7\nWIDTH 2147483647\nHEIGHT 2147483647\nDEPTH 4\nMAXVAL 65535\nENDHDR\n";
    gi_status st = gi_load_memory(&img, huge, strlen(huge), "huge.pam", &limits);
    th_check(st == GI_ERR_TOO_LARGE || st == GI_ERR_DECODE, "2^31 x 2^31 x 4 x 16 bits: status %d",
             (int)st);
}

static void check_format_names(void)
{
    const struct { const char *path; gi_format want; } cases[] = {
        {"a.pnm", GI_FORMAT_PNM}, {"a.PPM", GI_FORMAT_PNM}, {"d/a.pgm", GI_FORMAT_PNM},
        {"a.pam", GI_FORMAT_PAM}, {"a.pbm", GI_FORMAT_AUTO},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        th_check(gi_format_from_path(cases[k].path) == cases[k].want,
                 "gi_format_from_path(\"%s\") = %d, want %d", cases[k].path,
                 (int)gi_format_from_path(cases[k].path), (int)cases[k].want);
}

/* Three images through gi_output into one file, then gi_reader: the same
 * images in order, then the end. */
static void check_stream(void)
{
    gi_image imgs[3] = {ti_random(5, 3, 1), ti_random(4, 4, 4), ti_random(7, 2, 3)};
    gi_format formats[3] = {GI_FORMAT_PNM, GI_FORMAT_PAM, GI_FORMAT_PNM};
    gi_output *out;
    gi_status st = gi_output_open(&out, in_tmp("s.pam"));
    for (int i = 0; i < 3 && st == GI_OK; i++) {
        gi_save_options opts = {.format = formats[i]};
        st = gi_output_image(out, &imgs[i], &opts);
    }
    if (st == GI_OK) st = gi_output_close(out, 1);
    th_check(st == GI_OK, "writing a stream: %s", gi_last_error());
    /* A plain image at the end, with the newline netpbm writes after it. */
    FILE *f = fopen(in_tmp("s.pam"), "ab");
    if (f) {
        fputs("P2 2 1 3 3 0\n\n", f);
        fclose(f);
    }
    gi_reader *r;
    st = gi_reader_open(&r, in_tmp("s.pam"), NULL);
    if (!th_check(st == GI_OK, "gi_reader_open: %s", gi_last_error())) return;
    char why[96];
    for (int i = 0; i < 4; i++) {
        gi_image img;
        st = gi_reader_next(r, &img);
        if (th_check(st == GI_OK && img.data, "image %d of the stream: %s", i + 1, gi_last_error())) {
            if (i < 3) th_check(ti_same(&img, &imgs[i], why, sizeof why), "image %d: %s", i + 1, why);
            else th_check(img.width == 2 && img.data[0] == 255 && img.data[1] == 0, "plain image");
        }
        gi_image_free(&img);
    }
    gi_image end;
    st = gi_reader_next(r, &end);
    th_check(st == GI_OK && !end.data && gi_reader_count(r) == 4,
             "after 4 images: status %d, data %p, count %zu", (int)st, (void *)end.data,
             gi_reader_count(r));
    gi_reader_close(r);
    for (int i = 0; i < 3; i++) ti_free(&imgs[i]);
}

/* A stream cut inside its third image: two images, then a failure that
 * names image 3; an empty one fails on its first image. */
static void check_truncated_and_empty_streams(void)
{
    gi_image img = ti_random(6, 5, 3);
    gi_save_options opts = {.format = GI_FORMAT_PNM};
    uint8_t *bytes;
    size_t size;
    if (gi_encode(&img, &opts, &bytes, &size) != GI_OK) return;
    FILE *f = fopen(in_tmp("cut.ppm"), "wb");
    fwrite(bytes, 1, size, f);
    fwrite(bytes, 1, size, f);
    fwrite(bytes, 1, size - 7, f);
    fclose(f);
    gi_free(bytes);
    gi_reader *r;
    gi_image got;
    int ok = 0;
    if (gi_reader_open(&r, in_tmp("cut.ppm"), NULL) != GI_OK) return;
    while (gi_reader_next(r, &got) == GI_OK && got.data) {
        ok++;
        gi_image_free(&got);
    }
    th_check(ok == 2 && strstr(gi_last_error(), "image 3: truncated"),
             "cut stream: %d images, then \"%s\"", ok, gi_last_error());
    th_check(gi_reader_next(r, &got) != GI_OK, "a reader reads on after a failure");
    gi_reader_close(r);
    f = fopen(in_tmp("empty.ppm"), "wb");
    fclose(f);
    if (gi_reader_open(&r, in_tmp("empty.ppm"), NULL) != GI_OK) return;
    gi_status st = gi_reader_next(r, &got);
    th_check(st == GI_ERR_DECODE && strstr(gi_last_error(), "empty"), "empty stream: %d \"%s\"",
             (int)st, gi_last_error());
    gi_reader_close(r);
    /* gi_output_close(out, 0) leaves nothing behind. */
    gi_output *out;
    if (gi_output_open(&out, in_tmp("dropped.ppm")) == GI_OK) {
        gi_output_image(out, &img, &opts);
        gi_output_close(out, 0);
        th_check(access(in_tmp("dropped.ppm"), F_OK) != 0, "a dropped output exists");
    }
    ti_free(&img);
    remove(in_tmp("cut.ppm"));
    remove(in_tmp("empty.ppm"));
    remove(in_tmp("s.pam"));
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/gpuimg-pnm-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    th_seed();
    for (int ch = 1; ch <= 4; ch++) {
        check_round_trip(1, 1, ch, GI_FORMAT_PAM);
        check_round_trip(13, 5, ch, GI_FORMAT_PAM);
        check_round_trip(13, 5, ch, GI_FORMAT_PNM);
        const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {13, 5}, {31, 17}};
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            check_round_trip_16(sizes[i][0], sizes[i][1], ch, GI_FORMAT_PAM);
            check_round_trip_16(sizes[i][0], sizes[i][1], ch, GI_FORMAT_PNM);
        }
    }
    const uint32_t maxvals[] = {1, 2, 7, 100, 254, 255, 256, 1000, 4095, 65534, 65535};
    for (size_t i = 0; i < sizeof maxvals / sizeof *maxvals; i++) check_maxval(maxvals[i]);
    check_headers();
    check_hostile_headers();
    check_format_names();
    check_stream();
    check_truncated_and_empty_streams();
    rmdir(tmpdir);
    return th_finish();
}
