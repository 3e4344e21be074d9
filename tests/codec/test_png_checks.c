/* A PNG's checksums (lib/codec/png/png_check.h, stb_impl.c): gi__crc32 and
 * gi__adler32 (libdeflate's, or the tables of a build without it) against
 * their definitions; then PNGs of each way a PNG decodes: 8-bit RGB and
 * palette files (the fast decoder's, where the build has libdeflate), an
 * 8-bit file whose stream holds a row past the image (which the fast
 * decoder leaves to stb), 16-bit RGBA and gray (its data one stored block
 * of 65535 bytes exactly in the copy stb is given), Adam7 at 8 and 16
 * bits; the image data in one IDAT or three, compressed or stored. Each
 * decodes to its pixels when sound, on the way expected (gi_last_codec).
 * Each damaged copy is refused with GI_ERR_DECODE and a reason naming the
 * file and the trouble: a bit flipped in the image data (the IDAT's CRC
 * fails), the data changed and the CRC made right (the Adler-32 fails; a
 * change stb alone decodes to other pixels), the Adler-32 changed or cut
 * off (named as such where the data is stored), IHDR, PLTE or IEND
 * failing its CRC. An ancillary chunk that fails its CRC is dropped, as
 * libpng drops it, and the file decodes: a tEXt or tIME changes nothing,
 * a tRNS no longer adds alpha. */
#include "harness.h"
#include "testimg.h"

#include <gpuimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/format_sniff.h"
#include "codec/png/png_checksum.h"
#include "png_maker.h"

#define NAME "the-file.png"

/* ---------------------------------------------------------------- the checksums */

static uint32_t adler_by_definition(const uint8_t *p, size_t n)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + p[i]) % 65521;
        b = (b + a) % 65521;
    }
    return b << 16 | a;
}

static void check_checksums(void)
{
    const uint8_t *digits = (const uint8_t *)"123456789", *wiki = (const uint8_t *)"Wikipedia";
    th_check(gi__crc32(0, digits, 9) == 0xcbf43926u, "CRC-32 of 123456789: %08x",
             gi__crc32(0, digits, 9));
    th_check(gi__adler32(1, wiki, 9) == 0x11e60398u, "Adler-32 of Wikipedia: %08x",
             gi__adler32(1, wiki, 9));
    th_check(gi__crc32(0x1234u, NULL, 0) == 0x1234u && gi__adler32(0x5678u, NULL, 0) == 0x5678u,
             "nothing added changed a checksum");
    /* lengths around the 8-byte steps and the Adler's 5552-byte runs; all
     * 0xff, the Adler's largest sums, and random bytes */
    const size_t lengths[] = {1, 7, 8, 9, 63, 1000, 5551, 5552, 5553, 11104, 100003};
    uint8_t *buf = malloc(100003);
    for (int fill = 0; fill < 2; fill++) {
        for (size_t i = 0; i < 100003; i++) buf[i] = fill ? (uint8_t)th_rand_int(0, 255) : 0xff;
        for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++) {
            const size_t n = lengths[k], cut = n / 3;
            th_check(gi__crc32(0, buf, n) == ti_crc32(buf, n), "CRC-32 of %zu bytes", n);
            th_check(gi__adler32(1, buf, n) == adler_by_definition(buf, n), "Adler-32 of %zu bytes",
                     n);
            th_check(gi__crc32(gi__crc32(0, buf, cut), buf + cut, n - cut) == ti_crc32(buf, n),
                     "CRC-32 of %zu bytes in two parts", n);
            th_check(gi__adler32(gi__adler32(1, buf, cut), buf + cut, n - cut) ==
                         adler_by_definition(buf, n),
                     "Adler-32 of %zu bytes in two parts", n);
        }
    }
    free(buf);
}

/* ---------------------------------------------------------------- files */

typedef struct {
    const char *what;
    png_spec spec;
    int fast; /* the fast decoder takes it, where the build has libdeflate */
} png_kind;

/* The pixels gi_load_memory gives for px written as s: the samples as
 * stored (16-bit ones in the machine's order), a palette's entries. */
static uint8_t *expected_pixels(const png_spec *s, const uint8_t *px, int *channels,
                                size_t *size)
{
    const size_t pixels = (size_t)s->w * s->h;
    *channels = s->color == 3 ? (s->trns_len ? 4 : 3) : samples_of(s->color);
    *size = pixels * (size_t)*channels * (size_t)sample_bytes(s);
    uint8_t *out = malloc(*size);
    for (size_t i = 0; s->color == 3 && i < pixels; i++)
        for (int c = 0; c < *channels; c++)
            out[i * *channels + c] = (uint8_t)(c < 3 ? (3 * px[i] + c) * 37 + 11
                                               : px[i] < s->trns_len ? (100 + px[i]) * 37 + 11
                                                                     : 255);
    for (size_t i = 0; s->color != 3 && i < *size; i += (size_t)sample_bytes(s)) {
        if (s->depth != 16) {
            out[i] = px[i];
            continue;
        }
        const uint16_t v = (uint16_t)(px[i] << 8 | px[i + 1]);
        memcpy(out + i, &v, 2);
    }
    return out;
}

static bytes_out copy_of(const bytes_out *png)
{
    bytes_out c = {malloc(png->size), png->size, png->size};
    memcpy(c.data, png->data, png->size);
    return c;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* gi_load_memory decodes png to want (channels, size bytes) on the way
 * expected: the fast decoder's or stb's. */
static void check_decodes(const bytes_out *png, const uint8_t *want, int channels, size_t size,
                          int fast, const char *what)
{
    gi_image img;
    if (!th_check(gi_load_memory(&img, png->data, png->size, NAME, NULL) == GI_OK, "%s: %s",
                  what, gi_last_error()))
        return;
    const char *codec = fast && gi_png_deflate_is_libdeflate() ? "libdeflate" : "stb";
    th_check(strcmp(gi_last_codec(), codec) == 0, "%s: decoded by %s, not %s", what,
             gi_last_codec(), codec);
    th_check(img.channels == channels && img.stride * (size_t)img.height == size &&
                 memcmp(img.data, want, size) == 0,
             "%s: not its pixels (%d channels)", what, img.channels);
    gi_image_free(&img);
}

/* gi_load_memory refuses png with GI_ERR_DECODE, naming the file and
 * saying `reason`. */
static void check_refused(const bytes_out *png, const char *reason, const char *what)
{
    gi_image img;
    const gi_status st = gi_load_memory(&img, png->data, png->size, NAME, NULL);
    th_check(st == GI_ERR_DECODE && img.data == NULL && strstr(gi_last_error(), NAME) &&
                 strstr(gi_last_error(), reason),
             "%s: status %d, \"%s\", want \"%s\"", what, (int)st, st ? gi_last_error() : "",
             reason);
    if (st == GI_OK) gi_image_free(&img);
}

/* A copy with bit `bit` of byte `at` flipped, the CRC of the chunk at
 * `chunk` made right again unless chunk is 0. */
static bytes_out flipped(const bytes_out *png, size_t at, int bit, size_t chunk)
{
    bytes_out c = copy_of(png);
    c.data[at] ^= (uint8_t)(1u << bit);
    if (chunk) png_fix_crc(&c, chunk);
    return c;
}

/* Whether stb alone (no checksum read) decodes png to pixels other than
 * want. */
static int stb_decodes_otherwise(const bytes_out *png, const uint8_t *want, size_t size)
{
    int w, h, comp, depth;
    if (!gi__stb_info_as(png->data, (int)png->size, GI_FORMAT_PNG, &w, &h, &comp)) return 0;
    gi_image stb = {0};
    stb.data = gi__stb_load_as(png->data, (int)png->size, GI_FORMAT_PNG, &w, &h, comp, &depth);
    stb.owns_data = 1; /* from the pixel allocator, as gi_image_free frees */
    const int other = stb.data && memcmp(stb.data, want, size) != 0;
    gi_image_free(&stb);
    return other;
}

/* A bit of the image data flipped, the CRC made right: the first flip
 * from the middle of the IDAT at `idat` that stb decodes to other pixels
 * (most flips break the stream, which stb refuses itself) must fail the
 * Adler-32. */
static void check_data_changed(const bytes_out *png, size_t idat, const uint8_t *want,
                               size_t size, const char *what)
{
    const size_t len = be32(png->data + idat), middle = idat + 8 + len / 2;
    for (size_t at = middle; at < idat + 8 + len; at++)
        for (int bit = 0; bit < 8; bit++) {
            bytes_out c = flipped(png, at, bit, idat);
            const int wrong = stb_decodes_otherwise(&c, want, size);
            if (wrong)
                check_refused(&c, "corrupt PNG: the image data fails its zlib checksum", what);
            free(c.data);
            if (wrong) return;
        }
    th_check(0, "%s: no flip stb decodes to other pixels", what);
}

/* The last IDAT's last four bytes (the Adler-32) gone, its CRC made right. */
static bytes_out adler_cut(const bytes_out *png, size_t idat)
{
    const uint32_t len = be32(png->data + idat);
    bytes_out c = copy_of(png);
    const size_t end = idat + 8 + len;
    memmove(c.data + end - 4, c.data + end, png->size - end);
    c.size -= 4;
    for (int i = 0; i < 4; i++) c.data[idat + i] = (uint8_t)((len - 4) >> (24 - 8 * i));
    png_fix_crc(&c, idat);
    return c;
}

/* Each critical chunk failing its CRC, the file refused naming it. */
static void check_critical(const bytes_out *png, int palette, const char *what)
{
    const char *types[] = {"IHDR", "IDAT", "IEND", "PLTE"};
    for (int t = 0; t < 3 + palette; t++) {
        const size_t at = png_chunk_at(png, types[t], 0);
        char reason[80], case_name[240];
        snprintf(reason, sizeof reason, "corrupt PNG: chunk %s at byte %zu fails its CRC",
                 types[t], at);
        snprintf(case_name, sizeof case_name, "%s, %s failing its CRC", what, types[t]);
        /* IEND has no data: its CRC itself is damaged */
        const size_t len = be32(png->data + at), byte = len ? at + 8 + len / 2 : at + 8;
        bytes_out c = flipped(png, byte, th_rand_int(0, 7), 0);
        check_refused(&c, reason, case_name);
        free(c.data);
    }
}

/* Ancillary chunks failing their CRC (tEXt before the data, tIME after
 * the first IDAT): dropped, the same pixels. */
static void check_ancillary(const bytes_out *png, const uint8_t *want, int channels, size_t size,
                            int fast, const char *what)
{
    const char *types[] = {"tEXt", "tIME"};
    for (int t = 0; t < 2; t++) {
        const size_t at = png_chunk_at(png, types[t], 0);
        char case_name[240];
        snprintf(case_name, sizeof case_name, "%s, %s failing its CRC", what, types[t]);
        bytes_out c = flipped(png, at + 9, 2, 0);
        check_decodes(&c, want, channels, size, fast, case_name);
        free(c.data);
    }
}

static void check_kind(const png_kind *k, int parts, int stored)
{
    png_spec s = k->spec;
    s.idat_parts = parts;
    s.stored = stored;
    char what[160];
    snprintf(what, sizeof what, "%s, %d IDAT, %s", k->what, parts,
             stored ? "stored" : "compressed");
    uint8_t *px = random_pixels(&s);
    bytes_out png = write_png(&s, px);
    int channels;
    size_t size;
    uint8_t *want = expected_pixels(&s, px, &channels, &size);
    check_decodes(&png, want, channels, size, k->fast, what);

    const size_t first = png_chunk_at(&png, "IDAT", 0);
    const size_t middle = png_chunk_at(&png, "IDAT", parts / 2);
    const size_t last = png_chunk_at(&png, "IDAT", parts - 1);
    char reason[80], case_name[200];
    snprintf(reason, sizeof reason, "corrupt PNG: chunk IDAT at byte %zu fails its CRC", middle);
    snprintf(case_name, sizeof case_name, "%s, a bit flipped in the image data", what);
    bytes_out c = flipped(&png, middle + 8 + be32(png.data + middle) / 2, 3, 0);
    check_refused(&c, reason, case_name);
    free(c.data);

    snprintf(case_name, sizeof case_name, "%s, the image data changed, its CRC right", what);
    check_data_changed(&png, first, want, size, case_name);

    snprintf(case_name, sizeof case_name, "%s, the Adler-32 changed", what);
    c = flipped(&png, last + 8 + be32(png.data + last) - 1, 0, last);
    check_refused(&c, "corrupt PNG: the image data fails its zlib checksum", case_name);
    free(c.data);

    /* stb's inflate reads ahead past a compressed stream's end (into the
     * checksum), and may refuse the stream itself where nothing follows */
    snprintf(case_name, sizeof case_name, "%s, the Adler-32 cut off", what);
    c = adler_cut(&png, last);
    check_refused(&c, stored ? "corrupt PNG: the image data ends before its zlib checksum" : "",
                  case_name);
    free(c.data);

    check_critical(&png, s.color == 3, what);
    check_ancillary(&png, want, channels, size, k->fast, what);
    free(want);
    free(png.data);
    free(px);
}

/* A palette's tRNS failing its CRC: dropped, as libpng drops it, so the
 * image decodes as RGB without alpha, on either way. */
static void check_damaged_trns(void)
{
    for (int laced = 0; laced <= 1; laced++) {
        png_spec s = {.w = 13, .h = 9, .color = 3, .filter = -1, .palette_len = 5, .trns_len = 3,
                      .idat_parts = 1, .interlace = laced};
        uint8_t *px = random_pixels(&s);
        bytes_out png = write_png(&s, px);
        const char *what =
            laced ? "Adam7 palette, tRNS failing its CRC" : "palette, tRNS failing its CRC";
        int channels;
        size_t size;
        uint8_t *alpha = expected_pixels(&s, px, &channels, &size);
        check_decodes(&png, alpha, 4, size, !laced, "palette with tRNS");
        s.trns_len = 0;
        uint8_t *opaque = expected_pixels(&s, px, &channels, &size);
        bytes_out c = flipped(&png, png_chunk_at(&png, "tRNS", 0) + 8, 1, 0);
        check_decodes(&c, opaque, 3, size, !laced, what);
        free(c.data);
        free(opaque);
        free(alpha);
        free(png.data);
        free(px);
    }
}

int main(void)
{
    th_seed();
    check_checksums();
    const png_kind kinds[] = {
        {"8-bit RGB", {.w = 23, .h = 7, .color = 2, .filter = -1}, 1},
        {"8-bit palette", {.w = 23, .h = 7, .color = 3, .filter = -1, .palette_len = 7}, 1},
        {"8-bit RGB, a row past the image",
         {.w = 23, .h = 7, .color = 2, .filter = -1, .extra_rows = 1}, 0},
        {"16-bit RGBA", {.w = 19, .h = 6, .color = 6, .filter = -1, .depth = 16}, 0},
        {"Adam7 8-bit gray+alpha", {.w = 21, .h = 13, .color = 4, .filter = -1, .interlace = 1}, 0},
        {"Adam7 16-bit RGB",
         {.w = 17, .h = 11, .color = 2, .filter = -1, .depth = 16, .interlace = 1}, 0},
        /* 65535 bytes of filtered rows: one full stored block for stb */
        {"16-bit gray 128x255", {.w = 128, .h = 255, .color = 0, .filter = -1, .depth = 16}, 0},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (int parts = 1; parts <= 3; parts += 2)
            for (int stored = 0; stored <= 1; stored++) check_kind(&kinds[k], parts, stored);
    check_damaged_trns();
    return th_finish();
}
