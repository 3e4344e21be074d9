/* The deflate block walker (deflate_walk.h): a decoder of codes alone.
 * Every read goes through peek/skip, which count bits against the buffer:
 * a peek past the end reads zeros, and a skip past it fails the walk, so
 * no byte beyond size is ever read. */
#include "deflate_walk.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *buf;
    size_t size;
    uint64_t pos, limit; /* bits; limit = size * 8 */
} bits_in;

/* The next k (<= 25) bits, the first in the lowest place; zeros past the
 * end of the buffer. */
static inline uint32_t peek(const bits_in *r, int k)
{
    const size_t byte = (size_t)(r->pos >> 3);
    uint64_t v = 0;
    if (byte + 8 <= r->size) {
        for (int i = 7; i >= 0; i--) v = v << 8 | r->buf[byte + (size_t)i];
    } else {
        for (size_t i = 0; byte + i < r->size; i++) v |= (uint64_t)r->buf[byte + i] << (8 * i);
    }
    return (uint32_t)(v >> (r->pos & 7)) & ((1u << k) - 1);
}

/* Moves past k bits; 0 when that goes past the end of the buffer. */
static inline int skip(bits_in *r, int k)
{
    r->pos += (uint64_t)k;
    return r->pos <= r->limit;
}

static inline int take(bits_in *r, int k, uint32_t *v)
{
    *v = peek(r, k);
    return skip(r, k);
}

/* A Huffman decode table in two levels, as zlib's and libdeflate's: the
 * next `bits` bits (at most ROOT_BITS) index the root; a code longer than
 * that continues in a subtable, indexed by the bits after the root's.
 * An entry is
 *   symbol << 8 | bits to skip                    (a whole code), or
 *   subtable offset << 8 | SUBTABLE | its bits    (a longer code's root),
 * and 0 where no code starts with those bits (an incomplete code) or the
 * code is a symbol that must not occur (literal/length 286 and 287,
 * distance 30 and 31): decoding such bits fails. The bits to skip are the
 * code's and the extra bits after it (a length's or a distance's), so
 * that a walk, which needs no values, moves on by one addition. A short
 * root keeps a block's tables in the first level cache. */
#define ROOT_BITS 10
#define SUBTABLE 0x80u
typedef struct {
    int bits;
    uint32_t e[(1 << ROOT_BITS) + (1 << 15)];
} huff;

/* code's low len bits (at most 15) in the other order */
static unsigned reverse(unsigned code, int len)
{
    code = (code & 0x5555) << 1 | (code >> 1 & 0x5555);
    code = (code & 0x3333) << 2 | (code >> 2 & 0x3333);
    code = (code & 0x0f0f) << 4 | (code >> 4 & 0x0f0f);
    code = (code & 0x00ff) << 8 | (code >> 8 & 0x00ff);
    return code >> (16 - len);
}

/* The canonical code of lens[0..n) (RFC 1951 3.2.2) into t, the symbols
 * from `valid` on refused, extra[s] bits after symbol s (extra may be
 * NULL); 0 when the lengths over-subscribe the code space. */
static int build(huff *t, const uint8_t *lens, int n, int valid, const uint8_t *extra)
{
    int count[16] = {0}, max = 0;
    unsigned next[16] = {0};
    for (int s = 0; s < n; s++) {
        count[lens[s]]++;
        if (lens[s] > max) max = lens[s];
    }
    count[0] = 0;
    int left = 1;
    for (int len = 1; len <= 15; len++) {
        left = left * 2 - count[len];
        if (left < 0) return 0;
    }
    for (int len = 1, code = 0; len <= 15; len++) {
        code = (code + count[len - 1]) << 1;
        next[len] = (unsigned)code;
    }
    const int root = max < 1 ? 1 : max > ROOT_BITS ? ROOT_BITS : max;
    const unsigned root_mask = (1u << root) - 1;
    t->bits = root;
    memset(t->e, 0, sizeof t->e[0] << root);
    /* The subtables' sizes: the longest code under each root entry. */
    unsigned rev[288];
    uint8_t sub_bits[1 << ROOT_BITS];
    uint16_t subs[288]; /* root entries with a subtable, in the order first seen */
    int n_subs = 0;
    for (int s = 0; s < n; s++) {
        if (!lens[s]) continue;
        rev[s] = reverse(next[lens[s]]++, lens[s]);
        if (lens[s] <= root) continue;
        const unsigned i = rev[s] & root_mask;
        if (t->e[i] != SUBTABLE) { /* first seen */
            t->e[i] = SUBTABLE;
            sub_bits[i] = 0;
            subs[n_subs++] = (uint16_t)i;
        }
        if (lens[s] - root > sub_bits[i]) sub_bits[i] = (uint8_t)(lens[s] - root);
    }
    unsigned at = 1u << root;
    for (int k = 0; k < n_subs; k++) {
        const unsigned i = subs[k];
        t->e[i] = at << 8 | SUBTABLE | sub_bits[i];
        memset(t->e + at, 0, sizeof t->e[0] << sub_bits[i]);
        at += 1u << sub_bits[i];
    }
    for (int s = 0; s < n; s++) {
        const int len = lens[s];
        if (!len) continue;
        const uint32_t entry =
            s >= valid ? 0 : (uint32_t)s << 8 | (uint32_t)(len + (extra ? extra[s] : 0));
        if (len <= root) {
            for (unsigned j = rev[s]; j <= root_mask; j += 1u << len) t->e[j] = entry;
        } else {
            const uint32_t ptr = t->e[rev[s] & root_mask];
            const unsigned size = 1u << (ptr & 15), step = 1u << (len - root);
            for (unsigned j = rev[s] >> root; j < size; j += step) t->e[(ptr >> 8) + j] = entry;
        }
    }
    return 1;
}

/* The entry of the code that starts the bits (the next 15 or more). */
static inline uint32_t lookup(const huff *t, uint64_t bits)
{
    uint32_t e = t->e[bits & ((1u << t->bits) - 1)];
    if (e & SUBTABLE)
        e = t->e[(e >> 8) + ((unsigned)(bits >> t->bits) & ((1u << (e & 15)) - 1))];
    return e;
}

/* The next symbol of t's code, its extra bits skipped too, or -1. */
static inline int decode(bits_in *r, const huff *t)
{
    const uint32_t e = lookup(t, peek(r, 15));
    if (!e) return -1;
    r->pos += e & 31;
    return r->pos <= r->limit ? (int)(e >> 8) : -1;
}

/* The extra bits of every literal/length symbol (257..285 are lengths)
 * and every distance symbol. */
static const uint8_t litlen_extra[288] = {
    [265] = 1, [266] = 1, [267] = 1, [268] = 1, [269] = 2, [270] = 2, [271] = 2, [272] = 2,
    [273] = 3, [274] = 3, [275] = 3, [276] = 3, [277] = 4, [278] = 4, [279] = 4, [280] = 4,
    [281] = 5, [282] = 5, [283] = 5, [284] = 5};
static const uint8_t dist_extra[32] = {0, 0, 0, 0, 1, 1, 2, 2,   3,   3,   4,  4,  5,  5,  6,  6,
                                       7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 0, 0};

typedef struct {
    huff litlen, dist, lens;
} tables;

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* The symbols of one Huffman block, through its end-of-block code. While
 * 8 bytes are left, from a bit buffer of 56 to 63 bits refilled in whole
 * bytes (libdeflate's way) whenever it holds less than a whole match (at
 * most 15 + 5 + 15 + 13 = 48 bits); the last bytes through peek. */
static int walk_symbols(bits_in *r, const tables *t)
{
    if (r->size >= 8 && (r->pos >> 3) <= r->size - 8) {
        const uint8_t *in = r->buf + (r->pos >> 3), *const last = r->buf + r->size - 8;
        uint64_t bits = load64(in) >> (r->pos & 7);
        int have = 56 - (int)(r->pos & 7);
        in += 7;
        for (;;) {
            if (have < 48) {
                if (in > last) break;
                bits |= load64(in) << have;
                in += (63 - have) >> 3;
                have |= 56;
            }
            uint32_t e = lookup(&t->litlen, bits);
            if (!e) return 0;
            bits >>= e & 31;
            have -= (int)(e & 31);
            if (e >> 8 < 256) continue;
            if (e >> 8 == 256) {
                r->pos = (uint64_t)(in - r->buf) * 8 - (uint64_t)have;
                return 1;
            }
            e = lookup(&t->dist, bits);
            if (!e) return 0;
            bits >>= e & 31;
            have -= (int)(e & 31);
        }
        r->pos = (uint64_t)(in - r->buf) * 8 - (uint64_t)have;
    }
    for (;;) {
        const int sym = decode(r, &t->litlen);
        if (sym < 0) return 0;
        if (sym < 256) continue;
        if (sym == 256) return 1;
        if (decode(r, &t->dist) < 0) return 0;
    }
}

static int fixed_tables(tables *t)
{
    uint8_t lens[288];
    memset(lens, 8, 144);
    memset(lens + 144, 9, 112);
    memset(lens + 256, 7, 24);
    memset(lens + 280, 8, 8);
    if (!build(&t->litlen, lens, 288, 286, litlen_extra)) return 0;
    memset(lens, 5, 32);
    return build(&t->dist, lens, 32, 30, dist_extra);
}

/* A dynamic block's header: the code-length code, then the literal/length
 * and distance code lengths it codes (RFC 1951 3.2.7). */
static int dynamic_tables(bits_in *r, tables *t)
{
    static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                      11, 4, 12, 3, 13, 2, 14, 1, 15};
    uint32_t hlit, hdist, hclen, v;
    if (!take(r, 5, &hlit) || !take(r, 5, &hdist) || !take(r, 4, &hclen)) return 0;
    hlit += 257;
    hdist += 1;
    hclen += 4;
    if (hlit > 286 || hdist > 30) return 0;
    uint8_t cl[19] = {0}, lens[286 + 30];
    for (uint32_t i = 0; i < hclen; i++) {
        if (!take(r, 3, &v)) return 0;
        cl[order[i]] = (uint8_t)v;
    }
    if (!build(&t->lens, cl, 19, 19, NULL)) return 0;
    for (uint32_t i = 0; i < hlit + hdist;) {
        const int sym = decode(r, &t->lens);
        if (sym < 0) return 0;
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        uint32_t repeat;
        uint8_t value = 0;
        if (sym == 16) {
            if (i == 0 || !take(r, 2, &repeat)) return 0;
            repeat += 3;
            value = lens[i - 1];
        } else if (sym == 17) {
            if (!take(r, 3, &repeat)) return 0;
            repeat += 3;
        } else {
            if (!take(r, 7, &repeat)) return 0;
            repeat += 11;
        }
        if (repeat > hlit + hdist - i) return 0;
        memset(lens + i, value, repeat);
        i += repeat;
    }
    if (lens[256] == 0) return 0; /* no end-of-block code */
    return build(&t->litlen, lens, (int)hlit, 286, litlen_extra) &&
           build(&t->dist, lens + hlit, (int)hdist, 30, dist_extra);
}

int gi__deflate_walk(const uint8_t *buf, size_t size, uint64_t *final_block_bit,
                     uint64_t *end_bit)
{
    if (size > (SIZE_MAX >> 4)) return -1;
    bits_in r = {buf, size, 0, (uint64_t)size * 8};
    tables *t = malloc(sizeof *t);
    if (!t) return -1;
    int ok = 1;
    for (;;) {
        const uint64_t header = r.pos;
        uint32_t final, type;
        if (!take(&r, 1, &final) || !take(&r, 2, &type)) {
            ok = 0;
            break;
        }
        if (type == 0) { /* stored: to a byte boundary, LEN, NLEN, LEN bytes */
            r.pos = (r.pos + 7) & ~(uint64_t)7;
            uint32_t len, nlen;
            ok = take(&r, 16, &len) && take(&r, 16, &nlen) && (len ^ 0xffff) == nlen &&
                 skip(&r, 8 * (int)len);
        } else if (type == 1) {
            ok = fixed_tables(t) && walk_symbols(&r, t);
        } else if (type == 2) {
            ok = dynamic_tables(&r, t) && walk_symbols(&r, t);
        } else {
            ok = 0;
        }
        if (!ok) break;
        if (final) {
            *final_block_bit = header;
            *end_bit = r.pos;
            break;
        }
    }
    free(t);
    return ok ? 0 : -1;
}
