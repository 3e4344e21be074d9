/* CUDA's errors as the library's (cuda_error.h). */
#include "cuda_error.h"
#include "base/gi_error.h"

gi_status gi__cuda_fail(cudaError_t e, const char *what)
{
    cudaGetLastError();
    return gi__fail(GI_ERR_DEVICE, "CUDA %s: %s (%s)", what, cudaGetErrorName(e),
                    cudaGetErrorString(e));
}
