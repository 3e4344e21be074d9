/* pixel_poke - make an image that differs from another in chosen samples,
 * for the compare tests.
 *
 *   pixel_poke IN OUT [X Y C DELTA]...   adds DELTA to channel C of pixel
 *                                        (X, Y), clamped to 0..255
 *   exit 0 written, 2 usage error or unreadable/unwritable image
 */
#include <gpuimg.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    gi_image img;
    if (argc < 3 || (argc - 3) % 4) {
        fprintf(stderr, "usage: pixel_poke IN OUT [X Y C DELTA]...\n");
        return 2;
    }
    if (gi_load_file(&img, argv[1], NULL) != GI_OK) {
        fprintf(stderr, "pixel_poke: %s\n", gi_last_error());
        return 2;
    }
    for (int i = 3; i + 3 < argc; i += 4) {
        int x = atoi(argv[i]), y = atoi(argv[i + 1]), c = atoi(argv[i + 2]);
        if (x < 0 || x >= img.width || y < 0 || y >= img.height || c < 0 || c >= img.channels) {
            fprintf(stderr, "pixel_poke: (%d, %d) channel %d is outside the image\n", x, y, c);
            return 2;
        }
        uint8_t *v = img.data + (size_t)y * img.stride + (size_t)x * img.channels + c;
        int n = *v + atoi(argv[i + 3]);
        *v = (uint8_t)(n < 0 ? 0 : n > 255 ? 255 : n);
    }
    int rc = gi_save_file(&img, argv[2], NULL) == GI_OK ? 0 : 2;
    if (rc) fprintf(stderr, "pixel_poke: %s\n", gi_last_error());
    gi_image_free(&img);
    return rc;
}
