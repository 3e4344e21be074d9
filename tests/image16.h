/* image16.h - 16-bit test images for the reference groups: random samples
 * (the full range, the extremes often), rows padded past their samples so
 * that a write beyond a row shows, and outputs poisoned before a call. */
#ifndef TESTS_REF_IMAGE16_H
#define TESTS_REF_IMAGE16_H

#include <gpuimg.h>
#include <stdint.h>

/* width x height x channels at 16 bits, stride padded by 6 bytes. */
gi_image im16_random(int width, int height, int channels);
/* The same size, every byte (padding too) set to a poison. */
gi_image im16_poisoned(int width, int height, int channels);
void im16_free(gi_image *img);

static inline uint16_t *im16_px(const gi_image *img, int x, int y)
{
    return (uint16_t *)(img->data + (size_t)y * img->stride) + (size_t)x * img->channels;
}

/* Whether the padding after every row still holds the poison. */
int im16_padding_intact(const gi_image *img);

/* A context of the CPU backend with `threads` threads (0: one per core). */
gi_context *im16_cpu(int threads);

#endif
