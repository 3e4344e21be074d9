/* Correlation with a quantized odd mask up to 31x31 (gpuimg.h gives the
 * exact fixed point; lib/cpu/convolve.c and convolve16.c are the twins it
 * matches byte for byte), of 8- and 16-bit images: one kernel, a template
 * over the sample type (depth<T>: the sums' width and the clamp).
 *
 * A block loads its output tile plus the mask's halo into shared memory
 * (gi_load_tile applies the border rule, and only to a window that crosses
 * the image edge), then each thread filters a run of adjacent pixels on
 * each of its rows. Along one mask row it slides a window of that many
 * pixels through the tile, one pixel per tap, so a tap costs one shared
 * load for a whole run of multiply-adds; the multiply-adds, not the
 * memory, bound this kernel (int32 at 8 bits; exact doubles at 16, see
 * depth). The common mask widths 3, 5 and 7 are compiled
 * with the width fixed: their tap loop unrolls and the window slides by
 * renaming registers instead of moving them.
 *
 * The mask travels as a kernel parameter (constant bank, broadcast to the
 * warp) rather than a __constant__ symbol, which two contexts convolving on
 * two streams at once would overwrite under each other. */
#include "border.cuh"
#include "gi_kernels.h"
#include "tiling.h"

namespace {

/* A block is GI_WARP lanes x ROWS rows of threads. Its output tile is
 * GI_WARP runs wide and TILE_H rows high; each thread filters one run on
 * TILE_H / ROWS rows. At 8 bits a run is 4 gray pixels (a word: the lanes'
 * shared loads then fall on 32 distinct banks; with 16-byte gray runs their
 * 4-way bank conflicts bounded the kernel, 0.225 ms for 5x5 at 8192x8192 on
 * an H200), 4 RGB pixels (12 bytes, also conflict-free), or 16 bytes with
 * two and four channels, where unpacking the samples and the multiply-adds
 * cost more than the conflicts and a longer run spreads the unpacking. At
 * 16 bits a run is 4 pixels of 1 or 2 channels and 2 of 3 or 4 (8 to 16
 * bytes): twice the bytes of an 8-bit pixel, so the tile of the largest
 * mask still fits 48 KiB. */
constexpr int ROWS = 8;
constexpr int TILE_H = 32;
constexpr int MAX_R = (GI_CONVOLVE_MAX_SIZE - 1) / 2;
template <typename T, int C>
constexpr int run_px = sizeof(T) == 1 ? (C == 2 ? 8 : 4) : (C <= 2 ? 4 : 2);
template <typename T, int C> constexpr int tile_w = GI_WARP * run_px<T, C>;
template <typename T, int C> constexpr int PB = C * (int)sizeof(T); /* bytes a pixel */
/* Shared bytes of the tile with the halo of radii rx, ry. */
template <typename T, int C> constexpr size_t smem_bytes(int rx, int ry)
{
    return (size_t)(tile_w<T, C> + 2 * rx) * (TILE_H + 2 * ry) * PB<T, C>;
}

/* What the depths differ in (gpuimg.h, convolve): the sums are exact in
 * int32 at 8 bits (255 * sum|q| <= 2^30), and in doubles at 16: every
 * product |q| v < 2^47 and every partial sum, at most 65535 * sum|q| <=
 * 2^52, is an integer a double holds, so each multiply-add is exact
 * whatever its order (the CPU's convolve16.c sums in doubles too). A
 * double multiply-add takes the FP64 pipe at the int32 multiply-add's
 * rate, where a 64-bit integer one (IMAD.WIDE) takes twice as long. The
 * window holds the samples in the sums' type, converted once as they
 * enter it (sample). The clamp's top. */
template <typename T> struct depth;
template <> struct depth<uint8_t> {
    using acc = int32_t;
    static constexpr int32_t MAX = 255;
    static __device__ __forceinline__ int32_t sample(int32_t v) { return v; }
};
template <> struct depth<uint16_t> {
    using acc = double;
    static constexpr int32_t MAX = 65535;
    /* 2^52 + v as a double's bits, less 2^52: one FP64 add, where a
     * conversion instruction would take the slower conversion pipe */
    static __device__ __forceinline__ double sample(int32_t v)
    {
        return __hiloint2double(0x43300000, v) - 4503599627370496.0;
    }
};

template <typename T> constexpr bool runs_are_words()
{
    return run_px<T, 1> * 1 * sizeof(T) % 4 == 0 && run_px<T, 2> * 2 * sizeof(T) % 4 == 0 &&
           run_px<T, 3> * 3 * sizeof(T) % 4 == 0 && run_px<T, 4> * 4 * sizeof(T) % 4 == 0;
}
template <typename T> constexpr bool largest_mask_fits()
{
    return smem_bytes<T, 1>(MAX_R, MAX_R) <= 48 * 1024 && smem_bytes<T, 2>(MAX_R, MAX_R) <= 48 * 1024 &&
           smem_bytes<T, 3>(MAX_R, MAX_R) <= 48 * 1024 && smem_bytes<T, 4>(MAX_R, MAX_R) <= 48 * 1024;
}
static_assert(TILE_H % ROWS == 0, "threads cover the tile rows evenly");
static_assert(runs_are_words<uint8_t>() && runs_are_words<uint16_t>(), "a run is whole 4-byte words");
static_assert(largest_mask_fits<uint8_t>() && largest_mask_fits<uint16_t>(),
              "the largest mask's tile fits the default shared-memory limit");

struct mask_param {
    int32_t q[GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE]; /* rows of `width`, top first */
    int width, height;
    int shift;
};
static_assert(sizeof(mask_param) + sizeof(gi_src_view) + 32 <= 4096,
              "the kernel's parameters stay within the classic 4 KiB");

/* One pixel's samples from the tile; pixels of 2, 4 and 8 bytes in one
 * load (a pixel's offset in the tile is a multiple of its bytes). */
template <typename T, int C> __device__ __forceinline__ void load_raw(const uint8_t *p, int32_t (&v)[C])
{
    if constexpr (sizeof(T) == 1 && (C == 2 || C == 4)) {
        const uint32_t w = C == 4 ? *(const uint32_t *)p : *(const uint16_t *)p;
#pragma unroll
        for (int c = 0; c < C; c++) v[c] = (w >> (8 * c)) & 0xff;
    } else if constexpr (sizeof(T) == 2 && C == 4) {
        const uint2 w = *(const uint2 *)p;
        v[0] = w.x & 0xffff, v[1] = w.x >> 16, v[2] = w.y & 0xffff, v[3] = w.y >> 16;
    } else if constexpr (sizeof(T) == 2 && C == 2) {
        const uint32_t w = *(const uint32_t *)p;
        v[0] = w & 0xffff, v[1] = w >> 16;
    } else {
#pragma unroll
        for (int c = 0; c < C; c++) v[c] = ((const T *)p)[c];
    }
}

/* The same, in the sums' type (depth<T>::sample). */
template <typename T, int C>
__device__ __forceinline__ void load_px(const uint8_t *p, typename depth<T>::acc (&v)[C])
{
    int32_t raw[C];
    load_raw<T, C>(p, raw);
#pragma unroll
    for (int c = 0; c < C; c++) v[c] = depth<T>::sample(raw[c]);
}

/* Adds mask row j to a run: tap i multiplies tile pixels run+i .. run+i+P-1
 * (`row` points at pixel run of the tile row). MW: the mask width when
 * fixed at compile time, else 0. */
template <typename T, int C, int MW>
__device__ __forceinline__ void add_mask_row(typename depth<T>::acc (&acc)[run_px<T, C>][C],
                                             const uint8_t *row, const mask_param &m, int j)
{
    using A = typename depth<T>::acc;
    constexpr int P = run_px<T, C>;
    const int taps = MW ? MW : m.width;
    A win[P][C];
#pragma unroll
    for (int k = 0; k < P; k++) load_px<T, C>(row + k * PB<T, C>, win[k]);
#pragma unroll
    for (int i = 0; i < taps; i++) {
        const A q = (A)m.q[j * taps + i];
#pragma unroll
        for (int k = 0; k < P; k++)
#pragma unroll
            for (int c = 0; c < C; c++) acc[k][c] += q * win[k][c];
        if (i + 1 == taps) break; /* the tile row ends here for the last run */
#pragma unroll
        for (int k = 0; k + 1 < P; k++)
#pragma unroll
            for (int c = 0; c < C; c++) win[k][c] = win[k + 1][c];
        load_px<T, C>(row + (i + P) * PB<T, C>, win[P - 1]);
    }
}

/* clamp((sum + 2^(S-1)) >> S, 0, MAX), the shift arithmetic (halves round
 * up). In doubles: sum + 2^(S-1) < 2^53 and the scaling by 2^-S are
 * exact, so floor gives the shift's value. */
template <typename T> __device__ __forceinline__ uint32_t rounded(int32_t sum, int shift)
{
    const int32_t v = (sum + (shift ? 1 << (shift - 1) : 0)) >> shift;
    return (uint32_t)(v < 0 ? 0 : v > depth<T>::MAX ? depth<T>::MAX : v);
}
template <typename T> __device__ __forceinline__ uint32_t rounded(double sum, int shift)
{
    /* 2^(S-1) (0 for S = 0) and 2^-S from their exponent bits, S <= 30 */
    const double half = shift ? __longlong_as_double((long long)(1022 + shift) << 52) : 0.0;
    const double unit = __longlong_as_double((long long)(1023 - shift) << 52);
    const double v = floor(__dmul_rn(__dadd_rn(sum, half), unit));
    return v < 0 ? 0u : v > depth<T>::MAX ? (uint32_t)depth<T>::MAX : (uint32_t)v;
}

/* Rounds, clamps and stores a run of `left` or more pixels (fewer only at
 * the image's right edge). Whole runs go out as 16-byte or 4-byte stores
 * where the destination rows are aligned for them (`align`), since
 * narrower stores would each touch a separate 32-byte sector. */
template <typename T, int C>
__device__ __forceinline__ void store_run(uint8_t *out,
                                          const typename depth<T>::acc (&acc)[run_px<T, C>][C],
                                          int shift, int left, int align)
{
    constexpr int P = run_px<T, C>, SB = sizeof(T), SPW = 4 / SB, WORDS = P * C * SB / 4;
    uint32_t w[WORDS] = {};
#pragma unroll
    for (int k = 0; k < P; k++)
#pragma unroll
        for (int c = 0; c < C; c++) {
            const int b = k * C + c;
            w[b / SPW] |= rounded<T>(acc[k][c], shift) << (8 * SB * (b % SPW));
        }
    if (left >= P && align >= 4) {
        if constexpr (WORDS == 4) {
            if (align >= 16) {
                *(uint4 *)out = make_uint4(w[0], w[1], w[2], w[3]);
                return;
            }
        }
#pragma unroll
        for (int i = 0; i < WORDS; i++) ((uint32_t *)out)[i] = w[i];
        return;
    }
#pragma unroll
    for (int b = 0; b < P * C; b++)
        if (b < left * C) ((T *)out)[b] = (T)(w[b / SPW] >> (8 * SB * (b % SPW)));
}

template <typename T, int C, int MW>
__global__ void __launch_bounds__(GI_WARP * ROWS)
    convolve_kernel(gi_src_view s, uint8_t *dst, size_t dst_pitch, int align, mask_param m)
{
    extern __shared__ uint4 conv_smem[]; /* uint4: 16-byte aligned */
    uint8_t *tile = (uint8_t *)conv_smem;
    constexpr int P = run_px<T, C>;
    const int rx = ((MW ? MW : m.width) - 1) / 2, ry = (m.height - 1) / 2;
    const int tw = tile_w<T, C> + 2 * rx;
    const int x0 = (int)blockIdx.x * tile_w<T, C>, y0 = (int)blockIdx.y * TILE_H;
    const int tx = threadIdx.x % GI_WARP, ty = threadIdx.x / GI_WARP;

    gi_load_tile<PB<T, C>>(tile, tw, TILE_H + 2 * ry, s, x0 - rx, y0 - ry);
    __syncthreads();

    const int x = x0 + tx * P;
    if (x >= s.width) return;
    for (int r = ty; r < TILE_H && y0 + r < s.height; r += ROWS) {
        typename depth<T>::acc acc[P][C] = {};
        for (int j = 0; j < m.height; j++)
            add_mask_row<T, C, MW>(acc, tile + ((size_t)(r + j) * tw + tx * P) * PB<T, C>, m, j);
        store_run<T, C>(dst + (size_t)(y0 + r) * dst_pitch + (size_t)x * PB<T, C>, acc, m.shift,
                        s.width - x, align);
    }
}

/* The widest store the destination's rows allow: 16, 4 or 1 bytes. */
int store_align(const void *dst, size_t pitch)
{
    const uintptr_t bits = (uintptr_t)dst | pitch;
    return bits % 16 == 0 ? 16 : bits % 4 == 0 ? 4 : 1;
}

template <typename T, int C, int MW>
void start(dim3 grid, size_t smem, const gi_src_view &s, uint8_t *dst, size_t dst_pitch,
           const mask_param &m, cudaStream_t stream)
{
    convolve_kernel<T, C, MW><<<grid, GI_WARP * ROWS, smem, stream>>>(
        s, dst, dst_pitch, store_align(dst, dst_pitch), m);
}

template <typename T, int C>
cudaError_t launch(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, const mask_param &m,
                   cudaStream_t stream)
{
    const unsigned tiles_x = (unsigned)((s.width + (long long)tile_w<T, C> - 1) / tile_w<T, C>);
    const long long tiles_y = (s.height + (long long)TILE_H - 1) / TILE_H;
    if (tiles_y > 65535) return cudaErrorInvalidValue;
    const dim3 grid(tiles_x, (unsigned)tiles_y);
    const size_t smem = smem_bytes<T, C>((m.width - 1) / 2, (m.height - 1) / 2);
    switch (m.width) {
    case 3: start<T, C, 3>(grid, smem, s, dst, dst_pitch, m, stream); break;
    case 5: start<T, C, 5>(grid, smem, s, dst, dst_pitch, m, stream); break;
    case 7: start<T, C, 7>(grid, smem, s, dst, dst_pitch, m, stream); break;
    default: start<T, C, 0>(grid, smem, s, dst, dst_pitch, m, stream); break;
    }
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_depth(const gi_src_view &s, uint8_t *dst, size_t dst_pitch, int channels,
                         const mask_param &m, cudaStream_t stream)
{
    switch (channels) {
    case 1: return launch<T, 1>(s, dst, dst_pitch, m, stream);
    case 2: return launch<T, 2>(s, dst, dst_pitch, m, stream);
    case 3: return launch<T, 3>(s, dst, dst_pitch, m, stream);
    case 4: return launch<T, 4>(s, dst, dst_pitch, m, stream);
    }
    return cudaErrorInvalidValue;
}

bool valid_side(int n)
{
    return n >= 1 && n <= GI_CONVOLVE_MAX_SIZE && n % 2 == 1;
}

} // namespace

extern "C" cudaError_t gi_cuda_convolve(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                        size_t dst_pitch, int width, int height, int channels,
                                        int depth, const int32_t *q, int mask_w, int mask_h,
                                        int shift, int border_mode, int border_value,
                                        cudaStream_t stream)
{
    if (!q || !valid_side(mask_w) || !valid_side(mask_h) || shift < 0 || shift > 30 || width < 1 ||
        height < 1)
        return cudaErrorInvalidValue;
    const gi_src_view s = {src, src_pitch, width, height, border_mode, (uint8_t)border_value};
    mask_param m = {};
    for (int i = 0; i < mask_w * mask_h; i++) m.q[i] = q[i];
    m.width = mask_w;
    m.height = mask_h;
    m.shift = shift;
    if (depth == 8) return launch_depth<uint8_t>(s, dst, dst_pitch, channels, m, stream);
    if (depth == 16) return launch_depth<uint16_t>(s, dst, dst_pitch, channels, m, stream);
    return cudaErrorInvalidValue;
}
