/* The host side of kernels/jpeg_entropy.cu: a file's deferred scans
 * (jpeg_deferred.h), baseline or progressive, Huffman-decoded on the
 * device in order into the coefficients the CPU's entropy half gives. */
#ifndef GI_JPEG_ENTROPY_DEVICE_H
#define GI_JPEG_ENTROPY_DEVICE_H

#include "device_buffer.h"
#include "gpuimg.h"
#include "codec/jpeg/jpeg_coeffs.h"

/* The decoder's buffers, kept from one scan to the next. */
typedef struct gi__cuda_jpeg_entropy {
    gi__cuda_buffer upload;           /* device: the deferred scan's upload */
    gi__cuda_buffer states[2], counts, base, dc_diff, dc_key, dc_sum, seg_end, flags, temp;
    gi__cuda_buffer host_flags;       /* pinned: a round's "changed", the checks' "bad" */
} gi__cuda_jpeg_entropy;

/* Queues the upload of c's deferred scans on stream. */
gi_status gi__cuda_jpeg_entropy_upload(gi__cuda_jpeg_entropy *e, const gi_jpeg_coeffs *c,
                                       void *stream);

/* Decodes the uploaded scans into d_coeffs (c->storage_bytes of device
 * memory, c's layout), waiting on stream for the rounds and the checks.
 * *decoded: 1, or 0 where the device did not finish it the CPU's way
 * (damaged data): the caller then decodes the file on the CPU. Errors are
 * CUDA's. */
gi_status gi__cuda_jpeg_entropy_decode(gi__cuda_jpeg_entropy *e, const gi_jpeg_coeffs *c,
                                       int16_t *d_coeffs, void *stream, int *decoded);

void gi__cuda_jpeg_entropy_free(gi__cuda_jpeg_entropy *e);

#endif
