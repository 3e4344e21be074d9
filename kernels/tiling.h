/* Tile shapes of the CUDA kernels, kept in one place so the launchers and
 * the kernels agree. The static_asserts tie each shape to its thread count
 * and to the shared memory it needs. Included by the .cu files only. */
#ifndef GI_TILING_H
#define GI_TILING_H

#include "gpuimg.h"

/* A block is GI_WARP lanes wide: one warp walks one tile row, so global
 * reads and shared-memory rows line up with the lanes. */
#define GI_WARP 32

/* blur, fused: a block of GI_BLUR_TILE_W x GI_BLUR_ROWS threads computes a
 * GI_BLUR_TILE_W x GI_BLUR_TILE_H output tile. Its input tile and its
 * horizontally filtered rows both stay in shared memory. */
#define GI_BLUR_TILE_W 32
#define GI_BLUR_TILE_H 32
#define GI_BLUR_ROWS 8
/* Larger radii take the two-pass path through the scratch buffer. */
#define GI_BLUR_FUSED_MAX_RADIUS 16
/* Shared bytes of the fused kernel for radius r and c channels: the input
 * tile with its halo, plus uint32 horizontal sums of every tile row. */
#define GI_BLUR_FUSED_SMEM(r, c)                                                   \
    ((size_t)(GI_BLUR_TILE_W + 2 * (r)) * (GI_BLUR_TILE_H + 2 * (r)) * (c) +       \
     (size_t)GI_BLUR_TILE_W * (GI_BLUR_TILE_H + 2 * (r)) * (c) * 4)
/* blur, two-pass: a block filters GI_BLUR_SEGMENT pixels of one row
 * horizontally (its row segment plus halo in shared memory), then blocks of
 * GI_BLUR_TILE_W x GI_BLUR_ROWS threads run the vertical pass. */
#define GI_BLUR_SEGMENT 256
#define GI_BLUR_SEGMENT_SMEM(r, c) ((size_t)(GI_BLUR_SEGMENT + 2 * (r)) * (c))

static_assert(GI_BLUR_TILE_W == GI_WARP, "a tile row is one warp");
static_assert(GI_BLUR_TILE_H % GI_BLUR_ROWS == 0, "threads cover the tile rows evenly");
static_assert(GI_BLUR_FUSED_SMEM(GI_BLUR_FUSED_MAX_RADIUS, 4) <= 48 * 1024,
              "fused blur fits the default shared-memory limit");
static_assert(GI_BLUR_SEGMENT % GI_WARP == 0, "a row segment is whole warps");
static_assert(GI_BLUR_SEGMENT_SMEM(GI_BLUR_MAX_RADIUS, 4) <= 48 * 1024, "row segment fits shared memory");

/* sobel: GI_SOBEL_TILE_W x GI_SOBEL_ROWS threads, a TILE_W x TILE_H output
 * tile, a one-pixel halo around it in shared memory. Each thread filters
 * TILE_H / ROWS rows: a block's fixed cost (start, barrier, halo) is spread
 * over that many pixels (8192x8192 gray on an H200: 0.49 ms, against
 * 0.68 ms with 2 rows per thread). */
#define GI_SOBEL_TILE_W 32
#define GI_SOBEL_TILE_H 64
#define GI_SOBEL_ROWS 8
/* Shared bytes of the tile with its halo, for c channels. */
#define GI_SOBEL_TILE_BYTES(c) ((GI_SOBEL_TILE_W + 2) * (GI_SOBEL_TILE_H + 2) * (c))

static_assert(GI_SOBEL_TILE_W == GI_WARP, "a tile row is one warp");
static_assert(GI_SOBEL_TILE_H % GI_SOBEL_ROWS == 0, "threads cover the tile rows evenly");
static_assert(GI_SOBEL_TILE_BYTES(4) <= 48 * 1024, "sobel tile fits shared memory");

/* transform: a GI_XF_TILE x GI_XF_TILE pixel tile per block; each thread
 * moves GI_XF_VEC adjacent pixels (4 to 16 bytes) per access. Shared rows
 * hold one uint32 per pixel and are GI_XF_VEC wider than the tile (room to
 * align the source window) plus 1 against bank conflicts. */
#define GI_XF_TILE 32
#define GI_XF_VEC 4
#define GI_XF_ROWS 32
#define GI_XF_PITCH (GI_XF_TILE + GI_XF_VEC + 1)
#define GI_XF_THREADS (GI_XF_TILE / GI_XF_VEC * GI_XF_ROWS)

static_assert(GI_XF_TILE % GI_XF_VEC == 0, "tile rows are whole vectors");
static_assert(GI_XF_PITCH % 2 == 1, "odd pitch: a tile column hits distinct banks");
static_assert(GI_XF_ROWS == GI_XF_TILE, "one thread row per tile row");
static_assert(GI_XF_THREADS <= 1024, "block size limit");

/* hist: GI_HIST_WARPS warps per block, each with its own shared histogram
 * per channel, so warps never contend; each thread reads GI_HIST_CHUNK
 * bytes per step. */
#define GI_HIST_WARPS 8
#define GI_HIST_THREADS (GI_HIST_WARPS * GI_WARP)
#define GI_HIST_CHUNK 16
#define GI_HIST_SMEM ((size_t)GI_HIST_WARPS * 4 * GI_HIST_MAX_BINS * 4)

static_assert(GI_HIST_SMEM <= 48 * 1024, "per-warp histograms fit shared memory");
static_assert(GI_HIST_CHUNK == 16, "a chunk is one uint4 load");

#endif
