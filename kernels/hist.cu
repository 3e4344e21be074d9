/* Per-channel histogram, bin = v * bins / 256 (gpuimg.h).
 *
 * Each warp counts into its own shared histogram with shared-memory
 * atomics, so warps never contend, and a thread first merges runs of equal
 * bins among its own 16 bytes (a flat image would otherwise put all 32
 * lanes on one counter). Each block adds its totals to the global counts
 * once, at the end: no global atomic per pixel. */
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int SEGMENT = GI_HIST_THREADS * GI_HIST_CHUNK; /* bytes per block step */

struct hist_args {
    const uint8_t *src;
    size_t pitch;
    size_t row_bytes; /* a whole number of pixels */
    int rows;
    unsigned long long segments; /* rows * segments per row */
    unsigned segments_per_row;
    int bins;
    bool vec; /* rows start 16-byte aligned */
    unsigned long long *counts;
};

/* Counts a run of `n` equal samples of channel c once. */
template <int C> struct run_counter {
    uint32_t *hist;
    int slot[C];
    uint32_t n[C];

    __device__ __forceinline__ void add(int c, int s)
    {
        if (s == slot[c]) {
            n[c]++;
            return;
        }
        flush(c);
        slot[c] = s;
        n[c] = 1;
    }
    __device__ __forceinline__ void flush(int c)
    {
        if (n[c]) atomicAdd(&hist[slot[c]], n[c]);
    }
};

template <int C>
__global__ void __launch_bounds__(GI_HIST_THREADS) hist_kernel(hist_args a)
{
    __shared__ uint32_t hist[GI_HIST_WARPS][C * GI_HIST_MAX_BINS];
    __shared__ uint16_t slot_of[C][256]; /* channel c, value v -> counter index */
    for (int i = threadIdx.x; i < GI_HIST_WARPS * C * GI_HIST_MAX_BINS; i += blockDim.x)
        (&hist[0][0])[i] = 0;
    for (int i = threadIdx.x; i < C * 256; i += blockDim.x)
        slot_of[i / 256][i % 256] = (uint16_t)(i / 256 * GI_HIST_MAX_BINS + i % 256 * a.bins / 256);
    __syncthreads();

    run_counter<C> rc;
    rc.hist = hist[threadIdx.x / GI_WARP];
    for (unsigned long long seg = blockIdx.x; seg < a.segments; seg += gridDim.x) {
        const size_t row = seg / a.segments_per_row;
        const size_t off = (size_t)(seg % a.segments_per_row) * SEGMENT + threadIdx.x * GI_HIST_CHUNK;
        if (off >= a.row_bytes) continue;
        const uint8_t *p = a.src + row * a.pitch + off;
        alignas(16) uint8_t bytes[GI_HIST_CHUNK];
        const int n = a.row_bytes - off < GI_HIST_CHUNK ? (int)(a.row_bytes - off) : GI_HIST_CHUNK;
        if (a.vec && n == GI_HIST_CHUNK) *(uint4 *)bytes = *(const uint4 *)p;
        else
            for (int k = 0; k < n; k++) bytes[k] = p[k];
#pragma unroll
        for (int c = 0; c < C; c++) rc.n[c] = 0, rc.slot[c] = -1;
        int c = (int)(off % C);
#pragma unroll
        for (int k = 0; k < GI_HIST_CHUNK; k++) {
            if (k < n) rc.add(c, slot_of[c][bytes[k]]);
            c = c + 1 == C ? 0 : c + 1;
        }
#pragma unroll
        for (int c = 0; c < C; c++) rc.flush(c);
    }
    __syncthreads();

    for (int i = threadIdx.x; i < C * GI_HIST_MAX_BINS; i += blockDim.x) {
        if (i % GI_HIST_MAX_BINS >= a.bins) continue;
        unsigned long long total = 0;
        for (int w = 0; w < GI_HIST_WARPS; w++) total += hist[w][i];
        if (total) atomicAdd(&a.counts[i], total);
    }
}

template <int C> cudaError_t launch(hist_args a, int blocks, cudaStream_t stream)
{
    hist_kernel<C><<<blocks, GI_HIST_THREADS, 0, stream>>>(a);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gi_cuda_hist(const uint8_t *src, size_t src_pitch, int width, int height,
                                    int channels, int bins, unsigned long long *counts,
                                    cudaStream_t stream)
{
    if (channels < 1 || channels > 4 || bins < 1 || bins > GI_HIST_MAX_BINS)
        return cudaErrorInvalidValue;
    hist_args a = {src, src_pitch, (size_t)width * channels, height, 0, 0, bins, false, counts};
    if (a.pitch == a.row_bytes) { /* packed rows: one long row spreads over all blocks */
        a.row_bytes *= (size_t)height;
        a.rows = 1;
    }
    a.vec = (uintptr_t)src % 16 == 0 && (a.rows == 1 || a.pitch % 16 == 0);
    a.segments_per_row = (unsigned)((a.row_bytes + SEGMENT - 1) / SEGMENT);
    a.segments = (unsigned long long)a.segments_per_row * a.rows;

    int device, sms;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(counts, 0, sizeof(unsigned long long) * 4 * GI_HIST_MAX_BINS, stream);
    if (e != cudaSuccess) return e;
    /* enough blocks to fill the GPU; more would only add merge atomics */
    const unsigned long long want = 4ULL * sms;
    const int blocks = (int)(a.segments < want ? a.segments : want);
    switch (channels) {
    case 1: return launch<1>(a, blocks, stream);
    case 2: return launch<2>(a, blocks, stream);
    case 3: return launch<3>(a, blocks, stream);
    default: return launch<4>(a, blocks, stream);
    }
}

/* Any kernel answers for all of them: they are built for the same target. */
extern "C" cudaError_t gi_cuda_kernels_probe(void)
{
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, hist_kernel<1>);
}
