/* The exact JPEG decoder's arithmetic half on the GPU: the same bytes as
 * the CPU's (lib/codec/jpeg/jpeg_recon_scalar.c is the definition these
 * kernels mirror, lib/codec/jpeg/jpeg_recon_plan.h the choices both make).
 *
 * Two launches per file. jpeg_idct: one thread per 8x8 block of a
 * component, dequantizing in 16 bits and running stb's integer IDCT
 * (jpeg_recon_idct.h's gi__jpeg_idct_1d, the scalar kernels' very
 * function) into a plane of samples. jpeg_colour: one thread per output pixel, which
 * upsamples each component at its position by stb's filters written per
 * sample (the CPU's row functions unrolled: each output sample of stb's
 * h2, v2 and hv2 filters depends on at most three input samples of two
 * rows) and converts the colour. All integer arithmetic: no rounding mode
 * or contraction can make the two backends differ.
 *
 * Shrink-on-load has two launches of its own: jpeg_reduced_idct, one thread
 * per block making its nx x ny samples, and jpeg_reduced_colour, one thread
 * per pixel of the shrunk image (lib/codec/jpeg/jpeg_shrink.c is their
 * definition). */
#include "gi_kernels.h"
#include "codec/jpeg/jpeg_recon_idct.h"
#include "codec/jpeg/jpeg_recon_plan.h"

namespace {

constexpr int IDCT_THREADS_X = 32, IDCT_THREADS_Y = 4;
constexpr int COLOUR_THREADS_X = 64, COLOUR_THREADS_Y = 4;

__device__ __forceinline__ uint8_t clamp255(int v) { return (uint8_t)max(0, min(255, v)); }

__global__ void jpeg_idct(const int16_t *coeffs, int blocks_w, int blocks_x, int block_rows,
                          gi_cuda_jpeg_quant quant, uint8_t *plane, size_t pitch)
{
    int bx = blockIdx.x * blockDim.x + threadIdx.x;
    int by = blockIdx.y * blockDim.y + threadIdx.y;
    if (bx >= blocks_x || by >= block_rows) return;
    const int4 *src = (const int4 *)(coeffs + 64 * ((size_t)by * blocks_w + bx));
    int16_t d[64], cols[64], rows[64];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int4 v = src[i];
        const int16_t *h = (const int16_t *)&v;
#pragma unroll
        for (int k = 0; k < 8; k++) d[8 * i + k] = (int16_t)(h[k] * quant.q[8 * i + k]);
    }
#pragma unroll
    for (int x = 0; x < 8; x++) gi__jpeg_idct_1d(d + x, 8, JPEG_IDCT_BIAS_COLUMNS, 10, cols + x, 8);
#pragma unroll
    for (int y = 0; y < 8; y++) {
        gi__jpeg_idct_1d(cols + 8 * y, 1, JPEG_IDCT_BIAS_ROWS, 17, rows + 8 * y, 1);
        uint32_t lo = 0, hi = 0;
#pragma unroll
        for (int x = 0; x < 4; x++) {
            lo |= (uint32_t)clamp255(rows[8 * y + x]) << (8 * x);
            hi |= (uint32_t)clamp255(rows[8 * y + 4 + x]) << (8 * x);
        }
        *(uint2 *)(plane + (size_t)(8 * by + y) * pitch + 8 * (size_t)bx) = make_uint2(lo, hi);
    }
}

/* Component c's sample at output pixel (x, j): stb's resample step. */
__device__ int sample(const gi_cuda_jpeg_component &c, int x, int j)
{
    int near = j / c.vs;
    const uint8_t *n = c.plane + (size_t)near * c.pitch;
    switch (c.up) {
    case GI_JPEG_UP_NONE: return n[x];
    case GI_JPEG_UP_NEAREST: return n[x / c.hs];
    default: break;
    }
    const uint8_t *f = c.up == GI_JPEG_UP_H2
                           ? n
                           : c.plane + (size_t)gi__jpeg_far_row(j, c.vs, near, c.height) * c.pitch;
    int w = c.width;
    if (c.up == GI_JPEG_UP_V2) return (3 * n[x] + f[x] + 2) >> 2;
    if (c.up == GI_JPEG_UP_H2) {
        /* stbi__resample_row_h_2, sample by sample; its last pair weighs
         * in[w - 2] on the even side (jpeg_recon_scalar.c says why) */
        if (w == 1 || x == 0) return n[0];
        if (x == 2 * w - 1) return n[w - 1];
        if (x == 1) return (3 * n[0] + n[1] + 2) >> 2;
        if (x == 2 * w - 2) return (3 * n[w - 2] + n[w - 1] + 2) >> 2;
        int i = x >> 1;
        return (3 * n[i] + 2 + n[(x & 1) ? i + 1 : i - 1]) >> 2;
    }
    /* GI_JPEG_UP_HV2: stbi__resample_row_hv_2 on t(i) = 3 near(i) + far(i) */
    if (w == 1 || x == 0) return (3 * n[0] + f[0] + 2) >> 2;
    if (x == 2 * w - 1) return (3 * n[w - 1] + f[w - 1] + 2) >> 2;
    int i = (x + 1) >> 1; /* odd x = 2i - 1 and even x = 2i pair t(i - 1) with t(i) */
    int t0 = 3 * n[i - 1] + f[i - 1], t1 = 3 * n[i] + f[i];
    return (x & 1) ? (3 * t0 + t1 + 8) >> 4 : (3 * t1 + t0 + 8) >> 4;
}

__device__ __forceinline__ uint8_t blinn(int x, int y)
{
    unsigned t = (unsigned)(x * y) + 128;
    return (uint8_t)((t + (t >> 8)) >> 8);
}

__device__ __forceinline__ uint8_t luma(int r, int g, int b)
{
    return (uint8_t)((r * 77 + g * 150 + 29 * b) >> 8);
}

/* stbi__YCbCr_to_RGB_row for one pixel (jpeg_recon_scalar.c's ycc_to_rgb) */
__device__ void ycc_to_rgb(int y, int cb, int cr, uint8_t rgb[3])
{
    int y_fixed = (y << 12) + (1 << 11);
    int vr = cr - 128, vb = cb - 128;
    rgb[0] = clamp255((y_fixed + vr * JPEG_YCC_CR_R) >> 12);
    rgb[1] = clamp255((y_fixed - vr * JPEG_YCC_CR_G + ((vb * -JPEG_YCC_CB_G) & ~0xff)) >> 12);
    rgb[2] = clamp255((y_fixed + vb * JPEG_YCC_CB_B) >> 12);
}

__global__ void jpeg_colour(gi_cuda_jpeg_frame f, uint8_t *dst, size_t pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= f.width || j >= f.height) return;
    int s[4] = {0, 0, 0, 0};
    for (int i = 0; i < f.ncomp_used; i++) s[i] = sample(f.comp[i], x, j);
    uint8_t *out = dst + (size_t)j * pitch + (size_t)x * f.out_channels;
    uint8_t rgb[3];
    switch (f.mode) {
    case GI_JPEG_GRAY: rgb[0] = rgb[1] = rgb[2] = (uint8_t)s[0]; break;
    case GI_JPEG_YCC: ycc_to_rgb(s[0], s[1], s[2], rgb); break;
    case GI_JPEG_RGB:
        for (int c = 0; c < 3; c++) rgb[c] = (uint8_t)s[c];
        break;
    case GI_JPEG_CMYK:
        for (int c = 0; c < 3; c++) rgb[c] = blinn(s[c], s[3]);
        break;
    case GI_JPEG_YCCK:
        ycc_to_rgb(s[0], s[1], s[2], rgb);
        for (int c = 0; c < 3; c++) rgb[c] = blinn(255 - rgb[c], s[3]);
        break;
    case GI_JPEG_GRAY_RGB: rgb[0] = luma(s[0], s[1], s[2]); break;
    case GI_JPEG_GRAY_CMYK:
        rgb[0] = luma(blinn(s[0], s[3]), blinn(s[1], s[3]), blinn(s[2], s[3]));
        break;
    case GI_JPEG_GRAY_YCCK: rgb[0] = blinn(255 - s[0], s[3]); break;
    }
    for (int c = 0; c < f.out_channels; c++) out[c] = rgb[c];
}

/* jpeg_shrink.c's reduced_idct_n for one block: f dequantized in 16 bits,
 * g = A_ny f in 32 bits, A_nx g in 64, rounded at 2^24 and levelled. */
__global__ void jpeg_reduced_idct(const int16_t *coeffs, int block_len, int blocks_w, int blocks_x,
                                  int block_rows, gi_cuda_jpeg_quant quant,
                                  gi_cuda_jpeg_reduced_table ax, gi_cuda_jpeg_reduced_table ay,
                                  uint8_t *plane, size_t pitch)
{
    int bx = blockIdx.x * blockDim.x + threadIdx.x;
    int by = blockIdx.y * blockDim.y + threadIdx.y;
    if (bx >= blocks_x || by >= block_rows) return;
    const int16_t *src = coeffs + (size_t)block_len * ((size_t)by * blocks_w + bx);
    const int nx = ax.n, ny = ay.n;
    int32_t f[8][8], g[8][8];
    for (int v = 0; v < ny; v++)
        for (int u = 0; u < nx; u++) f[v][u] = (int16_t)(src[8 * v + u] * quant.q[8 * v + u]);
    for (int y = 0; y < ny; y++)
        for (int u = 0; u < nx; u++) {
            int32_t sum = 0;
            for (int v = 0; v < ny; v++) sum += ay.a[y * ny + v] * f[v][u];
            g[y][u] = sum;
        }
    for (int y = 0; y < ny; y++) {
        uint8_t *out = plane + (size_t)(by * ny + y) * pitch + (size_t)bx * nx;
        for (int x = 0; x < nx; x++) {
            long long sum = 0;
            for (int u = 0; u < nx; u++) sum += (long long)ax.a[x * nx + u] * g[y][u];
            out[x] = clamp255((int)(((sum + (1 << 23)) >> 24) + 128));
        }
    }
}

__device__ __forceinline__ int reduced_sample(const gi_cuda_jpeg_reduced_component &c, int x, int y)
{
    long long sx = x * c.x_num / c.x_den, sy = y * c.y_num / c.y_den;
    if (sx >= c.width) sx = c.width - 1;
    if (sy >= c.height) sy = c.height - 1;
    return c.plane[(size_t)sy * c.pitch + (size_t)sx];
}

/* jpeg_shrink.c's image_from_planes for one pixel. */
__global__ void jpeg_reduced_colour(gi_cuda_jpeg_reduced_frame f, uint8_t *dst, size_t pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= f.width || y >= f.height) return;
    uint8_t *out = dst + (size_t)y * pitch + (size_t)x * f.out_channels;
    if (f.ncomp_used == 1) {
        const uint8_t v = (uint8_t)reduced_sample(f.comp[0], x, y);
        for (int c = 0; c < f.out_channels; c++) out[c] = v;
        return;
    }
    uint8_t rgb[3];
    ycc_to_rgb(reduced_sample(f.comp[0], x, y), reduced_sample(f.comp[1], x, y),
               reduced_sample(f.comp[2], x, y), rgb);
    for (int c = 0; c < 3; c++) out[c] = rgb[c];
}

} // namespace

extern "C" cudaError_t gi_cuda_jpeg_reduced_idct(const int16_t *coeffs, int block_len, int blocks_w,
                                                 int blocks_x, int block_rows,
                                                 const gi_cuda_jpeg_quant *quant,
                                                 const gi_cuda_jpeg_reduced_table *ax,
                                                 const gi_cuda_jpeg_reduced_table *ay,
                                                 uint8_t *plane, size_t pitch, cudaStream_t stream)
{
    if (blocks_x <= 0 || block_rows <= 0) return cudaSuccess;
    dim3 threads(IDCT_THREADS_X, IDCT_THREADS_Y);
    dim3 grid((blocks_x + IDCT_THREADS_X - 1) / IDCT_THREADS_X,
              (block_rows + IDCT_THREADS_Y - 1) / IDCT_THREADS_Y);
    jpeg_reduced_idct<<<grid, threads, 0, stream>>>(coeffs, block_len, blocks_w, blocks_x, block_rows,
                                                    *quant, *ax, *ay, plane, pitch);
    return cudaGetLastError();
}

extern "C" cudaError_t gi_cuda_jpeg_reduced_colour(const gi_cuda_jpeg_reduced_frame *frame,
                                                   uint8_t *dst, size_t pitch,
                                                   cudaStream_t stream)
{
    if (frame->width <= 0 || frame->height <= 0) return cudaSuccess;
    dim3 threads(COLOUR_THREADS_X, COLOUR_THREADS_Y);
    dim3 grid((frame->width + COLOUR_THREADS_X - 1) / COLOUR_THREADS_X,
              (frame->height + COLOUR_THREADS_Y - 1) / COLOUR_THREADS_Y);
    jpeg_reduced_colour<<<grid, threads, 0, stream>>>(*frame, dst, pitch);
    return cudaGetLastError();
}

extern "C" cudaError_t gi_cuda_jpeg_idct(const int16_t *coeffs, int blocks_w, int blocks_x,
                                         int block_rows, const gi_cuda_jpeg_quant *quant,
                                         uint8_t *plane, size_t pitch, cudaStream_t stream)
{
    if (blocks_x <= 0 || block_rows <= 0) return cudaSuccess;
    dim3 threads(IDCT_THREADS_X, IDCT_THREADS_Y);
    dim3 grid((blocks_x + IDCT_THREADS_X - 1) / IDCT_THREADS_X,
              (block_rows + IDCT_THREADS_Y - 1) / IDCT_THREADS_Y);
    jpeg_idct<<<grid, threads, 0, stream>>>(coeffs, blocks_w, blocks_x, block_rows, *quant,
                                            plane, pitch);
    return cudaGetLastError();
}

extern "C" cudaError_t gi_cuda_jpeg_colour(const gi_cuda_jpeg_frame *frame, uint8_t *dst,
                                           size_t pitch, cudaStream_t stream)
{
    dim3 threads(COLOUR_THREADS_X, COLOUR_THREADS_Y);
    dim3 grid((frame->width + COLOUR_THREADS_X - 1) / COLOUR_THREADS_X,
              (frame->height + COLOUR_THREADS_Y - 1) / COLOUR_THREADS_Y);
    jpeg_colour<<<grid, threads, 0, stream>>>(*frame, dst, pitch);
    return cudaGetLastError();
}
