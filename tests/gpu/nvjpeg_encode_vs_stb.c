/* nvjpeg_encode_vs_stb DIR...: GI_JPEG_ENCODER_NVJPEG against stb's writer
 * on every PNG and JPEG in the DIRs (a DIR that does not exist is skipped),
 * at qualities 75, 90 and 95 (4:2:0 up to 90, 4:4:4 above, for both).
 *
 * Each image is decoded with stb (the reference pixels; alpha dropped, gray
 * made RGB, as the JPEG writer would), encoded by both, and the results
 * decoded with stb: the file sizes and PSNR against the reference are
 * printed per file and in total. nvJPEG must give the same bytes on a second
 * encode, a file stb decodes to the image's size, and a PSNR no more than
 * MAX_PSNR_LOSS dB under stb's, or over LOSSLESS_LOOKING dB (samples/
 * edge_line.png at q95: nvJPEG 63.2 dB, stb 66.2 dB on an H100). GI_JPEG_ENCODER_FAST must take 3-channel
 * images to nvJPEG and others to stb (gi_last_codec).
 * Exits 77 (skip) when this build has no nvJPEG or there is no GPU. */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testimg.h"

#define MAX_PSNR_LOSS 1.5
#define LOSSLESS_LOOKING 55.0

static const int qualities[] = {75, 90, 95};
#define N_QUALITIES (int)(sizeof qualities / sizeof *qualities)
static double total_size[N_QUALITIES][2], total_psnr[N_QUALITIES][2];
static int n_images;

/* The image as 3-channel RGB, what both encoders store. */
static int as_rgb(const gi_image *in, gi_image *out)
{
    if (gi_image_alloc(out, in->width, in->height, 3) != GI_OK) return -1;
    for (int y = 0; y < in->height; y++)
        for (int x = 0; x < in->width; x++) {
            const uint8_t *p = ti_px(in, x, y);
            uint8_t *q = ti_px(out, x, y);
            int gray = in->channels < 3;
            for (int c = 0; c < 3; c++) q[c] = p[gray ? 0 : c];
        }
    return 0;
}

static double psnr(const gi_image *a, const gi_image *b)
{
    double sum = 0;
    for (int y = 0; y < a->height; y++)
        for (size_t i = 0; i < (size_t)a->width * 3; i++) {
            double d = (double)ti_px(a, 0, y)[i] - ti_px(b, 0, y)[i];
            sum += d * d;
        }
    double mse = sum / ((double)a->width * a->height * 3);
    return mse == 0 ? 99.0 : 10 * log10(255.0 * 255.0 / mse);
}

/* Encodes `rgb` with `encoder` at quality q; returns the PSNR of the result
 * decoded by stb, or -1 after a failed check. */
static double encode_and_measure(const char *path, const gi_image *rgb, gi_jpeg_encoder encoder,
                                 int q, size_t *size)
{
    gi_save_options opts = {.format = GI_FORMAT_JPEG, .jpeg_quality = q, .jpeg_encoder = encoder};
    uint8_t *bytes, *again;
    size_t again_size;
    const char *name = encoder == GI_JPEG_ENCODER_STB ? "stb" : "nvjpeg";
    if (!th_check(gi_encode(rgb, &opts, &bytes, size) == GI_OK, "%s: %s q%d: %s", path, name, q,
                  gi_last_error()))
        return -1;
    if (encoder == GI_JPEG_ENCODER_NVJPEG &&
        th_check(gi_encode(rgb, &opts, &again, &again_size) == GI_OK, "%s: second encode: %s",
                 path, gi_last_error())) {
        th_check(again_size == *size && memcmp(again, bytes, *size) == 0,
                 "%s: nvJPEG q%d: two encodes differ", path, q);
        free(again);
    }
    gi_image back;
    double result = -1;
    if (th_check(gi_load_memory(&back, bytes, *size, path, NULL) == GI_OK,
                 "%s: %s q%d: stb cannot read it back: %s", path, name, q, gi_last_error())) {
        if (th_check(back.width == rgb->width && back.height == rgb->height && back.channels == 3,
                     "%s: %s q%d gives %dx%dx%d", path, name, q, back.width, back.height,
                     back.channels))
            result = psnr(rgb, &back);
        gi_image_free(&back);
    }
    free(bytes);
    return result;
}

static void check_fast(const char *path, const gi_image *img)
{
    gi_save_options opts = {.format = GI_FORMAT_JPEG, .jpeg_quality = 90,
                            .jpeg_encoder = GI_JPEG_ENCODER_FAST};
    uint8_t *bytes;
    size_t size;
    if (th_check(gi_encode(img, &opts, &bytes, &size) == GI_OK, "%s: FAST: %s", path,
                 gi_last_error()))
        free(bytes);
    const char *want = img->channels == 3 ? "nvjpeg" : "stb";
    th_check(strcmp(gi_last_codec(), want) == 0, "%s: FAST with %d channels: %s took it, not %s",
             path, img->channels, gi_last_codec(), want);
}

static void check_file(const char *path)
{
    gi_image img, rgb;
    if (!th_check(gi_load_file(&img, path, NULL) == GI_OK, "%s: %s", path, gi_last_error()))
        return;
    check_fast(path, &img);
    if (!th_check(as_rgb(&img, &rgb) == 0, "%s: out of memory", path)) {
        gi_image_free(&img);
        return;
    }
    n_images++;
    printf("%s: %dx%d", path, img.width, img.height);
    for (int i = 0; i < N_QUALITIES; i++) {
        size_t size[2] = {0, 0};
        double p[2];
        p[0] = encode_and_measure(path, &rgb, GI_JPEG_ENCODER_STB, qualities[i], &size[0]);
        p[1] = encode_and_measure(path, &rgb, GI_JPEG_ENCODER_NVJPEG, qualities[i], &size[1]);
        printf("; q%d stb %zu B %.2f dB, nvjpeg %zu B %.2f dB", qualities[i], size[0], p[0],
               size[1], p[1]);
        for (int e = 0; e < 2; e++) {
            total_size[i][e] += (double)size[e];
            total_psnr[i][e] += p[e];
        }
        if (p[0] >= 0 && p[1] >= 0)
            th_check(p[1] >= p[0] - MAX_PSNR_LOSS || p[1] >= LOSSLESS_LOOKING, "%s: q%d: nvJPEG %.2f dB, stb %.2f dB", path,
                     qualities[i], p[1], p[0]);
    }
    printf("\n");
    gi_image_free(&rgb);
    gi_image_free(&img);
}

static void check_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || strncmp(e->d_name, "fail-", 5) == 0) continue;
        if (strcmp(dot, ".png") && strcmp(dot, ".jpg") && strcmp(dot, ".jpeg")) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check_file(path);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    const char *why;
    if (!gi_jpeg_encoder_compiled(GI_JPEG_ENCODER_NVJPEG)) {
        printf("skip: this build has no nvJPEG\n");
        return 77;
    }
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    for (int i = 1; i < argc; i++) check_dir(argv[i]);
    th_check(n_images > 0, "no images in the directories given");
    for (int i = 0; i < N_QUALITIES && n_images; i++)
        printf("all %d images, q%d: stb %.0f B, %.2f dB mean; nvjpeg %.0f B (%.3fx), %.2f dB "
               "mean\n", n_images, qualities[i], total_size[i][0], total_psnr[i][0] / n_images,
               total_size[i][1], total_size[i][1] / total_size[i][0],
               total_psnr[i][1] / n_images);
    return th_finish();
}
