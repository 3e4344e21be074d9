/* Pixel buffers (lib/base/pixel_alloc.c): images small and large, their own and
 * stb's, are whole and hold what was written. A PNG whose image data comes
 * in many IDAT chunks, more than the huge-page threshold in all, makes stb
 * grow its buffer chunk by chunk across that threshold (realloc from a
 * malloc'ed block to a mapped one); it must still decode to the very
 * pixels that were encoded. */
#include "harness.h"
#include "testimg.h"

#include <gpuimg.h>
#include <stdlib.h>
#include <string.h>

static void fill(gi_image *img, uint64_t salt)
{
    for (size_t i = 0; i < img->stride * (size_t)img->height; i++)
        img->data[i] = (uint8_t)((i * 2654435761u + salt) >> 7);
}

static int holds(const gi_image *img, uint64_t salt)
{
    for (size_t i = 0; i < img->stride * (size_t)img->height; i++)
        if (img->data[i] != (uint8_t)((i * 2654435761u + salt) >> 7)) return 0;
    return 1;
}

static void check_alloc_sizes(void)
{
    /* 1 byte, under the 4 MiB threshold, just over it, and well over it */
    const int sizes[][3] = {{1, 1, 1}, {300, 200, 3}, {1025, 1024, 4}, {4096, 4096, 1}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        gi_image img;
        int w = sizes[k][0], h = sizes[k][1], c = sizes[k][2];
        if (!th_check(gi_image_alloc(&img, w, h, c) == GI_OK, "alloc %dx%dx%d: %s", w, h, c,
                      gi_last_error()))
            continue;
        th_check(((uintptr_t)img.data & 15) == 0, "%dx%dx%d: pixels not 16-byte aligned", w, h, c);
        fill(&img, k);
        th_check(holds(&img, k), "%dx%dx%d: pixels changed", w, h, c);
        gi_image_free(&img);
        th_check(img.data == NULL && img.owns_data == 0, "gi_image_free left the struct set");
        gi_image_free(&img); /* a zeroed struct is safe */
    }
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The same PNG with its one IDAT cut into chunks of `piece` bytes. Returns
 * a malloc'ed copy, or NULL. */
static uint8_t *split_idat(const uint8_t *png, size_t size, size_t piece, size_t *out_size)
{
    size_t at = 8;
    while (at + 8 <= size && memcmp(png + at + 4, "IDAT", 4) != 0) at += 12 + be32(png + at);
    if (at + 8 > size) return NULL;
    size_t len = be32(png + at), pieces = (len + piece - 1) / piece;
    uint8_t *out = malloc(size + 12 * pieces);
    if (!out) return NULL;
    memcpy(out, png, at);
    size_t o = at;
    for (size_t done = 0; done < len; done += piece) {
        size_t n = len - done < piece ? len - done : piece;
        put_be32(out + o, (uint32_t)n);
        memcpy(out + o + 4, "IDAT", 4);
        memcpy(out + o + 8, png + at + 8 + done, n);
        put_be32(out + o + 8 + n, ti_crc32(out + o + 4, n + 4));
        o += 12 + n;
    }
    size_t rest = size - (at + 12 + len);
    memcpy(out + o, png + at + 12 + len, rest);
    *out_size = o + rest;
    return out;
}

/* Random pixels do not compress: the IDAT is as large as the image. */
static void check_large_png_round_trip(void)
{
    gi_image src, back;
    if (!th_check(gi_image_alloc(&src, 1500, 1100, 4) == GI_OK, "alloc: %s", gi_last_error()))
        return;
    for (size_t i = 0; i < src.stride * (size_t)src.height; i++) src.data[i] = (uint8_t)th_rand64();
    uint8_t *png;
    size_t size;
    gi_save_options opts = {.format = GI_FORMAT_PNG, .jpeg_quality = 90};
    if (th_check(gi_encode(&src, &opts, &png, &size) == GI_OK, "encode: %s", gi_last_error())) {
        th_check(size > ((size_t)4 << 20), "the PNG (%zu bytes) is too small to cross 4 MiB", size);
        size_t split_size = 0;
        uint8_t *split = split_idat(png, size, 300000, &split_size);
        th_check(split != NULL, "cannot split the IDAT");
        if (split && th_check(gi_load_memory(&back, split, split_size, "big.png", NULL) == GI_OK,
                              "decode: %s", gi_last_error())) {
            th_check(back.width == src.width && back.height == src.height && back.channels == 4 &&
                         memcmp(back.data, src.data, src.stride * (size_t)src.height) == 0,
                     "a 1500x1100 RGBA PNG did not decode to its pixels");
            gi_image_free(&back);
        }
        free(split);
        gi_free(png);
    }
    gi_image_free(&src);
}

int main(void)
{
    th_seed();
    check_alloc_sizes();
    check_large_png_round_trip();
    return th_finish();
}
