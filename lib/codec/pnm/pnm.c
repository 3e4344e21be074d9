/* Netpbm reading and writing (see pnm.h). Headers are read as libnetpbm
 * reads them: blanks and '#' comments between the numbers, one blank (or a
 * comment, which ends in one) after the last; PAM's lines of KEYWORD VALUE
 * up to ENDHDR. Every number is checked before it is used in a size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/gi_error.h"
#include "base/gi_size.h"
#include "base/pixel_alloc.h"
#include "pnm.h"

/* Header numbers past this are refused before any arithmetic. */
#define PNM_MAX_NUMBER 0x7fffffffu

int gi__pnm_sniff(const uint8_t *bytes, size_t size)
{
    return size >= 2 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '7';
}

static int is_blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

typedef struct {
    const uint8_t *b;
    size_t size, at;
} cursor;

/* Skips blanks and comments ('#' to the end of the line). Returns 0 at
 * the next other byte, -1 when the bytes end first. */
static int skip_blanks(cursor *c)
{
    while (c->at < c->size) {
        if (c->b[c->at] == '#') {
            while (c->at < c->size && c->b[c->at] != '\n' && c->b[c->at] != '\r') c->at++;
        } else if (is_blank(c->b[c->at])) {
            c->at++;
        } else {
            return 0;
        }
    }
    return -1;
}

typedef enum { NUM_OK, NUM_SHORT, NUM_NOT_A_NUMBER, NUM_TOO_LARGE } number_result;

/* A decimal number after blanks and comments. The digits may run to the
 * end of the bytes only when `may_end` (a plain image's last sample);
 * in a header the byte after them must be there to end the number. */
static number_result read_number(cursor *c, uint32_t limit, int may_end, uint32_t *value)
{
    if (skip_blanks(c) != 0) return NUM_SHORT;
    if (!is_digit(c->b[c->at])) return NUM_NOT_A_NUMBER;
    uint64_t v = 0; /* at most limit * 10 + 9 before the check: no wrap */
    for (; c->at < c->size && is_digit(c->b[c->at]); c->at++) {
        v = v * 10 + (uint64_t)(c->b[c->at] - '0');
        if (v > limit) return NUM_TOO_LARGE;
    }
    if (c->at == c->size && !may_end) return NUM_SHORT;
    *value = (uint32_t)v;
    return NUM_OK;
}

/* P1-P6: width, height and (but for bitmaps) maxval. */
static gi_status classic_header(cursor *c, const char *name, gi_pnm_header *h, int *short_header)
{
    static const char *const field_names[] = {"width", "height", "maxval"};
    uint32_t *fields[] = {&h->width, &h->height, &h->maxval};
    int count = h->kind == 1 || h->kind == 4 ? 2 : 3;
    h->maxval = 1;
    for (int i = 0; i < count; i++) {
        number_result r = read_number(c, PNM_MAX_NUMBER, 0, fields[i]);
        if (r == NUM_SHORT) return *short_header = 1, gi__fail(GI_ERR_DECODE, "%s: truncated PNM header", name);
        if (r == NUM_NOT_A_NUMBER)
            return gi__fail(GI_ERR_DECODE, "%s: PNM header: the %s is not a number", name,
                            field_names[i]);
        if (r == NUM_TOO_LARGE)
            return gi__fail(GI_ERR_TOO_LARGE, "%s: PNM header: the %s is over %u", name,
                            field_names[i], PNM_MAX_NUMBER);
    }
    /* One blank ends the header; a comment right after the number ends in
     * its line's end, which is that blank (libnetpbm's pm_getc). */
    if (c->b[c->at] == '#') {
        while (c->at < c->size && c->b[c->at] != '\n' && c->b[c->at] != '\r') c->at++;
        if (c->at == c->size) return *short_header = 1, gi__fail(GI_ERR_DECODE, "%s: truncated PNM header", name);
    } else if (!is_blank(c->b[c->at])) {
        return gi__fail(GI_ERR_DECODE, "%s: PNM header: no blank after the %s", name,
                        field_names[count - 1]);
    }
    c->at++;
    return GI_OK;
}

/* The tuple types of 1 to 4 channels of 8-bit pixels, and their depth. */
static const struct {
    const char *name;
    uint32_t depth;
} tuple_types[] = {{"GRAYSCALE", 1}, {"GRAYSCALE_ALPHA", 2}, {"RGB", 3}, {"RGB_ALPHA", 4},
                   {"BLACKANDWHITE", 1}, {"BLACKANDWHITE_ALPHA", 2}};

static gi_status check_tuple_type(const char *type, const gi_pnm_header *h, const char *name)
{
    for (size_t i = 0; i < sizeof tuple_types / sizeof *tuple_types; i++) {
        if (strcmp(type, tuple_types[i].name) != 0) continue;
        if (tuple_types[i].depth == h->depth) return GI_OK;
        return gi__fail(GI_ERR_DECODE, "%s: PAM header: TUPLTYPE %s with DEPTH %u (want %u)", name,
                        type, h->depth, tuple_types[i].depth);
    }
    return gi__fail(GI_ERR_UNSUPPORTED, "%s: PAM header: TUPLTYPE '%.40s' is none of GRAYSCALE, "
                    "GRAYSCALE_ALPHA, RGB, RGB_ALPHA, BLACKANDWHITE(_ALPHA)", name, type);
}

/* A PAM header value: digits and nothing else but blanks. */
static int pam_number(const uint8_t *p, const uint8_t *end, uint32_t *value)
{
    cursor c = {p, (size_t)(end - p), 0};
    if (read_number(&c, PNM_MAX_NUMBER, 1, value) != NUM_OK) return -1;
    while (c.at < c.size && is_blank(c.b[c.at])) c.at++;
    return c.at == c.size ? 0 : -1;
}

/* One line of a PAM header, [p, end): a keyword and its value. */
static gi_status pam_line(const uint8_t *p, const uint8_t *end, gi_pnm_header *h,
                          char *tuple_type, unsigned *seen, int *done, const char *name)
{
    static const char *const keys[] = {"WIDTH", "HEIGHT", "DEPTH", "MAXVAL", "TUPLTYPE", "ENDHDR"};
    uint32_t *numbers[] = {&h->width, &h->height, &h->depth, &h->maxval};
    while (p < end && is_blank(*p)) p++;
    if (p == end || *p == '#') return GI_OK;
    const uint8_t *key_end = p;
    while (key_end < end && !is_blank(*key_end)) key_end++;
    size_t key_len = (size_t)(key_end - p);
    for (unsigned k = 0; k < 6; k++) {
        if (strlen(keys[k]) != key_len || memcmp(p, keys[k], key_len) != 0) continue;
        if (*seen & 1u << k)
            return gi__fail(GI_ERR_DECODE, "%s: PAM header: %s given twice", name, keys[k]);
        *seen |= 1u << k;
        const uint8_t *value = key_end;
        while (value < end && is_blank(*value)) value++;
        if (k < 4 && pam_number(value, end, numbers[k]) != 0)
            return gi__fail(GI_ERR_DECODE, "%s: PAM header: %s is not a number up to %u", name,
                            keys[k], PNM_MAX_NUMBER);
        if (k == 4) {
            size_t len = (size_t)(end - value);
            while (len && is_blank(value[len - 1])) len--;
            snprintf(tuple_type, 64, "%.*s", (int)(len < 63 ? len : 63), (const char *)value);
        }
        *done = k == 5;
        return GI_OK;
    }
    return gi__fail(GI_ERR_DECODE, "%s: PAM header: unknown line '%.*s'", name,
                    (int)(key_len < 20 ? key_len : 20), (const char *)p);
}

/* P7: the magic's line, then lines up to ENDHDR. */
static gi_status pam_header(cursor *c, const char *name, gi_pnm_header *h, int *short_header)
{
    char tuple_type[64] = "";
    unsigned seen = 0;
    int done = 0;
    for (int first = 1; !done; first = 0) {
        const uint8_t *line = c->b + c->at, *eol = memchr(line, '\n', c->size - c->at);
        if (!eol) return *short_header = 1, gi__fail(GI_ERR_DECODE, "%s: truncated PAM header", name);
        c->at = (size_t)(eol - c->b) + 1;
        if (first) { /* what follows "P7" on its line must be blank */
            for (const uint8_t *p = line; p < eol; p++)
                if (!is_blank(*p)) return gi__fail(GI_ERR_DECODE, "%s: not a PAM header", name);
            continue;
        }
        gi_status st = pam_line(line, eol, h, tuple_type, &seen, &done, name);
        if (st != GI_OK) return st;
    }
    if ((seen & 15u) != 15u)
        return gi__fail(GI_ERR_DECODE, "%s: PAM header: WIDTH, HEIGHT, DEPTH and MAXVAL are all "
                        "needed", name);
    if (h->depth < 1 || h->depth > 4)
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: PAM header: DEPTH %u (1 to 4 channels are read)",
                        name, h->depth);
    return *tuple_type ? check_tuple_type(tuple_type, h, name) : GI_OK;
}

/* The bytes of a binary image: header and rows, overflow-checked. */
static int binary_bytes(const gi_pnm_header *h, size_t *out)
{
    size_t row;
    if (h->kind == 4) row = ((size_t)h->width + 7) / 8;
    else if (gi__mul_size((size_t)h->width, (size_t)h->depth * (h->maxval > 255 ? 2 : 1), &row))
        return -1;
    return gi__mul_size(row, h->height, out) || __builtin_add_overflow(*out, h->header_bytes, out)
               ? -1
               : 0;
}

gi_status gi__pnm_header(const uint8_t *bytes, size_t size, const char *name,
                         const gi_load_limits *limits, gi_pnm_header *h, int *short_header)
{
    memset(h, 0, sizeof *h);
    *short_header = 0;
    if (size < 2) return *short_header = 1, gi__fail(GI_ERR_DECODE, "%s: truncated PNM header", name);
    if (!gi__pnm_sniff(bytes, size)) return gi__fail(GI_ERR_DECODE, "%s: not a PNM file", name);
    cursor c = {bytes, size, 2};
    h->kind = bytes[1] - '0';
    h->plain = h->kind <= 3;
    h->depth = h->kind == 3 || h->kind == 6 ? 3 : 1;
    gi_status st = h->kind == 7 ? pam_header(&c, name, h, short_header)
                                : classic_header(&c, name, h, short_header);
    if (st != GI_OK) return st;
    h->header_bytes = c.at;
    if (h->width == 0 || h->height == 0)
        return gi__fail(GI_ERR_DECODE, "%s: a %ux%u PNM image has no pixels", name, h->width,
                        h->height);
    if (h->maxval < 1 || h->maxval > 65535)
        return gi__fail(GI_ERR_DECODE, "%s: PNM maxval %u (must be 1..65535)", name, h->maxval);
    if ((uint64_t)h->width * h->height > limits->max_pixels)
        return gi__fail_pixel_limit(name, h->width, h->height, limits->max_pixels);
    if (!h->plain &&
        (binary_bytes(h, &h->image_bytes) != 0 || h->image_bytes > limits->max_input_bytes))
        return gi__fail(GI_ERR_TOO_LARGE, "%s: a %ux%u image is over the %llu-byte input limit",
                        name, h->width, h->height, (unsigned long long)limits->max_input_bytes);
    return GI_OK;
}

/* A sample of 0..maxval to 0..top (255 for maxval <= 255, else 65535),
 * rounded to nearest (halves up), as netpbm's pamdepth does:
 * (v * top + maxval / 2) / maxval, exact in 32 bits (65535 * 65535 +
 * 32767 < 2^32); maxval 255 and 65535 keep every sample as it is. */
static uint32_t scale_sample(uint32_t v, uint32_t maxval)
{
    const uint32_t top = maxval > 255 ? 65535u : 255u;
    return (v * top + maxval / 2) / maxval;
}

/* Where sample i of an image of this maxval goes: a byte, or a uint16_t
 * (machine order) past maxval 255. */
static void put_sample(uint8_t *dst, size_t i, uint32_t maxval, uint32_t v)
{
    if (maxval > 255) ((uint16_t *)(void *)dst)[i] = (uint16_t)v;
    else dst[i] = (uint8_t)v;
}

static gi_status over_maxval(const char *name, uint32_t v, uint32_t maxval)
{
    return gi__fail(GI_ERR_DECODE, "%s: a sample of %u is over the maxval %u", name, v, maxval);
}

/* PBM rows: 8 pixels a byte, first pixel in the high bit, 1 is black. */
static void unpack_bits(const gi_pnm_header *h, const uint8_t *src, uint8_t *dst)
{
    size_t row = ((size_t)h->width + 7) / 8;
    for (size_t y = 0; y < h->height; y++, src += row)
        for (size_t x = 0; x < h->width; x++) *dst++ = src[x / 8] >> (7 - x % 8) & 1 ? 0 : 255;
}

static gi_status decode_binary(const gi_pnm_header *h, const uint8_t *src, uint8_t *dst,
                               size_t samples, const char *name)
{
    if (h->kind == 4) {
        unpack_bits(h, src, dst);
    } else if (h->maxval == 255) {
        memcpy(dst, src, samples);
    } else if (h->maxval < 255) {
        uint8_t table[256];
        for (uint32_t v = 0; v <= h->maxval; v++) table[v] = (uint8_t)scale_sample(v, h->maxval);
        for (size_t i = 0; i < samples; i++) {
            if (src[i] > h->maxval) return over_maxval(name, src[i], h->maxval);
            dst[i] = table[src[i]];
        }
    } else {
        for (size_t i = 0; i < samples; i++) {
            uint32_t v = (uint32_t)src[2 * i] << 8 | src[2 * i + 1]; /* big-endian */
            if (v > h->maxval) return over_maxval(name, v, h->maxval);
            put_sample(dst, i, h->maxval, scale_sample(v, h->maxval));
        }
    }
    return GI_OK;
}

/* P1-P3: decimal samples between blanks (and comments, as libnetpbm
 * allows); a plain bitmap's digits need no blanks between them. */
static gi_status decode_plain(const gi_pnm_header *h, cursor *c, uint8_t *dst, size_t samples,
                              const char *name)
{
    for (size_t i = 0; i < samples; i++) {
        uint32_t v = 0;
        number_result r = NUM_SHORT;
        if (h->kind == 1 && skip_blanks(c) == 0) {
            r = c->b[c->at] == '0' || c->b[c->at] == '1' ? NUM_OK : NUM_NOT_A_NUMBER;
            v = (uint32_t)(c->b[c->at++] - '0');
        } else if (h->kind != 1) {
            r = read_number(c, 65535, 1, &v);
        }
        if (r == NUM_SHORT)
            return gi__fail(GI_ERR_DECODE, "%s: truncated: %zu of %zu samples", name, i, samples);
        /* digits past 65535 (the largest maxval) are a number too big */
        if (r == NUM_TOO_LARGE)
            return gi__fail(GI_ERR_DECODE, "%s: a sample of more than 65535 is over the maxval %u",
                            name, h->maxval);
        if (r != NUM_OK) return gi__fail(GI_ERR_DECODE, "%s: sample %zu is not a number", name, i);
        if (v > h->maxval) return over_maxval(name, v, h->maxval);
        if (h->kind == 1) dst[i] = v ? 0 : 255;
        else put_sample(dst, i, h->maxval, scale_sample(v, h->maxval));
    }
    return GI_OK;
}

gi_status gi__pnm_decode(gi_image *img, const uint8_t *bytes, size_t size, size_t *used,
                         const char *name, const gi_load_limits *limits)
{
    memset(img, 0, sizeof *img);
    *used = 0;
    gi_pnm_header h;
    int short_header;
    gi_status st = gi__pnm_header(bytes, size, name, limits, &h, &short_header);
    if (st != GI_OK) return st;
    if (!h.plain && size < h.image_bytes)
        return gi__fail(GI_ERR_DECODE, "%s: truncated: %zu of %zu bytes", name, size, h.image_bytes);
    /* maxval 256..65535 is read at 16 bits, 1..255 at 8 */
    const int depth = h.maxval > 255 ? 16 : 8;
    size_t samples, bytes_needed;
    if (gi__image_bytes((int)h.width, (int)h.height, (int)h.depth, &samples) != 0 ||
        gi__image_bytes_at((int)h.width, (int)h.height, (int)h.depth, depth / 8, &bytes_needed))
        return gi__fail(GI_ERR_TOO_LARGE, "%s: %ux%u is too large", name, h.width, h.height);
    uint8_t *pixels = gi__pixels_alloc(bytes_needed);
    if (!pixels) return gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory", name);
    cursor c = {bytes, size, h.header_bytes};
    st = h.plain ? decode_plain(&h, &c, pixels, samples, name)
                 : decode_binary(&h, bytes + h.header_bytes, pixels, samples, name);
    if (st != GI_OK) {
        gi__pixels_free(pixels);
        return st;
    }
    *used = h.plain ? c.at : h.image_bytes;
    *img = (gi_image){(int)h.width, (int)h.height, (int)h.depth,
                      (size_t)h.width * h.depth * (size_t)(depth / 8), pixels, 1, depth};
    return GI_OK;
}

/* A row of 16-bit samples as Netpbm stores them: big-endian. dst may be
 * src itself: each sample is read whole before its bytes are written. */
static void big_endian_row(const uint16_t *src, size_t samples, uint8_t *dst)
{
    for (size_t i = 0; i < samples; i++) {
        const uint16_t v = src[i];
        dst[2 * i] = (uint8_t)(v >> 8);
        dst[2 * i + 1] = (uint8_t)v;
    }
}

int gi__pnm_write(const gi_image *img, gi_format format, gi_pnm_emit emit, void *context)
{
    static const char *const tuple_names[] = {"GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
    const int wide = img->depth == 16, sample = wide ? 2 : 1, maxval = wide ? 65535 : 255;
    int in = img->channels, out = format == GI_FORMAT_PAM ? in : in >= 3 ? 3 : 1;
    char header[160];
    int n = format == GI_FORMAT_PAM
                ? snprintf(header, sizeof header,
                           "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n",
                           img->width, img->height, in, maxval, tuple_names[in - 1])
                : snprintf(header, sizeof header, "P%c\n%d %d\n%d\n", out == 1 ? '5' : '6',
                           img->width, img->height, maxval);
    if (emit(context, header, (size_t)n) != 0) return -1;
    const size_t row = (size_t)img->width * (size_t)in * sample;
    if (!wide && out == in && img->stride == row) return emit(context, img->data, row * img->height);
    const size_t out_row = (size_t)img->width * out * sample;
    uint8_t *packed = out == in && !wide ? NULL : malloc(out_row);
    if ((out != in || wide) && !packed) return -1;
    int failed = 0;
    for (int y = 0; y < img->height && !failed; y++) {
        const uint8_t *src = img->data + img->stride * (size_t)y;
        if (out != in) /* alpha dropped: PGM and PPM have none */
            for (size_t x = 0; x < (size_t)img->width; x++)
                memcpy(packed + x * out * sample, src + x * in * sample, (size_t)out * sample);
        if (wide) /* in place over the packed row, or from the source */
            big_endian_row(out != in ? (const uint16_t *)(const void *)packed
                                     : (const uint16_t *)(const void *)src,
                           (size_t)img->width * out, packed);
        failed = emit(context, packed ? packed : src, out_row) != 0;
    }
    free(packed);
    return failed ? -1 : 0;
}
