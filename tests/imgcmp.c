/* imgcmp - compare two images by their decoded pixels.
 *
 *   imgcmp A B     exit 0: same size, channels and bytes
 *                  exit 1: different; the first difference is printed
 *                  exit 2: usage error or an image could not be decoded
 *
 * Comparing pixels rather than files keeps the golden tests independent of
 * how the encoder compresses, and is what users of golden tests care about.
 */
#include <gpuimg.h>
#include <stdio.h>

static int load(gi_image *img, const char *path)
{
    if (gi_load_file(img, path, NULL) == GI_OK) return 0;
    fprintf(stderr, "imgcmp: %s\n", gi_last_error());
    return -1;
}

/* Prints the first difference; returns 1 if there is one. */
static int differ(const char *pa, const gi_image *a, const char *pb, const gi_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels) {
        printf("%s is %dx%d with %d channels, %s is %dx%d with %d channels\n", pa, a->width,
               a->height, a->channels, pb, b->width, b->height, b->channels);
        return 1;
    }
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < a->channels; c++) {
                int va = a->data[y * a->stride + (size_t)x * a->channels + c];
                int vb = b->data[y * b->stride + (size_t)x * b->channels + c];
                if (va != vb) {
                    printf("first difference at pixel (%d,%d) channel %d: %s has %d, %s has %d\n",
                           x, y, c, pa, va, pb, vb);
                    return 1;
                }
            }
    return 0;
}

int main(int argc, char **argv)
{
    gi_image a = {0}, b = {0};
    int rc = 2;
    if (argc != 3) {
        fprintf(stderr, "usage: imgcmp A B\n");
        return 2;
    }
    if (load(&a, argv[1]) == 0 && load(&b, argv[2]) == 0) rc = differ(argv[1], &a, argv[2], &b);
    gi_image_free(&a);
    gi_image_free(&b);
    return rc;
}
