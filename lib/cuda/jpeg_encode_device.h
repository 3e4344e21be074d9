/* The exact JPEG writer on the CUDA device: device pixels in, the file
 * gi__jpeg_write (lib/codec/jpeg/jpeg_write.h) makes of the same pixels out,
 * byte for byte. The float half and the Huffman codes run in
 * kernels/jpeg_encode.cu; only the entropy-coded bytes cross to the host,
 * which stuffs them into the file behind its headers. */
#ifndef GI_JPEG_ENCODE_DEVICE_H
#define GI_JPEG_ENCODE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "device_buffer.h"
#include "stream_wait.h"
#include "gpuimg.h"

/* An encoder's device scratch, grown to the largest image it has coded,
 * and the tables of the last quality it coded. Used by one thread at a
 * time, on that thread's stream. */
typedef struct {
    int quality; /* whose tables `tables` holds; 0: none yet */
    gi__cuda_buffer tables, coef, counts, offsets, scan_temp, words, stage;
    gi__cuda_waiter waiter;
} gi__cuda_jpeg_encoder;

/* Encodes width x height pixels of `channels` (1-4, as gi__jpeg_write
 * takes them) at d_pixels (device, rows pitch bytes apart) at quality
 * 1..100 (0: 90), on `stream` (a cudaStream_t), and waits for it.
 * *bytes (malloc'd) and *size: the whole file. *host_ms: the time the host
 * spent copying the bytes into the file. */
gi_status gi__cuda_jpeg_encode(gi__cuda_jpeg_encoder *e, const uint8_t *d_pixels, size_t pitch,
                               int width, int height, int channels, int quality, void *stream,
                               uint8_t **bytes, size_t *size, double *host_ms);

/* Frees the scratch; e is empty afterwards. */
void gi__cuda_jpeg_encoder_free(gi__cuda_jpeg_encoder *e);

#endif
