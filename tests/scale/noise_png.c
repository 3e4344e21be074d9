/* noise_png W H SEED OUT: writes a W x H RGB PNG of pseudo-random pixels.
 * Noise does not compress, so the file size is known in advance (about
 * 3 W H bytes): the scale tests use it to fill a small file system, to
 * outgrow a pipe buffer and to make a batch take long enough to interrupt. */
#include <stdio.h>
#include <stdlib.h>

#include <gpuimg.h>

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: noise_png WIDTH HEIGHT SEED OUT.png\n");
        return 2;
    }
    int width = atoi(argv[1]), height = atoi(argv[2]);
    unsigned long long x = strtoull(argv[3], NULL, 10) * 2654435761u + 1;
    gi_image img;
    if (width < 1 || height < 1 || gi_image_alloc(&img, width, height, 3) != GI_OK) {
        fprintf(stderr, "noise_png: bad size %sx%s\n", argv[1], argv[2]);
        return 2;
    }
    for (size_t i = 0; i < (size_t)width * height * 3; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        img.data[i] = (uint8_t)(x >> 32);
    }
    gi_status st = gi_save_file(&img, argv[4], NULL);
    if (st != GI_OK) fprintf(stderr, "noise_png: %s\n", gi_last_error());
    gi_image_free(&img);
    return st == GI_OK ? 0 : 1;
}
