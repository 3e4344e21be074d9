/* Transpose, rotations and flips of 16-bit images (gpuimg.h gives the
 * formulas; lib/cpu/transform.c is the twin). A permutation moves whole
 * pixels, so a 16-bit pixel of 1 or 2 channels (2 or 4 bytes) goes through
 * transform.cu's kernels as an 8-bit pixel of 2 or 4 channels would. Pixels
 * of 6 and 8 bytes have this kernel: one thread per output pixel, which
 * reads its source pixel where the formula puts it. */
#include "gi_kernels.h"
#include "tiling.h"

namespace {

constexpr int BLOCK_W = GI_WARP, BLOCK_H = 8;

struct pixel16_args {
    const uint8_t *src;
    size_t src_pitch;
    uint8_t *dst;
    size_t dst_pitch;
    int width, height;         /* source */
    int out_width, out_height;
    int transform;
};

/* The source pixel of output (x, y), from the formulas in gpuimg.h. */
__device__ void source_of(const pixel16_args &a, int x, int y, int *sx, int *sy)
{
    const int w = a.width, h = a.height;
    switch (a.transform) {
    case GI_TRANSPOSE: *sx = y, *sy = x; break;
    case GI_ROTATE_90: *sx = y, *sy = h - 1 - x; break;
    case GI_ROTATE_180: *sx = w - 1 - x, *sy = h - 1 - y; break;
    case GI_ROTATE_270: *sx = w - 1 - y, *sy = x; break;
    case GI_FLIP_H: *sx = w - 1 - x, *sy = y; break;
    default: /* GI_FLIP_V */ *sx = x, *sy = h - 1 - y; break;
    }
}

/* Rows stride by the grid's height, which is capped at 65535 blocks. */
template <int C> __global__ void transform16_kernel(pixel16_args a)
{
    const int x = blockIdx.x * BLOCK_W + threadIdx.x;
    if (x >= a.out_width) return;
    for (int y = blockIdx.y * BLOCK_H + threadIdx.y; y < a.out_height; y += gridDim.y * BLOCK_H) {
        int sx, sy;
        source_of(a, x, y, &sx, &sy);
        const uint16_t *in = (const uint16_t *)(a.src + (size_t)sy * a.src_pitch) + (size_t)sx * C;
        uint16_t *out = (uint16_t *)(a.dst + (size_t)y * a.dst_pitch) + (size_t)x * C;
#pragma unroll
        for (int c = 0; c < C; c++) out[c] = in[c];
    }
}

template <int C> cudaError_t launch(const pixel16_args &a, cudaStream_t stream)
{
    const dim3 block(BLOCK_W, BLOCK_H);
    const unsigned row_blocks = (unsigned)((a.out_height + BLOCK_H - 1) / BLOCK_H);
    const dim3 grid((unsigned)((a.out_width + BLOCK_W - 1) / BLOCK_W),
                    row_blocks < 65535u ? row_blocks : 65535u);
    transform16_kernel<C><<<grid, block, 0, stream>>>(a);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gi_cuda_transform16(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                                           size_t dst_pitch, int width, int height, int channels,
                                           int transform, cudaStream_t stream)
{
    if (transform < GI_TRANSPOSE || transform > GI_FLIP_V) return cudaErrorInvalidValue;
    if (channels == 1 || channels == 2)
        return gi_cuda_transform(src, src_pitch, dst, dst_pitch, width, height, 2 * channels,
                                 transform, stream);
    const bool swaps =
        transform == GI_TRANSPOSE || transform == GI_ROTATE_90 || transform == GI_ROTATE_270;
    const pixel16_args a = {src, src_pitch, dst, dst_pitch, width, height,
                            swaps ? height : width, swaps ? width : height, transform};
    switch (channels) {
    case 3: return launch<3>(a, stream);
    case 4: return launch<4>(a, stream);
    }
    return cudaErrorInvalidValue;
}
