/* The CUDA entry points of a build without CUDA: everything reports that
 * the backend is absent, so AUTO runs on the CPU. */
#include <string.h>

#include "backend.h"
#include "gi_error.h"

static const char absent[] = "this build of gpuimg has no CUDA backend";

gi_status gi__cuda_backend_create(const gi__backend_ops **ops, void **state)
{
    *ops = NULL;
    *state = NULL;
    return gi__fail(GI_ERR_NO_DEVICE, "%s", absent);
}

int gi_cuda_compiled(void)
{
    return 0;
}

int gi_cuda_device_count(const char **why)
{
    if (why) *why = absent;
    return 0;
}

gi_status gi_cuda_device_info(int index, int measure_bandwidth, gi_device_info *info)
{
    (void)measure_bandwidth;
    memset(info, 0, sizeof *info);
    return gi__fail(GI_ERR_NO_DEVICE, "no CUDA device %d: %s", index, absent);
}
