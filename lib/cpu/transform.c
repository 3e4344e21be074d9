/* CPU transpose, rotations and flips: exact pixel permutations.
 *
 * Every one of them reads source pixel (sx, sy) = an affine map of output
 * (x, y), so the source byte address is origin + x * dx + y * dy for two
 * constant steps. Output is walked in square tiles whose source pixels fit
 * in L2 together with the output tile, and the pixel copy is specialised
 * for each channel count, so a pixel moves as one load and one store;
 * gray transposes and quarter turns move 16x16 blocks in registers (8x8
 * of 2-byte pixels). */
#include <stddef.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

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

typedef uint8_t bytes16 __attribute__((vector_size(16)));

/* A 16x16 block of bytes transposed in registers: byte c of v[r] becomes
 * byte r of v[c]. Each round interleaves row i with row i + 8 (the
 * bytes of rows 2i and 2i + 1 come from the low and high halves), which
 * moves one bit of the row index into the column index; four rounds
 * move all four. 64 byte interleaves (SSE2 punpck, NEON zip) for 256
 * bytes. */
static inline __attribute__((always_inline)) void transpose16(bytes16 v[16])
{
    for (int round = 0; round < 4; round++) {
        bytes16 t[16];
        for (int i = 0; i < 8; i++) {
            t[2 * i] = GI_SHUFFLE(v[i], v[i + 8], bytes16, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22,
                                  7, 23);
            t[2 * i + 1] = GI_SHUFFLE(v[i], v[i + 8], bytes16, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29,
                                      14, 30, 15, 31);
        }
        memcpy(v, t, sizeof t);
    }
}

/* Output rows y .. y + 15, columns x .. x + 15 of a gray transpose or
 * quarter turn: output column x + r is 16 contiguous source bytes (dy =
 * 1), or the same backwards (dy = -1: loaded from its low end, and the
 * transposed rows stored bottom up). */
static inline __attribute__((always_inline)) void transpose_block(const transform_job *j, int x, int y)
{
    const int back = j->dy < 0;
    const ptrdiff_t stride = (ptrdiff_t)j->dst->stride, step = back ? -stride : stride;
    const uint8_t *in = j->origin + (ptrdiff_t)x * j->dx + (ptrdiff_t)y * j->dy - (back ? 15 : 0);
    uint8_t *out = j->dst->data + (size_t)(y + (back ? 15 : 0)) * (size_t)stride + (size_t)x;
    bytes16 v[16];
    for (int r = 0; r < 16; r++) memcpy(&v[r], in + r * j->dx, 16);
    transpose16(v);
    for (int c = 0; c < 16; c++) memcpy(out + c * step, &v[c], 16);
}

typedef uint16_t words8 __attribute__((vector_size(16)));

/* An 8x8 block of 2-byte pixels transposed in registers, as transpose16
 * does bytes: three rounds of word interleaves, each moving one bit of the
 * row index into the column index. */
static inline __attribute__((always_inline)) void transpose8(words8 v[8])
{
    for (int round = 0; round < 3; round++) {
        words8 t[8];
        for (int i = 0; i < 4; i++) {
            t[2 * i] = GI_SHUFFLE(v[i], v[i + 4], words8, 0, 8, 1, 9, 2, 10, 3, 11);
            t[2 * i + 1] = GI_SHUFFLE(v[i], v[i + 4], words8, 4, 12, 5, 13, 6, 14, 7, 15);
        }
        memcpy(v, t, sizeof t);
    }
}

/* Output rows y .. y + 7, columns x .. x + 7 of a transpose or quarter
 * turn of 2-byte pixels (16-bit gray, 8-bit gray and alpha), as
 * transpose_block: dy = 2 or -2. */
static inline __attribute__((always_inline)) void transpose_block2(const transform_job *j, int x, int y)
{
    const int back = j->dy < 0;
    const ptrdiff_t stride = (ptrdiff_t)j->dst->stride, step = back ? -stride : stride;
    const uint8_t *in = j->origin + (ptrdiff_t)x * j->dx + (ptrdiff_t)y * j->dy - (back ? 14 : 0);
    uint8_t *out = j->dst->data + (size_t)(y + (back ? 7 : 0)) * (size_t)stride + (size_t)x * 2;
    words8 v[8];
    for (int r = 0; r < 8; r++) memcpy(&v[r], in + r * j->dx, 16);
    transpose8(v);
    for (int c = 0; c < 8; c++) memcpy(out + c * step, &v[c], 16);
}

/* A tile of a gray transpose or quarter turn (source columns are output
 * rows): 16x16 blocks in registers, a byte at a time 9 times slower;
 * the edges that are not whole blocks a pixel at a time. Cloned: AVX's
 * three-operand forms and AVX-512's 32 registers keep the 16 rows in
 * registers with fewer copies. */
GI_VECTOR_CLONES
static void transpose_gray(const transform_job *j, int y0, int y1, int x0, int x1)
{
    const int yb = y0 + (y1 - y0) / 16 * 16, xb = x0 + (x1 - x0) / 16 * 16;
    for (int y = y0; y < yb; y += 16)
        for (int x = x0; x < xb; x += 16) transpose_block(j, x, y);
    copy_pixels(j, y0, yb, xb, x1, 1);
    copy_pixels(j, yb, y1, x0, x1, 1);
}

/* The same for 2-byte pixels, in 8x8 blocks (a pixel at a time, 16-bit
 * gray took 2.5 times as long as 8-bit gray). */
GI_VECTOR_CLONES
static void transpose_gray2(const transform_job *j, int y0, int y1, int x0, int x1)
{
    const int yb = y0 + (y1 - y0) / 8 * 8, xb = x0 + (x1 - x0) / 8 * 8;
    for (int y = y0; y < yb; y += 8)
        for (int x = x0; x < xb; x += 8) transpose_block2(j, x, y);
    copy_pixels(j, y0, yb, xb, x1, 2);
    copy_pixels(j, yb, y1, x0, x1, 2);
}

/* Output rows [y0, y1) with ch, the pixel's bytes, a constant where this
 * is inlined. */
static inline __attribute__((always_inline)) void permute_band(const transform_job *j, int y0,
                                                               int y1, const int ch)
{
    /* source columns are output rows, of 1- or 2-byte pixels */
    const int gray_turn = (ch == 1 || ch == 2) && (j->dy == ch || j->dy == -ch);
    const int tile = gray_turn ? GRAY_TILE : TILE, width = j->dst->width;
    for (int ty = y0; ty < y1; ty += tile) {
        const int ty1 = ty + tile < y1 ? ty + tile : y1;
        for (int tx = 0; tx < width; tx += tile) {
            const int tx1 = tx + tile < width ? tx + tile : width;
            if (gray_turn && ch == 1)
                transpose_gray(j, ty, ty1, tx, tx1);
            else if (gray_turn)
                transpose_gray2(j, ty, ty1, tx, tx1);
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
    gi__parallel_rows(gi__cpu_threads(state), dst->height, transform_band, &j);
    return GI_OK;
}
