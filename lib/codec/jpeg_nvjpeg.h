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

/* ---- The device path: JPEG bytes to device pixels and back, for jobs
 * whose steps run on the CUDA backend in between (lib/batch_device.c). */

/* Interleaved pixels in device memory, `pitch` bytes a row (a multiple of
 * 256, which the CUDA backend's kernels want of a source read in place). */
typedef struct {
    void *data;
    size_t pitch;
    int width, height, channels;
} gi__device_pixels;

/* 1 when FAST codecs may give these bytes to nvJPEG on the device path:
 * a JPEG that passes every check gi_load_memory makes before it would
 * hand the file to nvJPEG (image_io.c). Any other file takes the host
 * path, which decodes it or refuses it as gi_load_memory does. */
int gi__jpeg_for_device(const uint8_t *bytes, size_t size, const gi_load_limits *limits);

/* Up to `capacity` files decoded together on the GPU's JPEG engines, in
 * one batched call (a file the engines then fail on, short of calling it
 * corrupt, goes to the hybrid decoder). Its device buffers are reused from
 * one group of files to the next, and it is used by one thread at a time.
 * Refused (GI_ERR_UNSUPPORTED) where the GPU has no JPEG engines.
 * A released batch frees its pixel buffers and waits in the process's
 * pool for the next gi__nvjpeg_batch_take, keeping its engines' state,
 * as the process keeps its nvJPEG handle: making a state takes 100-350
 * ms on an H100 and destroying one 55-330 ms, each time a lane opens and
 * closes. The pool never holds more batches than were in use at once. */
typedef struct gi__nvjpeg_batch gi__nvjpeg_batch;

gi_status gi__nvjpeg_batch_take(int capacity, gi__nvjpeg_batch **out);
void gi__nvjpeg_batch_release(gi__nvjpeg_batch *b);
int gi__nvjpeg_batch_capacity(const gi__nvjpeg_batch *b);
/* Parses a file's headers (already sniffed as JPEG and pre-checked as
 * gi_load_memory does) into the next slot. Fails, adding nothing, for what
 * the engines do not decode (GI_ERR_UNSUPPORTED: gray, progressive, under
 * 64x64 ...), a size over limits->max_pixels, or headers it cannot parse. `bytes` and `name` must stay valid until the batch is cleared. */
gi_status gi__nvjpeg_batch_add(gi__nvjpeg_batch *b, const uint8_t *bytes, size_t size,
                               const char *name, const gi_load_limits *limits, int *slot);
/* Decodes every added file; each slot's outcome is then read with
 * gi__nvjpeg_batch_result. */
void gi__nvjpeg_batch_decode(gi__nvjpeg_batch *b);
/* A slot's pixels (valid until the batch is cleared) and the decoder that
 * made them ("nvjpeg-hardware" or "nvjpeg-hybrid"), or its failure. */
gi_status gi__nvjpeg_batch_result(const gi__nvjpeg_batch *b, int slot, gi__device_pixels *px,
                                  const char **decoded_by);
/* Device memory, owned by the batch, for a slot's result of that shape. */
gi_status gi__nvjpeg_batch_output(gi__nvjpeg_batch *b, int slot, int width, int height,
                                  int channels, gi__device_pixels *px);
/* Empties the slots for the next files; buffers are kept. */
void gi__nvjpeg_batch_clear(gi__nvjpeg_batch *b);

/* Encodes 3-channel device pixels as gi__nvjpeg_encode does; only the
 * compressed bytes cross to the host. */
gi_status gi__nvjpeg_encode_device(const gi__device_pixels *px, int quality, const char *name,
                                   uint8_t **bytes, size_t *size);
/* gi_encode for 3-channel device pixels and JPEG output with nvJPEG
 * (image_io.c): the same quality default and metadata; sets gi_last_codec. */
gi_status gi__encode_device_jpeg(const gi__device_pixels *px, const gi_save_options *opts,
                                 uint8_t **bytes, size_t *size);

#endif
