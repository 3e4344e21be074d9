/* Launchers for the CUDA kernels, callable from C.
 *
 * Every launcher takes device pointers with a row pitch in bytes, queues its
 * work on `stream` and returns the launch's cudaError_t (the last error is
 * read and cleared after every launch). Launchers never print, exit,
 * allocate or synchronize. Results are defined in lib/gpuimg.h and match the
 * CPU backend byte for byte. */
#ifndef GI_KERNELS_H
#define GI_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaSuccess when this build's kernels load on the current device; an
 * error such as cudaErrorNoKernelImageForDevice when the GPU or the driver
 * cannot run them. */
cudaError_t gi_cuda_kernels_probe(void);

/* Launchers that take `depth` (8 or 16) work on images of that many bits
 * a sample: 16-bit samples are uint16 in host byte order, pitches still in
 * bytes, results as gpuimg.h defines them at 16 bits; border_value is the
 * 8-bit border value (an outside 16-bit sample is border_value * 257). */

/* Scratch bytes gi_cuda_blur needs in device memory for this size. */
size_t gi_cuda_blur_scratch_bytes(int width, int height, int channels, int radius, int depth);

/* weights: host array of 2*radius+1 integers summing to 65536.
 * border_mode: a gi_border_mode value. */
cudaError_t gi_cuda_blur(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                         size_t dst_pitch, int width, int height, int channels, int depth,
                         const int32_t *weights, int radius, int border_mode,
                         int border_value, void *scratch, size_t scratch_bytes,
                         cudaStream_t stream);

/* dst has 1 channel when gray is set, else `channels`; threshold in the
 * depth's units. */
cudaError_t gi_cuda_sobel(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                          size_t dst_pitch, int width, int height, int channels, int depth,
                          double scale, int use_threshold, double threshold,
                          int gray, int border_mode, int border_value,
                          cudaStream_t stream);

/* transform: a gi_transform value; width/height are the source's. */
cudaError_t gi_cuda_transform(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                              size_t dst_pitch, int width, int height, int channels,
                              int depth, int transform, cudaStream_t stream);

/* Per-channel histogram (gpuimg.h): bin = v * bins / 256 at 8 bits (bins
 * 1..256), v * bins / 65536 at 16 (bins 1..65536). counts: device array
 * of channels * bins unsigned long long, zeroed by the launcher; channel
 * c's bin b lands at counts[c * bins + b]. */
cudaError_t gi_cuda_hist(const uint8_t *src, size_t src_pitch, int width, int height,
                         int channels, int depth, int bins, unsigned long long *counts,
                         cudaStream_t stream);

/* Correlation with an odd mask (gpuimg.h, convolve): q is a host array of
 * mask_h rows of mask_w integers (odd, 1..31), shift 0..30; out =
 * clamp((sum q * v + (shift ? 1 << (shift - 1) : 0)) >> shift, 0, top) for
 * every channel, alpha included, top 255 or 65535. q as
 * gi_convolve_quantize_depth makes it for the depth: 255 * sum |q| <= 2^30
 * at 8 bits (int32 sums), 65535 * sum |q| <= 2^52 at 16 (int64 sums), so
 * the sums cannot overflow. border_mode: a gi_border_mode value. */
cudaError_t gi_cuda_convolve(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                             size_t dst_pitch, int width, int height, int channels, int depth,
                             const int32_t *q, int mask_w, int mask_h, int shift,
                             int border_mode, int border_value, cudaStream_t stream);

/* Resampling (gpuimg.h, resize) from an image in_h rows high to out_w x
 * out_h: each axis's weights (gi_resize_axis: first, count, q with `taps`
 * a position) in device memory; h: device scratch of in_h * out_w *
 * channels sums for the rows' pass, int32 at 8 bits, int64 at 16. */
cudaError_t gi_cuda_resize(const uint8_t *src, size_t src_pitch, uint8_t *dst,
                           size_t dst_pitch, int in_h, int out_w, int out_h, int channels,
                           int depth, const int32_t *first_x, const int32_t *count_x,
                           const int32_t *q_x, int taps_x, const int32_t *first_y,
                           const int32_t *count_y, const int32_t *q_y, int taps_y, void *h,
                           cudaStream_t stream);

/* Comparison (gpuimg.h, compare) of images of `depth` bits. row_stats: the integer measures of row y
 * land in rows[y] (device, height entries), written by one block each.
 * With weights (host, 2 * GI_SSIM_RADIUS + 1 doubles) SSIM too: for
 * channel c and each row y in [y0, y1), row_ssim[c * height + y] (device)
 * gets the sum of S over columns [x0, x1) in gpuimg.h's order; scratch
 * holds gi_cuda_compare_scratch_bytes(width, ...) bytes of segment sums. */
typedef struct gi_cuda_compare_row {
    unsigned long long sum_abs, sum_sq;
    unsigned int different_pixels;
    unsigned short max_abs[4];
} gi_cuda_compare_row;
size_t gi_cuda_compare_scratch_bytes(int width, int height, int channels);
cudaError_t gi_cuda_compare(const uint8_t *e, size_t e_pitch, const uint8_t *a, size_t a_pitch,
                            int width, int height, int channels, int tolerance,
                            const double *weights, double c1, double c2, int x0, int x1, int y0,
                            int y1, gi_cuda_compare_row *rows, double *row_ssim, void *scratch,
                            size_t scratch_bytes, int depth, cudaStream_t stream);

/* The exact JPEG decoder's arithmetic half (lib/codec/jpeg/jpeg_reconstruct.h,
 * whose CPU version these match byte for byte). */
typedef struct gi_cuda_jpeg_quant {
    uint16_t q[64]; /* natural order */
} gi_cuda_jpeg_quant;

/* One component's IDCT output as the colour pass reads it. */
typedef struct gi_cuda_jpeg_component {
    const uint8_t *plane; /* device: height rows of at least width samples */
    size_t pitch;
    int width, height;    /* the component's samples (jpeg_coeffs.h) */
    int hs, vs;           /* hmax / h, vmax / v */
    int up;               /* a gi_jpeg_upsampler (jpeg_recon_plan.h) */
} gi_cuda_jpeg_component;

typedef struct gi_cuda_jpeg_frame {
    int width, height, out_channels; /* the output: 1 or 3 channels */
    int mode;                        /* a gi_jpeg_colour_mode */
    int ncomp_used;
    gi_cuda_jpeg_component comp[4];
} gi_cuda_jpeg_frame;

/* Dequantizes and inverse-transforms the blocks (bx < blocks_x, by <
 * block_rows) of one component's coefficients (device, jpeg_coeffs.h's
 * layout, blocks_w a row) into plane (device; block (bx, by) at row 8 by,
 * column 8 bx; pitch a multiple of 8). */
cudaError_t gi_cuda_jpeg_idct(const int16_t *coeffs, int blocks_w, int blocks_x, int block_rows,
                              const gi_cuda_jpeg_quant *quant, uint8_t *plane, size_t pitch,
                              cudaStream_t stream);

/* Upsamples the planes and converts their colour into dst (device,
 * width x height pixels of out_channels bytes). */
cudaError_t gi_cuda_jpeg_colour(const gi_cuda_jpeg_frame *frame, uint8_t *dst, size_t pitch,
                                cudaStream_t stream);

/* Shrink-on-load (lib/codec/jpeg/jpeg_shrink.h, whose reduced IDCT and
 * sampling these kernels mirror): an N-point IDCT table, A_N[x][u] at
 * a[x * n + u]. */
typedef struct gi_cuda_jpeg_reduced_table {
    int32_t a[64];
    int n; /* 1, 2, 4 or 8 */
} gi_cuda_jpeg_reduced_table;

/* The blocks (bx < blocks_x, by < block_rows) of one component's
 * coefficients, block_len int16s a block (64; 1 for a plane of DCs alone,
 * read at 1 x 1), dequantized, through the nx x ny reduced IDCT into plane
 * (device; block (bx, by) at row ny by, column nx bx). */
cudaError_t gi_cuda_jpeg_reduced_idct(const int16_t *coeffs, int block_len, int blocks_w, int blocks_x,
                                      int block_rows, const gi_cuda_jpeg_quant *quant,
                                      const gi_cuda_jpeg_reduced_table *ax,
                                      const gi_cuda_jpeg_reduced_table *ay, uint8_t *plane,
                                      size_t pitch, cudaStream_t stream);

/* One component's reduced plane as the shrunk image reads it: output pixel
 * (x, y) takes sample (min(x x_num / x_den, width - 1), likewise y). */
typedef struct gi_cuda_jpeg_reduced_component {
    const uint8_t *plane;
    size_t pitch;
    int width, height;
    long long x_num, x_den, y_num, y_den;
} gi_cuda_jpeg_reduced_component;

typedef struct gi_cuda_jpeg_reduced_frame {
    int width, height, out_channels; /* the shrunk image: 1 or 3 channels */
    int ncomp_used;                  /* 1: gray; 3: YCbCr */
    gi_cuda_jpeg_reduced_component comp[3];
} gi_cuda_jpeg_reduced_frame;

/* The shrunk image's pixels from the reduced planes into dst (device). */
cudaError_t gi_cuda_jpeg_reduced_colour(const gi_cuda_jpeg_reduced_frame *frame, uint8_t *dst,
                                        size_t pitch, cudaStream_t stream);

/* The exact JPEG writer (lib/codec/jpeg/jpeg_write.h, whose CPU scan these
 * match byte for byte): a quality's tables as jpeg_scan.h's jpeg_tables
 * holds them, and the zigzag order. */
typedef struct gi_cuda_jpeg_enc_tables {
    float scale[2][64];     /* luma, chroma; natural order */
    uint16_t code[4][256];  /* luma DC, luma AC, chroma DC, chroma AC */
    uint8_t len[4][256];
    uint8_t natural_order[64];
} gi_cuda_jpeg_enc_tables;

/* Blocks in the scan of a width x height image (subsample: 4:2:0). */
long long gi_cuda_jpeg_enc_blocks(int width, int height, int subsample);

/* Device scratch gi_cuda_jpeg_enc_count's sum needs for `blocks` blocks. */
size_t gi_cuda_jpeg_enc_scan_bytes(long long blocks);

/* The float half and the bit counts: coef (64 int16 a block), counts and
 * offsets (blocks + 1 each) in device memory; offsets[b] becomes block b's
 * first bit, offsets[blocks] the scan's length in bits (padding not
 * counted). tables: device memory. */
cudaError_t gi_cuda_jpeg_enc_count(const uint8_t *src, size_t pitch, int width, int height,
                                   int channels, int subsample,
                                   const gi_cuda_jpeg_enc_tables *tables, int16_t *coef,
                                   unsigned long long *counts, unsigned long long *offsets,
                                   void *scan_temp, size_t scan_temp_bytes, cudaStream_t stream);

/* The codes into words (nwords of them, zeroed before: the scan's bits and
 * 7 bits of padding), then the words turned into bytes, most significant
 * first: the scan's entropy-coded bytes before byte stuffing. */
cudaError_t gi_cuda_jpeg_enc_emit(int width, int height, int subsample,
                                  const gi_cuda_jpeg_enc_tables *tables, const int16_t *coef,
                                  const unsigned long long *offsets, uint32_t *words,
                                  size_t nwords, cudaStream_t stream);


/* The exact JPEG decoder's entropy half for one deferred scan, baseline
 * or progressive (lib/codec/jpeg/jpeg_deferred.h, whose upload the pointers
 * point into): Huffman decoding by self-synchronising subsequences, into
 * the coefficients the CPU's decoder gives (jpeg_coeffs.h's layout). A
 * file's scans run in its order over the same coefficients. */
typedef struct gi_cuda_jpeg_scan {
    const void *tables;               /* gi_jpeg_huff[ntables] */
    const uint32_t *segment_start;    /* segments + 1 byte offsets into data */
    const uint32_t *subseq_first;     /* segments + 1 */
    const uint32_t *data;             /* the unstuffed bytes, read as words */
    int kind;                         /* GI_JPEG_BASELINE ... GI_JPEG_AC_REFINE */
    int ss, se, al;                   /* the band; the bit its values start at */
    int ntables, segments;
    unsigned subseqs;                 /* subseq_first[segments] */
    long long units, interval;        /* units of the scan; of a segment */
    int units_x, unit_blocks;
    int sync_blocks;                  /* unit_blocks, or 1 where every block has the same
                                         tables (a thread need not know which block it is in) */
    int one_component;                /* units are blocks of one plane, in its raster order */
    uint8_t comp[10], bx[10], by[10], dc[10], ac[10], dc_slot[10]; /* a unit's blocks */
    long long offset[4];              /* each plane's coefficients (int16s from the start) */
    int blocks_w[4], h[4], v[4];      /* h, v: its blocks in a unit (1, 1 alone) */
    long long dc_first[5];            /* each plane's first DC in the DC arrays; [4]: all */
    uint8_t natural_order[80];        /* jpeg_tables.h's */
} gi_cuda_jpeg_scan;

/* Device scratch (bytes) the decode below needs besides its arrays. */
size_t gi_cuda_jpeg_entropy_temp_bytes(unsigned subseqs, long long dcs);

/* One round of finding where each subsequence's codes start: each
 * decodes from its start in `from` (round 0: a guess) and writes where
 * the next one starts into `to`, counting the blocks it began into counts;
 * sets *changed where a start moved (or, for an AC refinement, a count).
 * Once a round changes nothing, every start is the true one (the first of
 * each segment is known, and each next is decoded from it). An AC
 * refinement's steps depend on the coefficients of its blocks so far
 * (coeffs): each thread's first block comes from base, the exclusive sum
 * of the last round's counts, which it refreshes after the round (temp:
 * gi_cuda_jpeg_entropy_temp_bytes). states: subseqs each. */
cudaError_t gi_cuda_jpeg_entropy_sync(const gi_cuda_jpeg_scan *scan, int round,
                                      const unsigned long long *from, unsigned long long *to,
                                      uint32_t *counts, uint32_t *base, const int16_t *coeffs,
                                      uint32_t *changed, void *temp, size_t temp_bytes,
                                      cudaStream_t stream);

/* From the true starts: the scan's coefficients into coeffs (zeroed before
 * the file's first scan, the earlier scans' since), the DC differences
 * summed within each segment as stb's predictions are, and *bad set
 * (nonzero) where the scan does not decode the CPU's way (a code no table
 * holds, too few bits, bits left over before a marker). Scratch: base
 * (subseqs), dc_diff, dc_key, dc_sum (dc_first[4] each), seg_end
 * (segments), temp (gi_cuda_jpeg_entropy_temp_bytes). */
cudaError_t gi_cuda_jpeg_entropy_write(const gi_cuda_jpeg_scan *scan,
                                       const unsigned long long *starts, const uint32_t *counts,
                                       uint32_t *base, int16_t *coeffs, uint32_t *dc_diff,
                                       uint32_t *dc_key, uint32_t *dc_sum, uint32_t *seg_end,
                                       uint32_t *bad, void *temp, size_t temp_bytes,
                                       cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
