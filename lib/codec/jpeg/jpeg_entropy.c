/* Huffman decoding of JPEG scans (jpeg_entropy.h), the way libjpeg-turbo
 * makes it fast, to the values stb_image 2.27 computes.
 *
 * Bits come through a 64-bit buffer, left-aligned. Where the next 8 bytes
 * hold no 0xFF, a refill loads them in one read; otherwise byte by byte,
 * unstuffing 0xFF 0x00 (and 0xFF 0xFF... 0x00, which stb also reads as a
 * data 0xFF) and stopping at a marker. Past a marker or the end of the file
 * the buffer fills with zeros, as stb's does, counted in `pad`: a scan
 * that needed any of them is left to stb.
 *
 * A table entry, indexed by the next GI_JPEG_LOOKUP_BITS bits:
 *   bits 0-4   bits to consume: the code's length, plus its magnitude
 *              bits when FULL; 0 = a longer code (or none: the slow path)
 *   bit 5      FULL: bits 16-31 hold the coefficient (or DC difference)
 *   bits 8-15  the symbol (AC: run << 4 | size; DC: size)
 *   bits 16-31 the coefficient, signed
 * so most coefficients cost one probe, one shift and one store.
 *
 * Restart intervals start afresh (bit buffer, DC predictions, end-of-band
 * run), so a scan's intervals can be decoded apart: runs of them go to
 * threads once a scan with restart markers is large enough. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_entropy.h"
#include "jpeg_progress.h"
#include "jpeg_tables.h"
#include "base/cpu_isa.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define REFINE_BMI2 1
#endif
/* scan_loop's kinds besides jpeg_entropy.h's: an AC refinement scan
 * decoded by block_ac_refine_bmi2 (scan_refine_bmi2 alone asks for it),
 * and a DC first scan that zeroes its blocks (gi_jpeg_scan.zero_blocks). */
#define AC_REFINE_BMI2 (GI_JPEG_AC_REFINE + 1)
#define DC_FIRST_ZEROING (GI_JPEG_AC_REFINE + 2)
/* ...and a baseline scan some of whose components are read for their DC
 * alone (gi_jpeg_scan.skip) */
#define BASELINE_SKIPPING (GI_JPEG_AC_REFINE + 3)

#define LOOKUP GI_JPEG_LOOKUP_BITS
#define ENTRY_FULL 0x20u
#define ENTRY_LEN(e) ((int)((e)&31u))
#define ENTRY_SYMBOL(e) ((int)(((e) >> 8) & 255u))
#define ENTRY_VALUE(e) ((int32_t)(e) >> 16)
/* A skip table's entry: the bits its codes take (0: the first code does
 * not fit, or is no code), how far in the block they move (the runs and
 * the coefficients they set) and whether an end of block ends them. */
#define SKIP_LEN(e) ((int)((e)&15u))
#define SKIP_RUN(e) ((int)(((e) >> 4) & 255u))
#define SKIP_EOB 0x1000u
/* SKIP_LEN's 4 bits hold the entry's bits; SKIP_RUN's 8 its move, at most
 * 16 for each of those bits (a run of 15 zeros and its coefficient). */
_Static_assert(GI_JPEG_SKIP_BITS <= 15 && 16 * GI_JPEG_SKIP_BITS <= 255,
               "a skip entry's fields hold its bits and its move");

const uint8_t *gi__jpeg_data_end(const uint8_t *p, const uint8_t *end)
{
    for (;;) {
        /* eight bytes at a time while none is 0xFF: a file with a restart
         * interval every MCU has a marker every few bytes, where a memchr
         * call a marker took a seventh of its decode */
        for (uint64_t w; end - p >= 8; p += 8) {
            memcpy(&w, p, 8);
            if (gi__jpeg_word_has_ff(w)) break;
        }
        while (p < end && *p != 0xFF) p++;
        if (p + 1 >= end) return NULL;
        const uint8_t m = p[1];
        if (m == 0xFF) return NULL;
        if (m != 0x00 && (m < 0xD0 || m > 0xD7)) return p;
        p += 2;
    }
}

/* The JPEG standard's EXTEND of an s-bit magnitude m. */
static int32_t extend(uint32_t m, int s)
{
    return m < (1u << (s - 1)) ? (int32_t)m - (int32_t)((1u << s) - 1) : (int32_t)m;
}

int gi__jpeg_huff_build(gi_jpeg_huff *h, const uint8_t counts[16], const uint8_t *values, int ac)
{
    uint8_t size[257];
    uint16_t code[256];
    int n = 0;
    for (int len = 1; len <= 16; len++)
        for (int i = 0; i < counts[len - 1]; i++) {
            if (n == 256) return -1;
            size[n++] = (uint8_t)len;
        }
    size[n] = 0;
    for (int i = 0; i < n; i++)
        if (!ac && values[i] > 15) return -1;
    memcpy(h->values, values, (size_t)n);
    /* Canonical codes, with stb's check that each length's fit (F.2.2.1). */
    uint32_t next = 0;
    int k = 0;
    for (int len = 1; len <= 16; len++) {
        h->delta[len] = k - (int32_t)next;
        if (size[k] == len) {
            while (size[k] == len) code[k++] = (uint16_t)next++;
            if (next - 1 >= 1u << len) return -1;
        }
        h->maxcode[len] = next << (16 - len);
        next <<= 1;
    }
    h->maxcode[17] = 0xffffffffu;
    memset(h->lookup, 0, sizeof h->lookup);
    for (int i = 0; i < n; i++) {
        int len = size[i];
        if (len > LOOKUP) break; /* sizes ascend */
        int symbol = values[i], s = symbol & 15, spare = LOOKUP - len;
        /* AC symbols of size 0 (end of block, zero run) carry no value. */
        int full = (!ac || s != 0) && len + s <= LOOKUP;
        for (int j = 0; j < 1 << spare; j++) {
            uint32_t e = (uint32_t)len | (uint32_t)symbol << 8;
            if (full) {
                uint32_t m = s ? (uint32_t)j >> (spare - s) : 0;
                int32_t v = s ? extend(m, s) : 0;
                e = (uint32_t)(len + s) | ENTRY_FULL | (uint32_t)symbol << 8 | (uint32_t)v << 16;
            }
            h->lookup[(code[i] << spare) | j] = e;
        }
    }
    return 0;
}

/* ---- the bit reader ---- */

typedef struct {
    uint64_t buf;     /* left-aligned */
    int nb;           /* bits in buf, zeros past the data included */
    int pad;          /* of those bits, the zeros past the data; counting
                         stops once some were consumed (over) */
    int over;         /* zeros past the data were consumed */
    const uint8_t *p, *end;
    const uint8_t *marker_at; /* the 0xFF of the marker that ends the data; NULL: not met */
    const uint8_t *after;     /* past the marker's byte */
    int marker;               /* the marker's byte, -1 at the end of the file */
    int fill;                 /* 0xFF fill bytes came before the marker */
} bitreader;

static void reader_start(bitreader *br, const uint8_t *p, const uint8_t *end)
{
    memset(br, 0, sizeof *br);
    br->p = p;
    br->end = end;
}

/* Byte by byte, as stb's stbi__grow_buffer_unsafe reads them. */
static __attribute__((noinline)) void refill_slow(bitreader *br)
{
    if (br->pad > br->nb) br->over = 1;
    while (br->nb <= 56) {
        if (br->marker_at) { /* the zero bytes past the data, all at once */
            const int bits = (64 - br->nb) & ~7;
            if (!br->over) br->pad += bits;
            br->nb += bits;
            break;
        }
        uint32_t b = 0;
        const uint8_t *q = br->p;
        if (q < br->end && *q != 0xFF) {
            b = *q;
            br->p = q + 1;
        } else {
            const uint8_t *m = q + 1;
            while (m < br->end && *m == 0xFF) m++;
            if (q < br->end && m < br->end && *m == 0) { /* stuffed 0xFF */
                b = 0xFF;
                br->p = m + 1;
            } else {
                br->marker_at = q;
                br->marker = m < br->end ? *m : -1;
                br->after = m < br->end ? m + 1 : br->end;
                br->fill = m > q + 1 && q < br->end;
            }
        }
        if (br->marker_at && !br->over) br->pad += 8;
        br->buf |= (uint64_t)b << (56 - br->nb);
        br->nb += 8;
    }
}

/* ---- the hot state ----
 *
 * The block decoders keep the buffer, its count and the read pointer in
 * locals (libjpeg-turbo's BITREAD_LOAD_STATE): through the reader, GCC
 * loaded and stored br->buf and br->nb in memory for every coefficient,
 * since the slow paths take the reader's address. A hot_bits lives in a
 * block decoder's frame, only always-inline functions see its address, so
 * its fields stay in registers; the slow refill gets the reader up to
 * date first and the locals back after, and decode_long reads the buffer
 * by value. */
typedef struct {
    uint64_t buf;
    int nb;
    const uint8_t *p;
} hot_bits;

static inline __attribute__((always_inline)) hot_bits hot_take(const bitreader *br)
{
    return (hot_bits){br->buf, br->nb, br->p};
}

static inline __attribute__((always_inline)) void hot_give(bitreader *br, const hot_bits *h)
{
    br->buf = h->buf;
    br->nb = h->nb;
    br->p = h->p;
}

/* The bits ensure leaves in the buffer; it refills below them. A skip
 * table's entry reads GI_JPEG_SKIP_BITS of them. */
#define ENSURED_BITS 32
_Static_assert(GI_JPEG_SKIP_BITS <= ENSURED_BITS, "a skip entry's bits are in the buffer");

/* At least ENSURED_BITS bits in the buffer (zeros past the data
 * included): 8 bytes at once where none of them is 0xFF, else byte by
 * byte in refill_slow. */
static inline __attribute__((always_inline)) void ensure(bitreader *br, hot_bits *h)
{
    if (h->nb >= ENSURED_BITS) return;
    if (br->end - h->p >= 8) {
        uint64_t w;
        memcpy(&w, h->p, 8);
        w = __builtin_bswap64(w);
        if (!gi__jpeg_word_has_ff(w)) {
            const int n = (63 - h->nb) >> 3;
            h->buf |= (w >> (64 - 8 * n)) << (64 - 8 * n - h->nb);
            h->p += n;
            h->nb += 8 * n;
            return;
        }
    }
    hot_give(br, h);
    refill_slow(br);
    *h = hot_take(br);
}

static inline __attribute__((always_inline)) uint32_t peek(const hot_bits *h)
{
    return (uint32_t)(h->buf >> (64 - LOOKUP));
}

static inline __attribute__((always_inline)) void consume(hot_bits *h, int n)
{
    h->buf <<= n;
    h->nb -= n;
}

/* n (1..16) bits; the buffer holds them (ensure) */
static inline __attribute__((always_inline)) uint32_t get_bits(hot_bits *h, int n)
{
    const uint32_t v = (uint32_t)(h->buf >> (64 - n));
    consume(h, n);
    return v;
}

/* s (1..15) magnitude bits, extended; the buffer holds them */
static inline __attribute__((always_inline)) int32_t receive_extend(hot_bits *h, int s)
{
    /* the sign bit: set for a positive value */
    const int32_t bias = (int32_t)((h->buf >> 63) - 1) & (int32_t)(1 - (1u << s));
    return (int32_t)get_bits(h, s) + bias;
}

static inline __attribute__((always_inline)) int get_bit(bitreader *br, hot_bits *h)
{
    if (h->nb < 1) ensure(br, h);
    return (int)get_bits(h, 1);
}

/* A code longer than the lookup's bits at the front of buf: the symbol
 * and *len its length, or -1 (no such code). */
static __attribute__((noinline)) int decode_long(uint64_t buf, const gi_jpeg_huff *h, int *len)
{
    const uint32_t top = (uint32_t)(buf >> 48);
    int n = LOOKUP + 1;
    while (n <= 16 && top >= h->maxcode[n]) n++;
    if (n > 16) return -1;
    *len = n;
    return h->values[(int)(buf >> (64 - n)) + h->delta[n]];
}

/* The symbol whose lookup entry is e (magnitude bits left in the stream),
 * or -1. */
static inline __attribute__((always_inline)) int symbol_of(hot_bits *h, const gi_jpeg_huff *t,
                                                           uint32_t e)
{
    int len = ENTRY_LEN(e);
    if (!len) {
        const int sym = decode_long(h->buf, t, &len);
        if (sym >= 0) consume(h, len);
        return sym;
    }
    if (e & ENTRY_FULL) len -= ENTRY_SYMBOL(e) & 15;
    consume(h, len);
    return ENTRY_SYMBOL(e);
}

/* The next symbol alone, or -1; the buffer holds 16 bits at least. */
static inline __attribute__((always_inline)) int decode_symbol(hot_bits *h, const gi_jpeg_huff *t)
{
    return symbol_of(h, t, t->lookup[peek(h)]);
}

/* A DC difference into *diff; -1 for no such code. */
static inline __attribute__((always_inline)) int decode_dc(hot_bits *h, const gi_jpeg_huff *t,
                                                           int32_t *diff)
{
    const uint32_t e = t->lookup[peek(h)];
    if (e & ENTRY_FULL) {
        consume(h, ENTRY_LEN(e));
        *diff = ENTRY_VALUE(e);
        return 0;
    }
    const int s = symbol_of(h, t, e); /* at most 15: gi__jpeg_huff_build */
    if (s < 0) return -1;
    *diff = s ? receive_extend(h, s) : 0;
    return 0;
}

void gi__jpeg_huff_skip_build(const gi_jpeg_huff *h, uint32_t skip[1 << GI_JPEG_SKIP_BITS])
{
    for (uint32_t v = 0; v < 1u << GI_JPEG_SKIP_BITS; v++) {
        uint64_t buf = (uint64_t)v << (64 - GI_JPEG_SKIP_BITS); /* zeros after: never a code's */
        int used = 0, run = 0;
        uint32_t eob = 0;
        for (;;) {
            const uint32_t e = h->lookup[buf >> (64 - LOOKUP)];
            int len = ENTRY_LEN(e), rs;
            if (!len) {
                if ((rs = decode_long(buf, h, &len)) < 0) break;
            } else {
                rs = ENTRY_SYMBOL(e);
                if (e & ENTRY_FULL) len -= rs & 15;
            }
            const int s = rs & 15, total = len + s;
            /* the code and its magnitude within v's bits (a code of the
             * zeros past them does not count) */
            if (used + total > GI_JPEG_SKIP_BITS) break;
            used += total;
            buf <<= total;
            if (s == 0 && rs != 0xF0) { /* stb ends the block on any size-0 run but 15 */
                eob = SKIP_EOB;
                break;
            }
            run += s ? (rs >> 4) + 1 : 16;
        }
        skip[v] = (uint32_t)used | (uint32_t)run << 4 | eob;
    }
}

/* ---- blocks, as stb decodes them ---- */

/* Blocks of a progressive scan are fetched this many units ahead: the
 * coefficients of a large photo are far out of the caches (50 MB at 9 MP
 * 4:4:4), and the scans touch 2 bytes (DC) or a few of each block. */
#define PREFETCH_UNITS 8

/* The zigzag positions in a block's second 64 bytes (natural index 32-63,
 * rows 4-7): a band without any of them, or a block without nonzero
 * coefficients there, needs its first cache line alone. */
#define SECOND_LINE 0xffdfe0ff00f80400ull

/* The scan's state that outlives a block. */
typedef struct {
    bitreader br;
    uint32_t pred[GI_JPEG_MAX_COMPONENTS]; /* DC predictions, mod 2^32 as stb's int wraps */
    int eobrun;
    int todo; /* MCUs left in the restart interval (INT_MAX: none), kept here so that
                 the pipelined decode can stop at a row's end and go on mid-interval */
} scan_state;

/* A block's 64 coefficients set to 0: eight 16-byte stores, where GCC
 * made memset a rep stos (its start-up is most of 128 bytes' time). */
static inline __attribute__((always_inline)) void zero_block(int16_t *blk)
{
    typedef int16_t zero8 __attribute__((vector_size(16)));
    const zero8 zero = {0};
    for (int i = 0; i < 64; i += 8) memcpy(blk + i, &zero, sizeof zero);
}

/* A baseline block's DC: its difference added to the component's
 * prediction, into blk[0]; -1 for no such code. */
static inline __attribute__((always_inline)) int block_dc(scan_state *st, hot_bits *h, int16_t *blk,
                                                          const gi_jpeg_huff *dc, int ci)
{
    int32_t diff;
    ensure(&st->br, h);
    if (decode_dc(h, dc, &diff) < 0) return -1;
    st->pred[ci] += (uint32_t)diff;
    blk[0] = (int16_t)st->pred[ci];
    return 0;
}

static inline __attribute__((always_inline)) int block_baseline(scan_state *st, int16_t *blk,
                                                                const gi_jpeg_huff *dc,
                                                                const gi_jpeg_huff *ac, int ci)
{
    bitreader *br = &st->br;
    hot_bits h = hot_take(br);
    const uint8_t *const zz = gi__jpeg_natural_order;
    zero_block(blk); /* the storage is not zeroed (jpeg_parse.c) */
    if (block_dc(st, &h, blk, dc, ci) < 0) return -1;
    int k = 1;
    do {
        ensure(br, &h);
        const uint32_t e = ac->lookup[peek(&h)];
        if (e & ENTRY_FULL) {
            consume(&h, ENTRY_LEN(e));
            k += ENTRY_SYMBOL(e) >> 4;
            blk[zz[k++]] = (int16_t)ENTRY_VALUE(e);
            continue;
        }
        const int rs = symbol_of(&h, ac, e);
        if (rs < 0) return -1;
        const int s = rs & 15;
        if (s == 0) {
            if (rs != 0xF0) break; /* stb ends the block on any run with size 0 but 15 */
            k += 16;
        } else {
            k += rs >> 4;
            blk[zz[k++]] = (int16_t)receive_extend(&h, s);
        }
    } while (k < 64);
    hot_give(br, &h);
    return 0;
}

/* A baseline block of a component read for its DC alone: its DC stored
 * (the rest of the block is left as it was, and never read), its AC codes
 * passed over a skip table's entry at a time where the entry's codes stay
 * inside the block, else one code at a time as block_baseline.
 *
 * The reader may refill at other codes than block_baseline's (an entry
 * takes up to GI_JPEG_SKIP_BITS bits, which ensure leaves in the buffer),
 * and that changes nothing it reports: a refill appends the same bits
 * whenever it comes (the data's, unstuffed, then zeros past the marker,
 * which it meets at the same byte), so the codes, their errors and the
 * marker are block_baseline's. What the refills' places change is when
 * br.over notices that zeros past the data were consumed: at a later or
 * earlier unit row's end, which then hands the scan to stb alike, or at
 * the interval's end, where interval_end reads the consumption itself
 * (nb < pad). So the scan fails where block_baseline's fails, and ends
 * where it ends. Entries were once taken only where ENSURED_BITS would be
 * left after them (the refills at block_baseline's places), and the codes
 * between decoded one at a time: thumbnails of 80 large photos took 8%
 * more CPU time on one core. */
static inline __attribute__((always_inline)) int block_baseline_dc(scan_state *st, int16_t *blk,
                                                                   const gi_jpeg_huff *dc,
                                                                   const gi_jpeg_huff *ac,
                                                                   const uint32_t *skip, int ci)
{
    bitreader *br = &st->br;
    hot_bits h = hot_take(br);
    if (block_dc(st, &h, blk, dc, ci) < 0) return -1;
    int k = 1;
    do {
        ensure(br, &h);
        const uint32_t e = skip[h.buf >> (64 - GI_JPEG_SKIP_BITS)];
        const int len = SKIP_LEN(e);
        if (len && k + SKIP_RUN(e) < 64) {
            consume(&h, len);
            k += SKIP_RUN(e);
            if (e & SKIP_EOB) break;
            continue;
        }
        const int rs = decode_symbol(&h, ac);
        if (rs < 0) return -1;
        const int s = rs & 15;
        if (s == 0) {
            if (rs != 0xF0) break;
            k += 16;
        } else {
            consume(&h, s);
            k += (rs >> 4) + 1;
        }
    } while (k < 64);
    hot_give(br, &h);
    return 0;
}

/* zero: the block's first visit (gi_jpeg_scan.zero_blocks), which
 * zeroes it first */
static inline __attribute__((always_inline)) int block_dc_first(scan_state *st, int16_t *blk,
                                                                const gi_jpeg_huff *dc, int ci,
                                                                int al, int zero)
{
    bitreader *br = &st->br;
    hot_bits h = hot_take(br);
    int32_t diff;
    ensure(br, &h);
    if (decode_dc(&h, dc, &diff) < 0) return -1;
    hot_give(br, &h);
    if (zero) zero_block(blk);
    st->pred[ci] += (uint32_t)diff;
    blk[0] = (int16_t)(uint16_t)(st->pred[ci] << al);
    return 0;
}

static inline __attribute__((always_inline)) void block_dc_refine(scan_state *st, int16_t *blk,
                                                                  int al)
{
    bitreader *br = &st->br;
    hot_bits h = hot_take(br);
    /* no branch on the bit: it is as random as a coin */
    const uint32_t add = (uint32_t)get_bit(br, &h) << al;
    blk[0] = (int16_t)(uint16_t)((uint32_t)(uint16_t)blk[0] + add);
    hot_give(br, &h);
}

/* Coefficient k (zigzag; past 63 a corrupt run's, which stb puts at 63)
 * of an AC first scan stored as stb stores it, and its bit in the
 * block's nonzero mask: set, or clear where the shifted value wraps to 0
 * in 16 bits (a crafted file's). */
static inline __attribute__((always_inline)) void store_first(int16_t *blk, uint64_t *nonzero,
                                                              int k, int32_t value, int al)
{
    const int16_t v = (int16_t)(uint16_t)((uint32_t)value << al);
    blk[gi__jpeg_natural_order[k]] = v;
    const uint64_t bit = (uint64_t)1 << (k < 64 ? k : 63);
    *nonzero = (*nonzero & ~bit) | (bit & -(uint64_t)(v != 0));
}

static inline __attribute__((always_inline)) int block_ac_first(scan_state *st, int16_t *blk,
                                                                uint64_t *mask,
                                                                const gi_jpeg_huff *ac, int ss,
                                                                int se, int al, uint64_t band)
{
    if (st->eobrun) {
        st->eobrun--;
        return 0;
    }
    bitreader *br = &st->br;
    hot_bits h = hot_take(br);
    uint64_t nonzero = *mask;
    int k = ss;
    __builtin_prefetch(blk + 64 * PREFETCH_UNITS, 1);
    if (band & SECOND_LINE) __builtin_prefetch(blk + 64 * PREFETCH_UNITS + 32, 1);
    do {
        ensure(br, &h);
        const uint32_t e = ac->lookup[peek(&h)];
        if (e & ENTRY_FULL) {
            consume(&h, ENTRY_LEN(e));
            k += ENTRY_SYMBOL(e) >> 4;
            store_first(blk, &nonzero, k++, ENTRY_VALUE(e), al);
            continue;
        }
        const int rs = symbol_of(&h, ac, e);
        if (rs < 0) return -1;
        const int s = rs & 15, r = rs >> 4;
        if (s == 0) {
            if (r < 15) {
                st->eobrun = (1 << r) - 1;
                if (r) st->eobrun += (int)get_bits(&h, r);
                break;
            }
            k += 16;
        } else {
            k += r;
            store_first(blk, &nonzero, k++, receive_extend(&h, s), al);
        }
    } while (k <= se);
    *mask = nonzero;
    hot_give(br, &h);
    return 0;
}

/* The correction bits (G.1.2.3) of the nonzero coefficients at the zigzag
 * positions of mask, one bit each, in order, as stb applies them: a bit
 * of 1 adds `bit` to the magnitude where that bit is clear. Without a
 * branch on the bit, which is as random as a coin: the coefficient is
 * written either way. (A nonzero coefficient stays nonzero: |value| <
 * 2^15 and bit <= 2^13 cannot wrap it to 0.) */
static inline __attribute__((always_inline)) void refine_nonzero(bitreader *br, hot_bits *h,
                                                                 int16_t *blk, uint64_t mask,
                                                                 int bit)
{
    const uint8_t *const zz = gi__jpeg_natural_order;
    while (mask) {
        if (h->nb < 1) ensure(br, h);
        const int k = __builtin_ctzll(mask);
        mask &= mask - 1;
        const int corr = (int)(h->buf >> 63);
        consume(h, 1);
        int16_t *p = &blk[zz[k]];
        const int v = *p, sign = v >> 15; /* -1 below 0 */
        const int add = ((bit ^ sign) - sign) & -(corr & ((v & bit) == 0));
        *p = (int16_t)(uint16_t)((unsigned)v + (unsigned)add);
    }
}

/* The zigzag positions lo..hi (0 <= lo <= hi <= 63) as a mask. */
static inline __attribute__((always_inline)) uint64_t band_mask(int lo, int hi)
{
    return (~(uint64_t)0 << lo) & (~(uint64_t)0 >> (63 - hi));
}

/* The next symbol of an AC refinement block, as stb reads it: 0 for a new
 * coefficient after *run zeros (*value: +-bit, its sign bit read; 0 for
 * a run of sixteen zeros, fifteen skipped and a zero "placed"), 1 where
 * the band ends here (an end-of-band run: st->eobrun the blocks after
 * this one; the caller refines the band's rest), -1 for a code stb
 * refuses. */
static inline __attribute__((always_inline)) int refine_symbol(scan_state *st, bitreader *br,
                                                               hot_bits *h, const gi_jpeg_huff *ac,
                                                               int bit, int *run, int *value)
{
    ensure(br, h);
    const uint32_t e = ac->lookup[peek(h)];
    *value = 0;
    if (e & ENTRY_FULL) { /* a new coefficient, its sign bit in the same look-up */
        consume(h, ENTRY_LEN(e));
        if ((ENTRY_SYMBOL(e) & 15) != 1) return -1; /* stb: "bad huffman code" */
        *run = ENTRY_SYMBOL(e) >> 4;
        *value = ENTRY_VALUE(e) * bit; /* the sign bit's +-1 */
        return 0;
    }
    const int rs = symbol_of(h, ac, e);
    if (rs < 0) return -1;
    const int s = rs & 15, r = rs >> 4;
    *run = r;
    if (s == 0) {
        if (r == 15) return 0;
        st->eobrun = (1 << r) - 1;
        if (r) st->eobrun += (int)get_bits(h, r);
        return 1;
    }
    if (s != 1) return -1;
    *value = get_bit(br, h) ? bit : -bit;
    return 0;
}

/* A block of an AC refinement scan, as stb decodes it (a symbol: the next
 * new coefficient's run of zeros and sign; the correction bits of the
 * nonzero coefficients it passes follow), but with the block's nonzero
 * coefficients as a mask: a run of r zeros is the (r + 1)th clear bit
 * of the mask, and the coefficients passed are refined in one loop with
 * no branch on their values. */
static int block_ac_refine(scan_state *st, int16_t *blk, uint64_t *mask, const gi_jpeg_huff *ac,
                           uint64_t band, int al)
{
    bitreader *br = &st->br;
    hot_bits h = hot_take(br);
    const int bit = 1 << al;
    const uint64_t nonzero = *mask & band;
    if (st->eobrun) {
        st->eobrun--;
        refine_nonzero(br, &h, blk, nonzero, bit);
        hot_give(br, &h);
        return 0;
    }
    uint64_t ahead = band; /* the band's positions from k on */
    do {
        int r, value;
        const int band_ends = refine_symbol(st, br, &h, ac, bit, &r, &value);
        if (band_ends < 0) return -1;
        if (band_ends) {
            refine_nonzero(br, &h, blk, nonzero & ahead, bit); /* to the band's end */
            break;
        }
        /* the new coefficient goes to the (r + 1)th zero from k on */
        uint64_t zeros = ahead & ~nonzero;
        for (int i = 0; i < r; i++) zeros &= zeros - 1;
        if (!zeros) { /* the band ends first: its nonzero ones refined, nothing placed */
            refine_nonzero(br, &h, blk, nonzero & ahead, bit);
            break;
        }
        const uint64_t at = zeros & -zeros;
        refine_nonzero(br, &h, blk, nonzero & ahead & (at - 1), bit);
        blk[gi__jpeg_natural_order[__builtin_ctzll(at)]] = (int16_t)value;
        if (value) *mask |= at;
        ahead &= ~(at | (at - 1));
    } while (ahead);
    hot_give(br, &h);
    return 0;
}

#if REFINE_BMI2
/* ---- AC refinement with BMI2's bit deposit ----
 *
 * block_ac_refine above loops once a zero it skips and once a correction
 * bit it reads, and those loops' lengths are as random as the data: most
 * of the time of a progressive file goes there (jpegtran's script on a
 * 9 MP photo, one core: refinement scans 26-32 ms of 40-50, the AC first
 * scans 7). Here the block's
 * masks are reversed (zigzag position k at bit 63 - k), so that the
 * stream's bits, first at the top, line up with them: a new coefficient's
 * place is one deposit (pdep) of a bit into the zeros ahead, the
 * correction bits of the coefficients it passes one deposit of as many
 * stream bits into their positions, and the corrections are applied once,
 * at the block's end, to those whose bit is 1. The same coefficients as
 * block_ac_refine, which runs where pdep is slow or absent
 * (gi__cpu_fast_bit_deposit). */

static inline __attribute__((target("bmi2"))) uint64_t deposit(uint64_t bits, uint64_t mask)
{
    return _pdep_u64(bits, mask);
}

/* Bit k of x at bit 63 - k. */
static inline __attribute__((always_inline)) uint64_t reversed(uint64_t x)
{
    x = __builtin_bswap64(x);
    x = (x >> 4 & 0x0F0F0F0F0F0F0F0Full) | (x & 0x0F0F0F0F0F0F0F0Full) << 4;
    x = (x >> 2 & 0x3333333333333333ull) | (x & 0x3333333333333333ull) << 2;
    return (x >> 1 & 0x5555555555555555ull) | (x & 0x5555555555555555ull) << 1;
}

/* The correction bits of the coefficients at `passed` (reversed), one a
 * coefficient, the first (lowest zigzag position, highest bit) first in
 * the stream: those whose bit is 1, as a reversed mask. */
static inline __attribute__((always_inline)) uint64_t take_corrections(bitreader *br, hot_bits *h,
                                                                       uint64_t passed)
{
    int n = __builtin_popcountll(passed);
    uint64_t ones = 0;
    if (n > 32) { /* the first 32 (the buffer holds 32 bits at least), then the rest */
        const uint64_t rest = deposit(((uint64_t)1 << (n - 32)) - 1, passed);
        if (h->nb < 32) ensure(br, h);
        ones = deposit(h->buf >> 32, passed & ~rest);
        consume(h, 32);
        passed = rest;
        n -= 32;
    }
    if (n == 0) return ones;
    if (h->nb < n) ensure(br, h);
    ones |= deposit(h->buf >> (64 - n), passed);
    consume(h, n);
    return ones;
}

/* Adds `bit` to the magnitude of each coefficient at `ones` (reversed)
 * where that bit is clear, as stb applies a correction bit of 1. */
static inline __attribute__((always_inline)) void apply_corrections(int16_t *blk, uint64_t ones,
                                                                    int bit)
{
    while (ones) {
        int16_t *p = &blk[gi__jpeg_natural_order[63 - __builtin_ctzll(ones)]];
        ones &= ones - 1;
        const int v = *p, sign = v >> 15; /* -1 below 0 */
        const int add = ((bit ^ sign) - sign) & -((v & bit) == 0);
        *p = (int16_t)(uint16_t)((unsigned)v + (unsigned)add);
    }
}

/* rband: the band, reversed. */
static inline __attribute__((always_inline)) int block_ac_refine_bmi2(scan_state *st, int16_t *blk,
                                                                      uint64_t *mask,
                                                                      const gi_jpeg_huff *ac,
                                                                      uint64_t band, uint64_t rband,
                                                                      int al)
{
    const uint64_t had = *mask & band;
    if (st->eobrun && !had) { /* nothing to refine, nothing to place */
        st->eobrun--;
        return 0;
    }
    bitreader *br = &st->br;
    hot_bits h = hot_take(br);
    const int bit = 1 << al;
    const uint64_t nonzero = had ? reversed(had) : 0;
    if (st->eobrun) {
        st->eobrun--;
        const uint64_t ones = take_corrections(br, &h, nonzero);
        hot_give(br, &h);
        apply_corrections(blk, ones, bit);
        return 0;
    }
    uint64_t ahead = rband; /* the band's positions from k on */
    uint64_t ones = 0;
    do {
        int r, value;
        const int band_ends = refine_symbol(st, br, &h, ac, bit, &r, &value);
        if (band_ends < 0) return -1;
        if (band_ends) {
            ones |= take_corrections(br, &h, nonzero & ahead); /* to the band's end */
            break;
        }
        /* the new coefficient goes to the (r + 1)th zero from k on: of the
         * z zeros ahead, the (z - r)th lowest bit */
        const uint64_t zeros = ahead & ~nonzero;
        const int z = __builtin_popcountll(zeros);
        if (r >= z) { /* the band ends first: its nonzero ones refined, nothing placed */
            ones |= take_corrections(br, &h, nonzero & ahead);
            break;
        }
        const uint64_t at = deposit((uint64_t)1 << (z - 1 - r), zeros);
        ones |= take_corrections(br, &h, nonzero & ahead & ~(at | (at - 1)));
        const int k = __builtin_clzll(at);
        blk[gi__jpeg_natural_order[k]] = (int16_t)value;
        if (value) *mask |= (uint64_t)1 << k;
        ahead &= at - 1;
    } while (ahead);
    hot_give(br, &h);
    apply_corrections(blk, ones, bit);
    return 0;
}
#endif

/* ---- scans ---- */


/* Where the data of an interval ended: the bits left over must be its last
 * byte's padding (0-7 bits, none of the zeros past it), followed at once by
 * a marker. stb reads on at a marker's place in other cases. */
static int interval_end(bitreader *br)
{
    if (!br->marker_at) {
        const uint8_t *at = br->p;
        if (br->nb > 7 || at >= br->end || *at != 0xFF) return -1;
        refill_slow(br); /* meets the marker, unless the 0xFF is a stuffed data byte */
        return br->marker_at == at ? 0 : -1;
    }
    return br->over || br->nb < br->pad || br->nb - br->pad > 7 ? -1 : 0;
}

static int is_restart(int marker)
{
    return marker >= 0xD0 && marker <= 0xD7;
}

static inline __attribute__((always_inline)) int decode_unit_block(scan_state *st, int kind,
                                                                   int16_t *blk, uint64_t *mask,
                                                                   const gi_jpeg_scan *sc, int i,
                                                                   uint64_t band, uint64_t rband)
{
    switch (kind) {
    case GI_JPEG_BASELINE: return block_baseline(st, blk, sc->dc[i], sc->ac[i], i);
    case BASELINE_SKIPPING:
        return sc->skip[i] ? block_baseline_dc(st, blk, sc->dc[i], sc->ac[i], sc->skip[i], i)
                           : block_baseline(st, blk, sc->dc[i], sc->ac[i], i);
    case GI_JPEG_DC_FIRST: return block_dc_first(st, blk, sc->dc[i], i, sc->al, 0);
    case DC_FIRST_ZEROING:
        return block_dc_first(st, blk, sc->dc[i], i, sc->al, (int)(sc->zero_blocks >> i & 1u));
    case GI_JPEG_DC_REFINE: block_dc_refine(st, blk, sc->al); return 0;
    case GI_JPEG_AC_FIRST:
        return block_ac_first(st, blk, mask, sc->ac[i], sc->ss, sc->se, sc->al, band);
#if REFINE_BMI2
    case AC_REFINE_BMI2:
        return block_ac_refine_bmi2(st, blk, mask, sc->ac[i], band, rband, sc->al);
#endif
    default: return block_ac_refine(st, blk, mask, sc->ac[i], band, sc->al);
    }
}

/* The most blocks a unit holds: 4 components of 4x4 (stb takes them). */
#define UNIT_BLOCKS_MAX (GI_JPEG_MAX_COMPONENTS * 16)

/* The blocks of unit row uy (see scan_loop); returns their count. */
static int unit_row(const gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, int uy, int16_t **first,
                    int *step, int *comp)
{
    if (sc->n == 1) {
        first[0] = gi__jpeg_block_row(&c->plane[sc->comp[0]], uy);
        step[0] = c->plane[sc->comp[0]].block_len;
        comp[0] = 0;
        return 1;
    }
    int n = 0;
    for (int i = 0; i < sc->n; i++) {
        const gi_jpeg_plane *pl = &c->plane[sc->comp[i]];
        for (int y = 0; y < pl->v; y++)
            for (int x = 0; x < pl->h; x++, n++) {
                first[n] = gi__jpeg_block_row(pl, uy * pl->v + y) + pl->block_len * x;
                step[n] = pl->block_len * pl->h;
                comp[n] = i;
            }
    }
    return n;
}

/* A scan's units (MCUs, or in a one-component scan its blocks) as a grid:
 * units in a row, and rows. */
static void unit_grid(const gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, long *units_x, long *rows)
{
    const gi_jpeg_plane *one = &c->plane[sc->comp[0]];
    *units_x = sc->n == 1 ? (one->width + 7) >> 3 : c->mcus_x;
    *rows = sc->n == 1 ? (one->height + 7) >> 3 : c->mcus_y;
}

/* MCUs u0..u1-1 of the scan in order (as stb: one component's own blocks
 * in raster order, as many as its samples need, (x + 7) >> 3, each one
 * MCU; several components' blocks by MCU of the frame), restart markers
 * between intervals. st starts at u0: at the start of an interval
 * (st->todo the interval's length), or where an earlier call stopped. */
static inline __attribute__((always_inline)) int scan_loop(gi_jpeg_coeffs *c,
                                                           const gi_jpeg_scan *sc, int kind,
                                                           int one_component, scan_state *st,
                                                           long u0, long u1)
{
    long units_x, rows;
    unit_grid(c, sc, &units_x, &rows);
    int interval = sc->restart_interval ? sc->restart_interval : INT_MAX;
    int ux = (int)(u0 % units_x), uy = (int)(u0 / units_x);
    /* The unit's blocks in the scan's order (one component's: one block),
     * each as its first in unit row uy (gi__jpeg_block_row once a row, not
     * once a block: a ring's rows wrap), the distance to the next unit's
     * and its component in the scan. */
    int16_t *first[UNIT_BLOCKS_MAX];
    int step[UNIT_BLOCKS_MAX], comp[UNIT_BLOCKS_MAX];
    int nblocks = unit_row(c, sc, uy, first, step, comp);
    if (one_component) nblocks = 1; /* a constant: the compiler drops the loop */
    const uint64_t band = band_mask(sc->ss, sc->se); /* an AC scan's */
#if REFINE_BMI2
    const uint64_t rband = kind == AC_REFINE_BMI2 ? reversed(band) : 0;
#else
    const uint64_t rband = 0;
#endif
    /* an AC scan's row of masks (one component: a block a unit) */
    const int refine = kind == GI_JPEG_AC_REFINE || kind == AC_REFINE_BMI2;
    const int ac = kind == GI_JPEG_AC_FIRST || refine;
    uint64_t *masks = ac ? c->ac_nonzero + (first[0] - c->storage) / 64 : NULL;
    for (long u = u0; u < u1; u++) {
        if (st->todo == 0) {
            /* an interval ended before this MCU: stb takes any restart
             * marker, whatever its number */
            if (interval_end(&st->br) < 0 || !is_restart(st->br.marker)) return -1;
            reader_start(&st->br, st->br.after, st->br.end);
            memset(st->pred, 0, sizeof st->pred);
            st->eobrun = 0;
            st->todo = interval;
        }
        for (int b = 0; b < nblocks; b++) {
            int16_t *blk = first[b] + (size_t)ux * (size_t)step[b];
            /* DC scans touch every block; an AC refinement those whose
             * band holds nonzero coefficients (and those it adds to, which
             * it cannot know ahead); an AC first scan fetches its blocks
             * ahead as it decodes one (not in a run of empty blocks) */
            if (kind == GI_JPEG_DC_FIRST || kind == DC_FIRST_ZEROING || kind == GI_JPEG_DC_REFINE)
                __builtin_prefetch(blk + (size_t)PREFETCH_UNITS * (size_t)step[b], 1);
            /* (within the row and this call's units: another thread may
             * be decoding the blocks past them) */
            if (refine && ux + PREFETCH_UNITS < units_x &&
                u + PREFETCH_UNITS < u1) {
                /* a block past the end-of-band run under way may take
                 * new coefficients anywhere in the band */
                const uint64_t ahead = st->eobrun <= PREFETCH_UNITS
                                           ? band
                                           : masks[ux + PREFETCH_UNITS] & band;
                if (ahead) __builtin_prefetch(blk + 64 * PREFETCH_UNITS, 1);
                if (ahead & SECOND_LINE) __builtin_prefetch(blk + 64 * PREFETCH_UNITS + 32, 1);
            }
            if (decode_unit_block(st, kind, blk, ac ? &masks[ux] : NULL, sc, comp[b], band, rband) < 0)
                return -1;
        }
        st->todo--;
        if (++ux == units_x) {
            ux = 0;
            uy++;
            if (st->br.over) return -1; /* decoding zeros past the data: stb's to decode */
            if (u + 1 < u1) {
                unit_row(c, sc, uy, first, step, comp);
                if (ac) masks = c->ac_nonzero + (first[0] - c->storage) / 64;
            }
        }
    }
    return 0;
}

#if REFINE_BMI2
static __attribute__((noinline, target("bmi2,popcnt,lzcnt"))) int
scan_refine_bmi2(gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, scan_state *st, long u0, long u1)
{
    return scan_loop(c, sc, AC_REFINE_BMI2, 1, st, u0, u1);
}
#endif

static __attribute__((noinline)) int scan_units(gi_jpeg_coeffs *c, const gi_jpeg_scan *sc,
                                                scan_state *st, int kind, long u0, long u1)
{
    /* each kind compiled on its own, and for one component apart; an AC
     * scan has one (jpeg_parse.c takes no other) */
    const int one = sc->n == 1;
    switch (kind) {
    case GI_JPEG_BASELINE: {
        int skipping = 0;
        for (int i = 0; i < sc->n; i++) skipping |= sc->skip[i] != NULL;
        if (skipping)
            return one ? scan_loop(c, sc, BASELINE_SKIPPING, 1, st, u0, u1)
                       : scan_loop(c, sc, BASELINE_SKIPPING, 0, st, u0, u1);
        return one ? scan_loop(c, sc, GI_JPEG_BASELINE, 1, st, u0, u1)
                   : scan_loop(c, sc, GI_JPEG_BASELINE, 0, st, u0, u1);
    }
    case GI_JPEG_DC_FIRST:
        if (sc->zero_blocks)
            return one ? scan_loop(c, sc, DC_FIRST_ZEROING, 1, st, u0, u1)
                       : scan_loop(c, sc, DC_FIRST_ZEROING, 0, st, u0, u1);
        return one ? scan_loop(c, sc, GI_JPEG_DC_FIRST, 1, st, u0, u1)
                   : scan_loop(c, sc, GI_JPEG_DC_FIRST, 0, st, u0, u1);
    case GI_JPEG_DC_REFINE:
        return one ? scan_loop(c, sc, GI_JPEG_DC_REFINE, 1, st, u0, u1)
                   : scan_loop(c, sc, GI_JPEG_DC_REFINE, 0, st, u0, u1);
    case GI_JPEG_AC_FIRST: return scan_loop(c, sc, GI_JPEG_AC_FIRST, 1, st, u0, u1);
    default:
#if REFINE_BMI2
        if (gi__cpu_fast_bit_deposit()) return scan_refine_bmi2(c, sc, st, u0, u1);
#endif
        return scan_loop(c, sc, GI_JPEG_AC_REFINE, 1, st, u0, u1);
    }
}

/* A scan's state at its start, its data at `data`. */
static void scan_start(scan_state *st, const gi_jpeg_scan *sc, const uint8_t *data,
                       const uint8_t *file_end)
{
    memset(st, 0, sizeof *st);
    st->todo = sc->restart_interval ? sc->restart_interval : INT_MAX;
    reader_start(&st->br, data, file_end);
}

/* A run of whole restart intervals, from the data at `start`: MCUs u0..u1-1,
 * ending at a restart marker, or (last) at the marker after the scan. */
typedef struct {
    gi_jpeg_coeffs *c;
    const gi_jpeg_scan *sc;
    int kind, last;
    const uint8_t *start, *file_end;
    long u0, u1;
    int result;
    const uint8_t *marker_at; /* where the data ended */
    gi_jpeg_progress *progress; /* the whole scan, published by rows; NULL: not */
} chunk;

/* The whole scan as chunk ch, a row of units at a time, each published
 * as the MCU rows it completes (a unit row is an MCU row, but in a
 * one-component frame's scan, whose units are blocks: v of them). */
static int scan_published(chunk *ch, scan_state *st)
{
    const gi_jpeg_coeffs *c = ch->c;
    const gi_jpeg_plane *one = &c->plane[ch->sc->comp[0]];
    int one_comp = ch->sc->n == 1;
    long units_x, rows;
    unit_grid(c, ch->sc, &units_x, &rows);
    int ring = one->ring_rows / one->v; /* MCU rows in the ring, or 0 */
    for (long y = 0; y < rows; y++) {
        int m = one_comp ? (int)(y / one->v) : (int)y; /* the MCU row */
        /* MCU row m takes the slot of row m - ring, once no worker reads
         * that one (block_baseline zeroes each block it decodes) */
        if (ring && m >= ring && (one_comp ? y % one->v == 0 : 1))
            gi__jpeg_progress_wait_freed(ch->progress, m - ring + 1);
        if (scan_units(ch->c, ch->sc, st, ch->kind, y * units_x, (y + 1) * units_x) < 0) return -1;
        int done = y + 1 == rows ? c->mcus_y : one_comp ? (int)((y + 1) / one->v) : (int)(y + 1);
        gi__jpeg_progress_publish(ch->progress, done);
    }
    return 0;
}

/* Whether a scan's data ended as it must: its last interval's padding,
 * then a marker with no fill bytes before it (stb may read them as the
 * marker), not a restart (stb fails on it), not the end of the file. */
static int scan_ended(bitreader *br)
{
    return interval_end(br) == 0 && !br->fill && br->marker >= 0 && !is_restart(br->marker);
}

static void *decode_chunk(void *arg)
{
    chunk *ch = arg;
    scan_state st;
    scan_start(&st, ch->sc, ch->start, ch->file_end);
    int r = ch->progress ? scan_published(ch, &st)
                         : scan_units(ch->c, ch->sc, &st, ch->kind, ch->u0, ch->u1);
    /* the scan's end, or between chunks a restart */
    if (r == 0 && !(ch->last ? scan_ended(&st.br)
                             : interval_end(&st.br) == 0 && is_restart(st.br.marker)))
        r = -1;
    ch->result = r;
    ch->marker_at = st.br.marker_at;
    return NULL;
}

struct gi_jpeg_rows {
    gi_jpeg_coeffs *c;
    const gi_jpeg_scan *sc;
    scan_state st;
    int kind, v;      /* v: unit rows an MCU row (a one-component scan's block rows) */
    long units_x, rows, done; /* units a row; unit rows; unit rows decoded */
};

gi_jpeg_rows *gi__jpeg_rows_new(gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, const uint8_t *data,
                                const uint8_t *file_end)
{
    gi_jpeg_rows *r = malloc(sizeof *r);
    if (!r) return NULL;
    r->c = c;
    r->sc = sc;
    scan_start(&r->st, sc, data, file_end);
    r->kind = gi__jpeg_scan_kind(c->progressive, sc);
    r->v = sc->n == 1 ? c->plane[sc->comp[0]].v : 1;
    unit_grid(c, sc, &r->units_x, &r->rows);
    r->done = 0;
    return r;
}

int gi__jpeg_rows_decode(gi_jpeg_rows *r, long m)
{
    long to = (m + 1) * r->v;
    if (to > r->rows || m + 1 == r->c->mcus_y) to = r->rows;
    int rc = 0;
    if (to > r->done)
        rc = scan_units(r->c, r->sc, &r->st, r->kind, r->done * r->units_x, to * r->units_x);
    r->done = to;
    return rc < 0 ? -1 : 0;
}

int gi__jpeg_rows_ended_at(const gi_jpeg_rows *r, const uint8_t *marker)
{
    bitreader br = r->st.br; /* scan_ended reads on */
    return scan_ended(&br) && br.marker_at == marker;
}

void gi__jpeg_rows_free(gi_jpeg_rows *r)
{
    free(r);
}

int gi__jpeg_decode_scans_by_rows(gi_jpeg_coeffs *c, const gi_jpeg_scan *const *scans,
                                  const size_t *at, const size_t *end, int n,
                                  const uint8_t *bytes, size_t size)
{
    if (c->plane[0].ring_rows || n < 1) return -1;
    gi_jpeg_rows **rs = calloc((size_t)n, sizeof *rs);
    int ok = rs != NULL;
    for (int i = 0; i < n && ok; i++)
        ok = (rs[i] = gi__jpeg_rows_new(c, scans[i], bytes + at[i], bytes + size)) != NULL;
    for (long m = 0; m < c->mcus_y && ok; m++)
        for (int i = 0; i < n && ok; i++) ok = gi__jpeg_rows_decode(rs[i], m) == 0;
    for (int i = 0; i < n && ok; i++) ok = gi__jpeg_rows_ended_at(rs[i], bytes + end[i]);
    for (int i = 0; rs && i < n; i++) gi__jpeg_rows_free(rs[i]);
    free(rs);
    return ok ? 0 : -1;
}

/* The data starts of intervals 1..n-1 (after each restart marker), found
 * as the bit reader finds markers; 0, or -1 when fewer restart markers come
 * before the scan's end (the serial decoder then decides). */
static int find_restarts(const uint8_t *p, const uint8_t *end, const uint8_t **starts, long n)
{
    for (long i = 1; i < n;) {
        const uint8_t *ff = memchr(p, 0xFF, (size_t)(end - p));
        if (!ff) return -1;
        const uint8_t *m = ff + 1;
        while (m < end && *m == 0xFF) m++;
        if (m == end || (*m != 0 && !is_restart(*m))) return -1;
        p = m + 1;
        if (*m != 0) starts[i++] = p;
    }
    return 0;
}

#define MAX_CHUNKS 16
/* Parallel decoding pays from this many blocks a chunk. */
#define CHUNK_MIN_BLOCKS 4096

int gi__jpeg_decode_scan(gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, const uint8_t *bytes,
                         size_t size, size_t at, int threads, gi_jpeg_progress *progress,
                         size_t *end)
{
    int kind = gi__jpeg_scan_kind(c->progressive, sc);
    long units_x, rows;
    unit_grid(c, sc, &units_x, &rows);
    const long units = units_x * rows;
    int unit_blocks = 0;
    for (int i = 0; i < sc->n; i++)
        unit_blocks += sc->n == 1 ? 1 : c->plane[sc->comp[i]].h * c->plane[sc->comp[i]].v;
    long interval = sc->restart_interval, intervals = interval ? (units + interval - 1) / interval : 1;
    /* Restart intervals are independent: runs of them go to threads. */
    int n = threads < 1 ? 1 : threads > MAX_CHUNKS ? MAX_CHUNKS : threads;
    if ((long)n > intervals) n = (int)intervals;
    while (n > 1 && units * unit_blocks / n < CHUNK_MIN_BLOCKS) n--;
    /* On 2 threads the pipeline below overlaps the halves as well as a
     * split does (E/2 + R/2 against max(E, (E + R) / 2)), and keeps the
     * coefficients in a ring instead of the frame's fresh memory: gpuimg
     * hist of the-mouse-rst.jpg (9 MP 4:2:0, a restart interval per MCU
     * row) took 23.8 ms split against 17.8 for the same photo without
     * restarts. More threads split the entropy half further. */
    if (progress && threads <= 2 && kind == GI_JPEG_BASELINE && sc->n == c->ncomp) n = 1;
    const uint8_t **starts = NULL;
    if (n > 1) {
        starts = malloc(sizeof *starts * (size_t)intervals);
        if (!starts || find_restarts(bytes + at, bytes + size, starts, intervals) < 0) n = 1;
    }
    /* One serial pass over a baseline scan of every component: its MCU
     * rows are final as they come, so the arithmetic half may follow it
     * (jpeg_progress.h). A restart-parallel split on more than 2 threads
     * stays as it is. */
    if (progress && (n > 1 || kind != GI_JPEG_BASELINE || sc->n != c->ncomp ||
                     progress->ready(progress->arg, c) != 0))
        progress = NULL;
    else if (progress)
        progress->started = 1;
    if (!progress && c->plane[0].ring_rows) {
        free(starts);
        return -1; /* a ring holds too few rows for any other decode */
    }
    chunk ch[MAX_CHUNKS];
    pthread_t tid[MAX_CHUNKS];
    int started[MAX_CHUNKS] = {0};
    for (int k = 0; k < n; k++) {
        long i0 = intervals * k / n, i1 = intervals * (k + 1) / n;
        ch[k] = (chunk){c, sc, kind, k == n - 1, i0 ? starts[i0] : bytes + at, bytes + size,
                        i0 * interval, k == n - 1 ? units : i1 * interval, -1, NULL, progress};
        if (k > 0) started[k] = pthread_create(&tid[k], NULL, decode_chunk, &ch[k]) == 0;
    }
    decode_chunk(&ch[0]);
    int r = ch[0].result;
    for (int k = 1; k < n; k++) {
        if (started[k]) pthread_join(tid[k], NULL);
        else decode_chunk(&ch[k]);
        if (ch[k].result < 0) r = -1;
    }
    free(starts);
    if (r < 0) return -1;
    *end = (size_t)(ch[n - 1].marker_at - bytes);
    return 0;
}
