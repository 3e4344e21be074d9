/* The seed paper's experiment (Cogrossi and Kuk): each output is the sum of
 * the 5x5 window around it in an n x n float32 matrix, zero outside.
 *
 * naive: one thread per output and 25 reads from global memory, the
 * paper's baseline, kept as it is.
 *
 * tiled: as fast as a copy allows. A block owns a band of BAND columns (a
 * float4 per thread) and a strip of STRIP output rows, and walks down the
 * strip BATCH input rows at a time. A batch goes into shared memory with
 * two columns of halo on each side; each thread reads its four columns'
 * horizontal 5-sums from there and keeps the last five rows' sums in
 * registers, so the vertical sum needs no second pass and every input row
 * is read from global memory once per block (plus four halo rows per
 * strip, which neighbouring strips have usually just brought into L2).
 * The next batch's loads are issued before the current batch is summed, so
 * memory always has work in flight; two shared batches mean one barrier per
 * batch suffices. */
#include <stdint.h>

#include "paper_cuda.h"

namespace {

constexpr int THREADS = 128;
constexpr int BAND = 4 * THREADS;       /* columns per block */
constexpr int BATCH = 4;                /* input rows per step */
constexpr int STRIP = 60;               /* output rows per block */
constexpr int STEPS = (STRIP + 4) / BATCH;
constexpr int SLOTS = THREADS + 2;      /* float4s per shared row: halo, band, halo */

static_assert((STRIP + 4) % BATCH == 0, "a strip's input rows (two above, two below) are whole batches");
static_assert(2 * BATCH <= THREADS, "one thread per halo float4 of a batch");
static_assert(2 * BATCH * SLOTS * 16 <= 48 * 1024, "two batches fit shared memory");

constexpr int NAIVE_W = 32, NAIVE_H = 8;

__global__ void __launch_bounds__(NAIVE_W * NAIVE_H) paper_naive(const float *in, float *out, int n)
{
    const int x = (int)blockIdx.x * NAIVE_W + (int)threadIdx.x % NAIVE_W;
    const int y = (int)blockIdx.y * NAIVE_H + (int)threadIdx.x / NAIVE_W;
    if (x >= n || y >= n) return;
    float sum = 0;
    for (int dy = -2; dy <= 2; dy++) {
        if (y + dy < 0 || y + dy >= n) continue;
        for (int dx = -2; dx <= 2; dx++)
            if (x + dx >= 0 && x + dx < n) sum += in[(size_t)(y + dy) * n + (x + dx)];
    }
    out[(size_t)y * n + x] = sum;
}

/* Columns x..x+3 of row y, zeros outside the matrix. VEC: n and x are
 * multiples of 4 and rows are 16-byte aligned, so the four columns are all
 * inside or all outside and load as one float4. */
template <bool VEC> __device__ __forceinline__ float4 load4(const float *in, int n, int y, int x)
{
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (y < 0 || y >= n) return v;
    const float *row = in + (size_t)y * n;
    if (VEC) return x >= 0 && x < n ? *(const float4 *)(row + x) : v;
    if (x >= 0 && x < n) v.x = row[x];
    if (x + 1 >= 0 && x + 1 < n) v.y = row[x + 1];
    if (x + 2 >= 0 && x + 2 < n) v.z = row[x + 2];
    if (x + 3 >= 0 && x + 3 < n) v.w = row[x + 3];
    return v;
}

template <bool VEC> __device__ __forceinline__ void store4(float *out, int n, int y, int x, float4 v)
{
    float *row = out + (size_t)y * n;
    if (VEC) {
        if (x < n) __stcs((float4 *)(row + x), v); /* streamed: keep L2 for the input's halo rows */
        return;
    }
    if (x < n) row[x] = v.x;
    if (x + 1 < n) row[x + 1] = v.y;
    if (x + 2 < n) row[x + 2] = v.z;
    if (x + 3 < n) row[x + 3] = v.w;
}

/* The registers a batch is loaded into: each thread's float4 of every row,
 * and threads below 2 * BATCH also one halo float4 (row t / 2; left of the
 * band for even t, right of it for odd t). */
struct batch {
    float4 own[BATCH];
    float4 halo;
};

template <bool VEC>
__device__ __forceinline__ void load_batch(batch &b, const float *in, int n, int band_x, int y)
{
    const int t = threadIdx.x;
#pragma unroll
    for (int r = 0; r < BATCH; r++) b.own[r] = load4<VEC>(in, n, y + r, band_x + 4 * t);
    if (t < 2 * BATCH) b.halo = load4<VEC>(in, n, y + t / 2, t % 2 ? band_x + BAND : band_x - 4);
}

/* Horizontal 5-sums of columns 4t..4t+3 of a shared row: slot t + 1 holds
 * them, slot t the four to the left, slot t + 2 the four to the right. */
__device__ __forceinline__ float4 row_sums(const float4 *row, int t)
{
    const float4 l = row[t], c = row[t + 1], r = row[t + 2];
    const float mid = c.y + c.z;
    return make_float4(l.z + l.w + c.x + mid, l.w + c.x + mid + c.w, c.x + mid + c.w + r.x,
                       mid + c.w + r.x + r.y);
}

__device__ __forceinline__ float4 add4(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

template <bool VEC> __global__ void __launch_bounds__(THREADS, 8) paper_tiled(const float *in, float *out, int n)
{
    __shared__ float4 rows[2][BATCH][SLOTS];
    const int t = threadIdx.x;
    const int band_x = (int)blockIdx.x * BAND, x = band_x + 4 * t;
    const int y0 = (int)blockIdx.y * STRIP;
    /* h[k]: horizontal sums of the rows 4 - k above the current one */
    float4 h[4] = {};
    batch next;
    load_batch<VEC>(next, in, n, band_x, y0 - 2);
#pragma unroll 1
    for (int step = 0; step < STEPS; step++) {
        float4(*buf)[SLOTS] = rows[step & 1];
#pragma unroll
        for (int r = 0; r < BATCH; r++) buf[r][t + 1] = next.own[r];
        if (t < 2 * BATCH) buf[t / 2][t % 2 ? SLOTS - 1 : 0] = next.halo;
        __syncthreads();
        const int y = y0 - 2 + step * BATCH; /* the batch's first input row */
        if (step + 1 < STEPS) load_batch<VEC>(next, in, n, band_x, y + BATCH);
#pragma unroll
        for (int r = 0; r < BATCH; r++) {
            const float4 now = row_sums(buf[r], t);
            /* input row y + r completes the window of output row y + r - 2 */
            const int out_y = y + r - 2;
            if (out_y >= y0 && out_y < n)
                store4<VEC>(out, n, out_y, x, add4(add4(add4(h[0], h[1]), add4(h[2], h[3])), now));
            h[0] = h[1], h[1] = h[2], h[2] = h[3], h[3] = now;
        }
    }
}

bool aligned16(const void *p)
{
    return (uintptr_t)p % 16 == 0;
}

} // namespace

extern "C" cudaError_t paper_launch(const float *in, float *out, int n, int variant,
                                     cudaStream_t stream)
{
    if (n < 1 || n > 32768) return cudaErrorInvalidValue;
    if (variant == PAPER_GPU_NAIVE) {
        const dim3 grid((n + NAIVE_W - 1) / NAIVE_W, (n + NAIVE_H - 1) / NAIVE_H);
        paper_naive<<<grid, NAIVE_W * NAIVE_H, 0, stream>>>(in, out, n);
    } else if (variant == PAPER_GPU_TILED) {
        const dim3 grid((n + BAND - 1) / BAND, (n + STRIP - 1) / STRIP);
        if (n % 4 == 0 && aligned16(in) && aligned16(out))
            paper_tiled<true><<<grid, THREADS, 0, stream>>>(in, out, n);
        else
            paper_tiled<false><<<grid, THREADS, 0, stream>>>(in, out, n);
    } else {
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
