/* The exact JPEG decoder's arithmetic half on the CUDA device: the
 * coefficients of the entropy half (jpeg_coeffs.h) in, stb_image's pixels
 * out, byte for byte the CPU's (jpeg_reconstruct.h). In builds without
 * CUDA every call answers GI_ERR_NO_DEVICE. */
#ifndef GI_JPEG_DEVICE_H
#define GI_JPEG_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"
#include "codec/jpeg/jpeg_coeffs.h"

/* Device bytes the component planes of c take (the IDCT's output; the
 * reduced planes where c->shrink is set). */
size_t gi__cuda_jpeg_planes_bytes(const gi_jpeg_coeffs *c);

/* Queues, on `stream` (a cudaStream_t), the IDCT of every component the
 * output reads from d_coeffs (a device copy of c->storage) into d_planes
 * (gi__cuda_jpeg_planes_bytes of device memory), then the upsampling and
 * colour conversion into d_out (gi__jpeg_output_size's pixels of
 * c->out_channels bytes, rows out_pitch apart): with c->shrink set, the
 * reduced IDCT and the shrunk image's sampling instead (jpeg_shrink.h).
 * Nothing is synchronized. */
gi_status gi__cuda_jpeg_reconstruct(const gi_jpeg_coeffs *c, const int16_t *d_coeffs,
                                    uint8_t *d_planes, uint8_t *d_out, size_t out_pitch,
                                    void *stream);

/* The whole round trip on the current device, synchronously: uploads the
 * coefficients, reconstructs into a device buffer filled with 0xA5 first
 * (so an unwritten pixel shows), downloads into pixels (rows stride
 * apart). For tests and for callers that want host pixels. */
gi_status gi__cuda_jpeg_reconstruct_host(const gi_jpeg_coeffs *c, uint8_t *pixels,
                                         size_t stride);

#endif
