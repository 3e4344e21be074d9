/* The host side of kernels/jpeg_entropy.cu: a file's deferred scans
 * (jpeg_deferred.h), baseline or progressive, Huffman-decoded on the
 * device in order into the coefficients the CPU's entropy half gives. */
#ifndef GI_JPEG_ENTROPY_DEVICE_H
#define GI_JPEG_ENTROPY_DEVICE_H

#include "device_buffer.h"
#include "stream_wait.h"
#include "gpuimg.h"
#include "codec/jpeg/jpeg_coeffs.h"

/* The decoder's buffers, kept from one scan to the next. */
typedef struct gi__cuda_jpeg_entropy {
    gi__cuda_buffer upload;           /* device: the deferred scan's upload */
    gi__cuda_buffer states[2], counts, base, dc_diff, dc_key, dc_sum, seg_end, flags, temp;
    gi__cuda_buffer host_flags;       /* pinned: a round's "changed", the checks' "bad" */
    gi__cuda_waiter waiter;           /* for the flags' copies */
} gi__cuda_jpeg_entropy;

/* Queues the upload of c's deferred scans on stream. */
gi_status gi__cuda_jpeg_entropy_upload(gi__cuda_jpeg_entropy *e, const gi_jpeg_coeffs *c,
                                       void *stream);

/* What the device made of a file's scans: decoded; or declined, where
 * the checks found data the CPU's decoder gives up (damaged), or where a
 * scan's sync rounds did not settle within their bound (jpeg_entropy_device.c:
 * data that never falls into step, which damaged data may do even where
 * the CPU's decoder takes it). A declined file is decoded on the CPU. */
enum { GI_CUDA_JPEG_DECODED, GI_CUDA_JPEG_DAMAGED, GI_CUDA_JPEG_UNSETTLED };

/* Decodes the uploaded scans into d_coeffs (c->storage_bytes of device
 * memory, c's layout), waiting on stream for the rounds and the checks,
 * and says how in *outcome (GI_CUDA_JPEG_*): the caller decodes the file
 * on the CPU unless GI_CUDA_JPEG_DECODED. Errors are CUDA's. */
gi_status gi__cuda_jpeg_entropy_decode(gi__cuda_jpeg_entropy *e, const gi_jpeg_coeffs *c,
                                       int16_t *d_coeffs, void *stream, int *outcome);

void gi__cuda_jpeg_entropy_free(gi__cuda_jpeg_entropy *e);

#endif
