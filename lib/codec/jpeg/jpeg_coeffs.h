/* The boundary between the exact JPEG decoder's two halves.
 *
 * The entropy half (serial per file, on the codec workers) parses the
 * markers and Huffman-decodes every scan into the quantized coefficients
 * below. The arithmetic half (dequantize, IDCT, chroma upsampling, colour
 * conversion) turns them into stb_image 2.27's very pixels, on the CPU or,
 * later, on the GPU: so the layout is one flat allocation of int16 blocks
 * that a backend copies in one transfer, with each component's blocks in
 * rows of the MCU grid.
 *
 * Coefficients are stored quantized (not multiplied by the table) and in
 * natural order (row-major 8x8, not zigzag). stb multiplies in 16 bits
 * (baseline while decoding, progressive at the end); since truncation to
 * 16 bits commutes with multiplication, the arithmetic half's
 * (int16_t)(coef * quant) gives stb's value either way. */
#ifndef GI_JPEG_COEFFS_H
#define GI_JPEG_COEFFS_H

#include <stddef.h>
#include <stdint.h>

#define GI_JPEG_MAX_COMPONENTS 4

/* The arithmetic half's per-sample definitions (jpeg_recon_idct.h,
 * jpeg_recon_plan.h) run in the GPU's kernels too. */
#ifdef __CUDACC__
#define GI_JPEG_HOST_DEVICE __host__ __device__
#else
#define GI_JPEG_HOST_DEVICE
#endif

typedef struct gi_jpeg_plane {
    int id;             /* the frame's component identifier */
    int h, v;           /* sampling factors, 1..4 */
    int tq;             /* quantization table, 0..3 */
    int width, height;  /* samples: ceil(W * h / hmax), ceil(H * v / vmax) */
    int blocks_w;       /* blocks a row holds: mcus_x * h (the MCU grid's) */
    int blocks_h;       /* block rows: mcus_y * v */
    size_t offset;      /* where its blocks start in storage, in int16s (storage may
                           be NULL: a deferred scan's coefficients are made elsewhere) */
    int block_len;      /* the int16s a block takes in storage: 64; or 1, its DC alone,
                           where the plane is read for its DC alone (c->dc_only) */
    int16_t *coeffs;    /* storage + offset; block (bx, by) at
                           coeffs + block_len * ((size_t)by * blocks_w + bx);
                           the blocks that hold samples, (width + 7) / 8 by
                           (height + 7) / 8 of them, are defined; the rest of the
                           MCU grid is zero (progressive) or undefined (baseline) */
    int ring_rows;      /* 0; or, in the pipelined decode's ring (jpeg_progress.h),
                           the block rows kept: block row by at by % ring_rows */
} gi_jpeg_plane;

/* The first block of block row by. */
static inline int16_t *gi__jpeg_block_row(const gi_jpeg_plane *p, int by)
{
    return p->coeffs +
           (size_t)p->block_len * (size_t)(p->ring_rows ? by % p->ring_rows : by) * (size_t)p->blocks_w;
}

typedef struct gi_jpeg_coeffs {
    int width, height;  /* the frame's, in pixels */
    int ncomp;          /* 1, 3 or 4 */
    int hmax, vmax;     /* largest sampling factors */
    int mcus_x, mcus_y; /* the MCU grid: ceil(W / (8 hmax)), ceil(H / (8 vmax)) */
    int progressive;
    int jfif;           /* a JFIF APP0 segment was seen */
    int adobe_transform; /* the APP14 Adobe transform byte, or -1 without one */
    int out_channels;   /* what stb reports and gpuimg requests: 1 (gray) or 3 */
    uint16_t quant[4][64]; /* natural order, as each table stands when the planes are
                              reconstructed */
    gi_jpeg_plane plane[GI_JPEG_MAX_COMPONENTS];
    int16_t *storage;   /* the one allocation every plane's coeffs point into (the
                           planes of 64 int16s a block first, those of DCs alone after
                           them); NULL while the scan is deferred */
    size_t storage_bytes; /* its size, deferred or not (before the first scan: every
                             plane's blocks of 64) */
    uint64_t *ac_nonzero; /* while a progressive frame's scans are decoded: for each block
                             of 64 in storage (block i at storage + 64 i), which of its AC
                             coefficients are not 0, bit k for zigzag position k; NULL
                             otherwise */
    struct gi_jpeg_deferred *deferred; /* NULL; or the file's scans, not yet
                                          Huffman-decoded (jpeg_deferred.h) */
    int read_shrink_to; /* the shrink_to gi__jpeg_read_coeffs read the file for: the
                           AC coefficients of components a shrunk image reads only
                           the DC of are not decoded (0: every coefficient is) */
    unsigned dc_only;   /* those components (bit k: plane k): nothing reads their AC
                           coefficients, and in storage the host decoded their blocks
                           hold their DC alone (block_len 1; scans deferred to the device
                           keep blocks of 64). A single-file progressive thumbnail had
                           faulted in a whole frame's blocks of 64 to set their DCs */
    int shrink;         /* 0: the arithmetic half makes the frame's pixels; 2, 4 or 8:
                           the image shrunk by that much on load (jpeg_shrink.h), set by
                           gi__jpeg_plan_shrink */
} gi_jpeg_coeffs;

/* Whether c holds a decoded JPEG's coefficients, or its deferred scans. */
static inline int gi__jpeg_coeffs_present(const gi_jpeg_coeffs *c)
{
    return c->storage != NULL || c->deferred != NULL;
}

/* The size of the image the arithmetic half makes of c: the frame's, or
 * ceil(W / shrink) x ceil(H / shrink). */
static inline void gi__jpeg_output_size(const gi_jpeg_coeffs *c, int *w, int *h)
{
    const int s = c->shrink > 1 ? c->shrink : 1;
    *w = (c->width + s - 1) / s;
    *h = (c->height + s - 1) / s;
}

/* Frees the coefficients' storage (and deferred scans) and clears the struct. */
void gi__jpeg_coeffs_free(gi_jpeg_coeffs *c);

#endif
