/* Resampling with the integer weights of gpuimg.h (resize) of 8- and
 * 16-bit images, templates over the sample type; lib/cpu/resize.c and
 * resize16.c are the twins they match byte for byte.
 *
 * Two passes, rows first, as the definition is: the horizontal pass
 * filters every source row into an int32 image of the output's width
 * (int64 at 16 bits; scratch), the vertical pass filters its columns into
 * the output. One thread makes one pixel, every channel (the premultiplied colour needs
 * its alpha's sum); a block is a 32 x 8 tile of pixels, so a warp reads
 * consecutive pixels of a row and the vertical taps' rows are coalesced.
 * Each tile stages the weights of its columns (horizontal pass) or of its
 * rows (vertical) in shared memory when they fit, and reads them from
 * global memory otherwise (a reduction of hundreds to one). Integer sums
 * are the same in any order, so the CPU's and these agree exactly. */
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int TILE_W = GI_WARP;
constexpr int TILE_H = 8;
/* int32 weights a tile stages: its TILE_W (or TILE_H) positions' taps */
constexpr int STAGED_WEIGHTS = 4096;
static_assert(TILE_W * TILE_H <= 1024, "a tile is one block of threads");
static_assert(STAGED_WEIGHTS * 4 <= 48 * 1024, "the staged weights fit the default shared memory");

struct axis_view {
    const int32_t *first, *count, *q;
    int taps;
};

/* What the depths differ in (gpuimg.h, resize): h, the rows' pass's sum,
 * is an int32 at 8 bits and an int64 at 16 (c * a times the weights passes
 * 2^31); the clamp's top. */
template <typename T> struct depth;
template <> struct depth<uint8_t> {
    using h = int32_t;
    static constexpr long long MAX = 255;
};
template <> struct depth<uint16_t> {
    using h = int64_t;
    static constexpr long long MAX = 65535;
};

/* h of gpuimg.h for output column x of source row y, every channel. */
template <typename T, int C>
__device__ void filter_across(const T *row, const int32_t *q, int first, int count,
                              typename depth<T>::h *out)
{
    using H = typename depth<T>::h;
    H acc[C] = {};
    for (int k = 0; k < count; k++) {
        const T *p = row + (size_t)(first + k) * C;
        const H w = q[k];
        if (C == 2 || C == 4) {
            const H a = p[C - 1];
            for (int c = 0; c < C - 1; c++) acc[c] += w * (p[c] * a);
            acc[C - 1] += w * a;
        } else {
            for (int c = 0; c < C; c++) acc[c] += w * p[c];
        }
    }
    for (int c = 0; c < C; c++) out[c] = C == 2 || C == 4 ? acc[c] : (acc[c] + 32) >> 6;
}

/* Copies the tile's positions' weights [p0, p0 + n) into shared memory
 * when they fit; returns where to read them. */
__device__ const int32_t *stage_weights(const axis_view &a, int p0, int n, int32_t *shared)
{
    const int total = n * a.taps;
    const int32_t *from = a.q + (size_t)p0 * a.taps;
    if (total > STAGED_WEIGHTS) return from;
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = t; i < total; i += blockDim.x * blockDim.y) shared[i] = from[i];
    __syncthreads();
    return shared;
}

template <typename T, int C>
__global__ void resize_rows(const uint8_t *src, size_t pitch, int in_h, int out_w,
                            axis_view ax, typename depth<T>::h *h)
{
    __shared__ int32_t weights[STAGED_WEIGHTS];
    const int x0 = blockIdx.x * TILE_W, n = min(TILE_W, out_w - x0);
    const int32_t *q = stage_weights(ax, x0, n, weights);
    const int x = x0 + threadIdx.x, y = blockIdx.y * TILE_H + threadIdx.y;
    if (threadIdx.x >= n || y >= in_h) return;
    filter_across<T, C>((const T *)(src + (size_t)y * pitch), q + (size_t)threadIdx.x * ax.taps,
                        ax.first[x], ax.count[x], h + ((size_t)y * out_w + x) * C);
}

template <typename T> __device__ T clamp_sample(long long v)
{
    return (T)(v < 0 ? 0 : v > depth<T>::MAX ? depth<T>::MAX : v);
}

template <typename T, int C>
__global__ void resize_columns(const typename depth<T>::h *h, int out_w, int out_h, axis_view ay,
                               uint8_t *dst, size_t pitch)
{
    __shared__ int32_t weights[STAGED_WEIGHTS];
    const int y0 = blockIdx.y * TILE_H, n = min(TILE_H, out_h - y0);
    const int32_t *q = stage_weights(ay, y0, n, weights);
    const int x = blockIdx.x * TILE_W + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= out_w || threadIdx.y >= n) return;
    const int32_t *w = q + (size_t)threadIdx.y * ay.taps;
    const int first = ay.first[y], count = ay.count[y];
    long long v[C] = {};
    for (int k = 0; k < count; k++) {
        const typename depth<T>::h *p = h + ((size_t)(first + k) * out_w + x) * C;
        for (int c = 0; c < C; c++) v[c] += (long long)w[k] * p[c];
    }
    T *out = (T *)(dst + (size_t)y * pitch) + (size_t)x * C;
    if (C == 1 || C == 3) {
        for (int c = 0; c < C; c++) out[c] = clamp_sample<T>((v[c] + (1 << 21)) >> 22);
        return;
    }
    const long long va = v[C - 1];
    for (int c = 0; c < C - 1; c++)
        out[c] = va <= 0 || v[c] <= 0 ? 0 : clamp_sample<T>((v[c] + va / 2) / va);
    out[C - 1] = clamp_sample<T>((va + (1 << 27)) >> 28);
}

template <typename T, int C>
cudaError_t launch(const uint8_t *src, size_t src_pitch, uint8_t *dst, size_t dst_pitch,
                   int in_h, int out_w, int out_h, axis_view ax, axis_view ay, void *scratch,
                   cudaStream_t stream)
{
    typename depth<T>::h *h = (typename depth<T>::h *)scratch;
    const dim3 block(TILE_W, TILE_H);
    const dim3 rows((out_w + TILE_W - 1) / TILE_W, (in_h + TILE_H - 1) / TILE_H);
    resize_rows<T, C><<<rows, block, 0, stream>>>(src, src_pitch, in_h, out_w, ax, h);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    const dim3 columns((out_w + TILE_W - 1) / TILE_W, (out_h + TILE_H - 1) / TILE_H);
    resize_columns<T, C><<<columns, block, 0, stream>>>(h, out_w, out_h, ay, dst, dst_pitch);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_depth(const uint8_t *src, size_t src_pitch, uint8_t *dst, size_t dst_pitch,
                         int in_h, int out_w, int out_h, int channels, axis_view ax, axis_view ay,
                         void *h, cudaStream_t stream)
{
    switch (channels) {
    case 1: return launch<T, 1>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h, ax, ay, h, stream);
    case 2: return launch<T, 2>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h, ax, ay, h, stream);
    case 3: return launch<T, 3>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h, ax, ay, h, stream);
    default: return launch<T, 4>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h, ax, ay, h, stream);
    }
}

} // namespace

extern "C" cudaError_t gi_cuda_resize(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                      size_t dst_pitch, int in_h, int out_w, int out_h,
                                      int channels, int depth, const int32_t *first_x,
                                      const int32_t *count_x, const int32_t *q_x, int taps_x,
                                      const int32_t *first_y, const int32_t *count_y,
                                      const int32_t *q_y, int taps_y, void *h,
                                      cudaStream_t stream)
{
    const axis_view ax = {first_x, count_x, q_x, taps_x}, ay = {first_y, count_y, q_y, taps_y};
    if (depth == 8)
        return launch_depth<uint8_t>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h, channels,
                                     ax, ay, h, stream);
    if (depth == 16)
        return launch_depth<uint16_t>(src, src_pitch, dst, dst_pitch, in_h, out_w, out_h,
                                      channels, ax, ay, h, stream);
    return cudaErrorInvalidValue;
}
