/* libtiff is loaded at the first TIFF, never before (lib/codec/tiff/
 * tiff_lib.h): a program linked with libgpuimg that decodes and encodes
 * PNG and JPEG has no libtiff among its mappings; encoding and decoding a
 * TIFF then maps it, and the samples come back. Linux (/proc/self/maps)
 * and a build with libtiff; else skipped (77). */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include <gpuimg.h>

/* 1 when a mapping of this process names libtiff; -1 without /proc. */
static int libtiff_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, "/libtiff.so") != NULL;
    fclose(f);
    return found;
}

/* Encodes img as `format` and decodes it again; the samples must match
 * where the format keeps them (all but JPEG). */
static void round_trip(const gi_image *img, gi_format format, const char *name, int exact)
{
    gi_save_options opts;
    gi_save_options_default(&opts);
    opts.format = format;
    uint8_t *bytes = NULL;
    size_t size = 0;
    gi_image back;
    int ok = gi_encode(img, &opts, &bytes, &size) == GI_OK &&
             gi_load_memory(&back, bytes, size, name, NULL) == GI_OK;
    th_check(ok, "%s: %s", name, gi_last_error());
    if (ok) {
        th_check(back.width == img->width && back.height == img->height &&
                     back.channels == img->channels,
                 "%s: %dx%dx%d back", name, back.width, back.height, back.channels);
        if (exact)
            th_check(memcmp(back.data, img->data, (size_t)img->width * img->height * img->channels) == 0,
                     "%s: the samples back", name);
        gi_image_free(&back);
    }
    gi_free(bytes);
}

int main(void)
{
#ifndef GPUIMG_HAVE_LIBTIFF
    printf("skip: this build has no libtiff\n");
    return 77;
#else
    if (libtiff_mapped() < 0) {
        printf("skip: no /proc/self/maps\n");
        return 77;
    }
    gi_image img;
    if (!th_check(gi_image_alloc(&img, 37, 11, 3) == GI_OK, "alloc: %s", gi_last_error()))
        return th_finish();
    for (int i = 0; i < 37 * 11 * 3; i++) img.data[i] = (uint8_t)(i * 7 + i / 5);
    round_trip(&img, GI_FORMAT_PNG, "mem.png", 1);
    round_trip(&img, GI_FORMAT_JPEG, "mem.jpg", 0);
    th_check(libtiff_mapped() == 0, "PNG and JPEG: libtiff not mapped");
    round_trip(&img, GI_FORMAT_TIFF, "mem.tif", 1);
    th_check(libtiff_mapped() == 1, "after a TIFF: libtiff mapped");
    gi_image_free(&img);
    return th_finish();
#endif
}
