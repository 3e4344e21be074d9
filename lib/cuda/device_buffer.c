/* device_buffer.h */
#include "device_buffer.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_error.h"
#include "base/gi_error.h"
#include "base/overrides.h"

cudaError_t gi__cuda_malloc(void **ptr, size_t bytes)
{
    if (gi__process_overrides()->fail_device_alloc) return cudaErrorMemoryAllocation;
    return cudaMalloc(ptr, bytes);
}

gi_status gi__cuda_reserve_device(gi__cuda_buffer *b, size_t bytes, const char *what)
{
    if (b->bytes >= bytes) return GI_OK;
    cudaError_t e = cudaFree(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
    if (e != cudaSuccess) return gi__cuda_fail(e, "cudaFree");
    e = gi__cuda_malloc(&b->ptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        b->ptr = NULL;
        return gi__fail(GI_ERR_NO_MEMORY, "%s: out of device memory (%zu bytes)", what, bytes);
    }
    if (e != cudaSuccess) return gi__cuda_fail(e, "cudaMalloc");
    b->bytes = bytes;
    return GI_OK;
}

gi_status gi__cuda_reserve_pinned(gi__cuda_buffer *b, size_t bytes)
{
    if (b->bytes >= bytes) return GI_OK;
    cudaError_t e = cudaFreeHost(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
    if (e != cudaSuccess) return gi__cuda_fail(e, "cudaFreeHost");
    e = cudaHostAlloc(&b->ptr, bytes, cudaHostAllocDefault);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        b->ptr = NULL;
        return gi__fail(GI_ERR_NO_MEMORY, "out of pinned host memory (%zu bytes)", bytes);
    }
    if (e != cudaSuccess) return gi__cuda_fail(e, "cudaHostAlloc");
    b->bytes = bytes;
    return GI_OK;
}

void gi__cuda_free_device(gi__cuda_buffer *b)
{
    cudaFree(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
}

void gi__cuda_free_pinned(gi__cuda_buffer *b)
{
    cudaFreeHost(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
}
