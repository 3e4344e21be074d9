/* The fast PNG decoder (lib/codec/png/png_fast.c) against stb: every PNG of
 * samples/ and tests/golden/, and PNGs written here of every colour type
 * the fast decoder takes (palette with and without tRNS too), every filter
 * and a random one per row, sizes 1x1, 1xN, Nx1 and primes, the image data
 * in one IDAT or many with ancillary chunks between. Each must be taken by
 * the fast decoder (gi_last_codec) and give stb's very bytes. 16-bit PNGs
 * of every colour type (interlaced, tRNS, sBIT) give stb's 16-bit loader's
 * pixels, as 16-bit images. Then damaged files: cut at every length, a
 * filter type of 5, data one byte short or long, an unknown critical
 * chunk, interlaced and 16-bit files, their CRCs made right
 * (test_png_checks.c has the files that fail a checksum, which every way
 * refuses). Each must end as stb ends it: the same pixels, or a failure
 * whose reason names the file. Indices past the palette are opaque black,
 * in the fast decoder and in stb (the stack painted first, so that stb's
 * unset entries would show), the same on every run.
 *
 *   test_png_fast DIR...    (the folders whose PNGs are checked)
 * Exit 77 in builds without libdeflate, where stb decodes every PNG. */
#include "harness.h"
#include "testimg.h"

#include <dirent.h>
#include <gpuimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/format_sniff.h"
#include "png_maker.h"

/* ---------------------------------------------------------------- stb's side */

typedef struct {
    int ok, w, h, channels, depth;
    uint8_t *pixels;
} decoded;

/* What gi_load_memory gave before the fast decoder: stb's info, its channel
 * count (one more for tRNS on gray or RGB), stb's load. */
static decoded stb_decode(const uint8_t *bytes, size_t size)
{
    decoded d = {0};
    uint32_t pw, ph;
    int trns = 0, comp;
    gi__png_header(bytes, size, &pw, &ph, &trns);
    if (!gi__stb_info_as(bytes, (int)size, GI_FORMAT_PNG, &d.w, &d.h, &comp)) return d;
    if (trns && (comp == 1 || comp == 3)) comp++;
    int depth;
    d.pixels = gi__stb_load_as(bytes, (int)size, GI_FORMAT_PNG, &d.w, &d.h, comp, &depth);
    d.depth = depth;
    d.ok = d.pixels != NULL;
    d.channels = comp;
    return d;
}

/* gi_load_memory's outcome equals stb's; with want_fast, the fast decoder
 * took it. */
static void check_like_stb(const uint8_t *bytes, size_t size, const char *what, int want_fast)
{
    decoded s = stb_decode(bytes, size);
    gi_image img;
    gi_status st = gi_load_memory(&img, bytes, size, "the-input", NULL);
    const int fast = strcmp(gi_last_codec(), "libdeflate") == 0;
    if (want_fast) th_check(fast, "%s: not taken by the fast decoder (%s)", what, gi_last_codec());
    if (!th_check((st == GI_OK) == s.ok, "%s: %s here, %s by stb", what,
                  st == GI_OK ? "decoded" : gi_last_error(), s.ok ? "decoded" : "refused")) {
    } else if (st != GI_OK) {
        th_check(strstr(gi_last_error(), "the-input") != NULL, "%s: reason without the name: %s",
                 what, gi_last_error());
    } else {
        const size_t row = (size_t)s.w * s.channels * (size_t)(s.depth / 8);
        th_check(img.width == s.w && img.height == s.h && img.channels == s.channels &&
                     (img.depth == 16 ? 16 : 8) == s.depth && img.stride == row &&
                     memcmp(img.data, s.pixels, row * s.h) == 0,
                 "%s: %dx%dx%d at %d bits, not stb's %dx%dx%d at %d bits", what, img.width,
                 img.height, img.channels, img.depth, s.w, s.h, s.channels, s.depth);
    }
    if (st == GI_OK) gi_image_free(&img);
    gi_image stb_img = {s.w, s.h, s.channels, 0, s.pixels, 1, 8}; /* stb's buffer: the library frees it */
    gi_image_free(&stb_img);
}

/* ---------------------------------------------------------------- files on disk */

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    *size = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    rewind(f);
    uint8_t *buf = len > 0 ? malloc((size_t)len) : NULL;
    *size = buf ? fread(buf, 1, (size_t)len, f) : 0;
    fclose(f);
    return buf;
}

static void check_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (!th_check(d != NULL, "cannot open %s", dir)) return;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".png") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        uint8_t *bytes = read_all(path, &size);
        /* all of them 8-bit, as stb writes them */
        if (th_check(bytes != NULL, "cannot read %s", path)) check_like_stb(bytes, size, path, 1);
        free(bytes);
    }
    closedir(d);
}

static void describe(const png_spec *s, const char *what, char *buf, size_t size)
{
    snprintf(buf, size, "%s %dx%d colour %d filter %d palette %d trns %d idat %d extra rows %d "
             "depth %d interlace %d sBIT %d", what, s->w, s->h, s->color, s->filter,
             s->palette_len, s->trns_len, s->idat_parts, s->extra_rows, s->depth, s->interlace,
             s->sbit);
}

static void check_generated(const png_spec *s, const char *what, int want_fast)
{
    uint8_t *px = random_pixels(s);
    /* a tRNS colour (write_png's table + 100) on the first pixel and every
     * third, so that transparent pixels occur */
    const size_t pixel = (size_t)samples_of(s->color) * sample_bytes(s);
    for (size_t i = 0; s->trns_len && s->color != 3 && i < (size_t)s->w * s->h; i += 3)
        for (size_t k = 0; k < pixel; k++) px[i * pixel + k] = (uint8_t)((100 + k) * 37 + 11);
    bytes_out png = write_png(s, px);
    char name[200];
    describe(s, what, name, sizeof name);
    check_like_stb(png.data, png.size, name, want_fast);
    free(png.data);
    free(px);
}

static void check_every_kind(void)
{
    const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {1, 31}, {31, 1}, {2, 3}, {17, 5},
                            {31, 37}, {97, 3}, {3, 97}, {127, 61}, {16, 16}, {33, 2}};
    const int colors[][3] = {{0, 0, 0}, {2, 0, 0}, {4, 0, 0}, {6, 0, 0},
                             {3, 256, 0}, {3, 7, 0}, {3, 200, 13}, {3, 5, 5}};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (size_t c = 0; c < sizeof colors / sizeof colors[0]; c++)
            for (int f = -1; f <= 4; f++) {
                png_spec s = {sizes[z][0], sizes[z][1], colors[c][0], f, colors[c][1],
                              colors[c][2], 1 + (f + 1) % 3, 0, 0, 0, 0, 0};
                check_generated(&s, "generated", 1);
            }
}

/* 16-bit files, which stb decodes to 16-bit images: every colour type,
 * interlaced or not, with tRNS (gray and RGB: a 16-bit colour) and sBIT
 * (which leaves the samples as stored). 128x255 and 128x510: a gray
 * image's data is one and two stored blocks of 65535 bytes exactly in the
 * copy stb is given (png_stored.h). */
static void check_sixteen_bits(void)
{
    const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {17, 5}, {13, 11}, {31, 7},
                            {128, 255}, {128, 510}};
    const int colors[] = {0, 2, 4, 6};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (size_t c = 0; c < 4; c++)
            for (int variant = 0; variant < 4; variant++) {
                const int color = colors[c], trns = (variant & 1) && (color == 0 || color == 2);
                png_spec s = {sizes[z][0], sizes[z][1], color, variant == 3 ? -1 : variant,
                              0, trns ? 2 * samples_of(color) : 0, 1 + variant % 2, 0, 16,
                              variant >= 2, variant == 1 || variant == 3, 0};
                check_generated(&s, "16-bit", 0);
                gi_image img;
                uint8_t *px = random_pixels(&s);
                bytes_out png = write_png(&s, px);
                free(px);
                if (gi_load_memory(&img, png.data, png.size, "16-bit", NULL) == GI_OK) {
                    th_check(img.depth == 16, "a 16-bit PNG read at %d bits", img.depth);
                    gi_image_free(&img);
                }
                free(png.data);
            }
}

/* ---------------------------------------------------------------- damaged files */

static void check_damaged(void)
{
    png_spec s = {23, 7, 2, -1, 0, 0, 3, 0, 0, 0, 0, 0};
    uint8_t *px = random_pixels(&s);
    bytes_out png = write_png(&s, px);
    char what[100];
    for (size_t cut = 0; cut < png.size; cut++) {
        snprintf(what, sizeof what, "cut to %zu of %zu bytes", cut, png.size);
        check_like_stb(png.data, cut, what, 0);
    }
    /* a filter type of 5 in the first row: the stream written with it */
    png_spec one = {5, 3, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0};
    check_generated(&one, "filter type 5", 0);
    for (int extra = -1; extra <= 1; extra += 2) {
        png_spec rows = {13, 4, 6, 4, 0, 0, 2, extra, 0, 0, 0, 0};
        check_generated(&rows, "stream of another size", 0);
    }
    /* an unknown critical chunk, interlace, 16 bits */
    for (int k = 0; k < 3; k++) {
        bytes_out odd = {malloc(png.size), png.size, png.size};
        memcpy(odd.data, png.data, png.size);
        const size_t ihdr = 8 + 8;
        if (k == 0) memcpy(odd.data + 33 + 4, "XXXX", 4); /* the tEXt chunk becomes critical */
        if (k == 1) odd.data[ihdr + 12] = 1;              /* interlaced */
        if (k == 2) odd.data[ihdr + 8] = 16;              /* 16-bit: the data is short */
        png_fix_crc(&odd, k == 0 ? 33 : 8);
        snprintf(what, sizeof what, "header or chunk variant %d", k);
        check_like_stb(odd.data, odd.size, what, 0);
        free(odd.data);
    }
    free(png.data);
    free(px);
}

/* ---------------------------------------------------------------- short palettes */

/* Fills the stack below the caller with bytes a decoder never writes, so
 * that a palette entry read but never set shows as 0xa5 instead of
 * whatever zeros happened to be there. */
__attribute__((noinline)) static void paint_stack(void)
{
    volatile uint8_t area[1 << 16];
    for (size_t i = 0; i < sizeof area; i++) area[i] = 0xa5;
}

/* The pixels a palette PNG written by write_png must decode to: the
 * table's entries below palette_len, opaque black past them. */
static uint8_t *expected_palette_pixels(const png_spec *s, const uint8_t *index, int channels)
{
    const size_t n = (size_t)s->w * s->h;
    uint8_t *px = malloc(n * channels);
    for (size_t i = 0; i < n; i++) {
        uint8_t *o = px + i * channels;
        const int k = index[i];
        for (int c = 0; c < 3; c++) o[c] = k < s->palette_len ? (uint8_t)((3 * k + c) * 37 + 11) : 0;
        if (channels == 4) o[3] = k < s->trns_len ? (uint8_t)((100 + k) * 37 + 11) : 255;
    }
    return px;
}

static void check_pixels(const gi_image *img, const uint8_t *want, int channels, const char *what)
{
    const size_t n = (size_t)img->width * img->height * channels;
    th_check(img->channels == channels && memcmp(img->data, want, n) == 0,
             "%s: not the palette with opaque black past its end", what);
}

/* A palette of 2 entries (with and without tRNS) and indices over the
 * whole byte: through the fast decoder, through stb (gi__stb_load_as,
 * which gi_load_memory uses for the files the fast decoder leaves), and
 * a 1x1 interlaced file, which only stb takes; each twice. */
static void check_short_palette(void)
{
    for (int trns = 0; trns <= 1; trns++) {
        png_spec s = {16, 16, 3, -1, 256, 0, 1, 0, 0, 0, 0, 0};
        uint8_t *index = random_pixels(&s);
        for (int i = 0; i < 8; i++) index[i] = (uint8_t)(i < 4 ? i : 255 - i);
        s.palette_len = 2;
        s.trns_len = trns;
        const int channels = trns ? 4 : 3;
        bytes_out png = write_png(&s, index);
        uint8_t *want = expected_palette_pixels(&s, index, channels);
        for (int run = 0; run < 2; run++) {
            char what[100];
            gi_image img;
            paint_stack();
            snprintf(what, sizeof what, "short palette, tRNS %d, fast decoder", trns);
            if (th_check(gi_load_memory(&img, png.data, png.size, "the-input", NULL) == GI_OK,
                         "%s: %s", what, gi_last_error())) {
                th_check(strcmp(gi_last_codec(), "libdeflate") == 0, "%s: taken by %s", what,
                         gi_last_codec());
                check_pixels(&img, want, channels, what);
                gi_image_free(&img);
            }
            paint_stack();
            snprintf(what, sizeof what, "short palette, tRNS %d, stb", trns);
            decoded d = stb_decode(png.data, png.size);
            if (th_check(d.ok, "%s: refused", what)) {
                gi_image stb_img = {d.w, d.h, d.channels, 0, d.pixels, 1, 8};
                check_pixels(&stb_img, want, channels, what);
                gi_image_free(&stb_img);
            }
            /* 1x1 interlaced: Adam7's first pass is the whole stream */
            png_spec one = {1, 1, 3, 0, 2, trns, 1, 0, 0, 0, 0, 0};
            const uint8_t past = 200;
            bytes_out laced = write_png(&one, &past);
            laced.data[8 + 8 + 12] = 1;
            png_fix_crc(&laced, 8);
            paint_stack();
            snprintf(what, sizeof what, "short palette, tRNS %d, interlaced", trns);
            if (th_check(gi_load_memory(&img, laced.data, laced.size, "the-input", NULL) == GI_OK,
                         "%s: %s", what, gi_last_error())) {
                const uint8_t black[4] = {0, 0, 0, 255};
                check_pixels(&img, black, channels, what);
                gi_image_free(&img);
            }
            free(laced.data);
        }
        free(want);
        free(png.data);
        free(index);
    }
}

int main(int argc, char **argv)
{
    if (!gi_png_deflate_is_libdeflate()) {
        printf("built without libdeflate: stb decodes every PNG\n");
        return 77;
    }
    th_seed();
    for (int i = 1; i < argc; i++) check_folder(argv[i]);
    check_every_kind();
    check_sixteen_bits();
    check_damaged();
    check_short_palette();
    return th_finish();
}
