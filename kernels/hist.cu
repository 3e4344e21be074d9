/* Per-channel histogram of 8- and 16-bit images (gpuimg.h): bin = v * bins
 * / 256 at 8 bits, v * bins / 65536 at 16.
 *
 * Each block counts 256 keys of every channel in shared memory, with one
 * counter per lane (and, with one channel, per warp parity): lane l adds
 * to counter (c, key, l), so the 32 lanes of every shared atomic hit 32
 * distinct banks whatever the data, and never the same word. The key is
 * the 8-bit sample itself, folded into its bin at the end, or a 16-bit
 * sample's bin where there are at most 256 bins. A chunk of identical
 * 8-bit pixels (a flat image) is counted with one add per channel. Threads
 * read 16-byte chunks (48 for three channels, so a chunk starts on channel
 * 0), several in flight before the first count. At the end each block
 * folds its counters into the bins and adds them to the global counts
 * once: no global atomic per pixel. A packed image is one long row cut
 * into equal contiguous ranges, one per block.
 *
 * 16-bit images with more than 256 bins (up to 65536) take a kernel of
 * their own: a block counts a piece of a row in shared counters where
 * channels * bins of them fit, or adds each sample to its global counter. */
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
    unsigned long long *counts; /* [channels][bins] */
};

/* Where this thread counts key k of channel c: a byte offset into the
 * shared counters [c][k][slot]. T: the sample type. */
template <typename T, int C> struct counter {
    uint8_t *table;
    uint32_t lane_bytes; /* slot * 4 */
    uint32_t bins;

    __device__ __forceinline__ uint32_t *at(int c, uint32_t key) const
    {
        return (uint32_t *)(table + ((uint32_t)c * GI_HIST_VALUES * SLOTS<C> * 4 +
                                     key * SLOTS<C> * 4 + lane_bytes));
    }
    /* the key of sample v: the 8-bit value, or the 16-bit sample's bin
     * (bins <= 256, so v * bins < 2^24) */
    __device__ __forceinline__ uint32_t key(uint32_t v) const
    {
        return sizeof(T) == 1 ? v : v * bins >> 16;
    }
    /* byte k of word w, channel k % C (k counts from a chunk start) */
    __device__ __forceinline__ void count_byte(uint32_t w, int k) const
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
        if constexpr (sizeof(T) == 2) { /* sample k of the chunk, channel k % C */
#pragma unroll
            for (int k = 0; k < ITEM<C> / 2; k++)
                atomicAdd(at(k % C, key((w[k / 2] >> (16 * (k % 2))) & 0xffffu)), 1u);
        } else {
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
            for (int k = 0; k < ITEM<C>; k++) count_byte(w[k / 4], k);
        }
    }
    /* the samples of bytes [off, end) of a row, one by one */
    __device__ void count_tail(const uint8_t *row, size_t off, size_t end) const
    {
        for (size_t b = off; b < end; b += sizeof(T)) {
            const size_t i = b / sizeof(T); /* the sample's index in the row */
            atomicAdd(at((int)(i % C), key(((const T *)row)[i])), 1u);
        }
    }
};

/* Chunks [first, end) of one row; chunk i covers bytes [i * ITEM, + ITEM).
 * `full`: chunks below it are whole and aligned (16-byte loads). Each
 * thread loads its next U chunks before it counts the current ones, so
 * loads stay in flight while it counts. */
template <typename T, int C>
__device__ void count_chunks(const counter<T, C> &ct, const uint8_t *row, size_t row_bytes,
                             unsigned first, unsigned end, unsigned full)
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
                ct.count_tail(row, off, off + ITEM<C> < row_bytes ? off + ITEM<C> : row_bytes);
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

template <typename T, int C>
__global__ void __launch_bounds__(NT, MIN_BLOCKS<C>) hist_kernel(hist_args a)
{
    extern __shared__ __align__(16) uint8_t hist_table[];
    constexpr int TABLE_WORDS = C * GI_HIST_VALUES * SLOTS<C>;
    for (int i = threadIdx.x; i < TABLE_WORDS / 4; i += NT) ((uint4 *)hist_table)[i] = make_uint4(0, 0, 0, 0);
    const int lane = threadIdx.x % GI_WARP, warp = threadIdx.x / GI_WARP;
    const counter<T, C> ct = {hist_table, (uint32_t)(lane + (C == 1 ? GI_WARP * (warp & 1) : 0)) * 4,
                              (uint32_t)a.bins};
    __syncthreads();

    const unsigned per_row = (unsigned)((a.row_bytes + ITEM<C> - 1) / ITEM<C>);
    const unsigned full = a.vec ? (unsigned)(a.row_bytes / ITEM<C>) : 0;
    if (a.rows == 1) { /* packed: equal contiguous ranges */
        count_chunks<T, C>(ct, a.src, a.row_bytes,
                           (unsigned)((unsigned long long)per_row * blockIdx.x / gridDim.x),
                           (unsigned)((unsigned long long)per_row * (blockIdx.x + 1) / gridDim.x),
                           full);
    } else { /* rows with a pitch: whole-block segments of a row, grid-stride */
        const unsigned seg = U<C> * NT, segs = (per_row + seg - 1) / seg;
        for (unsigned long long t = blockIdx.x; t < (unsigned long long)segs * a.rows; t += gridDim.x) {
            const unsigned long long row = t / segs;
            const unsigned first = (unsigned)(t % segs) * seg;
            const unsigned end = first + seg < per_row ? first + seg : per_row;
            count_chunks<T, C>(ct, a.src + row * a.pitch, a.row_bytes, first, end, full);
        }
    }
    __syncthreads();

    /* fold: thread (c, key) sums its slots, starting at slot key so a
     * warp's 32 reads hit 32 banks; an 8-bit key is a value, folded into
     * its bin, a 16-bit key is the bin */
    for (int i = threadIdx.x; i < C * GI_HIST_VALUES; i += NT) {
        const int c = i / GI_HIST_VALUES, k = i % GI_HIST_VALUES;
        const uint32_t *slots = (const uint32_t *)hist_table + i * SLOTS<C>;
        unsigned long long total = 0;
#pragma unroll 8
        for (int j = 0; j < SLOTS<C>; j++) total += slots[(j + k) % SLOTS<C>];
        const int bin = sizeof(T) == 1 ? k * a.bins / 256 : k;
        if (total) atomicAdd(&a.counts[c * a.bins + bin], total);
    }
}

/* As many blocks as fit on the device at once (more would only add
 * merges), found once per device so the launch path stays short. */
template <typename T, int C> cudaError_t resident_blocks(int device, int *blocks)
{
    static int cache[64];
    if (device < 64 && cache[device]) {
        *blocks = cache[device];
        return cudaSuccess;
    }
    int sms = 0, per_sm = 0;
    cudaError_t e = cudaFuncSetAttribute(hist_kernel<T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)GI_HIST_SMEM(C));
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hist_kernel<T, C>, NT,
                                                          GI_HIST_SMEM(C));
    if (e != cudaSuccess) return e;
    *blocks = sms * (per_sm > 0 ? per_sm : 1);
    if (device < 64) cache[device] = *blocks;
    return cudaSuccess;
}

template <typename T, int C> cudaError_t launch(const hist_args &a, int device, cudaStream_t stream)
{
    int resident;
    const cudaError_t e = resident_blocks<T, C>(device, &resident);
    if (e != cudaSuccess) return e;
    const unsigned long long chunks = (a.row_bytes + ITEM<C> - 1) / ITEM<C> * (unsigned long long)a.rows;
    const unsigned long long useful = (chunks + (unsigned long long)U<C> * NT - 1) / ((unsigned long long)U<C> * NT);
    const unsigned blocks = (unsigned)(useful < (unsigned long long)resident ? (useful ? useful : 1) : resident);
    hist_kernel<T, C><<<blocks, NT, GI_HIST_SMEM(C), stream>>>(a);
    return cudaGetLastError();
}

template <typename T> cudaError_t launch_depth(const hist_args &a, int channels, int device,
                                               cudaStream_t stream)
{
    switch (channels) {
    case 1: return launch<T, 1>(a, device, stream);
    case 2: return launch<T, 2>(a, device, stream);
    case 3: return launch<T, 3>(a, device, stream);
    default: return launch<T, 4>(a, device, stream);
    }
}

/* ------------------------------------------------ 16 bits, more than 256 bins */

namespace many {

constexpr int NT = 256;
constexpr int CHUNK = 4096;           /* samples of a row per block */
constexpr int SHARED_COUNTERS = 8192; /* 32 KiB of uint32 */
constexpr unsigned MAX_ROW_BLOCKS = 65535;

struct args {
    const uint8_t *src;
    size_t pitch;
    int row_samples, height, channels, bins;
    unsigned long long *counts; /* [channels][bins] */
};

__device__ __forceinline__ unsigned counter_of(const args &a, int i, uint16_t v)
{
    return (unsigned)(i % a.channels) * (unsigned)a.bins + ((unsigned)v * (unsigned)a.bins >> 16);
}

/* A block counts samples [x0, x0 + CHUNK) of rows blockIdx.y, + gridDim.y, ... */
__global__ void __launch_bounds__(NT) count_shared(args a)
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

__global__ void __launch_bounds__(NT) count_global(args a)
{
    const int x0 = blockIdx.x * CHUNK, x1 = min(x0 + CHUNK, a.row_samples);
    for (int y = blockIdx.y; y < a.height; y += gridDim.y) {
        const uint16_t *row = (const uint16_t *)(a.src + (size_t)y * a.pitch);
        for (int i = x0 + threadIdx.x; i < x1; i += NT)
            atomicAdd(&a.counts[counter_of(a, i, row[i])], 1ull);
    }
}

cudaError_t launch(const uint8_t *src, size_t pitch, int width, int height, int channels, int bins,
                   unsigned long long *counts, cudaStream_t stream)
{
    const args a = {src, pitch, width * channels, height, channels, bins, counts};
    const dim3 grid((unsigned)((a.row_samples + CHUNK - 1) / CHUNK),
                    (unsigned)height < MAX_ROW_BLOCKS ? (unsigned)height : MAX_ROW_BLOCKS);
    if (channels * bins <= SHARED_COUNTERS) count_shared<<<grid, NT, 0, stream>>>(a);
    else count_global<<<grid, NT, 0, stream>>>(a);
    return cudaGetLastError();
}

} // namespace many

} // namespace

extern "C" cudaError_t gi_cuda_hist(const uint8_t *src, size_t src_pitch, int width, int height,
                                    int channels, int depth, int bins, unsigned long long *counts,
                                    cudaStream_t stream)
{
    const int values = depth == 16 ? 65536 : 256;
    if (channels < 1 || channels > 4 || (depth != 8 && depth != 16) || bins < 1 || bins > values ||
        width < 1 || height < 1)
        return cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(counts, 0, sizeof(unsigned long long) * channels * bins, stream);
    if (e != cudaSuccess) return e;
    if (bins > GI_HIST_VALUES) /* 16 bits only */
        return many::launch(src, src_pitch, width, height, channels, bins, counts, stream);

    const size_t sample_bytes = depth / 8;
    hist_args a = {src, src_pitch, (size_t)width * channels * sample_bytes, height, bins, false,
                   counts};
    /* packed rows: one long row, while its chunks fit 32-bit indices */
    if (a.pitch == a.row_bytes && a.row_bytes * height / 16 < 0x7ff00000u) {
        a.row_bytes *= (size_t)height;
        a.rows = 1;
    }
    a.vec = (uintptr_t)src % 16 == 0 && (a.rows == 1 || a.pitch % 16 == 0);

    int device;
    e = cudaGetDevice(&device);
    if (e != cudaSuccess) return e;
    if (depth == 16) return launch_depth<uint16_t>(a, channels, device, stream);
    return launch_depth<uint8_t>(a, channels, device, stream);
}

/* Any kernel answers for all of them: they are built for the same target. */
extern "C" cudaError_t gi_cuda_kernels_probe(void)
{
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, hist_kernel<uint8_t, 1>);
}
