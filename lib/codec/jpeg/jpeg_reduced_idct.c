/* The reduced IDCT of shrink-on-load (jpeg_shrink.h): a row of blocks at
 * a time, 16 blocks to a vector where the CPU has AVX-512, 8 where it has
 * AVX2, the rest (and other CPUs) a block at a time; the same bytes every
 * way. */
#include "jpeg_shrink.h"

#include "base/cpu_isa.h"

#if defined(__x86_64__) && defined(__GNUC__) /* as cpu_isa.c */
#define HAVE_REDUCED_VECTOR 1
#include <immintrin.h>
#else
#define HAVE_REDUCED_VECTOR 0
#endif

const int32_t gi__jpeg_reduced_a4[4][4] = {{1448, 1892, 1448, 784},
                                           {1448, 784, -1448, -1892},
                                           {1448, -784, -1448, 1892},
                                           {1448, -1892, 1448, -784}};
const int32_t gi__jpeg_reduced_a2[2][2] = {{1448, 1448}, {1448, -1448}};
const int32_t gi__jpeg_reduced_a1[1][1] = {{1448}};
const int32_t gi__jpeg_reduced_a8[8][8] = {
    {1448, 2009, 1892, 1703, 1448, 1138, 784, 400},
    {1448, 1703, 784, -400, -1448, -2009, -1892, -1138},
    {1448, 1138, -784, -2009, -1448, 400, 1892, 1703},
    {1448, 400, -1892, -1138, 1448, 1703, -784, -2009},
    {1448, -400, -1892, 1138, 1448, -1703, -784, 2009},
    {1448, -1138, -784, 2009, -1448, -400, 1892, -1703},
    {1448, -1703, 784, 400, -1448, 2009, -1892, 1138},
    {1448, -2009, 1892, -1703, 1448, -1138, 784, -400}};

const int32_t *gi__jpeg_reduced_table(int n)
{
    return n == 8   ? &gi__jpeg_reduced_a8[0][0]
           : n == 4 ? &gi__jpeg_reduced_a4[0][0]
           : n == 2 ? &gi__jpeg_reduced_a2[0][0]
                    : &gi__jpeg_reduced_a1[0][0];
}

/* One block's reduced IDCT for constant nx and ny (where this is inlined),
 * so that the sums unroll: a 1x1 or 2x2 block, what a 1/8 shrink makes of
 * most photos, costs a few multiplies instead of the loops' overhead. */
static inline __attribute__((always_inline)) void reduced_idct_n(const int16_t *coeffs,
                                                                 const uint16_t quant[64],
                                                                 const int nx, const int ny,
                                                                 uint8_t *out, size_t stride)
{
    const int32_t *ax = gi__jpeg_reduced_table(nx), *ay = gi__jpeg_reduced_table(ny);
    int32_t f[8][8], g[8][8]; /* f[v][u] dequantized; g[y][u] */
    for (int v = 0; v < ny; v++)
        for (int u = 0; u < nx; u++)
            f[v][u] = (int16_t)(coeffs[8 * v + u] * quant[8 * v + u]);
    for (int y = 0; y < ny; y++)
        for (int u = 0; u < nx; u++) {
            int32_t sum = 0;
            for (int v = 0; v < ny; v++) sum += ay[y * ny + v] * f[v][u];
            g[y][u] = sum;
        }
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            int64_t sum = 0;
            for (int u = 0; u < nx; u++) sum += (int64_t)ax[x * nx + u] * g[y][u];
            const int64_t s = ((sum + (1 << 23)) >> 24) + 128;
            out[(size_t)y * stride + x] = (uint8_t)(s < 0 ? 0 : s > 255 ? 255 : s);
        }
}

#if HAVE_REDUCED_VECTOR
/* 16 blocks' reduced IDCT (64 coefficients apart), a block an int32 lane,
 * for nx and ny of 1, 2 or 4 (what shrinks of 1/8 and 1/4 make):
 * - F: each dword gather brings a coefficient pair (u, u + 1) of every
 *   block; vpmullw multiplies both halves by their quantizers keeping the
 *   low 16 bits, which is (int16_t)(coefficient * quant), and the halves
 *   are sign-extended apart;
 * - g as the scalar's int32 sums (|g| < 2^28 at N <= 4);
 * - f, whose exact value needs 64 bits, in two int32 sums: with g = 2^12
 *   gh + gl (gh = g >> 12, gl = g & 4095), f = 2^12 S_hi + S_lo for S_hi =
 *   sum A gh (|S_hi| < 2^28) and S_lo = sum A gl (|S_lo| < 2^25), and
 *   (f + 2^23) >> 24 = (S_hi + ((S_lo + 2^23) >> 12)) >> 12, floors
 *   throughout (2^12 S_hi is a multiple of 2^12);
 * - the samples clamped to 0..255, the blocks' nx samples of a row side
 *   by side. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static inline
    __attribute__((always_inline)) void
    reduced_idct16(const int16_t *coeffs, const uint16_t quant[64], const int nx, const int ny,
                   uint8_t *out, size_t stride)
{
    const int32_t *ax = gi__jpeg_reduced_table(nx), *ay = gi__jpeg_reduced_table(ny);
    /* a block is 32 dwords */
    const __m512i at = _mm512_setr_epi32(0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352,
                                         384, 416, 448, 480);
    __m512i f[4][4], g[4][4];
    for (int v = 0; v < ny; v++)
        for (int u = 0; u < nx; u += 2) {
            const int k = 8 * v + u; /* even: a pair's first, k + 1 in the block */
            const __m512i pair = _mm512_i32gather_epi32(at, (const void *)(coeffs + k), 4);
            const __m512i q = _mm512_set1_epi32((int)((uint32_t)quant[k] | (uint32_t)quant[k + 1] << 16));
            const __m512i product = _mm512_mullo_epi16(pair, q);
            f[v][u] = _mm512_srai_epi32(_mm512_slli_epi32(product, 16), 16);
            if (u + 1 < nx) f[v][u + 1] = _mm512_srai_epi32(product, 16);
        }
    for (int y = 0; y < ny; y++)
        for (int u = 0; u < nx; u++) {
            __m512i sum = _mm512_mullo_epi32(_mm512_set1_epi32(ay[y * ny]), f[0][u]);
            for (int v = 1; v < ny; v++)
                sum = _mm512_add_epi32(sum, _mm512_mullo_epi32(_mm512_set1_epi32(ay[y * ny + v]), f[v][u]));
            g[y][u] = sum;
        }
    const __m512i low12 = _mm512_set1_epi32(4095), half = _mm512_set1_epi32(1 << 23),
                  centre = _mm512_set1_epi32(128), zero = _mm512_setzero_si512();
    for (int y = 0; y < ny; y++) {
        __m128i samples[4];
        for (int x = 0; x < nx; x++) {
            __m512i hi = zero, lo = zero;
            for (int u = 0; u < nx; u++) {
                const __m512i a = _mm512_set1_epi32(ax[x * nx + u]);
                hi = _mm512_add_epi32(hi, _mm512_mullo_epi32(a, _mm512_srai_epi32(g[y][u], 12)));
                lo = _mm512_add_epi32(lo, _mm512_mullo_epi32(a, _mm512_and_si512(g[y][u], low12)));
            }
            const __m512i t = _mm512_add_epi32(hi, _mm512_srai_epi32(_mm512_add_epi32(lo, half), 12));
            const __m512i s = _mm512_add_epi32(_mm512_srai_epi32(t, 12), centre);
            samples[x] = _mm512_cvtusepi32_epi8(_mm512_max_epi32(s, zero));
        }
        uint8_t *row = out + (size_t)y * stride;
        if (nx == 1) {
            _mm_storeu_si128((__m128i *)row, samples[0]);
        } else if (nx == 2) {
            _mm_storeu_si128((__m128i *)row, _mm_unpacklo_epi8(samples[0], samples[1]));
            _mm_storeu_si128((__m128i *)(row + 16), _mm_unpackhi_epi8(samples[0], samples[1]));
        } else {
            const __m128i ab_lo = _mm_unpacklo_epi8(samples[0], samples[1]),
                          ab_hi = _mm_unpackhi_epi8(samples[0], samples[1]),
                          cd_lo = _mm_unpacklo_epi8(samples[2], samples[3]),
                          cd_hi = _mm_unpackhi_epi8(samples[2], samples[3]);
            _mm_storeu_si128((__m128i *)row, _mm_unpacklo_epi16(ab_lo, cd_lo));
            _mm_storeu_si128((__m128i *)(row + 16), _mm_unpackhi_epi16(ab_lo, cd_lo));
            _mm_storeu_si128((__m128i *)(row + 32), _mm_unpacklo_epi16(ab_hi, cd_hi));
            _mm_storeu_si128((__m128i *)(row + 48), _mm_unpackhi_epi16(ab_hi, cd_hi));
        }
    }
}

/* The same for 8 blocks in AVX2's 8 lanes. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
reduced_idct8(const int16_t *coeffs, const uint16_t quant[64], const int nx, const int ny,
              uint8_t *out, size_t stride)
{
    const int32_t *ax = gi__jpeg_reduced_table(nx), *ay = gi__jpeg_reduced_table(ny);
    const __m256i at = _mm256_setr_epi32(0, 32, 64, 96, 128, 160, 192, 224);
    __m256i f[4][4], g[4][4];
    for (int v = 0; v < ny; v++)
        for (int u = 0; u < nx; u += 2) {
            const int k = 8 * v + u;
            const __m256i pair = _mm256_i32gather_epi32((const int *)(const void *)(coeffs + k), at, 4);
            const __m256i q = _mm256_set1_epi32((int)((uint32_t)quant[k] | (uint32_t)quant[k + 1] << 16));
            const __m256i product = _mm256_mullo_epi16(pair, q);
            f[v][u] = _mm256_srai_epi32(_mm256_slli_epi32(product, 16), 16);
            if (u + 1 < nx) f[v][u + 1] = _mm256_srai_epi32(product, 16);
        }
    for (int y = 0; y < ny; y++)
        for (int u = 0; u < nx; u++) {
            __m256i sum = _mm256_mullo_epi32(_mm256_set1_epi32(ay[y * ny]), f[0][u]);
            for (int v = 1; v < ny; v++)
                sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(_mm256_set1_epi32(ay[y * ny + v]), f[v][u]));
            g[y][u] = sum;
        }
    const __m256i low12 = _mm256_set1_epi32(4095), half = _mm256_set1_epi32(1 << 23),
                  centre = _mm256_set1_epi32(128), zero = _mm256_setzero_si256(),
                  top = _mm256_set1_epi32(255);
    for (int y = 0; y < ny; y++) {
        __m128i samples[4]; /* 8 bytes each, in the low half */
        for (int x = 0; x < nx; x++) {
            __m256i hi = zero, lo = zero;
            for (int u = 0; u < nx; u++) {
                const __m256i a = _mm256_set1_epi32(ax[x * nx + u]);
                hi = _mm256_add_epi32(hi, _mm256_mullo_epi32(a, _mm256_srai_epi32(g[y][u], 12)));
                lo = _mm256_add_epi32(lo, _mm256_mullo_epi32(a, _mm256_and_si256(g[y][u], low12)));
            }
            const __m256i t = _mm256_add_epi32(hi, _mm256_srai_epi32(_mm256_add_epi32(lo, half), 12));
            const __m256i s = _mm256_min_epi32(
                _mm256_max_epi32(_mm256_add_epi32(_mm256_srai_epi32(t, 12), centre), zero), top);
            /* clamped first: the second pack reads words as signed. packus
             * works within each 128-bit half: bytes 0-3 of each half hold
             * lanes 0-3 and 4-7 */
            const __m256i words = _mm256_packus_epi32(s, s), bytes = _mm256_packus_epi16(words, words);
            samples[x] = _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes),
                                            _mm256_extracti128_si256(bytes, 1));
        }
        uint8_t *row = out + (size_t)y * stride;
        if (nx == 1) {
            _mm_storel_epi64((__m128i *)row, samples[0]);
        } else if (nx == 2) {
            _mm_storeu_si128((__m128i *)row, _mm_unpacklo_epi8(samples[0], samples[1]));
        } else {
            const __m128i ab = _mm_unpacklo_epi8(samples[0], samples[1]),
                          cd = _mm_unpacklo_epi8(samples[2], samples[3]);
            _mm_storeu_si128((__m128i *)row, _mm_unpacklo_epi16(ab, cd));
            _mm_storeu_si128((__m128i *)(row + 16), _mm_unpackhi_epi16(ab, cd));
        }
    }
}
#endif

/* A row of `blocks` blocks into their samples side by side: 16 at a time
 * with AVX-512, 8 with AVX2 (NX and NY of 1, 2 or 4), the rest a block at
 * a time. The vector loops are functions of their own: code the compiler
 * makes for a wider set must not reach the block-at-a-time loop, which
 * every CPU runs. `isa` is gi__cpu_isa()'s. */
typedef void (*reduced_row_fn)(const int16_t *, int blocks, const uint16_t *, uint8_t *, size_t,
                               gi__isa isa);

/* The vector loops of NX x NY (VECTOR 1: NX and NY of 1, 2 or 4; 0: none,
 * the 8-point sizes) and the blocks they made, 0 where none. */
#if HAVE_REDUCED_VECTOR
/* Blocks ahead whose first cache line (their top-left coefficients, all
 * that a reduction to 4x4 or less reads) is fetched meanwhile. A
 * progressive file's planes are reduced after its last scan, long after
 * they were written, and the gathers wait on memory without the
 * hardware's prefetcher, which they do not train: reducing a 4:2:0
 * photo's chroma to 2x2 took 7 times as long as in a baseline file, whose
 * rows are reduced while the decoder still has them in cache. A prefetch
 * past the plane does not fault. */
#define PREFETCH_BLOCKS 64
#define REDUCED_LOOP(NAME, TARGET, KERNEL, LANES, NX, NY)                                      \
    __attribute__((target(TARGET))) static int NAME##_##NX##x##NY(                             \
        const int16_t *coeffs, int blocks, const uint16_t *quant, uint8_t *out, size_t stride) \
    {                                                                                          \
        int b = 0;                                                                             \
        for (; b + LANES <= blocks; b += LANES) {                                              \
            for (int p = 0; p < LANES; p++)                                                    \
                _mm_prefetch((const char *)(coeffs + 64 * ((size_t)b + PREFETCH_BLOCKS + p)),  \
                             _MM_HINT_T0);                                                     \
            KERNEL(coeffs + 64 * (size_t)b, quant, NX, NY, out + (size_t)b * NX, stride);      \
        }                                                                                      \
        return b;                                                                              \
    }
#define REDUCED_VECTOR_1(NX, NY)                                                               \
    REDUCED_LOOP(reduced16, "avx512f,avx512bw,avx512vl", reduced_idct16, 16, NX, NY)           \
    REDUCED_LOOP(reduced8, "avx2", reduced_idct8, 8, NX, NY)
#define REDUCED_DONE_1(NX, NY)                                                                 \
    (isa >= GI__ISA_AVX512 ? reduced16_##NX##x##NY(coeffs, blocks, quant, out, stride)         \
     : isa >= GI__ISA_AVX2 ? reduced8_##NX##x##NY(coeffs, blocks, quant, out, stride)          \
                           : 0)
#else
#define REDUCED_VECTOR_1(NX, NY)
#define REDUCED_DONE_1(NX, NY) ((void)isa, 0)
#endif
#define REDUCED_VECTOR_0(NX, NY)
#define REDUCED_DONE_0(NX, NY) ((void)isa, 0)

#define REDUCED_IDCT(NX, NY, VECTOR)                                                           \
    REDUCED_VECTOR_##VECTOR(NX, NY)                                                            \
    static void reduced_idct_##NX##x##NY(const int16_t *coeffs, int blocks,                    \
                                         const uint16_t *quant, uint8_t *out, size_t stride,   \
                                         gi__isa isa)                                          \
    {                                                                                          \
        for (int b = REDUCED_DONE_##VECTOR(NX, NY); b < blocks; b++)                           \
            reduced_idct_n(coeffs + 64 * (size_t)b, quant, NX, NY, out + (size_t)b * NX,        \
                           stride);                                                            \
    }
#define REDUCED_IDCT_ROW(NX, VECTOR)                                                           \
    REDUCED_IDCT(NX, 1, VECTOR) REDUCED_IDCT(NX, 2, VECTOR) REDUCED_IDCT(NX, 4, VECTOR)        \
    REDUCED_IDCT(NX, 8, 0)
REDUCED_IDCT_ROW(1, 1)
REDUCED_IDCT_ROW(2, 1)
REDUCED_IDCT_ROW(4, 1)
REDUCED_IDCT_ROW(8, 0)

void gi__jpeg_reduced_idct_row(const int16_t *coeffs, int blocks, const uint16_t quant[64], int nx,
                               int ny, uint8_t *out, size_t stride)
{
#define ROW(NX) {reduced_idct_##NX##x1, reduced_idct_##NX##x2, reduced_idct_##NX##x4, reduced_idct_##NX##x8}
    static const reduced_row_fn fns[4][4] = {ROW(1), ROW(2), ROW(4), ROW(8)};
#undef ROW
    const int ix = nx >= 8 ? 3 : nx >= 4 ? 2 : nx >= 2 ? 1 : 0;
    const int iy = ny >= 8 ? 3 : ny >= 4 ? 2 : ny >= 2 ? 1 : 0;
    fns[ix][iy](coeffs, blocks, quant, out, stride, gi__cpu_isa());
}

#if HAVE_REDUCED_VECTOR
/* 16 DCs' samples at 1 x 1, as reduced_idct_n defines them: with f =
 * (int16_t)(dc q), A = 1448 (gi__jpeg_reduced_a1) and A^2 = 2^21 - 448,
 * the sample before its +128 and clamp is (A^2 f + 2^23) >> 24, whose
 * product needs 37 bits. Writing f = 8 (f >> 3) + (f & 7), it is
 * (f >> 3) + ((2^21 (f & 7) - 448 f + 2^23) >> 24) exactly (2^24 (f >> 3)
 * leaves the floor whole), and that inner sum lies within (-2^24, 2^26):
 * all in int32 lanes. vpmullw keeps the product's low 16 bits, which is
 * the cast to int16_t; the saturating packs clamp to 0..255. */
__attribute__((target("avx2"))) static int dc_idct16_avx2(const int16_t *dcs, int blocks,
                                                          uint16_t q0, uint8_t *out)
{
    const __m256i q = _mm256_set1_epi16((short)q0), seven = _mm256_set1_epi32(7);
    const __m256i a2_low = _mm256_set1_epi32(448), half = _mm256_set1_epi32(1 << 23);
    const __m256i centre = _mm256_set1_epi32(128);
    int b = 0;
    for (; b + 16 <= blocks; b += 16) {
        const __m256i f = _mm256_mullo_epi16(_mm256_loadu_si256((const __m256i *)(dcs + b)), q);
        __m256i s[2];
        for (int i = 0; i < 2; i++) {
            const __m256i fi = _mm256_cvtepi16_epi32(i ? _mm256_extracti128_si256(f, 1)
                                                       : _mm256_castsi256_si128(f));
            const __m256i inner = _mm256_add_epi32(
                _mm256_sub_epi32(_mm256_slli_epi32(_mm256_and_si256(fi, seven), 21),
                                 _mm256_mullo_epi32(fi, a2_low)),
                half);
            s[i] = _mm256_add_epi32(_mm256_add_epi32(_mm256_srai_epi32(fi, 3), _mm256_srai_epi32(inner, 24)),
                                    centre);
        }
        /* packs work within 128-bit halves: words 0-3 8-11 | 4-7 12-15 */
        const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(s[0], s[1]), 0xD8);
        const __m128i bytes = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
        _mm_storeu_si128((__m128i *)(out + b), bytes);
    }
    return b;
}
#endif

void gi__jpeg_dc_idct_row(const int16_t *dcs, int blocks, const uint16_t quant[64], uint8_t *out)
{
    int b = 0;
#if HAVE_REDUCED_VECTOR
    if (gi__cpu_isa() >= GI__ISA_AVX2) b = dc_idct16_avx2(dcs, blocks, quant[0], out);
#endif
    /* at 1 x 1, reduced_idct_n reads a block's DC alone */
    for (; b < blocks; b++) reduced_idct_n(dcs + b, quant, 1, 1, out + b, 1);
}
