/* A blur whose result leaves as a JPEG file (backend.h, jpeg_out), coded
 * as its rows come: each thread blurs its band of MCU rows a few at a
 * time into a buffer of its own and codes them onto its piece of the
 * scan while they are in cache (jpeg_write.h, the scan in pieces).
 * Blurring the whole image and then encoding it wrote 27 MB for a 9 MP
 * photo to memory, faulting in a fresh result buffer, and read it back:
 * 40 photos on 2 cores ran 1.49-1.52 s this way against 1.53-1.55. The
 * bytes are those of the blur and then gi__jpeg_write: the same rows,
 * the same pieces' rules (tests/lib/test_blur_jpeg.c). */
#include <stdlib.h>

#include "blur_rows.h"
#include "base/clock.h"
#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "codec/jpeg/jpeg_write.h"

/* Pixels blurred and coded at a time, about: a few MCU rows, in the L2
 * cache with the blur's rings (blur.c keeps those at half the L2). */
#define CHUNK_BYTES ((size_t)192 << 10)
/* Bands of at least this many MCU rows: each band's start costs the
 * blur's rows above it and the DCs of the MCU before it. */
#define BAND_MIN_ROWS 4

typedef struct {
    const gi__blur *blur;
    const gi_image *src;
    const jpeg_tables *t;
    int mcu, chunk; /* rows of an MCU, and of a chunk (a multiple of mcu) */
    gi_jpeg_piece *pieces; /* each band's, at its first MCU row; the rest empty */
    long long coding_us;   /* the bands' time in the coder, summed (atomic) */
} blur_jpeg;

/* The piece's start: the DCs of the last MCU of MCU row `row` - 1,
 * blurred on its own (a few columns of mcu rows, all inside the image). */
static int start_piece(const blur_jpeg *bj, int row, gi_jpeg_piece *p)
{
    if (row == 0) return gi__jpeg_piece_start(p, bj->t, NULL, 0, 0, 0);
    const int width = bj->src->width, ch = bj->src->channels;
    const int x0 = gi__jpeg_last_mcu_x(width, bj->t), w = width - x0;
    const size_t stride = (size_t)w * (size_t)ch;
    uint8_t *last = malloc(stride * (size_t)bj->mcu);
    gi__blur_rows *r = last ? gi__blur_rows_open(bj->blur, x0, width, (row - 1) * bj->mcu) : NULL;
    int ok = r != NULL;
    if (ok) {
        gi__blur_rows_make(r, row * bj->mcu, last, stride);
        ok = gi__jpeg_piece_start(p, bj->t, last, w, ch, stride);
    }
    gi__blur_rows_close(r);
    free(last);
    return ok;
}

/* MCU rows [r0, r1): blurred a chunk at a time, each chunk coded. */
static int code_band(void *arg, int r0, int r1)
{
    blur_jpeg *bj = arg;
    const gi_image *src = bj->src;
    const size_t stride = (size_t)src->width * (size_t)src->channels;
    const int y0 = r0 * bj->mcu, y1 = (long)r1 * bj->mcu < src->height ? r1 * bj->mcu : src->height;
    gi_jpeg_piece *p = &bj->pieces[r0];
    uint8_t *rows = malloc(stride * (size_t)bj->chunk);
    gi__blur_rows *r = rows ? gi__blur_rows_open(bj->blur, 0, src->width, y0) : NULL;
    int ok = r && start_piece(bj, r0, p);
    double coding_ms = 0;
    for (int y = y0; ok && y < y1; y += bj->chunk) {
        const int end = y1 - y < bj->chunk ? y1 : y + bj->chunk;
        gi__blur_rows_make(r, end, rows, stride);
        const double start = gi__now_ms();
        ok = gi__jpeg_piece_code(p, bj->t, rows, src->width, end - y, src->channels, stride);
        coding_ms += gi__now_ms() - start;
    }
    __atomic_fetch_add(&bj->coding_us, (long long)(coding_ms * 1000), __ATOMIC_RELAXED);
    gi__blur_rows_close(r);
    free(rows);
    return ok ? 0 : -1;
}

gi_status gi__cpu_blur_to_jpeg(void *state, const gi__op_call *c, gi__chain_jpeg_out *out)
{
    const gi_image *src = c->src;
    out->bytes = NULL;
    out->size = 0;
    jpeg_tables t;
    gi__jpeg_write_tables(out->quality, &t);
    const int mcu = gi__jpeg_mcu_side(&t), mcu_rows = (src->height + mcu - 1) / mcu;
    const size_t stride = (size_t)src->width * (size_t)src->channels;
    const size_t per_row = stride * (size_t)mcu;
    int chunk_rows = (int)(CHUNK_BYTES / per_row);
    if (chunk_rows < 1) chunk_rows = 1;
    gi__blur *blur;
    gi_status st = gi__blur_setup(src, NULL, c->weights, c->radius, c->border, &blur);
    if (st != GI_OK) return st;
    blur_jpeg bj = {blur, src, &t, mcu, chunk_rows * mcu, calloc((size_t)mcu_rows, sizeof *bj.pieces), 0};
    int threads = gi__cpu_threads(state), failed = 1;
    if (threads > mcu_rows / BAND_MIN_ROWS) threads = mcu_rows / BAND_MIN_ROWS;
    if (threads < 1) threads = 1;
    if (bj.pieces) failed = gi__parallel_rows(threads, mcu_rows, code_band, &bj);
    const double joined = gi__now_ms();
    /* the bands' pieces, in order, packed: a piece that coded rows holds
     * its buffer (gi__jpeg_piece_code reserves it first) */
    int count = 0;
    for (int r = 0; bj.pieces && r < mcu_rows; r++)
        if (bj.pieces[r].out.data) bj.pieces[count++] = bj.pieces[r];
    if (!failed && gi__jpeg_pieces_file(bj.pieces, count, src->width, src->height, out->quality,
                                        &out->bytes, &out->size) != 0)
        failed = 1;
    /* the bands ran side by side: their coding's share of the wall time,
     * and the file's joining after them */
    out->encode_ms = (double)bj.coding_us / 1000 / threads + (gi__now_ms() - joined);
    for (int k = 0; k < count; k++) gi__jpeg_piece_free(&bj.pieces[k]);
    free(bj.pieces);
    gi__blur_free(blur);
    if (failed) return gi__fail(GI_ERR_NO_MEMORY, "out of memory to blur a %dx%d image into a JPEG",
                                src->width, src->height);
    return GI_OK;
}
