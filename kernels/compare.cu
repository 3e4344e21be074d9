/* Golden-image comparison (gpuimg.h, compare) in three kernels:
 *
 *   row_stats   one block per row: differing pixels, sums of |d| and d^2,
 *               maxima, reduced in the block and written once per row (no
 *               global atomics; the host adds the rows, integers).
 *   ssim_tiles  one block per GI_SSIM_TILE_W x GI_SSIM_TILE_H tile of counted
 *               pixels and one channel. The tile and its halo (reflect rule)
 *               sit in shared memory; if the two images are equal there, S
 *               is exactly 1 everywhere in the tile and nothing is filtered.
 *               Otherwise the rows are filtered horizontally into shared
 *               doubles, then each thread filters its column vertically and
 *               computes S. A tile row is one warp, which adds its 32 S
 *               values pairwise (gpuimg.h's segment) and writes one segment
 *               sum.
 *   row_sums    one thread per (channel, row) adds the row's segment sums
 *               in order.
 * Every double operation is an explicit round-to-nearest intrinsic, so
 * nvcc cannot fuse a multiply and an add: the CPU backend computes the same
 * bits in the same order. */
#include "border.cuh"
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int TW = GI_SSIM_TILE_W, TH = GI_SSIM_TILE_H, R = GI_SSIM_RADIUS, TAPS = 2 * R + 1;
constexpr int IN_W = TW + 2 * R, IN_H = TH + 2 * R;
enum { Q_E, Q_A, Q_EE, Q_AA, Q_EA, Q_COUNT };

struct ssim_consts {
    double w[TAPS];
    double c1, c2;
};

/* ---------------------------------------------------------------- counts */

/* T: the sample, uint8_t or uint16_t (gpuimg.h's 8- and 16-bit rules are
 * the same formulas on either). */
template <typename T>
__global__ void __launch_bounds__(GI_COMPARE_STATS_THREADS)
row_stats(const uint8_t *e, size_t e_pitch, const uint8_t *a, size_t a_pitch, int width,
          int channels, int tolerance, gi_cuda_compare_row *rows)
{
    const T *re = (const T *)(e + blockIdx.x * e_pitch), *ra = (const T *)(a + blockIdx.x * a_pitch);
    unsigned long long sum_abs = 0, sum_sq = 0;
    unsigned int different = 0, max_abs[4] = {0, 0, 0, 0};
    for (int x = threadIdx.x; x < width; x += blockDim.x) {
        bool over = false;
        for (int c = 0; c < channels; c++) {
            const int d = abs((int)re[(size_t)x * channels + c] - (int)ra[(size_t)x * channels + c]);
            sum_abs += (unsigned)d;
            sum_sq += (unsigned long long)d * (unsigned long long)d;
            max_abs[c] = max(max_abs[c], (unsigned)d);
            over |= d > tolerance;
        }
        different += over;
    }
    __shared__ unsigned long long s_abs[GI_COMPARE_STATS_THREADS], s_sq[GI_COMPARE_STATS_THREADS];
    __shared__ unsigned int s_diff[GI_COMPARE_STATS_THREADS], s_max[4][GI_COMPARE_STATS_THREADS];
    const int t = threadIdx.x;
    s_abs[t] = sum_abs, s_sq[t] = sum_sq, s_diff[t] = different;
    for (int c = 0; c < 4; c++) s_max[c][t] = max_abs[c];
    __syncthreads();
    for (int h = GI_COMPARE_STATS_THREADS / 2; h > 0; h /= 2) {
        if (t < h) {
            s_abs[t] += s_abs[t + h], s_sq[t] += s_sq[t + h], s_diff[t] += s_diff[t + h];
            for (int c = 0; c < 4; c++) s_max[c][t] = max(s_max[c][t], s_max[c][t + h]);
        }
        __syncthreads();
    }
    if (t == 0) {
        gi_cuda_compare_row r = {s_abs[0], s_sq[0], s_diff[0], {0, 0, 0, 0}};
        for (int c = 0; c < 4; c++) r.max_abs[c] = (unsigned short)s_max[c][0];
        rows[blockIdx.x] = r;
    }
}

/* ---------------------------------------------------------------- SSIM */

__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }

struct ssim_args {
    const uint8_t *e, *a;
    size_t e_pitch, a_pitch;
    int width, height, channels;
    int x0, x1, y0, y1, segments;
    double *segment_sums; /* [channel][row][segment] */
};

/* S of one pixel from the five filtered quantities (gpuimg.h). */
__device__ double ssim_of(const double m[Q_COUNT], const ssim_consts &k)
{
    const double me = m[Q_E], ma = m[Q_A];
    const double ve = sub(m[Q_EE], mul(me, me)), va = sub(m[Q_AA], mul(ma, ma));
    const double cov = sub(m[Q_EA], mul(me, ma));
    const double a1 = add(mul(mul(2.0, me), ma), k.c1), a2 = add(mul(2.0, cov), k.c2);
    const double b1 = add(add(mul(me, me), mul(ma, ma)), k.c1), b2 = add(add(ve, va), k.c2);
    return __ddiv_rn(mul(a1, a2), mul(b1, b2));
}

/* The tile of counted pixels whose top row is Y, channel c. */
template <typename T>
__device__ void ssim_tile(const ssim_args &g, const ssim_consts &k, int c, int Y, T (*te)[IN_W],
                          T (*ta)[IN_W], double (*h)[IN_H][TW])
{
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * TW + tx;
    const int X = g.x0 + blockIdx.x * TW;
    bool differs = false;
    for (int i = t; i < IN_W * IN_H; i += TW * TH) {
        const int r = i / IN_W, col = i % IN_W;
        const int y = gi_border_map((long long)Y + r - R, g.height, GI_BORDER_REFLECT);
        const int x = gi_border_map((long long)X + col - R, g.width, GI_BORDER_REFLECT);
        const T ve = ((const T *)(g.e + (size_t)y * g.e_pitch))[(size_t)x * g.channels + c];
        const T va = ((const T *)(g.a + (size_t)y * g.a_pitch))[(size_t)x * g.channels + c];
        te[r][col] = ve, ta[r][col] = va;
        differs |= ve != va;
    }
    const bool filter = __syncthreads_or(differs);

    double s = 1.0; /* equal neighbourhoods: the formula gives exactly 1 */
    if (filter) {
        for (int i = t; i < IN_H * TW; i += TW * TH) {
            const int r = i / TW, col = i % TW;
            double q[Q_COUNT] = {0, 0, 0, 0, 0};
#pragma unroll
            for (int j = 0; j < TAPS; j++) {
                const double ve = te[r][col + j], va = ta[r][col + j];
                q[Q_E] = add(q[Q_E], mul(k.w[j], ve));
                q[Q_A] = add(q[Q_A], mul(k.w[j], va));
                q[Q_EE] = add(q[Q_EE], mul(k.w[j], mul(ve, ve)));
                q[Q_AA] = add(q[Q_AA], mul(k.w[j], mul(va, va)));
                q[Q_EA] = add(q[Q_EA], mul(k.w[j], mul(ve, va)));
            }
#pragma unroll
            for (int n = 0; n < Q_COUNT; n++) h[n][r][col] = q[n];
        }
        __syncthreads();
        double m[Q_COUNT];
#pragma unroll
        for (int n = 0; n < Q_COUNT; n++) {
            double sum = 0;
#pragma unroll
            for (int j = 0; j < TAPS; j++) sum = add(sum, mul(k.w[j], h[n][ty + j][tx]));
            m[n] = sum;
        }
        s = ssim_of(m, k);
    }
    const int x = X + tx, y = Y + ty;
    double v = x < g.x1 ? s : 0.0; /* missing lanes add 0 */
#pragma unroll
    for (int off = GI_SSIM_SEGMENT / 2; off > 0; off /= 2) v = add(v, __shfl_down_sync(0xffffffffu, v, off));
    if (tx == 0 && y < g.y1)
        g.segment_sums[((size_t)c * g.height + y) * g.segments + blockIdx.x] = v;
    __syncthreads(); /* the shared tiles are refilled for the next tile */
}

/* Grid: segments x (row tiles, strided) x channels. */
template <typename T> __global__ void __launch_bounds__(TW * TH) ssim_tiles(ssim_args g, ssim_consts k)
{
    __shared__ T te[IN_H][IN_W], ta[IN_H][IN_W];
    __shared__ double h[Q_COUNT][IN_H][TW];
    const int row_tiles = (g.y1 - g.y0 + TH - 1) / TH;
    for (int by = blockIdx.y; by < row_tiles; by += gridDim.y)
        ssim_tile<T>(g, k, blockIdx.z, g.y0 + by * TH, te, ta, h);
}

__global__ void row_sums(const double *segment_sums, int segments, int height, int channels,
                         int y0, int y1, double *row_ssim)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long rows = (long long)(y1 - y0);
    if (i >= rows * channels) return;
    const int c = (int)(i / rows), y = y0 + (int)(i % rows);
    const double *seg = segment_sums + ((size_t)c * height + y) * segments;
    double sum = 0;
    for (int n = 0; n < segments; n++) sum = add(sum, seg[n]);
    row_ssim[(size_t)c * height + y] = sum;
}

} // namespace

static_assert(TW == GI_WARP && TW == GI_SSIM_SEGMENT, "a tile row is one warp and one segment");
static_assert(GI_SSIM_SMEM + (size_t)2 * IN_H * IN_W <= 48 * 1024,
              "SSIM tile of 16-bit samples fits the default shared limit");

extern "C" size_t gi_cuda_compare_scratch_bytes(int width, int height, int channels)
{
    const size_t segments = ((size_t)width + TW - 1) / TW;
    return segments * (size_t)height * (size_t)channels * sizeof(double);
}

extern "C" cudaError_t gi_cuda_compare(const uint8_t *e, size_t e_pitch, const uint8_t *a,
                                       size_t a_pitch, int width, int height, int channels,
                                       int tolerance, const double *weights, double c1, double c2,
                                       int x0, int x1, int y0, int y1, gi_cuda_compare_row *rows,
                                       double *row_ssim, void *scratch, size_t scratch_bytes,
                                       int depth, cudaStream_t stream)
{
    const bool wide = depth == 16;
    if (channels < 1 || channels > 4 || width < 1 || height < 1 || x0 < 0 || x1 > width ||
        x0 >= x1 || y0 < 0 || y1 > height || y0 >= y1)
        return cudaErrorInvalidValue;
    if (wide)
        row_stats<uint16_t><<<height, GI_COMPARE_STATS_THREADS, 0, stream>>>(
            e, e_pitch, a, a_pitch, width, channels, tolerance, rows);
    else
        row_stats<uint8_t><<<height, GI_COMPARE_STATS_THREADS, 0, stream>>>(
            e, e_pitch, a, a_pitch, width, channels, tolerance, rows);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess || !weights) return err;

    ssim_args g = {e, a, e_pitch, a_pitch, width, height, channels, x0, x1, y0, y1,
                   (x1 - x0 + TW - 1) / TW, (double *)scratch};
    if (gi_cuda_compare_scratch_bytes(x1 - x0, height, channels) > scratch_bytes)
        return cudaErrorInvalidValue;
    ssim_consts k;
    for (int j = 0; j < TAPS; j++) k.w[j] = weights[j];
    k.c1 = c1, k.c2 = c2;
    const int row_tiles = (y1 - y0 + TH - 1) / TH;
    const dim3 tiles((unsigned)g.segments, (unsigned)(row_tiles < 65535 ? row_tiles : 65535),
                     (unsigned)channels);
    if (wide)
        ssim_tiles<uint16_t><<<tiles, dim3(TW, TH), 0, stream>>>(g, k);
    else
        ssim_tiles<uint8_t><<<tiles, dim3(TW, TH), 0, stream>>>(g, k);
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    const long long jobs = (long long)(y1 - y0) * channels;
    row_sums<<<(unsigned)((jobs + 255) / 256), 256, 0, stream>>>(g.segment_sums, g.segments, height,
                                                                channels, y0, y1, row_ssim);
    return cudaGetLastError();
}
