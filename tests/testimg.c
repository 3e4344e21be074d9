/* Test images with padded strides; see testimg.h. */
#include "testimg.h"
#include "harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

gi_image ti_blank(int width, int height, int channels)
{
    gi_image img = {width, height, channels, 0, NULL, 0, 8};
    /* One image in four is tightly packed: that is the common case. */
    size_t pad = th_rand_int(0, 3) == 0 ? 0 : (size_t)th_rand_int(1, 9);
    img.stride = (size_t)width * (size_t)channels + pad;
    img.data = malloc(img.stride * (size_t)height);
    if (!img.data) abort();
    memset(img.data, TI_SENTINEL, img.stride * (size_t)height);
    return img;
}

gi_image ti_random(int width, int height, int channels)
{
    gi_image img = ti_blank(width, height, channels);
    int has_alpha = channels == 2 || channels == 4;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            uint8_t *p = ti_px(&img, x, y);
            for (int c = 0; c < channels; c++) p[c] = (uint8_t)th_rand64();
            if (has_alpha) {
                int kind = th_rand_int(0, 2);
                if (kind < 2) p[channels - 1] = kind ? 255 : 0;
            }
        }
    return img;
}

gi_image ti_copy(const gi_image *src)
{
    gi_image img = ti_blank(src->width, src->height, src->channels);
    for (int y = 0; y < src->height; y++)
        memcpy(ti_px(&img, 0, y), ti_px(src, 0, y), (size_t)src->width * (size_t)src->channels);
    return img;
}

void ti_free(gi_image *img)
{
    free(img->data);
    img->data = NULL;
}

int ti_padding_intact(const gi_image *img)
{
    size_t used = (size_t)img->width * (size_t)img->channels;
    for (int y = 0; y < img->height; y++)
        for (size_t k = used; k < img->stride; k++)
            if (img->data[(size_t)y * img->stride + k] != TI_SENTINEL) return 0;
    return 1;
}

int ti_same(const gi_image *a, const gi_image *b, char *why, size_t why_size)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels) {
        snprintf(why, why_size, "shape %dx%dx%d vs %dx%dx%d", a->width, a->height,
                 a->channels, b->width, b->height, b->channels);
        return 0;
    }
    const size_t row = (size_t)a->width * (size_t)a->channels;
    for (int y = 0; y < a->height; y++) {
        if (memcmp(ti_px(a, 0, y), ti_px(b, 0, y), row) == 0) continue; /* equal rows at memcmp speed */
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < a->channels; c++)
                if (ti_px(a, x, y)[c] != ti_px(b, x, y)[c]) {
                    snprintf(why, why_size, "pixel (%d,%d) channel %d: %d vs %d", x, y, c,
                             ti_px(a, x, y)[c], ti_px(b, x, y)[c]);
                    return 0;
                }
    }
    return 1;
}

gi_context *ti_cpu_context(int threads)
{
    gi_context_options opts;
    gi_context *ctx = NULL;
    gi_context_options_default(&opts);
    opts.device = GI_DEVICE_CPU;
    opts.cpu_threads = threads;
    if (gi_context_create(&ctx, &opts) != GI_OK) {
        fprintf(stderr, "cannot create a CPU context: %s\n", gi_last_error());
        abort();
    }
    return ctx;
}

uint32_t ti_crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c >> 1 ^ (0xEDB88320u & -(c & 1));
    }
    return ~c;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int ti_jpeg_names(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < max;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && (strcmp(e->d_name + len - 4, ".jpg") == 0 ||
                        strcmp(e->d_name + len - 4, ".JPG") == 0)) {
            names[n] = strdup(e->d_name);
            if (names[n]) n++;
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    return n;
}

void ti_blur_job(gi_job *job, gi_op *step, gi_format format)
{
    *step = (gi_op){.kind = GI_OP_BLUR};
    gi_blur_params_default(&step->blur);
    step->blur.sigma = 2;
    gi_job_default(job);
    job->steps = step;
    job->n_steps = 1;
    job->save.format = format;
}

void ti_each_jpeg_alternating(const char *dir, void (*check)(const char *path, void *arg),
                              void *arg)
{
    char *names[4096];
    const int n = ti_jpeg_names(dir, names, 4096); /* none where the folder is absent */
    for (int i = 0; i < n; i++) {
        const int k = i % 2 ? n - 1 - i / 2 : i / 2;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        check(path, arg);
    }
    for (int i = 0; i < n; i++) free(names[i]);
}

const char *const ti_pattern_name[TI_PATTERNS] = {"random", "gradient", "noisy", "flat", "checker"};

gi_image ti_patterned(ti_pattern k, int w, int h, int channels)
{
    gi_image img = ti_random(w, h, channels);
    int flat = th_rand_int(0, 255);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            for (int c = 0; c < channels; c++) {
                uint8_t *p = ti_px(&img, x, y) + c;
                int ramp = x * 255 / (w > 1 ? w - 1 : 1) + y * 3 + c * 40;
                if (k == TI_GRADIENT) *p = (uint8_t)(ramp & 255);
                else if (k == TI_NOISY) *p = (uint8_t)((ramp + th_rand_int(0, 6)) & 255);
                else if (k == TI_FLAT) *p = (uint8_t)(flat + c * 50);
                else if (k == TI_CHECKER) *p = ((x + y + c) & 1) ? 255 : 0;
            }
        for (size_t i = (size_t)w * channels; i < img.stride; i++)
            img.data[(size_t)y * img.stride + i] = (uint8_t)th_rand_int(0, 255);
    }
    return img;
}

void ti_bytes_append(void *context, void *data, int size)
{
    ti_bytes *b = context;
    if (b->size + (size_t)size > b->cap) {
        b->cap = (b->size + (size_t)size) * 2;
        b->data = realloc(b->data, b->cap);
        if (!b->data) abort();
    }
    memcpy(b->data + b->size, data, (size_t)size);
    b->size += (size_t)size;
}

long ti_first_difference(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return (long)i;
    return na == nb ? -1 : (long)n;
}

static int is_image_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0 ||
                   strcasecmp(dot, ".png") == 0);
}

void ti_each_image(const char *dir, void (*check)(const char *path, void *arg), void *arg)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("skipped %s: not here\n", dir);
        return;
    }
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_image_name(e->d_name)) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check(path, arg);
        files++;
    }
    closedir(d);
    printf("%s: %d files\n", dir, files);
}
