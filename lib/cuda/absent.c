/* The CUDA entry points of a build without CUDA: every answer says so. */
#include <string.h>

#include "backend/backend.h"
#include "base/gi_error.h"
#include "jpeg_device.h"

gi_status gi__cuda_backend_create(int device, const gi__backend_ops **ops, void **state)
{
    (void)device;
    (void)ops;
    (void)state;
    return gi__fail(GI_ERR_NO_DEVICE, "built without CUDA");
}

gi_status gi__cuda_backend_reserve(void *state, size_t in_bytes, size_t out_bytes)
{
    (void)state;
    (void)in_bytes;
    (void)out_bytes;
    return gi__fail(GI_ERR_NO_DEVICE, "built without CUDA");
}

int gi_cuda_compiled(void)
{
    return 0;
}

int gi_cuda_device_count(const char **why)
{
    if (why) *why = "this build has no CUDA backend";
    return 0;
}

gi_status gi_cuda_device_info(int index, int measure_bandwidth, gi_device_info *info)
{
    (void)index;
    (void)measure_bandwidth;
    GI__REFUSE_NULL(info);
    memset(info, 0, sizeof *info);
    return gi__fail(GI_ERR_NO_DEVICE, "this build has no CUDA backend");
}

size_t gi__cuda_jpeg_planes_bytes(const gi_jpeg_coeffs *c)
{
    (void)c;
    return 0;
}

gi_status gi__cuda_jpeg_reconstruct(const gi_jpeg_coeffs *c, const int16_t *d_coeffs,
                                    uint8_t *d_planes, uint8_t *d_out, size_t out_pitch,
                                    void *stream)
{
    (void)c;
    (void)d_coeffs;
    (void)d_planes;
    (void)d_out;
    (void)out_pitch;
    (void)stream;
    return gi__fail(GI_ERR_NO_DEVICE, "built without CUDA");
}

gi_status gi__cuda_jpeg_reconstruct_host(const gi_jpeg_coeffs *c, uint8_t *pixels,
                                         size_t stride)
{
    (void)c;
    (void)pixels;
    (void)stride;
    return gi__fail(GI_ERR_NO_DEVICE, "built without CUDA");
}
