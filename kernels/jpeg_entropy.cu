/* The exact JPEG decoder's entropy half on the GPU: a file's scans
 * Huffman-decoded, in order, into the coefficients the CPU's decoder
 * (lib/codec/jpeg/jpeg_entropy.c) gives, for the scans the codec worker
 * deferred (lib/codec/jpeg/jpeg_deferred.h: unstuffed, cut at restart markers).
 * Every kind of scan: baseline (interleaved or one component), and the
 * progressive DC first and refinement scans, AC first scans (with their
 * runs of empty blocks) and AC refinements (correction bits for the
 * coefficients the earlier scans made nonzero, read where they lie).
 *
 * A Huffman stream is serial only in where each code starts. Cut into
 * subsequences of a few hundred bits, each decoded by one thread from a
 * guessed start, the codes fall into step with the true ones within a few
 * codes: that is the self-synchronisation of Huffman codes (Weissenberger
 * and Schmidt's massively parallel decoders rest on it). A thread's state
 * between steps (a code and the bits that belong to it) is the bit, the
 * block of the unit, the coefficient index and, in an AC refinement, the
 * run of blocks left to an end-of-band code, so "in step" means all agree.
 * An AC first scan's end-of-band run takes no bits: the step that decodes
 * it ends the blocks it covers at once.
 *
 * - sync rounds: each thread decodes its subsequence from its start and
 *   hands the state where it stopped (the first step boundary at or past
 *   its end) to the next thread as that one's start. The first subsequence
 *   of each segment starts where the segment does, so after round r the
 *   first r+1 of each segment hold true starts; a round that changes no
 *   start has every start true. Two rounds settle nearly every scan. An
 *   AC refinement's steps also depend on which block they are in (how many
 *   correction bits it takes): each thread's first block is the exclusive
 *   sum of the blocks the threads before it began in the last round, and
 *   a round settles once neither a start nor a count moves.
 * - write: from the true starts, each thread knows its first block's index
 *   (the same sum) and writes its coefficients; DC differences go to
 *   arrays per plane and segment, whose inclusive sums are stb's
 *   predictions (mod 2^32, as stb's int wraps, shifted by the scan's first
 *   bit and cut to 16 bits as it stores them).
 * - checks: each segment's last block must end within its data, at most 7
 *   bits (the padding) before the marker, and no code may be one no table
 *   holds (nor, in an AC refinement, a value of more than one bit): where
 *   the CPU's decoder gives up, *bad says so and the host decodes the file
 *   the CPU's way instead. */
#include <cub/device/device_scan.cuh>

#include "gi_kernels.h"
#include "codec/jpeg/jpeg_deferred.h"
#include "codec/jpeg/jpeg_entropy.h"

namespace {

constexpr int THREADS = 256;
constexpr int SUB_BITS = 8 * GI_JPEG_SUBSEQ_BYTES;
constexpr int LOOKUP = GI_JPEG_LOOKUP_BITS;
constexpr uint32_t ENTRY_FULL = 0x20u;
constexpr uint32_t NO_END = 0xffffffffu;

struct state {
    uint32_t pos; /* bit offset in the data */
    int b;        /* block of the unit (0 with sync_blocks 1) */
    int k;        /* baseline: 0 for a DC code next, else the zigzag index of the next AC
                     code; AC scans: the next index of the band (ss: a block starts) */
    int eob;      /* AC refinement: blocks left to an end-of-band run */
};

__device__ __forceinline__ unsigned long long pack(state s)
{
    return (unsigned long long)s.pos | (unsigned long long)s.b << 32 |
           (unsigned long long)s.k << 40 | (unsigned long long)s.eob << 48;
}

__device__ __forceinline__ state unpack(unsigned long long v)
{
    return {(uint32_t)v, (int)((v >> 32) & 0xff), (int)((v >> 40) & 0xff), (int)(v >> 48)};
}

/* The 32 bits from bit `pos` on, most significant first. */
__device__ __forceinline__ uint32_t peek32(const uint32_t *words, uint32_t pos)
{
    uint32_t i = pos >> 5;
    uint32_t hi = __byte_perm(__ldg(words + i), 0, 0x0123);
    uint32_t lo = __byte_perm(__ldg(words + i + 1), 0, 0x0123);
    return __funnelshift_l(lo, hi, pos & 31);
}

/* The JPEG standard's EXTEND of an s-bit magnitude m. */
__device__ __forceinline__ int extend(uint32_t m, int s)
{
    return m < (1u << (s - 1)) ? (int)m - (int)((1u << s) - 1) : (int)m;
}

/* The segment that subsequence j belongs to. */
__device__ int segment_of(const gi_cuda_jpeg_scan &s, unsigned j)
{
    int lo = 0, hi = s.segments - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (s.subseq_first[mid] <= j) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* The tables' lookups into shared memory (the rest, for codes longer
 * than the lookup, is read where it lies). */
__device__ void load_lookups(const gi_cuda_jpeg_scan &s, uint32_t *lookups)
{
    const gi_jpeg_huff *t = (const gi_jpeg_huff *)s.tables;
    for (int i = threadIdx.x; i < s.ntables << LOOKUP; i += blockDim.x)
        lookups[i] = t[i >> LOOKUP].lookup[i & ((1 << LOOKUP) - 1)];
    __syncthreads();
}

/* One decoded code. */
struct code {
    int len;   /* bits, magnitude included */
    int sym;   /* DC: the size; AC: run << 4 | size */
    int value; /* the DC difference or the coefficient */
};

/* The code at the front of w under table t; false: no such code. */
__device__ __forceinline__ bool decode(const gi_cuda_jpeg_scan &s, const uint32_t *lookups, int t,
                                       int dc, uint32_t w, code &c)
{
    uint32_t e = lookups[(t << LOOKUP) | (w >> (32 - LOOKUP))];
    if (e & ENTRY_FULL) {
        c.len = (int)(e & 31);
        c.sym = (int)((e >> 8) & 255);
        c.value = (int32_t)e >> 16;
        return true;
    }
    int len = (int)(e & 31), sym;
    if (len) {
        sym = (int)((e >> 8) & 255);
    } else { /* a longer code: F.2.2.3's decoder, as decode_long */
        const gi_jpeg_huff &h = ((const gi_jpeg_huff *)s.tables)[t];
        uint32_t top = w >> 16;
        len = LOOKUP + 1;
        while (len <= 16 && top >= __ldg(&h.maxcode[len])) len++;
        if (len > 16) return false;
        int index = (int)(w >> (32 - len)) + __ldg(&h.delta[len]);
        sym = h.values[index & 255];
    }
    int size = dc ? sym : sym & 15; /* a DC size is at most 15: gi__jpeg_huff_build */
    c.sym = sym;
    c.value = 0;
    if (size) {
        c.value = extend((w << len) >> (32 - size), size);
        len += size;
    }
    c.len = len;
    return true;
}

/* What one step did. */
struct stepped {
    uint32_t begun; /* blocks begun: 1 where it began one, and an AC first scan's
                       end-of-band run the blocks it skips */
    uint32_t ended; /* blocks ended */
    int has_dc;     /* a DC difference in dc */
    int dc;
};

/* The bit at pos. */
__device__ __forceinline__ uint32_t bit_at(const uint32_t *words, uint32_t pos)
{
    return peek32(words, pos) >> 31;
}

/* A nonzero coefficient's correction bit (G.1.2.3), as stb applies it. */
template <bool WRITE>
__device__ __forceinline__ void refine(const gi_cuda_jpeg_scan &s, state &st, int16_t *p, int bit)
{
    uint32_t set = bit_at(s.data, st.pos++);
    if (WRITE && set && (*p & bit) == 0)
        *p = (int16_t)(uint16_t)(*p > 0 ? (uint16_t)*p + bit : (uint16_t)*p - bit);
}

/* The block index a step begins at: a block starts there. */
__device__ __forceinline__ int first_k(const gi_cuda_jpeg_scan &s, int kind)
{
    return kind >= GI_JPEG_AC_FIRST ? s.ss : 0;
}

/* One step of a KIND scan from st, in block blk (its 64 coefficients; read
 * by an AC refinement, written with WRITE; may be NULL otherwise without
 * WRITE), with table set tb of the unit's blocks. false: not a code (or a
 * value an AC refinement cannot hold). The CPU's block_* functions in
 * jpeg_entropy.c, a code at a time. */
template <int KIND, bool WRITE>
__device__ __forceinline__ bool step(const gi_cuda_jpeg_scan &s, const uint32_t *lookups,
                                     state &st, int tb, int16_t *blk, stepped &o)
{
    code c;
    o.has_dc = 0;
    o.ended = 0;
    if (KIND == GI_JPEG_BASELINE) {
        o.begun = st.k == 0;
        if (!decode(s, lookups, st.k ? s.ac[tb] : s.dc[tb], st.k == 0, peek32(s.data, st.pos), c))
            return false;
        st.pos += c.len;
        if (st.k == 0) {
            st.k = 1;
            o.has_dc = 1;
            o.dc = c.value;
        } else if ((c.sym & 15) == 0) {
            /* stb ends the block on any run with size 0 but 15 (ZRL) */
            st.k = c.sym == 0xF0 ? st.k + 16 : 64;
        } else {
            st.k += c.sym >> 4;
            /* past 63: stb's table lands a corrupt run on 63 */
            if (WRITE) blk[s.natural_order[st.k]] = (int16_t)c.value;
            st.k++;
        }
        if (st.k >= 64) {
            st.k = 0;
            o.ended = 1;
        }
    } else if (KIND == GI_JPEG_DC_FIRST) {
        o.begun = 1;
        if (!decode(s, lookups, s.dc[tb], 1, peek32(s.data, st.pos), c)) return false;
        st.pos += c.len;
        o.has_dc = 1;
        o.dc = c.value;
        o.ended = 1;
    } else if (KIND == GI_JPEG_DC_REFINE) {
        o.begun = 1;
        uint32_t set = bit_at(s.data, st.pos++);
        if (WRITE && set) blk[0] = (int16_t)(uint16_t)((uint32_t)(uint16_t)blk[0] + (1u << s.al));
        o.ended = 1;
    } else if (KIND == GI_JPEG_AC_FIRST) {
        o.begun = st.k == s.ss;
        if (!decode(s, lookups, s.ac[0], 0, peek32(s.data, st.pos), c)) return false;
        st.pos += c.len;
        int r = c.sym >> 4;
        if ((c.sym & 15) == 0) {
            if (r < 15) { /* the end of this block's band and of r's run after it */
                uint32_t run = (1u << r) - 1;
                if (r) {
                    run += peek32(s.data, st.pos) >> (32 - r);
                    st.pos += r;
                }
                o.begun += run;
                o.ended = 1 + run;
                st.k = s.ss;
                return true;
            }
            st.k += 16;
        } else {
            st.k += r;
            if (WRITE) blk[s.natural_order[st.k]] = (int16_t)(uint16_t)((uint32_t)c.value << s.al);
            st.k++;
        }
        if (st.k > s.se) {
            st.k = s.ss;
            o.ended = 1;
        }
    } else { /* GI_JPEG_AC_REFINE */
        const int bit = 1 << s.al;
        o.begun = st.k == s.ss;
        if (st.k == s.ss && st.eob > 0) { /* a block of an end-of-band run */
            st.eob--;
            for (int k = s.ss; k <= s.se; k++) {
                int16_t *p = &blk[s.natural_order[k]];
                if (*p != 0) refine<WRITE>(s, st, p, bit);
            }
            o.ended = 1;
            return true;
        }
        if (!decode(s, lookups, s.ac[0], 0, peek32(s.data, st.pos), c)) return false;
        st.pos += c.len; /* the sign bit included */
        int size = c.sym & 15, r = c.sym >> 4, value = 0;
        if (size == 0) {
            if (r < 15) {
                st.eob = (1 << r) - 1;
                if (r) {
                    st.eob += (int)(peek32(s.data, st.pos) >> (32 - r));
                    st.pos += r;
                }
                r = 64; /* to the end of the band */
            } /* else sixteen zeros: fifteen skipped, then a zero "placed" */
        } else {
            if (size != 1) return false; /* stb: "bad huffman code" */
            value = c.value > 0 ? bit : -bit;
        }
        while (st.k <= s.se) {
            int16_t *p = &blk[s.natural_order[st.k++]];
            if (*p != 0) {
                refine<WRITE>(s, st, p, bit);
            } else {
                if (r == 0) {
                    if (WRITE) *p = (int16_t)value;
                    break;
                }
                r--;
            }
        }
        if (st.k > s.se) {
            st.k = s.ss;
            o.ended = 1;
        }
    }
    if (o.ended && s.sync_blocks > 1) st.b = st.b + 1 == s.sync_blocks ? 0 : st.b + 1;
    return true;
}

struct span {
    int seg;
    unsigned first, next_first; /* the segment's subsequences */
    uint32_t begin, end;        /* this subsequence's bits */
    uint32_t seg_begin, seg_end;
    long long first_block, end_block; /* the segment's blocks */
};

__device__ span span_of(const gi_cuda_jpeg_scan &s, unsigned j)
{
    span p;
    p.seg = segment_of(s, j);
    p.first = s.subseq_first[p.seg];
    p.next_first = s.subseq_first[p.seg + 1];
    p.seg_begin = s.segment_start[p.seg] * 8u;
    p.seg_end = s.segment_start[p.seg + 1] * 8u;
    p.begin = p.seg_begin + (j - p.first) * (uint32_t)SUB_BITS;
    p.end = min(p.begin + (uint32_t)SUB_BITS, p.seg_end);
    long long seg_units = min(s.interval, s.units - (long long)p.seg * s.interval);
    p.first_block = (long long)p.seg * s.interval * s.unit_blocks;
    p.end_block = p.first_block + seg_units * s.unit_blocks;
    return p;
}

/* Where block (x, y) of plane c's blocks in unit u lies in the coefficients. */
__device__ __forceinline__ long long unit_block_at(const gi_cuda_jpeg_scan &s, int c, long long u,
                                                   int x, int y)
{
    long long bx, by;
    if (s.one_component) {
        bx = u % s.units_x;
        by = u / s.units_x;
    } else {
        bx = (u % s.units_x) * s.h[c] + x;
        by = (u / s.units_x) * s.v[c] + y;
    }
    return s.offset[c] + 64 * (by * s.blocks_w[c] + bx);
}

/* Where block g of the scan (block bi of unit g / unit_blocks) lies. */
__device__ __forceinline__ long long block_at(const gi_cuda_jpeg_scan &s, long long g, int bi)
{
    return unit_block_at(s, s.comp[bi], g / s.unit_blocks, s.bx[bi], s.by[bi]);
}

/* The block thread j's start st is in (or begins), from base: the blocks
 * the threads before it in its segment began. */
__device__ __forceinline__ long long first_block_of(const gi_cuda_jpeg_scan &s, int kind,
                                                    const span &p, const uint32_t *base, unsigned j,
                                                    const state &st)
{
    return p.first_block + (long long)(base[j] - base[p.first]) - (st.k != first_k(s, kind) ? 1 : 0);
}

template <int KIND>
__global__ void entropy_sync(gi_cuda_jpeg_scan s, int round, const unsigned long long *from,
                             unsigned long long *to, uint32_t *counts, const uint32_t *base,
                             const int16_t *coeffs, uint32_t *changed)
{
    extern __shared__ uint32_t lookups[];
    load_lookups(s, lookups);
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= s.subseqs) return;
    span p = span_of(s, j);
    const int k0 = first_k(s, KIND);
    state st = j == p.first ? state{p.seg_begin, 0, k0, 0}
               : round == 0 ? state{p.begin, 0, k0, 0}
                            : unpack(from[j]);
    if (j == p.first) to[j] = pack(st);
    /* an AC refinement's block: guessed in proportion at first */
    long long g = 0;
    if (KIND == GI_JPEG_AC_REFINE)
        g = round == 0 ? p.first_block + (p.end_block - p.first_block) * (j - p.first) /
                                             (p.next_first - p.first)
                       : first_block_of(s, KIND, p, base, j, st);
    uint32_t blocks = 0;
    while (st.pos < p.end) {
        int16_t *blk = nullptr;
        if (KIND == GI_JPEG_AC_REFINE) {
            if (g < p.first_block || g >= p.end_block) break; /* a wrong start: stop */
            blk = (int16_t *)coeffs + block_at(s, g, 0); /* read, never written here */
        }
        stepped o;
        if (!step<KIND, false>(s, lookups, st, s.sync_blocks == 1 ? 0 : st.b, blk, o)) {
            /* not a code: from a wrong start, or damaged data (which the
             * write finds): step on a bit and begin a block */
            st = {st.pos + 1, 0, k0, 0};
            continue;
        }
        blocks += o.begun;
        g += o.ended;
    }
    if (KIND == GI_JPEG_AC_REFINE && round > 0 && counts[j] != blocks) *changed = 1;
    counts[j] = blocks;
    if (j + 1 < p.next_first) {
        unsigned long long next = pack(st);
        if (round == 0 || next != from[j + 1]) *changed = 1;
        to[j + 1] = next;
    }
}

template <int KIND>
__global__ void entropy_write(gi_cuda_jpeg_scan s, const unsigned long long *starts,
                              const uint32_t *base, int16_t *coeffs, uint32_t *dc_diff,
                              uint32_t *dc_key, uint32_t *seg_end, uint32_t *bad)
{
    extern __shared__ uint32_t lookups[];
    load_lookups(s, lookups);
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= s.subseqs) return;
    span p = span_of(s, j);
    state st = unpack(starts[j]);
    /* the block in progress (begun by an earlier thread), or next */
    long long g = first_block_of(s, KIND, p, base, j, st), at_g = -1, at = 0;
    int bi = 0;
    /* The segment's last thread also takes the blocks of an AC refinement's
     * end-of-band run that take no bits (none of their coefficients is
     * nonzero) once its data is read. */
    const bool last = j + 1 == p.next_first;
    while (g >= p.first_block && g < p.end_block &&
           (st.pos < p.end || (KIND == GI_JPEG_AC_REFINE && last && st.k == s.ss && st.eob > 0))) {
        if (g != at_g) {
            bi = (int)(g % s.unit_blocks);
            at = block_at(s, g, bi);
            at_g = g;
        }
        stepped o;
        if (!step<KIND, true>(s, lookups, st, bi, coeffs + at, o)) {
            *bad = 1;
            return;
        }
        if (o.has_dc) {
            int comp = s.comp[bi];
            long long u = g / s.unit_blocks;
            long long i = s.dc_first[comp] + u * (s.h[comp] * s.v[comp]) + s.dc_slot[bi];
            dc_diff[i] = (uint32_t)o.dc;
            dc_key[i] = (uint32_t)(comp * s.segments + p.seg);
        }
        if (o.ended) {
            if (g + o.ended >= p.end_block) seg_end[p.seg] = st.pos; /* the segment's last */
            g += o.ended;
        }
    }
}

/* The DC predictions, shifted to the scan's first bit, into each block's
 * first coefficient. */
__global__ void place_dc(gi_cuda_jpeg_scan s, const uint32_t *dc_sum, int16_t *coeffs)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= s.dc_first[4]) return;
    int c = 0;
    while (c < 3 && i >= s.dc_first[c + 1]) c++;
    long long jc = i - s.dc_first[c];
    int per_unit = s.h[c] * s.v[c], r = (int)(jc % per_unit);
    coeffs[unit_block_at(s, c, jc / per_unit, r % s.h[c], r / s.h[c])] =
        (int16_t)(uint16_t)(dc_sum[i] << s.al);
}

/* Each segment's last block ends within its data, 0-7 bits of padding
 * before its marker (jpeg_entropy.c's interval_end). */
__global__ void check_ends(gi_cuda_jpeg_scan s, const uint32_t *seg_end, uint32_t *bad)
{
    int seg = blockIdx.x * blockDim.x + threadIdx.x;
    if (seg >= s.segments) return;
    uint32_t end = s.segment_start[seg + 1] * 8u, at = seg_end[seg];
    if (at == NO_END || at > end || end - at > 7) *bad = 1;
}

unsigned grid_for(long long n)
{
    return (unsigned)((n + THREADS - 1) / THREADS);
}

size_t shared_bytes(const gi_cuda_jpeg_scan &s)
{
    return sizeof(uint32_t) * ((size_t)s.ntables << LOOKUP);
}

template <int KIND>
cudaError_t launch_sync(const gi_cuda_jpeg_scan &s, int round, const unsigned long long *from,
                        unsigned long long *to, uint32_t *counts, const uint32_t *base,
                        const int16_t *coeffs, uint32_t *changed, cudaStream_t stream)
{
    entropy_sync<KIND><<<grid_for(s.subseqs), THREADS, shared_bytes(s), stream>>>(
        s, round, from, to, counts, base, coeffs, changed);
    return cudaGetLastError();
}

template <int KIND>
cudaError_t launch_write(const gi_cuda_jpeg_scan &s, const unsigned long long *starts,
                         const uint32_t *base, int16_t *coeffs, uint32_t *dc_diff,
                         uint32_t *dc_key, uint32_t *seg_end, uint32_t *bad, cudaStream_t stream)
{
    entropy_write<KIND><<<grid_for(s.subseqs), THREADS, shared_bytes(s), stream>>>(
        s, starts, base, coeffs, dc_diff, dc_key, seg_end, bad);
    return cudaGetLastError();
}

} // namespace

extern "C" size_t gi_cuda_jpeg_entropy_temp_bytes(unsigned subseqs, long long dcs)
{
    size_t a = 0, b = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, a, (uint32_t *)nullptr, (uint32_t *)nullptr,
                                  subseqs ? subseqs : 1);
    cub::DeviceScan::InclusiveSumByKey(nullptr, b, (uint32_t *)nullptr, (uint32_t *)nullptr,
                                       (uint32_t *)nullptr, dcs ? dcs : 1);
    return a > b ? a : b;
}

extern "C" cudaError_t gi_cuda_jpeg_entropy_sync(const gi_cuda_jpeg_scan *scan, int round,
                                                 const unsigned long long *from,
                                                 unsigned long long *to, uint32_t *counts,
                                                 uint32_t *base, const int16_t *coeffs,
                                                 uint32_t *changed, void *temp, size_t temp_bytes,
                                                 cudaStream_t stream)
{
    const gi_cuda_jpeg_scan &s = *scan;
    switch (s.kind) {
    case GI_JPEG_BASELINE:
        return launch_sync<GI_JPEG_BASELINE>(s, round, from, to, counts, base, coeffs, changed, stream);
    case GI_JPEG_DC_FIRST:
        return launch_sync<GI_JPEG_DC_FIRST>(s, round, from, to, counts, base, coeffs, changed, stream);
    case GI_JPEG_DC_REFINE:
        return launch_sync<GI_JPEG_DC_REFINE>(s, round, from, to, counts, base, coeffs, changed, stream);
    case GI_JPEG_AC_FIRST:
        return launch_sync<GI_JPEG_AC_FIRST>(s, round, from, to, counts, base, coeffs, changed, stream);
    default: {
        cudaError_t e = launch_sync<GI_JPEG_AC_REFINE>(s, round, from, to, counts, base, coeffs,
                                                       changed, stream);
        /* the next round's first blocks */
        if (e == cudaSuccess)
            e = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, base, s.subseqs, stream);
        return e;
    }
    }
}

extern "C" cudaError_t gi_cuda_jpeg_entropy_write(const gi_cuda_jpeg_scan *scan,
                                                  const unsigned long long *starts,
                                                  const uint32_t *counts, uint32_t *base,
                                                  int16_t *coeffs, uint32_t *dc_diff,
                                                  uint32_t *dc_key, uint32_t *dc_sum,
                                                  uint32_t *seg_end, uint32_t *bad, void *temp,
                                                  size_t temp_bytes, cudaStream_t stream)
{
    const gi_cuda_jpeg_scan &s = *scan;
    cudaError_t e = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, base, s.subseqs, stream);
    if (e == cudaSuccess) e = cudaMemsetAsync(seg_end, 0xff, sizeof *seg_end * (size_t)s.segments, stream);
    if (e != cudaSuccess) return e;
    switch (s.kind) {
    case GI_JPEG_BASELINE:
        e = launch_write<GI_JPEG_BASELINE>(s, starts, base, coeffs, dc_diff, dc_key, seg_end, bad, stream);
        break;
    case GI_JPEG_DC_FIRST:
        e = launch_write<GI_JPEG_DC_FIRST>(s, starts, base, coeffs, dc_diff, dc_key, seg_end, bad, stream);
        break;
    case GI_JPEG_DC_REFINE:
        e = launch_write<GI_JPEG_DC_REFINE>(s, starts, base, coeffs, dc_diff, dc_key, seg_end, bad, stream);
        break;
    case GI_JPEG_AC_FIRST:
        e = launch_write<GI_JPEG_AC_FIRST>(s, starts, base, coeffs, dc_diff, dc_key, seg_end, bad, stream);
        break;
    default:
        e = launch_write<GI_JPEG_AC_REFINE>(s, starts, base, coeffs, dc_diff, dc_key, seg_end, bad, stream);
    }
    if (e == cudaSuccess && s.dc_first[4] > 0) {
        e = cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, dc_key, dc_diff, dc_sum,
                                               s.dc_first[4], ::cuda::std::equal_to<>(), stream);
        if (e == cudaSuccess) {
            place_dc<<<grid_for(s.dc_first[4]), THREADS, 0, stream>>>(s, dc_sum, coeffs);
            e = cudaGetLastError();
        }
    }
    if (e != cudaSuccess) return e;
    check_ends<<<grid_for(s.segments), THREADS, 0, stream>>>(s, seg_end, bad);
    return cudaGetLastError();
}
