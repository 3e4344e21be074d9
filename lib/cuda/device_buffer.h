/* Growing buffers of device and pinned host memory, kept from one call to
 * the next: the CUDA backend's images and stages (backend.c) and the JPEG
 * writer's scratch (jpeg_encode_device.c). */
#ifndef GI_DEVICE_BUFFER_H
#define GI_DEVICE_BUFFER_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "gpuimg.h"

typedef struct {
    void *ptr;
    size_t bytes;
} gi__cuda_buffer;

/* cudaMalloc, but for tests: GPUIMG_TEST_FAIL_DEVICE_ALLOC=1 makes it fail
 * as if the GPU were full, to exercise the fallback paths. */
cudaError_t gi__cuda_malloc(void **ptr, size_t bytes);

/* Grows a device buffer to at least `bytes` (its contents are lost).
 * Running out of device memory is GI_ERR_NO_MEMORY, so lib/engine/ops.c can rerun
 * on the CPU under AUTO; `what` names the work in the message. */
gi_status gi__cuda_reserve_device(gi__cuda_buffer *b, size_t bytes, const char *what);

/* The same for pinned host memory. */
gi_status gi__cuda_reserve_pinned(gi__cuda_buffer *b, size_t bytes);

/* Frees either kind; errors are ignored (teardown has no one to tell). */
void gi__cuda_free_device(gi__cuda_buffer *b);
void gi__cuda_free_pinned(gi__cuda_buffer *b);

#endif
