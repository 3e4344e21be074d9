/* The exact JPEG decoder's entropy half on the GPU: a baseline scan's
 * Huffman codes decoded into the coefficients the CPU's decoder
 * (lib/codec/jpeg/jpeg_entropy.c) gives, for a scan the codec worker deferred
 * (lib/codec/jpeg/jpeg_deferred.h: unstuffed, cut at restart markers).
 *
 * A Huffman stream is serial only in where each code starts. Cut into
 * subsequences of a few hundred bits, each decoded by one thread from a
 * guessed start, the codes fall into step with the true ones within a few
 * codes: that is the self-synchronisation of Huffman codes (Weissenberger
 * and Schmidt's massively parallel decoders rest on it). A thread's state
 * at a code boundary is (bit, block of the unit, coefficient index), so
 * "in step" means all three agree.
 *
 * - sync rounds: each thread decodes its subsequence from its start and
 *   hands the state where it stopped (the first code boundary at or past
 *   its end) to the next thread as that one's start. The first subsequence
 *   of each segment starts where the segment does, so after round r the
 *   first r+1 of each segment hold true starts; a round that changes no
 *   start has every start true. Two rounds settle nearly every file.
 * - write: from the true starts, each thread knows its first block's index
 *   (an exclusive sum of the blocks each began) and writes its
 *   coefficients; DC differences go to arrays per plane and segment, whose
 *   inclusive sums are stb's predictions (mod 2^32, as stb's int wraps, cut
 *   to 16 bits as it stores them).
 * - checks: each segment's last block must end within its data, at most 7
 *   bits (the padding) before the marker, and no code may be one no table
 *   holds: where the CPU's decoder gives up, *bad says so and the host
 *   decodes the file the CPU's way instead. */
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
    int k;        /* 0: a DC code next; else the zigzag index of the next AC code */
};

__device__ __forceinline__ unsigned long long pack(state s)
{
    return (unsigned long long)s.pos | (unsigned long long)s.b << 32 |
           (unsigned long long)s.k << 40;
}

__device__ __forceinline__ state unpack(unsigned long long v)
{
    return {(uint32_t)v, (int)((v >> 32) & 0xff), (int)((v >> 40) & 0xff)};
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

/* What one code does to the state. */
enum { NOTHING, DC_VALUE, AC_VALUE };

__device__ __forceinline__ int advance(const gi_cuda_jpeg_scan &s, const code &c, state &st,
                                       int &zz)
{
    st.pos += c.len;
    int what;
    if (st.k == 0) {
        st.k = 1;
        what = DC_VALUE;
    } else if ((c.sym & 15) == 0) {
        /* stb ends the block on any run with size 0 but 15 (ZRL) */
        st.k = c.sym == 0xF0 ? st.k + 16 : 64;
        what = NOTHING;
    } else {
        st.k += c.sym >> 4;
        zz = s.natural_order[st.k]; /* past 63: stb's table lands a corrupt run on 63 */
        st.k++;
        what = AC_VALUE;
    }
    if (st.k >= 64) {
        st.k = 0;
        st.b = st.b + 1 == s.sync_blocks ? 0 : st.b + 1;
    }
    return what;
}

struct span {
    int seg;
    unsigned first, next_first; /* the segment's subsequences */
    uint32_t begin, end;        /* this subsequence's bits */
    uint32_t seg_begin, seg_end;
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
    return p;
}

__global__ void entropy_sync(gi_cuda_jpeg_scan s, int round, const unsigned long long *from,
                             unsigned long long *to, uint32_t *counts, uint32_t *changed)
{
    extern __shared__ uint32_t lookups[];
    load_lookups(s, lookups);
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= s.subseqs) return;
    span p = span_of(s, j);
    state st = j == p.first ? state{p.seg_begin, 0, 0}
               : round == 0 ? state{p.begin, 0, 0}
                            : unpack(from[j]);
    if (j == p.first) to[j] = pack(st);
    uint32_t blocks = 0;
    while (st.pos < p.end) {
        code c;
        int b = s.sync_blocks == 1 ? 0 : st.b;
        if (!decode(s, lookups, st.k ? s.ac[b] : s.dc[b], st.k == 0, peek32(s.data, st.pos), c)) {
            /* not a code: from a wrong start, or damaged data (which the
             * write finds): step on a bit and begin a block */
            st = {st.pos + 1, 0, 0};
            continue;
        }
        int zz;
        if (advance(s, c, st, zz) == DC_VALUE) blocks++;
    }
    counts[j] = blocks;
    if (j + 1 < p.next_first) {
        unsigned long long next = pack(st);
        if (round == 0 || next != from[j + 1]) *changed = 1;
        to[j + 1] = next;
    }
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
    long long seg_units = min(s.interval, s.units - (long long)p.seg * s.interval);
    long long first_block = (long long)p.seg * s.interval * s.unit_blocks;
    long long end_block = first_block + seg_units * s.unit_blocks;
    /* the block in progress (begun by an earlier thread when k > 0), or next */
    long long g = first_block + (base[j] - base[p.first]) - (st.k ? 1 : 0);
    int bi = (int)(g % s.unit_blocks);
    long long at = block_at(s, g, bi);
    while (st.pos < p.end && g < end_block) {
        code c;
        if (!decode(s, lookups, st.k ? s.ac[bi] : s.dc[bi], st.k == 0, peek32(s.data, st.pos), c)) {
            *bad = 1;
            return;
        }
        int zz = 0;
        int what = advance(s, c, st, zz);
        if (what == AC_VALUE) {
            coeffs[at + zz] = (int16_t)c.value;
        } else if (what == DC_VALUE) {
            int comp = s.comp[bi];
            long long u = g / s.unit_blocks;
            long long i = s.dc_first[comp] + u * (s.h[comp] * s.v[comp]) + s.dc_slot[bi];
            dc_diff[i] = (uint32_t)c.value;
            dc_key[i] = (uint32_t)(comp * s.segments + p.seg);
        }
        if (st.k == 0) { /* the block ended */
            if (g + 1 == end_block) seg_end[p.seg] = st.pos;
            g++;
            bi = bi + 1 == s.unit_blocks ? 0 : bi + 1;
            if (g < end_block) at = block_at(s, g, bi);
        }
    }
}

/* The DC predictions into each block's first coefficient. */
__global__ void place_dc(gi_cuda_jpeg_scan s, const uint32_t *dc_sum, int16_t *coeffs)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= s.dc_first[4]) return;
    int c = 0;
    while (c < 3 && i >= s.dc_first[c + 1]) c++;
    long long jc = i - s.dc_first[c];
    int per_unit = s.h[c] * s.v[c], r = (int)(jc % per_unit);
    coeffs[unit_block_at(s, c, jc / per_unit, r % s.h[c], r / s.h[c])] = (int16_t)dc_sum[i];
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
                                                 uint32_t *changed, cudaStream_t stream)
{
    entropy_sync<<<grid_for(scan->subseqs), THREADS, shared_bytes(*scan), stream>>>(
        *scan, round, from, to, counts, changed);
    return cudaGetLastError();
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
    entropy_write<<<grid_for(s.subseqs), THREADS, shared_bytes(s), stream>>>(
        s, starts, base, coeffs, dc_diff, dc_key, seg_end, bad);
    e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cub::DeviceScan::InclusiveSumByKey(temp, temp_bytes, dc_key, dc_diff, dc_sum,
                                               s.dc_first[4], ::cuda::std::equal_to<>(), stream);
    if (e != cudaSuccess) return e;
    place_dc<<<grid_for(s.dc_first[4]), THREADS, 0, stream>>>(s, dc_sum, coeffs);
    check_ends<<<grid_for(s.segments), THREADS, 0, stream>>>(s, seg_end, bad);
    return cudaGetLastError();
}
