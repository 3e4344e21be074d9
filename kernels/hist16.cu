/* Per-channel histogram of a 16-bit image, bin = v * bins / 65536
 * (gpuimg.h); lib/cpu/hist16.c is the twin. Counts are integers, the same
 * in any order.
 *
 * A block counts a GI_HIST16_CHUNK-sample piece of a row (and of every
 * gridDim.y-th row below it). Where channels * bins counters fit shared
 * memory, it counts there and adds its non-zero counters to the global
 * counts once; with more bins (up to 65536 a channel) each sample adds to
 * its global counter directly. */
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int NT = 256;
constexpr int CHUNK = 4096;        /* samples of a row per block */
constexpr int SHARED_COUNTERS = 8192; /* 32 KiB of uint32 */
constexpr unsigned MAX_ROW_BLOCKS = 65535;

struct hist16_args {
    const uint8_t *src;
    size_t pitch;
    int row_samples, height, channels, bins;
    unsigned long long *counts; /* [channels][bins] */
};

__device__ __forceinline__ unsigned counter_of(const hist16_args &a, int i, uint16_t v)
{
    return (unsigned)(i % a.channels) * (unsigned)a.bins + ((unsigned)v * (unsigned)a.bins >> 16);
}

__global__ void __launch_bounds__(NT) hist16_shared(hist16_args a)
{
    __shared__ uint32_t table[SHARED_COUNTERS];
    const int n = a.channels * a.bins;
    for (int i = threadIdx.x; i < n; i += NT) table[i] = 0;
    __syncthreads();
    const int x0 = blockIdx.x * CHUNK, x1 = min(x0 + CHUNK, a.row_samples);
    for (int y = blockIdx.y; y < a.height; y += gridDim.y) {
        const uint16_t *row = (const uint16_t *)(a.src + (size_t)y * a.pitch);
        for (int i = x0 + threadIdx.x; i < x1; i += NT) atomicAdd(&table[counter_of(a, i, row[i])], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += NT)
        if (table[i]) atomicAdd(&a.counts[i], (unsigned long long)table[i]);
}

__global__ void __launch_bounds__(NT) hist16_global(hist16_args a)
{
    const int x0 = blockIdx.x * CHUNK, x1 = min(x0 + CHUNK, a.row_samples);
    for (int y = blockIdx.y; y < a.height; y += gridDim.y) {
        const uint16_t *row = (const uint16_t *)(a.src + (size_t)y * a.pitch);
        for (int i = x0 + threadIdx.x; i < x1; i += NT)
            atomicAdd(&a.counts[counter_of(a, i, row[i])], 1ull);
    }
}

} // namespace

extern "C" cudaError_t gi_cuda_hist16(const uint8_t *src, size_t src_pitch, int width, int height,
                                      int channels, int bins, unsigned long long *counts,
                                      cudaStream_t stream)
{
    if (channels < 1 || channels > 4 || bins < 1 || bins > 65536 || width < 1 || height < 1)
        return cudaErrorInvalidValue;
    const hist16_args a = {src, src_pitch, width * channels, height, channels, bins, counts};
    cudaError_t e = cudaMemsetAsync(counts, 0, sizeof(unsigned long long) * channels * bins, stream);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)((a.row_samples + CHUNK - 1) / CHUNK),
                    (unsigned)height < MAX_ROW_BLOCKS ? (unsigned)height : MAX_ROW_BLOCKS);
    if (channels * bins <= SHARED_COUNTERS)
        hist16_shared<<<grid, NT, 0, stream>>>(a);
    else
        hist16_global<<<grid, NT, 0, stream>>>(a);
    return cudaGetLastError();
}
