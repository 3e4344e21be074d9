/* make_samples - writes the sample images of samples/ (see README.md).
 *
 *   make_samples [OUTDIR]        (default: the current directory)
 *
 * Everything is computed with + - * / and sqrt only, which IEEE 754 rounds
 * exactly, so the pixels are the same on every machine and the golden
 * tests can check that the committed samples still come out of this file.
 */
#include <gpuimg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define W 64
#define H 48

static uint8_t clamp255(double v)
{
    return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)(v + 0.5);
}

/* Coverage of a disc of radius r at distance d, with a one-pixel soft edge,
 * so edges have in-between values for the filters to work on. */
static double disc(double d, double r)
{
    return d <= r - 0.5 ? 1.0 : d >= r + 0.5 ? 0.0 : r + 0.5 - d;
}

static double dist(int x, int y, double cx, double cy)
{
    return sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy));
}

static void blend(uint8_t *px, const uint8_t rgb[3], double cover)
{
    for (int c = 0; c < 3; c++) px[c] = clamp255(px[c] * (1 - cover) + rgb[c] * cover);
}

/* A landscape: sky gradient, ground, sun, house, a diagonal line and a
 * checkerboard patch (fine detail for blur and sobel to act on). */
static void draw_scene(gi_image *img)
{
    static const uint8_t sun[3] = {250, 210, 40}, wall[3] = {190, 40, 30};
    static const uint8_t line[3] = {20, 20, 60};
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *px = img->data + y * img->stride + x * 3;
            int ground = y >= 32;
            px[0] = ground ? (uint8_t)(40 + y) : (uint8_t)(90 + 2 * y);
            px[1] = ground ? (uint8_t)(120 + x) : (uint8_t)(150 + y);
            px[2] = ground ? 40 : (uint8_t)(250 - 2 * y);
            blend(px, sun, disc(dist(x, y, 48.5, 11.0), 7.5));
            if (x >= 10 && x < 26 && y >= 22 && y < 38) blend(px, wall, 1.0);
            if (x == 2 * (y - 4) && x > 30) blend(px, line, 1.0);
            if (x >= 52 && x < 60 && y >= 36 && y < 44 && (x + y) % 2) blend(px, line, 1.0);
        }
}

/* Dark, with a gentle left-to-right ramp, and a bright line in column 0:
 * the border modes disagree most right next to it. */
static void draw_edge_line(gi_image *img)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) img->data[y * img->stride + x] = x == 0 ? 255 : 20 + x;
}

/* Shapes on a fully transparent black background: opaque disc with a soft
 * edge, opaque square, and a half-transparent bar over the disc. */
static void draw_alpha(gi_image *img)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *px = img->data + y * img->stride + x * 4;
            double d = disc(dist(x, y, 20.0, 22.0), 13.0);
            int square = x >= 38 && x < 56 && y >= 8 && y < 26;
            int bar = y >= 30 && y < 38 && x >= 6 && x < 58;
            px[0] = px[1] = px[2] = px[3] = 0;
            if (d > 0) px[0] = 30, px[1] = 90, px[2] = 220, px[3] = clamp255(255 * d);
            if (square) px[0] = 40, px[1] = 200, px[2] = 70, px[3] = 255;
            if (bar) px[0] = 255, px[1] = 140, px[2] = 0, px[3] = 128;
        }
}

/* A diagonal gray ramp fading out towards the corners (alpha vignette). */
static void draw_gray_alpha(gi_image *img)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *px = img->data + y * img->stride + x * 2;
            double r = dist(x, y, (W - 1) / 2.0, (H - 1) / 2.0) / 28.0;
            px[0] = (uint8_t)(2 * x + 2 * y);
            px[1] = clamp255(255 * (1.6 - r));
        }
}

static int save(const gi_image *img, const char *dir, const char *name, gi_format format)
{
    char path[4096];
    gi_save_options opts;
    gi_save_options_default(&opts);
    opts.format = format;
    opts.jpeg_quality = 85;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (gi_save_file(img, path, &opts) != GI_OK) {
        fprintf(stderr, "make_samples: %s\n", gi_last_error());
        return -1;
    }
    printf("%s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    gi_image scene, edge, alpha, gray_alpha;
    int failed = 0;
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: make_samples [OUTDIR]\n");
        return 2;
    }
    if (gi_image_alloc(&scene, W, H, 3) || gi_image_alloc(&edge, W, H, 1) ||
        gi_image_alloc(&alpha, W, H, 4) || gi_image_alloc(&gray_alpha, W, H, 2)) {
        fprintf(stderr, "make_samples: %s\n", gi_last_error());
        return 1;
    }
    draw_scene(&scene);
    draw_edge_line(&edge);
    draw_alpha(&alpha);
    draw_gray_alpha(&gray_alpha);
    failed |= save(&scene, dir, "scene.png", GI_FORMAT_PNG);
    failed |= save(&scene, dir, "scene.jpg", GI_FORMAT_JPEG);
    failed |= save(&edge, dir, "edge_line.png", GI_FORMAT_PNG);
    failed |= save(&alpha, dir, "alpha.png", GI_FORMAT_PNG);
    failed |= save(&gray_alpha, dir, "gray_alpha.png", GI_FORMAT_PNG);
    gi_image_free(&scene);
    gi_image_free(&edge);
    gi_image_free(&alpha);
    gi_image_free(&gray_alpha);
    return failed ? 1 : 0;
}
