/* deflate_runs.h: literals and runs at a few distances, dynamic Huffman
 * blocks (RFC 1951, 3.2.7), or stored ones where those are not shorter. */
#include "deflate_runs.h"

#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <libdeflate.h> /* the Adler-32; the writer uses this file only beside libdeflate */

enum { LITLEN_CODES = 286, DIST_CODES = 30, CL_CODES = 19, MIN_RUN = 4, MAX_RUN = 258 };
enum { END_OF_BLOCK = 256 };
#define STORED_MAX 65535u

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                       33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* The order of the code length code's lengths in a block header. */
static const uint8_t cl_order[CL_CODES] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                          11, 4,  12, 3, 13, 2, 14, 1, 15};

/* ---- the bits out: LSB first, room checked a block at a time ---- */

typedef struct {
    uint8_t *p;
    uint64_t buf;
    int count; /* bits in buf not yet stored whole, below 8 between calls */
} bit_out;

/* n <= 56 bits; stores 8 bytes at p each time (the room leaves 8 more),
 * keeping the bits of the last byte that is not yet whole. */
static inline void put_bits(bit_out *o, uint64_t bits, int n)
{
    o->buf |= bits << o->count;
    o->count += n;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(o->p, &o->buf, 8);
#else
    for (int b = 0; b < 8; b++) o->p[b] = (uint8_t)(o->buf >> (8 * b));
#endif
    o->p += o->count >> 3;
    o->buf >>= o->count & ~7;
    o->count &= 7;
}

static void flush_to_byte(bit_out *o)
{
    if (o->count) *o->p++ = (uint8_t)o->buf;
    o->buf = 0;
    o->count = 0;
}

/* ---- Huffman codes ---- */

typedef struct {
    uint32_t freq;
    uint16_t sym;
} leaf;

static int by_freq(const void *a, const void *b)
{
    const leaf *x = a, *y = b;
    if (x->freq != y->freq) return x->freq < y->freq ? -1 : 1;
    return (int)x->sym - (int)y->sym;
}

/* Code lengths (none over limit) for freq[0..n): a Huffman code, its
 * deepest lengths moved up as JPEG's Annex K.3 does (the code stays
 * complete), the shortest given to the most frequent. Symbols of freq 0
 * get no code; where fewer than two have one, two get a 1-bit code (the
 * inflaters want a complete code). */
static void code_lengths(const uint32_t *freq, int n, int limit, uint8_t *len)
{
    leaf leaves[LITLEN_CODES];
    int count = 0;
    memset(len, 0, (size_t)n);
    for (int s = 0; s < n; s++)
        if (freq[s]) leaves[count++] = (leaf){freq[s], (uint16_t)s};
    if (count < 2) {
        const int a = count ? leaves[0].sym : 0;
        len[a] = len[a == 0 ? 1 : 0] = 1;
        return;
    }
    qsort(leaves, (size_t)count, sizeof *leaves, by_freq);
    /* the tree by the two-queue method: leaves 0..count-1 in order, inner
     * nodes count.. as they are made (in order of weight too) */
    uint64_t weight[2 * LITLEN_CODES];
    int parent[2 * LITLEN_CODES];
    for (int i = 0; i < count; i++) weight[i] = leaves[i].freq;
    int next_leaf = 0, next_inner = count, made = count;
    for (int k = 0; k < count - 1; k++) {
        int pick[2];
        for (int t = 0; t < 2; t++) {
            if (next_leaf < count && (next_inner >= made || weight[next_leaf] <= weight[next_inner]))
                pick[t] = next_leaf++;
            else
                pick[t] = next_inner++;
        }
        weight[made] = weight[pick[0]] + weight[pick[1]];
        parent[pick[0]] = parent[pick[1]] = made;
        made++;
    }
    int depth[2 * LITLEN_CODES], bl_count[2 * LITLEN_CODES] = {0};
    depth[made - 1] = 0;
    int deepest = 0;
    for (int i = made - 2; i >= 0; i--) {
        depth[i] = depth[parent[i]] + 1;
        if (i < count) {
            bl_count[depth[i]]++;
            if (depth[i] > deepest) deepest = depth[i];
        }
    }
    for (int i = deepest; i > limit; i--)
        while (bl_count[i] > 0) {
            int j = i - 2;
            while (bl_count[j] == 0) j--;
            bl_count[i] -= 2;
            bl_count[i - 1] += 1;
            bl_count[j + 1] += 2;
            bl_count[j] -= 1;
        }
    int k = count - 1; /* the most frequent first */
    for (int bits = 1; bits <= limit; bits++)
        for (int c = 0; c < bl_count[bits]; c++) len[leaves[k--].sym] = (uint8_t)bits;
}

/* The canonical codes of lengths len[0..n), bit-reversed for LSB-first
 * output. */
static void canonical_codes(const uint8_t *len, int n, uint16_t *code)
{
    int bl_count[16] = {0}, next[16];
    for (int s = 0; s < n; s++) bl_count[len[s]]++;
    bl_count[0] = 0;
    int c = 0;
    for (int bits = 1; bits < 16; bits++) {
        c = (c + bl_count[bits - 1]) << 1;
        next[bits] = c;
    }
    for (int s = 0; s < n; s++) {
        code[s] = 0;
        if (!len[s]) continue;
        uint32_t v = (uint32_t)next[len[s]]++, r = 0;
        for (int b = 0; b < len[s]; b++, v >>= 1) r = r << 1 | (v & 1);
        code[s] = (uint16_t)r;
    }
}

/* ---- a block ---- */

typedef struct {
    uint32_t lit[LITLEN_CODES], dist[DIST_CODES];
} freqs;

/* The index of a run length's code (0..28: symbol 257 + it). */
static int length_index(int length)
{
    int c = 0;
    while (c < 28 && len_base[c + 1] <= length) c++;
    return c;
}

static int distance_index(uint32_t d)
{
    int c = 0;
    while (c < 29 && dist_base[c + 1] <= d) c++;
    return c;
}

/* How many bytes from a and b agree (at most max), the first four known
 * to. b may lie before a within reach of the run: both are the input. */
static inline size_t run_length(const uint8_t *a, const uint8_t *b, size_t max)
{
    size_t n = MIN_RUN;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (n + 8 <= max) {
        uint64_t x, y;
        memcpy(&x, a + n, 8);
        memcpy(&y, b + n, 8);
        if (x != y) return n + (size_t)(__builtin_ctzll(x ^ y) >> 3);
        n += 8;
    }
#endif
    while (n < max && a[n] == b[n]) n++;
    return n;
}

/* A run of a block: where it starts (from the block's start), its length
 * and the index of its distance. */
typedef struct {
    uint32_t at;
    uint16_t length;
    uint16_t which;
} run;

/* The stream's distances, and what they code to. */
typedef struct {
    uint32_t d[GI_DEFLATE_RUNS_MAX_DISTANCES];
    uint8_t index[GI_DEFLATE_RUNS_MAX_DISTANCES]; /* distance code */
    int count;
} distances;

/* The longest run at src[i] (0: none of MIN_RUN bytes), at most max
 * bytes; *which its distance. */
static inline size_t longest_run(const uint8_t *src, size_t i, size_t max, const distances *ds,
                                 int *which)
{
    size_t best = 0;
    if (max < MIN_RUN) return 0;
    uint32_t here;
    memcpy(&here, src + i, 4);
    for (int c = 0; c < ds->count && ds->d[c] <= i; c++) {
        uint32_t there;
        memcpy(&there, src + i - ds->d[c], 4);
        if (here != there) continue;
        const size_t n = run_length(src + i, src + i - ds->d[c], max);
        if (n > best) best = n, *which = c;
    }
    return best;
}

#ifdef __SSE2__
/* Of the 29 places from src[i] (src[i - d .. i + 32) readable for each
 * distance d), a bit for each where a run of MIN_RUN bytes starts at one
 * of the distances: 16 bytes compared at a time. */
static inline uint32_t run_starts(const uint8_t *src, size_t i, const distances *ds)
{
    const __m128i a0 = _mm_loadu_si128((const __m128i *)(src + i)),
                  a1 = _mm_loadu_si128((const __m128i *)(src + i + 16));
    uint32_t any = 0;
    for (int c = 0; c < ds->count; c++) {
        const uint8_t *b = src + i - ds->d[c];
        const uint32_t m =
            (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a0, _mm_loadu_si128((const __m128i *)b))) |
            (uint32_t)_mm_movemask_epi8(
                _mm_cmpeq_epi8(a1, _mm_loadu_si128((const __m128i *)(b + 16))))
                << 16;
        any |= m & m >> 1 & m >> 2 & m >> 3;
    }
    return any & 0x1FFFFFFFu;
}
#endif

/* Counts src[a..b) as literals, in four tables so that repeated bytes do
 * not wait on one counter. */
static inline void count_literals(const uint8_t *src, size_t a, size_t b, uint32_t (*lit)[256])
{
    for (; a + 4 <= b; a += 4) {
        lit[0][src[a]]++;
        lit[1][src[a + 1]]++;
        lit[2][src[a + 2]]++;
        lit[3][src[a + 3]]++;
    }
    for (; a < b; a++) lit[0][src[a]]++;
}

/* The runs of src[from..to) (looking back to src[0]) into runs, the codes
 * of the block counted in f. Returns the runs' count. */
static size_t parse(const uint8_t *src, size_t from, size_t to, const distances *ds,
                    const uint8_t *len_index, run *runs, freqs *f)
{
    uint32_t lit[4][256];
    memset(lit, 0, sizeof lit);
    const uint32_t reach = ds->count ? ds->d[ds->count - 1] : 0;
    size_t i = from, literal_from = from, count = 0;
    while (i < to) {
#ifdef __SSE2__
        if (ds->count && i >= reach && to - i >= 32) {
            const uint32_t starts = run_starts(src, i, ds);
            if (!starts) {
                i += 29;
                continue;
            }
            i += (size_t)__builtin_ctz(starts);
        }
#endif
        int which = 0;
        const size_t max = to - i < MAX_RUN ? to - i : MAX_RUN;
        const size_t n = longest_run(src, i, max, ds, &which);
        if (!n) {
            i++;
            continue;
        }
        count_literals(src, literal_from, i, lit);
        runs[count++] = (run){(uint32_t)(i - from), (uint16_t)n, (uint16_t)which};
        f->lit[257 + len_index[n - 3]]++;
        f->dist[ds->index[which]]++;
        i += n;
        literal_from = i;
    }
    count_literals(src, literal_from, to, lit);
    for (int v = 0; v < 256; v++) f->lit[v] = lit[0][v] + lit[1][v] + lit[2][v] + lit[3][v];
    f->lit[END_OF_BLOCK] = 1;
    return count;
}

/* A dynamic block's header: its code lengths, run-length coded. */
typedef struct {
    int hlit, hdist, hclen;
    uint8_t cl_len[CL_CODES];
    uint16_t cl_code[CL_CODES];
    uint8_t seq[LITLEN_CODES + DIST_CODES], seq_extra[LITLEN_CODES + DIST_CODES];
    int seq_count;
    uint64_t bits;
} header;

static void make_header(const uint8_t *lit_len, const uint8_t *dist_len, header *h)
{
    uint8_t all[LITLEN_CODES + DIST_CODES];
    h->hlit = LITLEN_CODES;
    while (h->hlit > 257 && !lit_len[h->hlit - 1]) h->hlit--;
    h->hdist = DIST_CODES;
    while (h->hdist > 1 && !dist_len[h->hdist - 1]) h->hdist--;
    memcpy(all, lit_len, (size_t)h->hlit);
    memcpy(all + h->hlit, dist_len, (size_t)h->hdist);
    const int n = h->hlit + h->hdist;
    uint32_t cl_freq[CL_CODES] = {0};
    h->seq_count = 0;
#define SEQ(s, e) (h->seq[h->seq_count] = (uint8_t)(s), h->seq_extra[h->seq_count++] = (uint8_t)(e), cl_freq[s]++)
    for (int i = 0; i < n;) {
        const int v = all[i];
        int run = 1;
        while (i + run < n && all[i + run] == v) run++;
        i += run;
        if (v == 0) {
            while (run >= 11) {
                const int r = run > 138 ? 138 : run;
                SEQ(18, r - 11);
                run -= r;
            }
            if (run >= 3) {
                SEQ(17, run - 3);
                run = 0;
            }
        } else {
            SEQ(v, 0);
            run--;
            while (run >= 3) {
                const int r = run > 6 ? 6 : run;
                SEQ(16, r - 3);
                run -= r;
            }
        }
        while (run-- > 0) SEQ(v, 0);
    }
#undef SEQ
    code_lengths(cl_freq, CL_CODES, 7, h->cl_len);
    canonical_codes(h->cl_len, CL_CODES, h->cl_code);
    h->hclen = CL_CODES;
    while (h->hclen > 4 && !h->cl_len[cl_order[h->hclen - 1]]) h->hclen--;
    h->bits = 5 + 5 + 4 + 3 * (uint64_t)h->hclen;
    for (int i = 0; i < h->seq_count; i++) {
        const int s = h->seq[i];
        h->bits += h->cl_len[s] + (s == 16 ? 2 : s == 17 ? 3 : s == 18 ? 7 : 0);
    }
}

static void put_header(bit_out *o, const header *h)
{
    put_bits(o, (uint32_t)(h->hlit - 257), 5);
    put_bits(o, (uint32_t)(h->hdist - 1), 5);
    put_bits(o, (uint32_t)(h->hclen - 4), 4);
    for (int i = 0; i < h->hclen; i++) put_bits(o, h->cl_len[cl_order[i]], 3);
    for (int i = 0; i < h->seq_count; i++) {
        const int s = h->seq[i];
        put_bits(o, h->cl_code[s], h->cl_len[s]);
        if (s >= 16) put_bits(o, h->seq_extra[i], s == 16 ? 2 : s == 17 ? 3 : 7);
    }
}

/* src[from..to) as stored blocks (RFC 1951, 3.2.4), the last one final
 * where `last`. */
static void put_stored(bit_out *o, const uint8_t *src, size_t from, size_t to, int last)
{
    do {
        const size_t n = to - from < STORED_MAX ? to - from : STORED_MAX;
        put_bits(o, (last && from + n == to) ? 1u : 0u, 3);
        flush_to_byte(o);
        o->p[0] = (uint8_t)n, o->p[1] = (uint8_t)(n >> 8);
        o->p[2] = (uint8_t)~n, o->p[3] = (uint8_t)(~n >> 8);
        memcpy(o->p + 4, src + from, n);
        o->p += 4 + n;
        from += n;
    } while (from < to);
}

static uint64_t stored_bits(size_t n)
{
    return ((n + STORED_MAX - 1) / STORED_MAX + (n == 0)) * (3 + 7 + 32) + 8 * (uint64_t)n;
}

size_t gi__deflate_runs_bound(size_t n)
{
    /* zlib's header and Adler-32; a block is never longer than stored:
     * its pieces of STORED_MAX bytes, 6 bytes each at most besides; and
     * the 8 bytes put_bits stores past the last */
    const size_t blocks = n / GI_DEFLATE_RUNS_BLOCK + 1;
    return n + 2 + 4 + 8 * (n / STORED_MAX + blocks + 1) + 8;
}

/* Literals src[a..b), three to a store (45 bits at most). */
static inline void put_literals(bit_out *o, const uint8_t *src, size_t a, size_t b,
                                const uint16_t *code, const uint8_t *len)
{
    for (; a + 3 <= b; a += 3) {
        const int x = src[a], y = src[a + 1], z = src[a + 2];
        const int lx = len[x], lxy = lx + len[y];
        put_bits(o, code[x] | (uint64_t)code[y] << lx | (uint64_t)code[z] << lxy, lxy + len[z]);
    }
    for (; a < b; a++) put_bits(o, code[src[a]], len[src[a]]);
}

size_t gi__deflate_runs(const uint8_t *src, size_t n, const uint32_t *given, int count,
                        uint8_t *dst, size_t cap)
{
    if (cap < gi__deflate_runs_bound(n)) return 0;
    /* the distances in order, each once */
    distances ds = {.count = 0};
    for (int i = 0; i < count; i++) {
        const uint32_t d = given[i];
        if (d < 1 || d > 32768 || ds.count == GI_DEFLATE_RUNS_MAX_DISTANCES) continue;
        int at = 0;
        while (at < ds.count && ds.d[at] < d) at++;
        if (at < ds.count && ds.d[at] == d) continue;
        memmove(ds.d + at + 1, ds.d + at, sizeof *ds.d * (size_t)(ds.count - at));
        ds.d[at] = d;
        ds.count++;
    }
    for (int c = 0; c < ds.count; c++) ds.index[c] = (uint8_t)distance_index(ds.d[c]);
    const size_t block = n < GI_DEFLATE_RUNS_BLOCK ? n : GI_DEFLATE_RUNS_BLOCK;
    run *runs = malloc(sizeof *runs * (block / MIN_RUN + 1));
    if (!runs) return 0;
    uint8_t len_index[256];
    for (int l = 0; l < 256; l++) len_index[l] = (uint8_t)length_index(l + 3);
    bit_out o = {dst + 2, 0, 0};
    dst[0] = 0x78; /* deflate, 32 KiB window */
    dst[1] = 0x01; /* the fastest level; (0x78 * 256 + 0x01) % 31 == 0 */
    size_t from = 0;
    do {
        const size_t to = n - from < GI_DEFLATE_RUNS_BLOCK ? n : from + GI_DEFLATE_RUNS_BLOCK;
        const int last = to == n;
        freqs f = {{0}, {0}};
        const size_t nr = parse(src, from, to, &ds, len_index, runs, &f);
        /* a distance code (two where fewer are used: a complete code) */
        int used = 0;
        for (int d = 0; d < DIST_CODES; d++) used += f.dist[d] != 0;
        for (int d = 0; used < 2; d++)
            if (!f.dist[d]) f.dist[d] = 1, used++;
        uint8_t lit_len[LITLEN_CODES], dist_len[DIST_CODES];
        uint16_t lit_code[LITLEN_CODES], dist_code[DIST_CODES];
        code_lengths(f.lit, LITLEN_CODES, 15, lit_len);
        code_lengths(f.dist, DIST_CODES, 15, dist_len);
        header h;
        make_header(lit_len, dist_len, &h);
        uint64_t bits = 3 + h.bits;
        for (int s = 0; s < LITLEN_CODES; s++)
            bits += (uint64_t)f.lit[s] * (lit_len[s] + (s > END_OF_BLOCK ? len_extra[s - 257] : 0));
        for (int d = 0; d < DIST_CODES; d++) bits += (uint64_t)f.dist[d] * (dist_len[d] + dist_extra[d]);
        if (bits >= stored_bits(to - from)) {
            put_stored(&o, src, from, to, last);
        } else {
            canonical_codes(lit_len, LITLEN_CODES, lit_code);
            canonical_codes(dist_len, DIST_CODES, dist_code);
            /* each distance's code and extra bits, once */
            uint32_t dbits[GI_DEFLATE_RUNS_MAX_DISTANCES];
            int dlen[GI_DEFLATE_RUNS_MAX_DISTANCES];
            for (int c = 0; c < ds.count; c++) {
                const int di = ds.index[c];
                dbits[c] = dist_code[di] | (ds.d[c] - dist_base[di]) << dist_len[di];
                dlen[c] = dist_len[di] + dist_extra[di];
            }
            put_bits(&o, last ? 5u : 4u, 3); /* BFINAL, BTYPE 10 */
            put_header(&o, &h);
            size_t at = from;
            for (size_t r = 0; r < nr; r++) {
                const size_t start = from + runs[r].at;
                put_literals(&o, src, at, start, lit_code, lit_len);
                const int l = runs[r].length - 3, li = len_index[l], c = runs[r].which;
                put_bits(&o, lit_code[257 + li] | (uint32_t)(l + 3 - len_base[li]) << lit_len[257 + li],
                         lit_len[257 + li] + len_extra[li]);
                put_bits(&o, dbits[c], dlen[c]);
                at = start + runs[r].length;
            }
            put_literals(&o, src, at, to, lit_code, lit_len);
            put_bits(&o, lit_code[END_OF_BLOCK], lit_len[END_OF_BLOCK]);
        }
        from = to;
    } while (from < n);
    flush_to_byte(&o);
    free(runs);
    const uint32_t a = libdeflate_adler32(1, src, n);
    o.p[0] = (uint8_t)(a >> 24), o.p[1] = (uint8_t)(a >> 16), o.p[2] = (uint8_t)(a >> 8),
    o.p[3] = (uint8_t)a;
    return (size_t)(o.p + 4 - dst);
}
