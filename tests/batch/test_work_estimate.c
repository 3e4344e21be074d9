/* cmd/work_estimate.c: the decoded size of PNGs and JPEGs from their
 * headers (a JPEG's frame header found behind large APP segments, as in
 * photos with EXIF data), the weight of a PNG output, and 0 for anything
 * that is not a readable image header. */
#include "harness.h"

#include <gpuimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/work_estimate.h"

static char tmpdir[256];

static const char *in_tmp(const char *name)
{
    static char path[400];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static int write_bytes(const char *name, const uint8_t *bytes, size_t size)
{
    FILE *f = fopen(in_tmp(name), "wb");
    int ok = f && fwrite(bytes, 1, size, f) == size;
    return (f && fclose(f) == 0) && ok;
}

/* Encodes a w x h x c image to memory. */
static uint8_t *encoded(int w, int h, int c, gi_format format, size_t *size)
{
    gi_image img;
    uint8_t *bytes = NULL;
    gi_save_options opts = {.format = format, .jpeg_quality = 90};
    if (gi_image_alloc(&img, w, h, c) != GI_OK) return NULL;
    memset(img.data, 128, img.stride * (size_t)h);
    if (gi_encode(&img, &opts, &bytes, size) != GI_OK) bytes = NULL;
    gi_image_free(&img);
    return bytes;
}

static void check_png(void)
{
    const int shapes[][3] = {{7, 5, 1}, {7, 5, 2}, {7, 5, 3}, {33, 2, 4}};
    for (int k = 0; k < 4; k++) {
        size_t size;
        int w = shapes[k][0], h = shapes[k][1], c = shapes[k][2];
        uint8_t *png = encoded(w, h, c, GI_FORMAT_PNG, &size);
        if (!th_check(png && write_bytes("a.png", png, size), "cannot write a.png")) continue;
        double want = (double)w * h * c;
        gi__image_size header;
        double png_out = gi__estimate_work(in_tmp("a.png"), GI_FORMAT_PNG);
        th_check(gi__read_image_size(in_tmp("a.png"), &header) == 0 &&
                     header.format == GI_FORMAT_PNG, "a PNG's format: %d", (int)header.format);
        double jpeg_out = gi__estimate_work(in_tmp("a.png"), GI_FORMAT_JPEG);
        th_check(jpeg_out == want, "%dx%dx%d PNG to JPEG: %g, want %g", w, h, c, jpeg_out, want);
        th_check(png_out > want, "%dx%dx%d PNG to PNG: %g, want more than %g", w, h, c, png_out,
                 want);
        th_check(write_bytes("t.png", png, 20), "cannot write t.png");
        th_check(gi__estimate_work(in_tmp("t.png"), GI_FORMAT_PNG) == 0, "a PNG cut in its IHDR: not 0");
        gi_free(png);
    }
}

/* A JPEG with two 60 KB APP segments between SOI and the frame header. */
static void check_jpeg_behind_app_segments(void)
{
    size_t size;
    uint8_t *jpeg = encoded(300, 17, 3, GI_FORMAT_JPEG, &size);
    if (!th_check(jpeg != NULL, "cannot encode a JPEG")) return;
    const size_t app = 60000, padded = size + 2 * (app + 2);
    uint8_t *big = calloc(1, padded);
    if (!th_check(big != NULL, "out of memory")) return;
    memcpy(big, jpeg, 2); /* SOI */
    for (int i = 0; i < 2; i++) {
        uint8_t *seg = big + 2 + i * (app + 2);
        seg[0] = 0xFF;
        seg[1] = 0xE1 + i;
        seg[2] = (uint8_t)(app >> 8);
        seg[3] = (uint8_t)app;
        seg[4] = 0xC0; /* a byte that looks like a marker inside the payload */
    }
    memcpy(big + 2 + 2 * (app + 2), jpeg + 2, size - 2);
    th_check(write_bytes("plain.jpg", jpeg, size) && write_bytes("exif.jpg", big, padded),
             "cannot write the JPEGs");
    th_check(gi__estimate_work(in_tmp("plain.jpg"), GI_FORMAT_JPEG) == 300.0 * 17 * 3,
             "plain JPEG: %g", gi__estimate_work(in_tmp("plain.jpg"), GI_FORMAT_JPEG));
    gi__image_size header;
    th_check(gi__read_image_size(in_tmp("exif.jpg"), &header) == 0 &&
                 header.format == GI_FORMAT_JPEG, "a JPEG's format: %d", (int)header.format);
    th_check(gi__estimate_work(in_tmp("exif.jpg"), GI_FORMAT_JPEG) == 300.0 * 17 * 3,
             "JPEG behind APP segments: %g", gi__estimate_work(in_tmp("exif.jpg"), GI_FORMAT_JPEG));
    th_check(write_bytes("cut.jpg", big, app), "cannot write cut.jpg");
    th_check(gi__estimate_work(in_tmp("cut.jpg"), GI_FORMAT_JPEG) == 0, "a JPEG cut before its frame: not 0");
    free(big);
    gi_free(jpeg);
}

/* A binary Netpbm file: its length, about its decoded bytes. */
static void check_netpbm(void)
{
    size_t size;
    uint8_t *ppm = encoded(30, 20, 3, GI_FORMAT_PNM, &size);
    th_check(ppm && write_bytes("a.ppm", ppm, size), "cannot write a.ppm");
    th_check(gi__estimate_work(in_tmp("a.ppm"), GI_FORMAT_JPEG) == (double)size, "PPM: %g, want %zu",
             gi__estimate_work(in_tmp("a.ppm"), GI_FORMAT_JPEG), size);
    gi_free(ppm);
}

static void check_not_images(void)
{
    th_check(write_bytes("text.png", (const uint8_t *)"hello, world\n", 13), "cannot write text.png");
    th_check(write_bytes("empty.jpg", (const uint8_t *)"", 0), "cannot write empty.jpg");
    gi__image_size header;
    th_check(gi__estimate_work(in_tmp("text.png"), GI_FORMAT_PNG) == 0 &&
                 gi__read_image_size(in_tmp("text.png"), &header) == -1 &&
                 header.format == GI_FORMAT_AUTO, "a text file: not 0, or a format");
    th_check(gi__estimate_work(in_tmp("empty.jpg"), GI_FORMAT_PNG) == 0, "an empty file: not 0");
    th_check(gi__estimate_work(in_tmp("missing.png"), GI_FORMAT_PNG) == 0, "a missing file: not 0");
    th_check(gi__estimate_work(tmpdir, GI_FORMAT_PNG) == 0, "a directory: not 0");
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/gpuimg-work-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    check_png();
    check_jpeg_behind_app_segments();
    check_netpbm();
    check_not_images();
    const char *names[] = {"a.png", "t.png", "plain.jpg", "exif.jpg", "cut.jpg", "text.png",
                           "empty.jpg", "a.ppm"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(in_tmp(names[i]));
    rmdir(tmpdir);
    return th_finish();
}
