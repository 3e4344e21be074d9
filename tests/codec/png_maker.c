/* PNG files for the decoders' tests (png_maker.h). */
#include "png_maker.h"

#include <stdlib.h>
#include <string.h>

#include "codec/metadata/metadata.h"
#include "harness.h"
#include "testimg.h"

static void put(bytes_out *o, const void *p, size_t n)
{
    if (o->size + n > o->cap) {
        o->cap = (o->size + n) * 2;
        o->data = realloc(o->data, o->cap);
    }
    memcpy(o->data + o->size, p, n);
    o->size += n;
}

static void put32(bytes_out *o, uint32_t v)
{
    const uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(o, b, 4);
}

static void put_chunk(bytes_out *o, const char *type, const uint8_t *data, size_t n)
{
    put32(o, (uint32_t)n);
    const size_t at = o->size;
    put(o, type, 4);
    if (n) put(o, data, n);
    put32(o, ti_crc32(o->data + at, n + 4));
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Row y of pixels (rows of n bytes, bpp per pixel) filtered with f. */
static void filter_row(const uint8_t *px, size_t n, int y, int bpp, int f, uint8_t *out)
{
    const uint8_t *cur = px + (size_t)y * n, *up = y ? cur - n : NULL;
    out[0] = (uint8_t)f;
    for (size_t k = 0; k < n; k++) {
        const int a = k >= (size_t)bpp ? cur[k - bpp] : 0, b = up ? up[k] : 0;
        const int c = up && k >= (size_t)bpp ? up[k - bpp] : 0;
        const int pred = f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) >> 1 : f == 4 ? paeth(a, b, c) : 0;
        out[1 + k] = (uint8_t)(cur[k] - pred);
    }
}

int sample_bytes(const png_spec *s)
{
    return s->depth == 16 ? 2 : 1;
}

int samples_of(int color)
{
    return color == 2 ? 3 : color == 4 ? 2 : color == 6 ? 4 : 1;
}

/* The filtered rows of px (rows of n bytes), rows + extra_rows of them,
 * appended at raw; returns the bytes written. */
static size_t filter_rows(const png_spec *s, const uint8_t *px, size_t n, int rows, int bpp,
                          uint8_t *raw)
{
    for (int y = 0; y < rows + (n ? s->extra_rows : 0); y++)
        filter_row(px, n, y < rows ? y : rows - 1, bpp, s->filter >= 0 ? s->filter : th_rand_int(0, 4),
                   raw + (size_t)y * (n + 1));
    return n ? (n + 1) * (size_t)(rows + s->extra_rows) : 0;
}

/* A zlib stream of data[0..n) in stored blocks (no compression), which a
 * changed byte leaves a stream that still inflates. */
static uint8_t *stored_stream(const uint8_t *data, size_t n, size_t *size)
{
    uint8_t *z = malloc(2 + 5 * (n / 65535 + 1) + n + 4), *o = z;
    *o++ = 0x78;
    *o++ = 0x01;
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + data[i]) % 65521;
        b = (b + a) % 65521;
    }
    do {
        const size_t part = n < 65535 ? n : 65535;
        const uint8_t head[5] = {part == n, (uint8_t)part, (uint8_t)(part >> 8), (uint8_t)~part,
                                 (uint8_t)(~part >> 8)};
        memcpy(o, head, 5);
        memcpy(o + 5, data, part);
        o += 5 + part;
        data += part;
        n -= part;
    } while (n);
    const uint32_t adler = b << 16 | a;
    for (int i = 0; i < 4; i++) *o++ = (uint8_t)(adler >> (24 - 8 * i));
    *size = (size_t)(o - z);
    return z;
}

/* The zlib stream of the filtered rows of px: one image, or Adam7's seven
 * passes, each filtered as an image of its own (an empty pass has no rows). */
static uint8_t *filtered_stream(const png_spec *s, const uint8_t *px, size_t *size)
{
    static const int adam7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                    {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};
    const int bpp = samples_of(s->color) * sample_bytes(s);
    const size_t n = (size_t)s->w * bpp;
    uint8_t *raw = malloc(2 * (n + 1) * (size_t)(s->h + 1) + 64), *z;
    size_t used = 0;
    if (!s->interlace) {
        used = filter_rows(s, px, n, s->h, bpp, raw);
    } else {
        uint8_t *pass = malloc(n * (size_t)s->h + 1);
        for (int p = 0; p < 7; p++) {
            const int x0 = adam7[p][0], y0 = adam7[p][1], dx = adam7[p][2], dy = adam7[p][3];
            const int pw = s->w > x0 ? (s->w - x0 + dx - 1) / dx : 0;
            const int ph = s->h > y0 ? (s->h - y0 + dy - 1) / dy : 0;
            if (!pw || !ph) continue;
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++)
                    memcpy(pass + ((size_t)y * pw + x) * bpp,
                           px + ((size_t)(y0 + y * dy) * s->w + x0 + x * dx) * bpp, (size_t)bpp);
            used += filter_rows(s, pass, (size_t)pw * bpp, ph, bpp, raw + used);
        }
        free(pass);
    }
    if (s->stored) z = stored_stream(raw, used, size);
    else gi__zlib_deflate(raw, used, &z, size);
    free(raw);
    return z;
}

bytes_out write_png(const png_spec *s, const uint8_t *px)
{
    bytes_out o = {0};
    put(&o, "\x89PNG\r\n\x1a\n", 8);
    uint8_t ihdr[13] = {0};
    for (int i = 0; i < 4; i++) {
        ihdr[i] = (uint8_t)((uint32_t)s->w >> (24 - 8 * i));
        ihdr[4 + i] = (uint8_t)((uint32_t)s->h >> (24 - 8 * i));
    }
    ihdr[8] = (uint8_t)(s->depth ? s->depth : 8);
    ihdr[9] = (uint8_t)s->color;
    ihdr[12] = (uint8_t)s->interlace;
    put_chunk(&o, "IHDR", ihdr, 13);
    static const uint8_t twelve[4] = {12, 12, 12, 12};
    if (s->sbit) put_chunk(&o, "sBIT", twelve, (size_t)samples_of(s->color));
    put_chunk(&o, "tEXt", (const uint8_t *)"Comment\0test", 12);
    uint8_t table[768];
    for (int i = 0; i < 768; i++) table[i] = (uint8_t)(i * 37 + 11);
    if (s->palette_len) put_chunk(&o, "PLTE", table, 3 * (size_t)s->palette_len);
    if (s->trns_len) put_chunk(&o, "tRNS", table + 100, (size_t)s->trns_len);
    size_t zn;
    uint8_t *z = filtered_stream(s, px, &zn);
    for (int part = 0; part < s->idat_parts; part++) {
        const size_t from = zn * part / s->idat_parts, to = zn * (part + 1) / s->idat_parts;
        put_chunk(&o, "IDAT", z + from, to - from);
        if (part == 0) put_chunk(&o, "tIME", table, 7);
    }
    free(z);
    put_chunk(&o, "IEND", NULL, 0);
    return o;
}

uint8_t *random_pixels(const png_spec *s)
{
    const size_t n = (size_t)s->w * s->h * samples_of(s->color) * sample_bytes(s);
    uint8_t *px = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        const int kind = th_rand_int(0, 3);
        px[i] = kind == 0 && i ? px[i - 1] : kind == 1 ? (uint8_t)th_rand_int(250, 255)
                                                       : (uint8_t)th_rand_int(0, 255);
        if (s->palette_len) px[i] = (uint8_t)(px[i] % s->palette_len);
    }
    return px;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

size_t png_chunk_at(const bytes_out *png, const char *type, int n)
{
    for (size_t at = 8; at + 12 <= png->size; at += 12 + (size_t)be32(png->data + at))
        if (memcmp(png->data + at + 4, type, 4) == 0 && n-- == 0) return at;
    return 0;
}

void png_fix_crc(bytes_out *png, size_t at)
{
    const uint32_t len = be32(png->data + at), crc = ti_crc32(png->data + at + 4, 4 + (size_t)len);
    for (int i = 0; i < 4; i++) png->data[at + 8 + len + i] = (uint8_t)(crc >> (24 - 8 * i));
}
