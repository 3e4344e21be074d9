/* CUDA's errors as the library's, for the CUDA backend's files. */
#ifndef GI_CUDA_ERROR_H
#define GI_CUDA_ERROR_H

#include <cuda_runtime_api.h>

#include "gpuimg.h"

/* Records a CUDA failure as GI_ERR_DEVICE, "CUDA <what>: <error name>
 * (<text>)", and clears the runtime's last error, which would otherwise
 * surface again at the next launch check. */
gi_status gi__cuda_fail(cudaError_t e, const char *what);

#endif
