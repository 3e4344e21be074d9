/* 16-bit test images (image16.h). */
#include "image16.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define PAD 6
#define POISON 0xA5

static gi_image alloc16(int width, int height, int channels)
{
    gi_image img = {width, height, channels, (size_t)width * channels * 2 + PAD, NULL, 1, 16};
    img.data = malloc(img.stride * (size_t)height);
    if (!img.data) abort();
    memset(img.data, POISON, img.stride * (size_t)height);
    return img;
}

/* Mostly uniform, with 0, 65535 and values near them one time in eight
 * each: the clamps and the largest products are where 16 bits go wrong. */
static uint16_t random_sample(void)
{
    switch (th_rand_int(0, 7)) {
    case 0: return (uint16_t)th_rand_int(0, 3);
    case 1: return (uint16_t)th_rand_int(65532, 65535);
    default: return (uint16_t)th_rand_int(0, 65535);
    }
}

gi_image im16_random(int width, int height, int channels)
{
    gi_image img = alloc16(width, height, channels);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width * channels; x++) im16_px(&img, 0, y)[x] = random_sample();
    return img;
}

gi_image im16_poisoned(int width, int height, int channels)
{
    return alloc16(width, height, channels);
}

void im16_free(gi_image *img)
{
    free(img->data);
    img->data = NULL;
}

int im16_padding_intact(const gi_image *img)
{
    const size_t row = (size_t)img->width * img->channels * 2;
    for (int y = 0; y < img->height; y++)
        for (size_t i = row; i < img->stride; i++)
            if (img->data[(size_t)y * img->stride + i] != POISON) return 0;
    return 1;
}

gi_context *im16_cpu(int threads)
{
    gi_context_options o;
    gi_context_options_default(&o);
    o.device = GI_DEVICE_CPU;
    o.cpu_threads = threads;
    gi_context *ctx = NULL;
    if (gi_context_create(&ctx, &o) != GI_OK) abort();
    return ctx;
}
