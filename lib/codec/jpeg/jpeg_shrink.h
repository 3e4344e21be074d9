/* JPEG shrink-on-load: a JPEG decoded at 1/s of its size (s = 2, 4, 8)
 * inside the IDCT, as libjpeg's scaled decoding (and so libvips's
 * thumbnail) does: each 8x8 block's top-left Nx x Ny coefficients through
 * an Nx x Ny-point integer IDCT give the block's Nx x Ny samples.
 *
 * The reduced IDCT, with F(u, v) the dequantized coefficient as the full
 * decoder has it ((int16_t)(coefficient * quant)) and A_N the tables below:
 *     g(u, y) = sum_{v < Ny} A_Ny[y][v] * F(u, v)           (int32)
 *     f(x, y) = sum_{u < Nx} A_Nx[x][u] * g(u, y)           (int64)
 *     sample  = clamp(((f + 2^23) >> 24) + 128, 0, 255)
 * where A_N[x][u] = round(2^12 * C(u) * cos((2x + 1) u pi / 2N) / 2), C(0)
 * = 1 / sqrt(2) and C(u) = 1 otherwise: the N-point IDCT scaled so that a
 * block's DC gives its mean, as the 8-point IDCT does.
 * Each component is shrunk so that its samples come out at the image's
 * new size where they can (as libjpeg scales chroma's IDCT): along an
 * axis where the frame's largest sampling factor is m times the
 * component's, N = 8 m / s, taken down to a power of two and at most 8
 * (gi__jpeg_reduced_size). The image is ceil(W / s) x ceil(H / s); output
 * pixel (x, y) reads sample (x s h Nx / (8 hmax), y s v Ny / (8 vmax))
 * (integer division, at most the last defined sample) of each
 * component's reduced plane, and YCbCr turns into RGB by stb's
 * fixed-point formula, as the full decoder's. Gray and YCbCr files whose
 * components are sampled at 1, 1/2 or 1/4 of the largest only (the
 * others decode at full size).
 * Where a component's N is 1 along both axes, its blocks' DC is all the
 * reduced IDCT reads, so a file read for a shrunk image does not decode
 * that component's AC (gi__jpeg_dc_only_components, gi__jpeg_read_coeffs):
 * a progressive file leaves its AC scans out (at 1/8, a 4:2:0 file's luma
 * scans, the most of its data), a baseline scan passes over its AC
 * codes. */
#ifndef GI_JPEG_SHRINK_H
#define GI_JPEG_SHRINK_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"
#include "jpeg_coeffs.h"

/* A_N for N = 8, 4, 2, 1, rows x, columns u; and the one for an N. */
extern const int32_t gi__jpeg_reduced_a8[8][8], gi__jpeg_reduced_a4[4][4],
    gi__jpeg_reduced_a2[2][2], gi__jpeg_reduced_a1[1][1];
const int32_t *gi__jpeg_reduced_table(int n);

/* A row of blocks' reduced IDCT (jpeg_reduced_idct.c): each block 64
 * quantized coefficients (natural order) after the one before, their
 * table, nx x ny samples a block (each 8, 4, 2 or 1), the blocks' side by
 * side into out, rows stride apart. */
void gi__jpeg_reduced_idct_row(const int16_t *coeffs, int blocks, const uint16_t quant[64], int nx,
                               int ny, uint8_t *out, size_t stride);
/* The same at 1 x 1 for a row of blocks stored as their DCs alone, one
 * after the other (a plane of c->dc_only: jpeg_coeffs.h). */
void gi__jpeg_dc_idct_row(const int16_t *dcs, int blocks, const uint16_t quant[64], uint8_t *out);

/* N along an axis sampled at 1/factor of the frame's largest, for shrink s. */
int gi__jpeg_reduced_size(int factor, int s);

/* The largest shrink s of 8, 4, 2 that leaves both sides of a w x h image
 * at least at_least (ceil(w / s) >= at_least and ceil(h / s) >= at_least);
 * 1 when none does. */
int gi__jpeg_shrink_factor(int w, int h, int at_least);

/* Component k's reduced plane for shrink s: nx x ny samples a block, the
 * defined blocks' samples (width x height), and which sample output pixel
 * (x, y) reads: min(x * x_num / x_den, width - 1), likewise for y. */
typedef struct gi_jpeg_reduced_geometry {
    int nx, ny;
    int width, height;
    long x_num, x_den, y_num, y_den;
} gi_jpeg_reduced_geometry;
void gi__jpeg_reduced_geometry(const gi_jpeg_coeffs *c, int k, int s, gi_jpeg_reduced_geometry *g);

/* The components a shrunk image reads (1 or 3), or 0 for a file that is
 * not shrunk (neither gray nor YCbCr, or sampled otherwise than above). */
int gi__jpeg_shrinkable(const gi_jpeg_coeffs *c);

/* The components (bit k: component k) whose planes, shrunk for
 * at_least as gi__jpeg_plan_shrink plans it, read their blocks' DC
 * coefficients alone (1 x 1 samples a block: a component at full
 * sampling shrunk by 8); 0 where the file is not shrunk. Their AC
 * coefficients need not be decoded (gi__jpeg_read_coeffs). */
unsigned gi__jpeg_dc_only_components(const gi_jpeg_coeffs *c, int at_least);

/* Plans shrink-on-load for coefficients decoded at full size (c->shrink):
 * the largest s that keeps both sides at least at_least, where the file
 * is one gi__jpeg_image_shrunk takes; else 0, the file decoded at full
 * size, as gi__jpeg_decode_shrunk decodes such files. at_least is the
 * shrink_to the coefficients were read for (c->read_shrink_to), or they
 * may lack the AC scans the plan reads. */
void gi__jpeg_plan_shrink(gi_jpeg_coeffs *c, int at_least);

/* Whether the planes stored as their DCs alone (block_len 1) are read
 * for their DC alone by an image shrunk by s (1: at full size, which
 * reads every coefficient): 1 x 1 samples a block. Where it is not so,
 * the coefficients cannot make that image. (Inline: the CUDA module
 * checks it too, through the host's functions it calls.) */
static inline int gi__jpeg_dc_planes_fit(const gi_jpeg_coeffs *c, int s)
{
    for (int k = 0; k < c->ncomp; k++) {
        if (c->plane[k].block_len != 1) continue;
        gi_jpeg_reduced_geometry g;
        if (s <= 1 || k >= gi__jpeg_shrinkable(c)) return 0;
        gi__jpeg_reduced_geometry(c, k, s, &g);
        if (g.nx != 1 || g.ny != 1) return 0;
    }
    return 1;
}

/* The image of c's coefficients shrunk by s (2, 4 or 8) into *img (owned,
 * c->out_channels channels), on up to `threads` threads (the same bytes on
 * any number): returns 1; or 0 with *img untouched when the file is not
 * one of those above, or memory ran out. */
int gi__jpeg_image_shrunk(gi_image *img, const gi_jpeg_coeffs *c, int s, int threads);

/* The file decoded for shrink_to = at_least (gi_load_limits): shrunk by
 * the largest s that keeps both sides at least at_least, or at full size
 * where none does; a single-scan baseline file reduced as its entropy
 * decoding goes. Returns 1 with *img made; 0 with *img untouched when the
 * file is to be decoded as ever (not one of those above, not the exact
 * decoder's, a full-size baseline file, or memory ran out). */
int gi__jpeg_decode_shrunk(gi_image *img, const uint8_t *bytes, size_t size, uint64_t max_pixels,
                           int threads, int at_least);

#endif
