/* The nvJPEG decoder behind GI_JPEG_DECODER_NVJPEG: jpeg_nvjpeg.c when
 * nvJPEG was found at build time, jpeg_nvjpeg_absent.c when it was not. */
#ifndef GI_JPEG_NVJPEG_H
#define GI_JPEG_NVJPEG_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* 1 when this build has nvJPEG. */
int gi__nvjpeg_compiled(void);

/* Decodes a JPEG (already sniffed and pre-checked by gi_load_memory) with
 * nvJPEG into a new owned image: 1 channel for a gray file, else 3 (RGB),
 * as stb gives. Refuses images over limits->max_pixels from the header,
 * before allocating. `name` is for messages. */
gi_status gi__nvjpeg_load(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                          const gi_load_limits *limits);

#endif
