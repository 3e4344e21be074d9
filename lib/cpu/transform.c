/* CPU transpose, rotations and flips: exact pixel permutations.
 *
 * Every one of them reads source pixel (sx, sy) = an affine map of output
 * (x, y), so the source byte address is origin + x * dx + y * dy for two
 * constant steps. Output is walked in square tiles whose source pixels fit
 * in L2 together with the output tile, and the pixel copy is specialised
 * for each channel count, so a pixel moves as one load and one store;
 * transposes and quarter turns of 1-, 2-, 4- and 8-byte pixels move
 * blocks in registers. Where the CPU has AVX-512, the blocks of 1- and
 * 2-byte pixels are line blocks: 16 bytes of each of 64 / n source rows
 * (n = 16 / pb) become n output rows of 64 bytes, each written by one
 * store, a whole cache line (line_block). Elsewhere they are squares of
 * 16x16 bytes (8x8 2-byte pixels), and 4- and 8-byte pixels move in
 * blocks whose rows are whole cache lines both ways (16x16 4-byte and
 * 8x8 8-byte ones). On the 2-core Zen 4, 3840x2400 on 2 threads, the line
 * blocks took 8-bit gray 1.18 -> 0.87 ms and 16-bit gray 2.29 -> 1.90
 * against the squares; blocks that also read whole source lines (32x32
 * 2-byte pixels, 16-byte vectors or 64-byte loads) took 1.4-2.3 times
 * as long as the squares there. On the H200 machine's Xeon 16-bit gray
 * took 2.23 -> 1.84 ms on 2 threads and 0.42 alike on 16. Line blocks of
 * 4- and 8-byte pixels, faster on the Zen 4, were slower there on 16
 * threads (8-bit RGBA 0.55 -> 0.72 ms, 16-bit RGBA 1.33 -> 1.59).
 * Neither prefetching along the source rows nor streaming stores past the
 * caches were kept: both helped on Zen 4 and cost the Xeon of the H200
 * machine (streamed, a 16-bit RGBA transpose of 3840x2400 on 16 threads
 * took 5 ms instead of 1.4). With AVX-512's byte permutes, 3- and 6-byte
 * pixels (RGB at 8 and 16 bits) move in padded blocks (padded_block);
 * elsewhere a pixel at a time. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"
#include "base/cpu_isa.h"

#if defined(__x86_64__) && defined(__GNUC__) /* as cpu_isa.c: AVX-512 is asked of the CPU there */
#define HAVE_LINE_BLOCKS 1
#include <immintrin.h>
#else
#define HAVE_LINE_BLOCKS 0
#endif

/* Tiles of 256x256 pixels, and 512x512 for the gray turns' blocks. With
 * small tiles (64 bytes a row: 64 gray pixels, 21 RGB) a row of tiles
 * read one line of each of thousands of source rows, each on its own
 * page: 3840x2400, one thread, alternated on a loaded machine, gray
 * transpose 5.0 ms -> 1.0-1.3 (128: 1.8-2.2, 256: 1.8), 3 channels
 * 35-36 -> 21-30, 4 channels 32-44 -> 30-37. */
#define TILE 256
#define GRAY_TILE 512


typedef struct {
    const gi_image *src;
    gi_image *dst;
    const uint8_t *origin; /* the source of output (0, 0) */
    ptrdiff_t dx, dy;      /* source bytes per output column, per output row */
} transform_job;

/* A pixel's bytes: the permutations move whole pixels, so a 16-bit pixel
 * of c channels moves as an 8-bit one of 2c bytes would. */
static int pixel_bytes(const gi_image *img)
{
    return img->channels * gi_image_sample_bytes(img);
}

/* The source steps of each transform, from the formulas in gpuimg.h. */
static void source_map(transform_job *j, gi_transform t)
{
    const gi_image *s = j->src;
    const ptrdiff_t ch = pixel_bytes(s), row = (ptrdiff_t)s->stride;
    const ptrdiff_t last_row = (ptrdiff_t)(s->height - 1) * row, last_col = (s->width - 1) * ch;
    switch (t) {
    case GI_TRANSPOSE: j->dx = row, j->dy = ch, j->origin = s->data; break;
    case GI_ROTATE_90: j->dx = -row, j->dy = ch, j->origin = s->data + last_row; break;
    case GI_ROTATE_180: j->dx = -ch, j->dy = -row, j->origin = s->data + last_row + last_col; break;
    case GI_ROTATE_270: j->dx = row, j->dy = -ch, j->origin = s->data + last_col; break;
    case GI_FLIP_H: j->dx = -ch, j->dy = row, j->origin = s->data + last_col; break;
    case GI_FLIP_V: j->dx = ch, j->dy = -row, j->origin = s->data + last_row; break;
    }
}

/* Output rows [y0, y1), columns [x0, x1), a pixel of ch bytes at a time
 * (ch a constant where this is inlined). A 3-byte pixel moves as 4 bytes,
 * and a 6-byte one (16-bit RGB) as 8, one load and one store instead of
 * two each: the next pixel's store, made after it, overwrites the extra
 * bytes. A row's last pixel moves ch, and so does every pixel of a row
 * whose loads could pass the source's last pixel (its ends tell: the
 * source address is linear in x). */
static inline __attribute__((always_inline)) void copy_pixels(const transform_job *j, int y0, int y1,
                                                              int x0, int x1, const int ch)
{
    const gi_image *s = j->src;
    const uint8_t *end = s->data + (size_t)(s->height - 1) * s->stride + (size_t)s->width * ch;
    const int n = x1 - x0;
    for (int y = y0; y < y1; y++) {
        uint8_t *out = j->dst->data + (size_t)y * j->dst->stride + (size_t)x0 * ch;
        const uint8_t *in = j->origin + (ptrdiff_t)y * j->dy + (ptrdiff_t)x0 * j->dx;
        int x = 0;
        const size_t wide = ch == 3 ? 4 : ch == 6 ? 8 : 0;
        if (wide && n > 1) {
            const uint8_t *last = in + (ptrdiff_t)(n - 2) * j->dx;
            if ((last > in ? last : in) + wide <= end)
                for (; x < n - 1; x++) memcpy(out + x * ch, in + x * j->dx, wide);
        }
        for (; x < n; x++) memcpy(out + x * ch, in + x * j->dx, (size_t)ch);
    }
}

/* Blocks move as 16-byte vectors of n = 16 / pb pixels. A transpose of n
 * such rows in registers interleaves row i with row i + n / 2 (the pixels
 * of rows 2i and 2i + 1 come from the low and high halves), which moves
 * one bit of the row index into the column index; log2(n) rounds move
 * them all. 64 byte interleaves (SSE2 punpck, NEON zip) for 16x16 bytes;
 * 2 unpacks a vector for 4-byte pixels, 1 for 8-byte ones. */
typedef uint8_t bytes16 __attribute__((vector_size(16)));
typedef uint16_t words8 __attribute__((vector_size(16)));
typedef uint32_t dwords4 __attribute__((vector_size(16)));
typedef uint64_t qwords2 __attribute__((vector_size(16)));

/* The pb-byte lanes of a and b interleaved: their low halves (high = 0)
 * or their high halves. */
static inline __attribute__((always_inline)) bytes16 interleave(bytes16 a, bytes16 b, const int pb,
                                                                const int high)
{
    switch (pb) {
    case 1:
        return high ? GI_SHUFFLE(a, b, bytes16, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31)
                    : GI_SHUFFLE(a, b, bytes16, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    case 2:
        return (bytes16)(high ? GI_SHUFFLE((words8)a, (words8)b, words8, 4, 12, 5, 13, 6, 14, 7, 15)
                              : GI_SHUFFLE((words8)a, (words8)b, words8, 0, 8, 1, 9, 2, 10, 3, 11));
    case 4:
        return (bytes16)(high ? GI_SHUFFLE((dwords4)a, (dwords4)b, dwords4, 2, 6, 3, 7)
                              : GI_SHUFFLE((dwords4)a, (dwords4)b, dwords4, 0, 4, 1, 5));
    default:
        return (bytes16)(high ? GI_SHUFFLE((qwords2)a, (qwords2)b, qwords2, 1, 3)
                              : GI_SHUFFLE((qwords2)a, (qwords2)b, qwords2, 0, 2));
    }
}

/* n = 16 / pb rows of 16 bytes transposed in registers: lane c of v[r]
 * becomes lane r of v[c]. */
static inline __attribute__((always_inline)) void transpose_vectors(bytes16 *v, const int pb)
{
    /* unrolled and copied a row at a time, so that the rows stay in
     * registers: GCC kept a loop over the rounds of 2-byte lanes, and
     * copied 4 rows as one 64-byte vector through memory, and the 16-bit
     * gray and 8-bit RGBA transposes took 2-3 times as long */
    const int n = 16 / pb, rounds = pb == 1 ? 4 : pb == 2 ? 3 : pb == 4 ? 2 : 1;
#pragma GCC unroll 4
    for (int round = 0; round < rounds; round++) {
        bytes16 t[16];
#pragma GCC unroll 8
        for (int i = 0; i < n / 2; i++) {
            t[2 * i] = interleave(v[i], v[i + n / 2], pb, 0);
            t[2 * i + 1] = interleave(v[i], v[i + n / 2], pb, 1);
        }
#pragma GCC unroll 16
        for (int i = 0; i < n; i++) v[i] = t[i];
    }
}

/* The side of a block of pb-byte pixels: a vector's pixels for 1- and
 * 2-byte ones; BLOCK_BYTES / pb for larger ones, so that a block's source
 * rows and output rows are whole cache lines. Blocks of 4x4 (a vector's
 * 4-byte pixels, two vectors of 8-byte ones) wrote a quarter or half of a
 * line at a time: 8-bit RGBA took 1.5-1.7 times as long on the Xeons of
 * the 2-core machine and the H200 machine (2 and 16 threads), 16-bit
 * gray and alpha as much; 16-bit RGBA moved alike, and blocks of 128-byte
 * rows were slower. */
#define BLOCK_BYTES 64
static inline __attribute__((always_inline)) int block_side(const int pb)
{
    return pb <= 2 ? 16 / pb : BLOCK_BYTES / pb;
}

/* Output rows y .. y + n - 1, columns x .. x + n - 1 (n = block_side) of
 * a transpose or quarter turn of pb-byte pixels (pb a constant where this
 * is inlined): output column x + r is n contiguous source pixels (dy =
 * pb), or the same backwards (dy = -pb: loaded from its low end, and the
 * transposed rows stored bottom up). The block moves as squares of a
 * vector's pixels (sub = 16 / pb), each transposed in registers: square
 * (i, k) of the source (rows i sub .., vector k of each) is square (k, i)
 * of the output. */
static inline __attribute__((always_inline)) void transpose_block(const transform_job *j, int x, int y,
                                                                  const int pb)
{
    const int n = block_side(pb), sub = 16 / pb, w = n / sub, back = j->dy < 0;
    const ptrdiff_t stride = (ptrdiff_t)j->dst->stride, step = back ? -stride : stride;
    const uint8_t *in = j->origin + (ptrdiff_t)x * j->dx + (ptrdiff_t)y * j->dy - (back ? (n - 1) * pb : 0);
    uint8_t *out = j->dst->data + (size_t)(y + (back ? n - 1 : 0)) * (size_t)stride + (size_t)x * pb;
    for (int k = 0; k < w; k++)
        for (int i = 0; i < w; i++) {
            bytes16 v[16];
            for (int r = 0; r < sub; r++) memcpy(&v[r], in + (i * sub + r) * j->dx + 16 * k, 16);
            transpose_vectors(v, pb);
            for (int c = 0; c < sub; c++) memcpy(out + (k * sub + c) * step + 16 * i, &v[c], 16);
        }
}

/* A tile of a transpose or quarter turn (source columns are output rows)
 * of pb-byte pixels: blocks in registers (16-bit gray took 2.5 times as
 * long as 8-bit gray a pixel at a time, RGBA three times as long as in
 * blocks); the edges that are not whole blocks a pixel at a time. */
static inline __attribute__((always_inline)) void transpose_tile(const transform_job *j, int y0, int y1,
                                                                 int x0, int x1, const int pb)
{
    const int n = block_side(pb);
    const int yb = y0 + (y1 - y0) / n * n, xb = x0 + (x1 - x0) / n * n;
    for (int y = y0; y < yb; y += n)
        for (int x = x0; x < xb; x += n) transpose_block(j, x, y, pb);
    copy_pixels(j, y0, yb, xb, x1, pb);
    copy_pixels(j, yb, y1, x0, x1, pb);
}

/* Cloned: AVX's three-operand forms and AVX-512's 32 registers keep a
 * block's rows in registers with fewer copies. */
GI_VECTOR_CLONES
static void transpose_tile_cloned(const transform_job *j, int y0, int y1, int x0, int x1, int pb)
{
    switch (pb) {
    case 1: transpose_tile(j, y0, y1, x0, x1, 1); break;
    case 2: transpose_tile(j, y0, y1, x0, x1, 2); break;
    case 4: transpose_tile(j, y0, y1, x0, x1, 4); break;
    default: transpose_tile(j, y0, y1, x0, x1, 8); break;
    }
}

#if HAVE_LINE_BLOCKS
/* AVX-512: each output row of a block is one 64-byte store, a whole cache
 * line. Vector r holds, in its four 16-byte lanes, the same 16 bytes of
 * source rows r, r + n, r + 2n and r + 3n (n = 16 / pb); the in-register
 * transpose of transpose_vectors, lane by lane (unpacks do not cross
 * lanes), leaves in vector c column c of each lane's n rows: output row
 * c, 4n contiguous pixels. */
#define LINE_TARGET __attribute__((target("avx512f,avx512bw")))

/* The pb-byte lanes of a and b interleaved, their low halves (high = 0)
 * or their high halves: within each 16-byte lane for the line blocks'
 * 1- and 2-byte pixels, across the vector for the padded blocks' 3- and
 * 6-byte ones (padded to 4 and 8 bytes). */
LINE_TARGET static inline __attribute__((always_inline)) __m512i zmm_interleave(__m512i a, __m512i b,
                                                                                const int pb,
                                                                                const int high)
{
    switch (pb) {
    case 1: return high ? _mm512_unpackhi_epi8(a, b) : _mm512_unpacklo_epi8(a, b);
    case 2: return high ? _mm512_unpackhi_epi16(a, b) : _mm512_unpacklo_epi16(a, b);
    case 3:
        return _mm512_permutex2var_epi32(
            a,
            high ? _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8)
                 : _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0),
            b);
    default:
        return _mm512_permutex2var_epi64(a, high ? _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4)
                                                 : _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0),
                                          b);
    }
}

/* transpose_vectors's rounds on n 512-bit rows (16 for 1- and 3-byte
 * pixels, 8 for 2- and 6-byte ones): lane c of v[r] becomes lane r of
 * v[c], within each 16-byte lane for 1 and 2 bytes. */
LINE_TARGET static inline __attribute__((always_inline)) void zmm_transpose(__m512i *v, const int pb)
{
    const int n = pb == 1 || pb == 3 ? 16 : 8, rounds = n == 16 ? 4 : 3;
#pragma GCC unroll 4
    for (int round = 0; round < rounds; round++) {
        __m512i t[16];
#pragma GCC unroll 8
        for (int i = 0; i < n / 2; i++) {
            t[2 * i] = zmm_interleave(v[i], v[i + n / 2], pb, 0);
            t[2 * i + 1] = zmm_interleave(v[i], v[i + n / 2], pb, 1);
        }
#pragma GCC unroll 16
        for (int i = 0; i < n; i++) v[i] = t[i];
    }
}

/* Output rows y .. y + n - 1, columns x .. x + 4n - 1, as transpose_block
 * (dy = -pb: loaded from the low end, stored bottom up). */
LINE_TARGET static inline __attribute__((always_inline)) void line_block(const transform_job *j, int x,
                                                                         int y, const int pb)
{
    const int n = 16 / pb, back = j->dy < 0;
    const ptrdiff_t dx = j->dx, stride = (ptrdiff_t)j->dst->stride, step = back ? -stride : stride;
    const uint8_t *in = j->origin + (ptrdiff_t)x * dx + (ptrdiff_t)y * j->dy - (back ? (n - 1) * pb : 0);
    uint8_t *out = j->dst->data + (size_t)(y + (back ? n - 1 : 0)) * (size_t)stride + (size_t)x * pb;
    __m512i v[16];
#pragma GCC unroll 16
    for (int r = 0; r < n; r++) {
        const uint8_t *p = in + r * dx;
        __m512i a = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)p));
        a = _mm512_inserti32x4(a, _mm_loadu_si128((const __m128i *)(p + n * dx)), 1);
        a = _mm512_inserti32x4(a, _mm_loadu_si128((const __m128i *)(p + 2 * n * dx)), 2);
        v[r] = _mm512_inserti32x4(a, _mm_loadu_si128((const __m128i *)(p + 3 * n * dx)), 3);
    }
    zmm_transpose(v, pb);
#pragma GCC unroll 16
    for (int c = 0; c < n; c++) _mm512_storeu_si512((void *)(out + c * step), v[c]);
}

/* A tile in line blocks; the columns past the last whole one as
 * transpose_tile moves them. */
LINE_TARGET static inline __attribute__((always_inline)) void line_tile(const transform_job *j, int y0,
                                                                        int y1, int x0, int x1,
                                                                        const int pb)
{
    const int n = 16 / pb, yb = y0 + (y1 - y0) / n * n, xb = x0 + (x1 - x0) / (4 * n) * (4 * n);
    for (int y = y0; y < yb; y += n)
        for (int x = x0; x < xb; x += 4 * n) line_block(j, x, y, pb);
    copy_pixels(j, yb, y1, x0, xb, pb);
    transpose_tile(j, y0, y1, xb, x1, pb);
}

/* Line blocks serve 1- and 2-byte pixels (permute_band). */
LINE_TARGET static void line_tile_sized(const transform_job *j, int y0, int y1, int x0, int x1, int pb)
{
    if (pb == 1) line_tile(j, y0, y1, x0, x1, 1);
    else line_tile(j, y0, y1, x0, x1, 2);
}
#endif

#if HAVE_LINE_BLOCKS
/* AVX-512 with VBMI: transposes and quarter turns of 3-byte pixels (RGB)
 * and 6-byte ones (16-bit RGB), which no power-of-two vector lane holds,
 * in blocks of n x n pixels (n = 16 and 8): each source row's 48 bytes
 * are loaded under a mask (nothing past them is read), spread by a byte
 * permute into n lanes of 4 or 8 bytes, transposed in registers as
 * transpose_vectors does, with whole-vector interleaves (vpermt2d,
 * vpermt2q), packed back to 48 bytes and stored under the mask. A pixel
 * at a time, they moved one 4- or 8-byte load and store a pixel. */
#define PADDED_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi")))

/* The byte permutes between n pixels of pb bytes and n lanes of 64 / n */
PADDED_TARGET static inline __attribute__((always_inline)) __m512i padded_index(const int pb,
                                                                                 const int widen)
{
    const int lane = pb == 3 ? 4 : 8;
    uint8_t index[64];
    for (int b = 0; b < 64; b++) {
        if (widen) { /* lane byte b from its pixel's byte (the pad repeats the last) */
            const int k = b % lane;
            index[b] = (uint8_t)(b / lane * pb + (k < pb ? k : pb - 1));
        } else { /* pixel byte b from its lane; bytes 48.. are not stored */
            index[b] = (uint8_t)(b < 16 * 3 ? b / pb * lane + b % pb : 0);
        }
    }
    return _mm512_loadu_si512((const void *)index);
}

/* Output rows y .. y + n - 1, columns x .. x + n - 1, as transpose_block
 * (dy = -pb: loaded from the low end, stored bottom up). */
PADDED_TARGET static inline __attribute__((always_inline)) void padded_block(const transform_job *j, int x,
                                                                            int y, const int pb,
                                                                            __m512i widen, __m512i narrow)
{
    const int n = pb == 3 ? 16 : 8, back = j->dy < 0;
    const __mmask64 row_bytes = (1ull << (16 * 3)) - 1; /* n * pb = 48 */
    const ptrdiff_t dx = j->dx, stride = (ptrdiff_t)j->dst->stride, step = back ? -stride : stride;
    const uint8_t *in = j->origin + (ptrdiff_t)x * dx + (ptrdiff_t)y * j->dy - (back ? (n - 1) * pb : 0);
    uint8_t *out = j->dst->data + (size_t)(y + (back ? n - 1 : 0)) * (size_t)stride + (size_t)x * pb;
    __m512i v[16];
#pragma GCC unroll 16
    for (int r = 0; r < n; r++)
        v[r] = _mm512_permutexvar_epi8(widen, _mm512_maskz_loadu_epi8(row_bytes, in + r * dx));
    zmm_transpose(v, pb);
#pragma GCC unroll 16
    for (int c = 0; c < n; c++)
        _mm512_mask_storeu_epi8(out + c * step, row_bytes, _mm512_permutexvar_epi8(narrow, v[c]));
}

/* A tile in padded blocks; the rows and columns past the last whole one
 * a pixel at a time. */
PADDED_TARGET static inline __attribute__((always_inline)) void padded_tile(const transform_job *j, int y0,
                                                                           int y1, int x0, int x1,
                                                                           const int pb)
{
    const int n = pb == 3 ? 16 : 8, yb = y0 + (y1 - y0) / n * n, xb = x0 + (x1 - x0) / n * n;
    const __m512i widen = padded_index(pb, 1), narrow = padded_index(pb, 0);
    for (int y = y0; y < yb; y += n)
        for (int x = x0; x < xb; x += n) padded_block(j, x, y, pb, widen, narrow);
    copy_pixels(j, y0, yb, xb, x1, pb);
    copy_pixels(j, yb, y1, x0, x1, pb);
}

PADDED_TARGET static void padded_tile_sized(const transform_job *j, int y0, int y1, int x0, int x1, int pb)
{
    if (pb == 3) padded_tile(j, y0, y1, x0, x1, 3);
    else padded_tile(j, y0, y1, x0, x1, 6);
}
#endif

/* Output rows [y0, y1) with ch, the pixel's bytes, a constant where this
 * is inlined. */
static inline __attribute__((always_inline)) void permute_band(const transform_job *j, int y0,
                                                               int y1, const int ch)
{
    /* source columns are output rows, of pixels a 16-byte vector holds whole */
    const int turn = (ch == 1 || ch == 2 || ch == 4 || ch == 8) && (j->dy == ch || j->dy == -ch);
    const int tile = turn && ch <= 2 ? GRAY_TILE : TILE, width = j->dst->width;
    const int lines = HAVE_LINE_BLOCKS && turn && ch <= 2 && gi__cpu_isa() == GI__ISA_AVX512;
    const int padded = HAVE_LINE_BLOCKS && (ch == 3 || ch == 6) && (j->dy == ch || j->dy == -ch) &&
                       gi__cpu_byte_permute();
    for (int ty = y0; ty < y1; ty += tile) {
        const int ty1 = ty + tile < y1 ? ty + tile : y1;
        for (int tx = 0; tx < width; tx += tile) {
            const int tx1 = tx + tile < width ? tx + tile : width;
#if HAVE_LINE_BLOCKS
            if (lines)
                line_tile_sized(j, ty, ty1, tx, tx1, ch);
            else if (padded)
                padded_tile_sized(j, ty, ty1, tx, tx1, ch);
            else
#endif
            if (turn)
                transpose_tile_cloned(j, ty, ty1, tx, tx1, ch);
            else
                copy_pixels(j, ty, ty1, tx, tx1, ch);
        }
    }
}

static int transform_band(void *arg, int y0, int y1)
{
    const transform_job *j = arg;
    switch (pixel_bytes(j->src)) {
    case 1: permute_band(j, y0, y1, 1); break;
    case 2: permute_band(j, y0, y1, 2); break;
    case 3: permute_band(j, y0, y1, 3); break;
    case 4: permute_band(j, y0, y1, 4); break;
    case 6: permute_band(j, y0, y1, 6); break;
    default: permute_band(j, y0, y1, 8); break;
    }
    return 0;
}

gi_status gi__cpu_transform(void *state, const gi_image *src, gi_image *dst, gi_transform t)
{
    transform_job j = {src, dst, src->data, 0, 0};
    source_map(&j, t);
    gi__parallel_rows(gi__cpu_threads_for(state, src, dst, 1), dst->height, transform_band, &j);
    return GI_OK;
}
