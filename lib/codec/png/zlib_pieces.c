/* One zlib stream compressed in pieces on threads (zlib_pieces.h).
 *
 * A thread compresses a piece into a scratch buffer of its own, walks it
 * (every piece but the last), and keeps it in a buffer of the piece's
 * size, already in its joined form: BFINAL cleared, the bits after its
 * end-of-block zeroed, the empty stored block behind. Threads take pieces
 * in turn from a shared counter; a piece's bytes depend on its data alone.
 * The calling thread then puts the header, the pieces in order and the
 * Adler-32 in one buffer. */
#include "zlib_pieces.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "deflate_walk.h"
#include "base/pixel_alloc.h"
#include "base/share_work.h"

#define MAX_THREADS 64

typedef struct {
    uint8_t *bytes; /* malloc'd, joined form */
    size_t length;
    uint32_t adler;
} piece;

typedef struct {
    const uint8_t *data;
    size_t size, piece_bytes, bound;
    int level, count;
    piece *piece;
    int next, failed; /* atomics */
} job;

/* Piece k's deflate (in scratch, n bytes) in its joined form. */
static int keep_piece(job *j, int k, const uint8_t *scratch, size_t n)
{
    piece *p = &j->piece[k];
    if (k + 1 == j->count) { /* the last keeps its BFINAL */
        p->bytes = malloc(n);
        if (!p->bytes) return 0;
        memcpy(p->bytes, scratch, n);
        p->length = n;
        return 1;
    }
    /* The final block must end in the last byte: libdeflate writes no more. */
    uint64_t final_bit, end_bit;
    if (gi__deflate_walk(scratch, n, &final_bit, &end_bit) != 0 || (end_bit + 7) / 8 != n)
        return 0;
    /* after the end-of-block: an empty stored block, 3 zero bits, zeros to
     * the byte, 00 00 FF FF */
    const size_t head = (size_t)((end_bit + 3 + 7) / 8);
    uint8_t *d = p->bytes = malloc(head + 4);
    if (!d) return 0;
    memcpy(d, scratch, n);
    d[final_bit / 8] &= (uint8_t)~(1u << (final_bit % 8));
    if (end_bit % 8) d[n - 1] &= (uint8_t)((1u << (end_bit % 8)) - 1);
    memset(d + n, 0, head - n);
    memcpy(d + head, "\x00\x00\xff\xff", 4);
    p->length = head + 4;
    return 1;
}

static void compress_pieces(job *j, struct libdeflate_compressor *c)
{
    uint8_t *scratch = malloc(j->bound);
    if (!scratch) return; /* the other threads take its share */
    for (;;) {
        const int k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (k >= j->count || __atomic_load_n(&j->failed, __ATOMIC_RELAXED)) break;
        const size_t at = (size_t)k * j->piece_bytes;
        const size_t n = j->size - at < j->piece_bytes ? j->size - at : j->piece_bytes;
        const size_t z = libdeflate_deflate_compress(c, j->data + at, n, scratch, j->bound);
        j->piece[k].adler = libdeflate_adler32(1, j->data + at, n);
        if (z == 0 || !keep_piece(j, k, scratch, z))
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    }
    free(scratch);
}

static void *worker(void *arg)
{
    job *j = arg;
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(j->level);
    if (c) {
        compress_pieces(j, c);
        libdeflate_free_compressor(c);
    } /* else the other threads take its share */
    return NULL;
}

/* zlib's adler32_combine: the Adler-32 of A then B from theirs and B's
 * length. */
static uint32_t adler_combine(uint32_t a, uint32_t b, size_t len_b)
{
    const uint32_t base = 65521;
    const uint32_t rem = (uint32_t)(len_b % base);
    uint32_t sum1 = a & 0xffff;
    uint32_t sum2 = (uint32_t)(((uint64_t)rem * sum1) % base);
    sum1 += (b & 0xffff) + base - 1;
    sum2 += (a >> 16) + (b >> 16) + base - rem;
    if (sum1 >= base) sum1 -= base;
    if (sum1 >= base) sum1 -= base;
    if (sum2 >= base << 1) sum2 -= base << 1;
    if (sum2 >= base) sum2 -= base;
    return sum2 << 16 | sum1;
}

/* libdeflate_zlib_compress of the whole data, in a buffer of our allocator. */
static uint8_t *one_stream(struct libdeflate_compressor *c, const uint8_t *data, size_t size,
                           size_t *out_size)
{
    const size_t bound = libdeflate_zlib_compress_bound(c, size);
    uint8_t *out = gi__pixels_alloc(bound);
    const size_t n = out ? libdeflate_zlib_compress(c, data, size, out, bound) : 0;
    if (n == 0) {
        gi__pixels_free(out);
        return NULL;
    }
    *out_size = n;
    return out;
}

uint8_t *gi__zlib_compress_pieces(const uint8_t *data, size_t size, int level, int threads,
                                  size_t piece_bytes, size_t *out_size, int *joined)
{
    int dummy;
    if (!joined) joined = &dummy;
    *joined = 0;
    *out_size = 0;
    level = level < 1 ? 1 : level > 12 ? 12 : level;
    if (piece_bytes == 0) piece_bytes = GI_ZLIB_PIECE_BYTES;
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    if (!c) return NULL;
    const size_t count = size <= piece_bytes ? 1 : (size - 1) / piece_bytes + 1;
    job j = {.data = data, .size = size, .piece_bytes = piece_bytes, .level = level,
             .count = (int)count, .bound = libdeflate_deflate_compress_bound(c, piece_bytes)};
    if (count > 1 && count < (size_t)1 << 30) j.piece = calloc(count, sizeof *j.piece);
    if (!j.piece) { /* one piece, or no memory for the pieces */
        uint8_t *out = one_stream(c, data, size, out_size);
        libdeflate_free_compressor(c);
        return out;
    }

    /* each thread with a compressor of its own, the calling thread's too
     * (c makes the header below) */
    int sharing = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    if ((size_t)sharing > count) sharing = (int)count;
    gi__share_work(sharing, worker, &j);

    /* Every piece done (a thread without memory leaves its share to the
     * others; when none could take it, the count is short). */
    size_t total = 2 + 4;
    for (size_t k = 0; k < count; k++) {
        if (!j.piece[k].bytes) j.failed = 1;
        total += j.piece[k].length;
    }
    uint8_t *out = NULL, header[16];
    /* the header libdeflate_zlib_compress writes at this level */
    if (!j.failed && libdeflate_zlib_compress(c, "", 0, header, sizeof header) >= 2)
        out = gi__pixels_alloc(total);
    if (out) {
        memcpy(out, header, 2);
        size_t w = 2;
        uint32_t adler = 1;
        for (size_t k = 0; k < count; k++) {
            memcpy(out + w, j.piece[k].bytes, j.piece[k].length);
            w += j.piece[k].length;
            const size_t n = k + 1 < count ? piece_bytes : size - k * piece_bytes;
            adler = k ? adler_combine(adler, j.piece[k].adler, n) : j.piece[k].adler;
        }
        for (int i = 0; i < 4; i++) out[w + (size_t)i] = (uint8_t)(adler >> (24 - 8 * i));
        *out_size = total;
        *joined = 1;
    }
    for (size_t k = 0; k < count; k++) free(j.piece[k].bytes);
    free(j.piece);
    if (!out) /* a piece the walker could not follow, or no memory: one stream instead */
        out = one_stream(c, data, size, out_size);
    libdeflate_free_compressor(c);
    return out;
}
