/* Per-channel histogram, bin = v * bins / 256 (gpuimg.h).
 *
 * Each block counts all 256 values of every channel in shared memory, with
 * one counter per lane (and, with one channel, per warp parity): lane l
 * adds to counter (c, v, l), so the 32 lanes of every shared atomic hit 32
 * distinct banks whatever the data, and never the same word. A chunk of
 * identical pixels (a flat image) is counted with one add per channel.
 * Threads read 16-byte chunks (48 for three channels, so a chunk starts on
 * channel 0), several in flight before the first count. At the end each
 * block folds its counters into the `bins` bins and adds them to the global
 * counts once: no global atomic per pixel. A packed image is one long row
 * cut into equal contiguous ranges, one per block. */
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int NT = GI_HIST_THREADS;
template <int C> constexpr int ITEM = C == 3 ? 48 : 16; /* bytes per chunk */
/* chunks in flight per thread: as many as the register budget of
 * MIN_BLOCKS resident blocks allows without spilling */
template <int C> constexpr int U = C == 3 ? 1 : GI_HIST_UNROLL;
template <int C> constexpr int SLOTS = GI_HIST_SLOTS(C);
template <int C> constexpr int WORDS = ITEM<C> / 4;

struct hist_args {
    const uint8_t *src;
    size_t pitch;
    size_t row_bytes; /* a whole number of pixels */
    int rows;
    int bins;
    bool vec; /* chunks start 16-byte aligned */
    unsigned long long *counts;
};

/* Where this thread counts value v of channel c: a byte offset into the
 * shared counters [c][v][slot]. */
template <int C> struct counter {
    uint8_t *table;
    uint32_t lane_bytes; /* slot * 4 */

    __device__ __forceinline__ uint32_t *at(int c, uint32_t v) const
    {
        return (uint32_t *)(table + ((uint32_t)c * GI_HIST_VALUES * SLOTS<C> * 4 + v * SLOTS<C> * 4 +
                                     lane_bytes));
    }
    /* byte k of word w, channel k % C (k counts from a chunk start) */
    __device__ __forceinline__ void count(uint32_t w, int k) const
    {
        if constexpr (C == 1) { /* [slot * 4, v, 0, 0] = v * 256 + slot * 4 in one byte_perm */
            const uint32_t off = __byte_perm(w, lane_bytes, 0x6504 | ((k % 4) << 4));
            atomicAdd((uint32_t *)(table + off), 1u);
        } else {
            atomicAdd(at(k % C, (w >> (8 * (k % 4))) & 255u), 1u);
        }
    }
    __device__ void count_words(const uint32_t (&w)[WORDS<C>]) const
    {
        if constexpr (C != 3) { /* a flat chunk: one add per channel */
            const uint32_t period = C == 1 ? (w[0] & 0xffu) * 0x01010101u
                                  : C == 2 ? (w[0] & 0xffffu) * 0x00010001u : w[0];
            if (w[0] == period && w[1] == w[0] && w[2] == w[0] && w[3] == w[0]) {
#pragma unroll
                for (int c = 0; c < C; c++) atomicAdd(at(c, (w[0] >> (8 * c)) & 255u), 16u / C);
                return;
            }
        }
#pragma unroll
        for (int k = 0; k < ITEM<C>; k++) count(w[k / 4], k);
    }
};

/* Chunks [first, end) of one row; chunk i covers bytes [i * ITEM, + ITEM).
 * `full`: chunks below it are whole and aligned (16-byte loads). Each
 * thread loads its next U chunks before it counts the current ones, so
 * loads stay in flight while it counts. */
template <int C>
__device__ void count_chunks(const counter<C> &ct, const uint8_t *row, size_t row_bytes, unsigned first,
                             unsigned end, unsigned full)
{
    const unsigned vec_end = full < end ? full : end;
    auto load = [&](unsigned base, uint32_t (&w)[U<C>][WORDS<C>]) {
#pragma unroll
        for (int u = 0; u < U<C>; u++) {
            const unsigned i = base + u * NT;
            if (i < vec_end) {
#pragma unroll
                for (int q = 0; q < WORDS<C> / 4; q++) {
                    const uint4 v = __ldg((const uint4 *)(row + (size_t)i * ITEM<C>) + q);
                    w[u][4 * q] = v.x, w[u][4 * q + 1] = v.y, w[u][4 * q + 2] = v.z, w[u][4 * q + 3] = v.w;
                }
            }
        }
    };
    uint32_t cur[U<C>][WORDS<C>], next[U<C>][WORDS<C>];
    unsigned base = first + threadIdx.x;
    load(base, cur);
    for (; base < end; base += U<C> * NT) {
        load(base + U<C> * NT, next);
#pragma unroll
        for (int u = 0; u < U<C>; u++) {
            const unsigned i = base + u * NT;
            if (i < vec_end) {
                ct.count_words(cur[u]);
            } else if (i < end) {
                const size_t off = (size_t)i * ITEM<C>;
                for (size_t b = off; b < off + ITEM<C> && b < row_bytes; b++)
                    atomicAdd(ct.at((int)(b % C), row[b]), 1u);
            }
        }
#pragma unroll
        for (int u = 0; u < U<C>; u++)
#pragma unroll
            for (int k = 0; k < WORDS<C>; k++) cur[u][k] = next[u][k];
    }
}

/* Blocks per SM that shared memory allows; registers must not allow fewer. */
template <int C> constexpr int MIN_BLOCKS = C <= 2 ? 3 : C == 3 ? 2 : 1;

template <int C>
__global__ void __launch_bounds__(NT, MIN_BLOCKS<C>) hist_kernel(hist_args a)
{
    extern __shared__ __align__(16) uint8_t hist_table[];
    constexpr int TABLE_WORDS = C * GI_HIST_VALUES * SLOTS<C>;
    for (int i = threadIdx.x; i < TABLE_WORDS / 4; i += NT) ((uint4 *)hist_table)[i] = make_uint4(0, 0, 0, 0);
    const int lane = threadIdx.x % GI_WARP, warp = threadIdx.x / GI_WARP;
    const counter<C> ct = {hist_table, (uint32_t)(lane + (C == 1 ? GI_WARP * (warp & 1) : 0)) * 4};
    __syncthreads();

    const unsigned per_row = (unsigned)((a.row_bytes + ITEM<C> - 1) / ITEM<C>);
    const unsigned full = a.vec ? (unsigned)(a.row_bytes / ITEM<C>) : 0;
    if (a.rows == 1) { /* packed: equal contiguous ranges */
        count_chunks<C>(ct, a.src, a.row_bytes, (unsigned)((unsigned long long)per_row * blockIdx.x / gridDim.x),
                        (unsigned)((unsigned long long)per_row * (blockIdx.x + 1) / gridDim.x), full);
    } else { /* rows with a pitch: whole-block segments of a row, grid-stride */
        const unsigned seg = U<C> * NT, segs = (per_row + seg - 1) / seg;
        for (unsigned long long t = blockIdx.x; t < (unsigned long long)segs * a.rows; t += gridDim.x) {
            const unsigned long long row = t / segs;
            const unsigned first = (unsigned)(t % segs) * seg;
            const unsigned end = first + seg < per_row ? first + seg : per_row;
            count_chunks<C>(ct, a.src + row * a.pitch, a.row_bytes, first, end, full);
        }
    }
    __syncthreads();

    /* fold: thread (c, v) sums its slots, starting at slot v so a warp's
     * 32 reads hit 32 banks */
    for (int i = threadIdx.x; i < C * GI_HIST_VALUES; i += NT) {
        const int c = i / GI_HIST_VALUES, v = i % GI_HIST_VALUES;
        const uint32_t *slots = (const uint32_t *)hist_table + i * SLOTS<C>;
        unsigned long long total = 0;
#pragma unroll 8
        for (int j = 0; j < SLOTS<C>; j++) total += slots[(j + v) % SLOTS<C>];
        if (total) atomicAdd(&a.counts[c * GI_HIST_VALUES + v * a.bins / 256], total);
    }
}

/* As many blocks as fit on the device at once (more would only add
 * merges), found once per device so the launch path stays short. */
template <int C> cudaError_t resident_blocks(int device, int *blocks)
{
    static int cache[64];
    if (device < 64 && cache[device]) {
        *blocks = cache[device];
        return cudaSuccess;
    }
    int sms = 0, per_sm = 0;
    cudaError_t e = cudaFuncSetAttribute(hist_kernel<C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)GI_HIST_SMEM(C));
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hist_kernel<C>, NT, GI_HIST_SMEM(C));
    if (e != cudaSuccess) return e;
    *blocks = sms * (per_sm > 0 ? per_sm : 1);
    if (device < 64) cache[device] = *blocks;
    return cudaSuccess;
}

template <int C> cudaError_t launch(const hist_args &a, int device, cudaStream_t stream)
{
    int resident;
    const cudaError_t e = resident_blocks<C>(device, &resident);
    if (e != cudaSuccess) return e;
    const unsigned long long chunks = (a.row_bytes + ITEM<C> - 1) / ITEM<C> * (unsigned long long)a.rows;
    const unsigned long long useful = (chunks + (unsigned long long)U<C> * NT - 1) / ((unsigned long long)U<C> * NT);
    const unsigned blocks = (unsigned)(useful < (unsigned long long)resident ? (useful ? useful : 1) : resident);
    hist_kernel<C><<<blocks, NT, GI_HIST_SMEM(C), stream>>>(a);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gi_cuda_hist(const uint8_t *src, size_t src_pitch, int width, int height,
                                    int channels, int bins, unsigned long long *counts,
                                    cudaStream_t stream)
{
    if (channels < 1 || channels > 4 || bins < 1 || bins > GI_HIST_VALUES || width < 1 || height < 1)
        return cudaErrorInvalidValue;
    hist_args a = {src, src_pitch, (size_t)width * channels, height, bins, false, counts};
    /* packed rows: one long row, while its chunks fit 32-bit indices */
    if (a.pitch == a.row_bytes && a.row_bytes * height / 16 < 0x7ff00000u) {
        a.row_bytes *= (size_t)height;
        a.rows = 1;
    }
    a.vec = (uintptr_t)src % 16 == 0 && (a.rows == 1 || a.pitch % 16 == 0);

    int device;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(counts, 0, sizeof(unsigned long long) * 4 * GI_HIST_VALUES, stream);
    if (e != cudaSuccess) return e;
    switch (channels) {
    case 1: return launch<1>(a, device, stream);
    case 2: return launch<2>(a, device, stream);
    case 3: return launch<3>(a, device, stream);
    default: return launch<4>(a, device, stream);
    }
}

/* Any kernel answers for all of them: they are built for the same target. */
extern "C" cudaError_t gi_cuda_kernels_probe(void)
{
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, hist_kernel<1>);
}
