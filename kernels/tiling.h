/* Tile shapes of the CUDA kernels, kept in one place so the launchers and
 * the kernels agree. The static_asserts tie each shape to its thread count
 * and to the shared memory it needs. Included by the .cu files only.
 * kernels/PERF_NOTES.md records why each shape is what it is. */
#ifndef GI_TILING_H
#define GI_TILING_H

#include "gpuimg.h"

/* A warp is GI_WARP lanes; tiles are laid out so a warp's lanes walk
 * consecutive bytes of a row. */
#define GI_WARP 32

/* ---------------------------------------------------------------- blur */

/* Radii up to GI_BLUR_SMALL_RADIUS take the fast kernels below; larger ones
 * the fused kernel (up to GI_BLUR_FUSED_MAX_RADIUS) or the two passes
 * through scratch memory. */
#define GI_BLUR_SMALL_RADIUS 8

/* 1 channel on the tensor cores: each warp filters a strip GI_BLUR_TC_XB
 * columns wide, GI_BLUR_TC_WARPS strips side by side make a block, and the
 * block walks GI_BLUR_TC_ROWS rows in steps of 16. The input tile keeps
 * GI_BLUR_TC_PAD columns left and right (the 32-byte K windows reach 8 past
 * a strip, 16 keeps the loads 16-byte aligned) and 8 rows above and below. */
#define GI_BLUR_TC_XB 16
#define GI_BLUR_TC_WARPS 8
#define GI_BLUR_TC_ROWS 128
#define GI_BLUR_TC_PAD 16
#define GI_BLUR_TC_HALO 8
#define GI_BLUR_TC_W (GI_BLUR_TC_XB * GI_BLUR_TC_WARPS)
#define GI_BLUR_TC_TILE_BYTES (GI_BLUR_TC_W + 2 * GI_BLUR_TC_PAD)
/* Shared row pitch: 44 words, and 44 / 4 is odd, so the 8 rows x 4 words a
 * fragment load touches fall in 32 distinct banks. */
#define GI_BLUR_TC_PITCH 176
#define GI_BLUR_TC_TILE_ROWS (GI_BLUR_TC_ROWS + 2 * GI_BLUR_TC_HALO)
#define GI_BLUR_TC_SMEM ((size_t)GI_BLUR_TC_TILE_ROWS * GI_BLUR_TC_PITCH)

static_assert(GI_BLUR_TC_XB == 16 && GI_BLUR_TC_HALO == 8, "one m16n8k32 K window is 8 + 16 + 8");
static_assert(GI_BLUR_SMALL_RADIUS <= GI_BLUR_TC_HALO, "the K window covers the radius");
static_assert(GI_BLUR_TC_ROWS % 16 == 0, "the block walks whole 16-row steps");
static_assert(GI_BLUR_TC_PITCH >= GI_BLUR_TC_TILE_BYTES && GI_BLUR_TC_PITCH % 16 == 0 &&
                  GI_BLUR_TC_PITCH / 16 % 2 == 1,
              "pitch: 16-byte rows, an odd number of them, for conflict-free fragment loads");
static_assert(GI_BLUR_TC_TILE_BYTES % 16 == 0 && GI_BLUR_TC_PAD % 16 == 0, "16-byte tile loads");
static_assert(GI_BLUR_TC_SMEM <= 48 * 1024, "tensor blur tile fits the default shared limit");

/* Any channel count, radius 1..GI_BLUR_SMALL_RADIUS: a block of
 * GI_BLUR_GEN_THREADS filters a GI_BLUR_GEN_W pixel wide tile of
 * GI_BLUR_GEN_H(c, sb) rows (c channels of sb-byte samples). Stage 1 stages
 * the input (GI_BLUR_GEN_PAD(c) pixels left and right, so each row starts
 * 16-byte aligned at either depth), stage 2 filters rows four pixels per
 * thread into 32-bit sums in shared memory, stage 3 filters columns with a
 * sliding window in registers. 16-bit RGBA takes 32 rows: its staged
 * samples are twice as wide, and 48 rows would pass the 48 KiB limit. */
#define GI_BLUR_GEN_THREADS 256
#define GI_BLUR_GEN_W 32
#define GI_BLUR_GEN_H(c, sb) ((c) == 4 && (sb) == 2 ? 32 : (c) >= 3 ? 48 : 64)
#define GI_BLUR_GEN_PAD(c) ((c) % 2 ? 16 : 8)
#define GI_BLUR_GEN_IN_ROW(c, sb) ((GI_BLUR_GEN_W + 2 * GI_BLUR_GEN_PAD(c)) * (c) * (sb))
#define GI_BLUR_GEN_SMEM(c, r, sb)                                                          \
    ((size_t)(GI_BLUR_GEN_H(c, sb) + 2 * (r)) *                                            \
     (GI_BLUR_GEN_IN_ROW(c, sb) + GI_BLUR_GEN_W * (c) * 4))

static_assert(GI_BLUR_GEN_PAD(1) >= GI_BLUR_SMALL_RADIUS && GI_BLUR_GEN_PAD(2) >= GI_BLUR_SMALL_RADIUS,
              "the staged tile covers the radius");
static_assert(GI_BLUR_GEN_PAD(1) % 16 == 0 && GI_BLUR_GEN_PAD(2) * 2 % 16 == 0 &&
                  GI_BLUR_GEN_PAD(3) * 3 % 16 == 0 && GI_BLUR_GEN_PAD(4) * 4 % 16 == 0,
              "staged rows start 16-byte aligned in the image");
static_assert(GI_BLUR_GEN_IN_ROW(1, 1) % 16 == 0 && GI_BLUR_GEN_IN_ROW(2, 1) % 16 == 0 &&
                  GI_BLUR_GEN_IN_ROW(3, 1) % 16 == 0 && GI_BLUR_GEN_IN_ROW(4, 1) % 16 == 0,
              "16-byte staged rows");
static_assert(GI_BLUR_GEN_SMEM(4, GI_BLUR_SMALL_RADIUS, 1) <= 48 * 1024 &&
                  GI_BLUR_GEN_SMEM(3, GI_BLUR_SMALL_RADIUS, 1) <= 48 * 1024 &&
                  GI_BLUR_GEN_SMEM(2, GI_BLUR_SMALL_RADIUS, 1) <= 48 * 1024 &&
                  GI_BLUR_GEN_SMEM(1, GI_BLUR_SMALL_RADIUS, 1) <= 48 * 1024,
              "generic blur fits the default shared limit");
static_assert(GI_BLUR_GEN_SMEM(4, GI_BLUR_SMALL_RADIUS, 2) <= 48 * 1024 &&
                  GI_BLUR_GEN_SMEM(3, GI_BLUR_SMALL_RADIUS, 2) <= 48 * 1024 &&
                  GI_BLUR_GEN_SMEM(2, GI_BLUR_SMALL_RADIUS, 2) <= 48 * 1024 &&
                  GI_BLUR_GEN_SMEM(1, GI_BLUR_SMALL_RADIUS, 2) <= 48 * 1024,
              "generic blur fits the default shared limit at 16 bits");

/* blur, fused (radii GI_BLUR_SMALL_RADIUS+1 .. GI_BLUR_FUSED_MAX_RADIUS, and
 * 0): a block of GI_BLUR_TILE_W x GI_BLUR_ROWS threads computes a
 * GI_BLUR_TILE_W x GI_BLUR_TILE_H output tile. Its input tile and its
 * horizontally filtered rows both stay in shared memory. */
#define GI_BLUR_TILE_W 32
#define GI_BLUR_TILE_H 32
#define GI_BLUR_ROWS 8
#define GI_BLUR_FUSED_MAX_RADIUS 16
/* Shared bytes of the fused kernel for radius r, c channels of sb-byte
 * samples: the input tile with its halo, plus uint32 horizontal sums of
 * every tile row. Every 8-bit case fits 48 KiB; at 16 bits the larger radii
 * of 4 channels do not and take the two passes (gi_cuda_blur_scratch_bytes
 * and the launcher ask GI_BLUR_FUSED_FITS alike). */
#define GI_BLUR_FUSED_SMEM(r, c, sb)                                                 \
    ((size_t)(GI_BLUR_TILE_W + 2 * (r)) * (GI_BLUR_TILE_H + 2 * (r)) * (c) * (sb) +  \
     (size_t)GI_BLUR_TILE_W * (GI_BLUR_TILE_H + 2 * (r)) * (c) * 4)
#define GI_BLUR_FUSED_FITS(r, c, sb)                                                 \
    ((r) <= GI_BLUR_FUSED_MAX_RADIUS && GI_BLUR_FUSED_SMEM(r, c, sb) <= 48 * 1024)
/* blur, two-pass: a block filters GI_BLUR_SEGMENT pixels of one row
 * horizontally (its row segment plus halo in shared memory), then blocks of
 * GI_BLUR_TILE_W x GI_BLUR_ROWS threads run the vertical pass. */
#define GI_BLUR_SEGMENT 256
#define GI_BLUR_SEGMENT_SMEM(r, c, sb) ((size_t)(GI_BLUR_SEGMENT + 2 * (r)) * (c) * (sb))

static_assert(GI_BLUR_TILE_W == GI_WARP, "a tile row is one warp");
static_assert(GI_BLUR_TILE_H % GI_BLUR_ROWS == 0, "threads cover the tile rows evenly");
static_assert(GI_BLUR_FUSED_FITS(GI_BLUR_FUSED_MAX_RADIUS, 4, 1),
              "fused 8-bit blur fits the default shared-memory limit");
static_assert(GI_BLUR_FUSED_FITS(GI_BLUR_SMALL_RADIUS, 4, 2),
              "fused 16-bit blur fits at the fast kernels' radii (their fallback)");
static_assert(GI_BLUR_SEGMENT % GI_WARP == 0, "a row segment is whole warps");
static_assert(GI_BLUR_SEGMENT_SMEM(GI_BLUR_MAX_RADIUS, 4, 2) <= 48 * 1024, "row segment fits shared memory");

/* ---------------------------------------------------------------- sobel */

/* A block of GI_SOBEL_WARPS warps; each lane filters GI_SOBEL_PX(pb)
 * adjacent pixels of pb bytes (channels times sample bytes), so a warp
 * covers GI_SOBEL_W(pb) pixels, and walks GI_SOBEL_RUN rows; the warps
 * stack vertically. (8 pixels per lane for one 8-bit channel needed 80
 * registers and ran 45% slower than 4: PERF_NOTES.md.) 16-bit pixels of 3
 * and 4 channels take 2 a lane: a lane reads the same 12 or 16 bytes a row
 * as at 8 bits, and the tile stays within 48 KiB. The tile keeps
 * GI_SOBEL_PAD(pb) pixels left and right (one is the halo, the rest keeps
 * tile rows 16-byte aligned) and one row above and below. */
#define GI_SOBEL_WARPS 8
#define GI_SOBEL_PX(pb) ((pb) > 4 ? 2 : 4)
#define GI_SOBEL_W(pb) (GI_WARP * GI_SOBEL_PX(pb))
#define GI_SOBEL_RUN 8
#define GI_SOBEL_H (GI_SOBEL_WARPS * GI_SOBEL_RUN)
#define GI_SOBEL_PAD(pb) ((pb) == 8 ? 2 : (pb) == 4 ? 4 : (pb) == 2 || (pb) == 6 ? 8 : 16)
#define GI_SOBEL_ROW_BYTES(pb) ((GI_SOBEL_W(pb) + 2 * GI_SOBEL_PAD(pb)) * (pb))
#define GI_SOBEL_SMEM(pb) ((size_t)(GI_SOBEL_H + 2) * GI_SOBEL_ROW_BYTES(pb))

static_assert(GI_SOBEL_PAD(1) % 16 == 0 && GI_SOBEL_PAD(2) * 2 % 16 == 0 &&
                  GI_SOBEL_PAD(3) * 3 % 16 == 0 && GI_SOBEL_PAD(4) * 4 % 16 == 0 &&
                  GI_SOBEL_PAD(6) * 6 % 16 == 0 && GI_SOBEL_PAD(8) * 8 % 16 == 0,
              "tile rows start 16-byte aligned in the image");
static_assert(GI_SOBEL_PAD(6) * 6 >= 8 && GI_SOBEL_PAD(8) * 8 >= 8,
              "the pad holds the two words a lane reads left of its pixels");
static_assert(GI_SOBEL_ROW_BYTES(1) % 16 == 0 && GI_SOBEL_ROW_BYTES(2) % 16 == 0 &&
                  GI_SOBEL_ROW_BYTES(3) % 16 == 0 && GI_SOBEL_ROW_BYTES(4) % 16 == 0 &&
                  GI_SOBEL_ROW_BYTES(6) % 16 == 0 && GI_SOBEL_ROW_BYTES(8) % 16 == 0,
              "16-byte tile rows");
static_assert(GI_SOBEL_SMEM(1) <= 48 * 1024 && GI_SOBEL_SMEM(2) <= 48 * 1024 &&
                  GI_SOBEL_SMEM(3) <= 48 * 1024 && GI_SOBEL_SMEM(4) <= 48 * 1024 &&
                  GI_SOBEL_SMEM(6) <= 48 * 1024 && GI_SOBEL_SMEM(8) <= 48 * 1024,
              "sobel tile fits shared memory");

/* ---------------------------------------------------------------- transform */

/* Generic transform: a GI_XF_TILE x GI_XF_TILE pixel tile per block; each
 * thread moves GI_XF_VEC adjacent pixels (4 to 16 bytes) per access. Shared
 * rows hold one uint32 per pixel and are GI_XF_VEC wider than the tile (room
 * to align the source window) plus 1 against bank conflicts. */
#define GI_XF_TILE 32
#define GI_XF_VEC 4
#define GI_XF_ROWS 32
#define GI_XF_PITCH (GI_XF_TILE + GI_XF_VEC + 1)
#define GI_XF_THREADS (GI_XF_TILE / GI_XF_VEC * GI_XF_ROWS)

static_assert(GI_XF_TILE % GI_XF_VEC == 0, "tile rows are whole vectors");
static_assert(GI_XF_PITCH % 2 == 1, "odd pitch: a tile column hits distinct banks");
static_assert(GI_XF_ROWS == GI_XF_TILE, "one thread row per tile row");
static_assert(GI_XF_THREADS <= 1024, "block size limit");

/* Transpose of 1..3 channels: a block moves a GI_XT_ROWS x GI_XT_COLS byte
 * tile (96 bytes wide for 3 channels) with 16-byte loads, and each thread
 * turns 4x4 pixel blocks around in registers and stores 4-pixel runs.
 * Shared rows are one word longer than the tile (33 words), so the row
 * stores and a warp's 4-row column reads fall in distinct banks (2-way for
 * 2 channels). GI_XT_ROWS = 128 makes each output run a whole 128-byte
 * line per tile for 1 channel. */
#define GI_XT_ROWS 128
#define GI_XT_COLS 128
#define GI_XT_THREADS 256

static_assert(GI_XT_ROWS % 32 == 0, "a warp's 8 row groups");
static_assert(GI_XT_ROWS * (GI_XT_COLS / 4 + 1) * 4 <= 48 * 1024, "transpose tile fits shared memory");

/* ---------------------------------------------------------------- hist */

/* hist: GI_HIST_THREADS per block. Each block keeps GI_HIST_SLOTS(c)
 * private counters per (channel, value) in shared memory, one per lane
 * (and per warp parity with one channel), so the 32 lanes of an atomic add
 * always hit 32 distinct banks, whatever the data. Each thread reads
 * GI_HIST_UNROLL 16-byte chunks per step (one 48-byte chunk for 3 channels,
 * so a chunk starts on channel 0), and loads the next step's chunks before
 * it counts the current ones. Three blocks of GI_HIST_THREADS fit an SM with
 * one or two channels (64 KB of counters each, at most 42 registers). */
#define GI_HIST_VALUES 256 /* keys a block counts a channel: 8-bit values, or 16-bit bins */
#define GI_HIST_THREADS 512
#define GI_HIST_UNROLL 2
#define GI_HIST_SLOTS(c) ((c) == 1 ? 64 : 32)
#define GI_HIST_SMEM(c) ((size_t)(c) * GI_HIST_VALUES * GI_HIST_SLOTS(c) * 4)

static_assert(GI_HIST_SLOTS(1) * 4 == 256, "one channel: a counter row is 256 bytes (byte_perm address)");
static_assert(GI_HIST_THREADS / GI_WARP % 2 == 0, "warp parity splits the warps evenly");
static_assert(GI_HIST_THREADS >= GI_HIST_VALUES, "one merging thread per value");

/* ---------------------------------------------------------------- compare */

/* compare: GI_COMPARE_STATS_THREADS per row for the integer measures; SSIM
 * tiles of GI_SSIM_TILE_W x GI_SSIM_TILE_H pixels of one channel, one thread
 * each, a tile row being one warp and one GI_SSIM_SEGMENT. Shared: both
 * images' tile with its halo of GI_SSIM_RADIUS, and five doubles per halo
 * row and tile column (the horizontally filtered e, a, e^2, a^2, e*a). */
#define GI_COMPARE_STATS_THREADS 256
#define GI_SSIM_TILE_W 32
#define GI_SSIM_TILE_H 16
#define GI_SSIM_SMEM                                                                       \
    ((size_t)2 * (GI_SSIM_TILE_H + 2 * GI_SSIM_RADIUS) * (GI_SSIM_TILE_W + 2 * GI_SSIM_RADIUS) + \
     (size_t)5 * 8 * (GI_SSIM_TILE_H + 2 * GI_SSIM_RADIUS) * GI_SSIM_TILE_W)

static_assert(GI_COMPARE_STATS_THREADS % GI_WARP == 0 &&
                  (GI_COMPARE_STATS_THREADS & (GI_COMPARE_STATS_THREADS - 1)) == 0,
              "the row reduction halves a power of two");

#endif
