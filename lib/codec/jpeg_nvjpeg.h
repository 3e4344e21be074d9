/* The nvJPEG codecs behind the fast JPEG decoder and encoder: jpeg_nvjpeg.c
 * when nvJPEG was found at build time, jpeg_nvjpeg_absent.c when it was not. */
#ifndef GI_JPEG_NVJPEG_H
#define GI_JPEG_NVJPEG_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* 1 when this build has nvJPEG. */
int gi__nvjpeg_compiled(void);

/* Starts making the process's nvJPEG handle on a thread of its own, so the
 * first image does not wait for it; the first image makes it otherwise. */
void gi__nvjpeg_start(void);

/* 1 when the handle uses the GPU's JPEG engines (waits for the handle). */
int gi__nvjpeg_has_engines(void);

/* Decodes a JPEG (already sniffed and pre-checked by gi_load_memory) with
 * nvJPEG into a new owned image: 1 channel for a gray file, else 3 (RGB),
 * as stb gives. Refuses images over limits->max_pixels from the header,
 * before allocating. GI_ERR_UNSUPPORTED for what nvJPEG does not decode and
 * GI_ERR_NO_DEVICE without a GPU: what stb may take instead. `name` is for
 * messages. */
gi_status gi__nvjpeg_load(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                          const gi_load_limits *limits);

/* "nvjpeg-hardware" (the GPU's JPEG engines) or "nvjpeg-hybrid" (Huffman
 * on the CPU): what took the calling thread's last gi__nvjpeg_load. */
const char *gi__nvjpeg_last_decoder(void);

/* Encodes a 3-channel image as JPEG at `quality` (1..100) into a malloc'ed
 * buffer: 4:2:0 chroma at quality <= 90, 4:4:4 above (stb's rule).
 * GI_ERR_UNSUPPORTED for other channel counts, GI_ERR_NO_DEVICE without a
 * GPU. */
gi_status gi__nvjpeg_encode(const gi_image *img, int quality, const char *name, uint8_t **bytes,
                            size_t *size);

#endif
