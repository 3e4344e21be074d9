/* The PNG writer's row filters (png_filter.h), by vectors of bytes:
 * encoding reads only the image's own bytes, so no byte of a row waits on
 * the one before it (decoding does: png_unfilter.c). stb filters a byte
 * at a time through a switch, and for its per-row choice runs all five
 * filters one after the other and sums each: its encode took 1.6 times
 * as long with the choice as with "up". Here the five sums come from one
 * pass over the row, and only the chosen filter is written: 3-8 ms for a
 * 9 MP RGBA photo on one Zen 4 core (docs/performance.md).
 *
 * Compiled once per instruction set (lib/codec/meson.build);
 * GI_PNG_FILTER_ROWS names this copy's entry. */
#include "png_filter.h"

#include <stdlib.h>
#include <string.h>

#ifndef GI_PNG_FILTER_ROWS
#define GI_PNG_FILTER_ROWS gi__png_filter_rows_base
#endif

enum { NONE, SUB, UP, AVERAGE, PAETH };

/* stb's Paeth predictor with p = a + b - c's differences written out:
 * |p - a| = |b - c|, |p - b| = |a - c|, |p - c| = |a + b - 2c|; ties go
 * to a, then b. */
static inline int paeth(int a, int b, int c)
{
    const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* The prediction of a byte from the one to its left (a), above (b) and
 * above-left (c), for filter type (a constant in each loop below). */
static inline __attribute__((always_inline)) int predicted(const int type, int a, int b, int c)
{
    switch (type) {
    case NONE: return 0;
    case SUB: return a;
    case UP: return b;
    case AVERAGE: return (a + b) >> 1;
    default: return paeth(a, b, c);
    }
}

/* ---- The per-row choice's sums ----
 *
 * The five filters' bytes for a whole vector of bytes at once, in bytes
 * (the compiler widened the plain loop to 32-bit lanes: 2 cycles a byte,
 * a third of a 9 MP RGBA photo's encode): each byte's magnitude as stb
 * sums it, |(signed char)v|, is at most 128, so it stays a byte, and the
 * sums of 8 bytes come from one psadbw. Paeth's three distances are
 * bytes too: |b - c| and |a - c| are differences of the larger and the
 * smaller, and |a + b - 2c| is their sum where b - c and a - c have the
 * same sign (saturated: past 255 it is no smaller than either, which is
 * all the predictor asks of it), else the difference of the two. */
#if defined(__AVX512BW__)
#include <immintrin.h>
#define VB 64
#elif defined(__AVX2__)
#include <immintrin.h>
#define VB 32
#elif defined(__SSE2__)
#include <emmintrin.h>
#define VB 16
#else
#define VB 16
#endif
typedef uint8_t vb __attribute__((vector_size(VB)));
typedef int8_t vs __attribute__((vector_size(VB)));
typedef uint64_t vq __attribute__((vector_size(VB)));

static inline vb load(const uint8_t *p)
{
    vb v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Each byte's choice of x where mask is all ones, else y. */
static inline vb pick(vb mask, vb x, vb y)
{
    return (mask & x) | (~mask & y);
}

static inline vb smaller(vb x, vb y)
{
    return pick((vb)(x < y), x, y);
}

static inline vb larger(vb x, vb y)
{
    return pick((vb)(x > y), x, y);
}

/* |(signed char)d| in each byte (-128 gives 128). */
static inline vb magnitudes(vb d)
{
    const vb m = (vb)((vs)d >> 7); /* all ones where negative; unsigned: -128 wraps to 128 */
    return (d ^ m) - m;
}

/* The bytes' sums by groups of 8, added to acc. */
static inline vq add_sums(vq acc, vb m)
{
#if VB == 64
    return acc + (vq)_mm512_sad_epu8((__m512i)m, _mm512_setzero_si512());
#elif VB == 32
    return acc + (vq)_mm256_sad_epu8((__m256i)m, _mm256_setzero_si256());
#elif defined(__SSE2__)
    return acc + (vq)_mm_sad_epu8((__m128i)m, _mm_setzero_si128());
#else
    uint64_t s[VB / 8] = {0};
    for (int i = 0; i < VB; i++) s[i / 8] += m[i];
    vq v;
    memcpy(&v, s, sizeof v);
    return acc + v;
#endif
}

/* The Paeth predictor of each byte. */
static inline vb paeth_vector(vb a, vb b, vb c)
{
    const vb pa = larger(b, c) - smaller(b, c), pb = larger(a, c) - smaller(a, c);
    const vb same = ~((vb)(b < c) ^ (vb)(a < c)); /* b - c and a - c of one sign */
    const vb sum = pa + pb, saturated = sum | (vb)(sum < pa);
    const vb pc = pick(same, saturated, larger(pa, pb) - smaller(pa, pb));
    const vb take_a = (vb)(pa <= pb) & (vb)(pa <= pc), take_b = (vb)(pb <= pc);
    return pick(take_a, a, pick(take_b, b, c));
}

/* The vector prediction for filter type (a constant in each loop). */
static inline __attribute__((always_inline)) vb predicted_vector(const int type, vb a, vb b, vb c)
{
    switch (type) {
    case NONE: return (vb){0};
    case SUB: return a;
    case UP: return b;
    case AVERAGE: return (a & b) + ((a ^ b) >> 1); /* (a + b) >> 1 without a carry out */
    default: return paeth_vector(a, b, c);
    }
}

/* Row z filtered with type (SUB..PAETH) into out: the first pixel's bytes
 * have zeros to their left; the bytes after them go by vectors (the
 * compiler's own loop took Paeth in 32-bit lanes), the tail by bytes. */
static inline __attribute__((always_inline)) void filter_row(const int type,
                                                             const uint8_t *restrict z,
                                                             const uint8_t *restrict up,
                                                             size_t len, size_t n,
                                                             uint8_t *restrict out)
{
    size_t i = 0;
    for (; i < n && i < len; i++) out[i] = (uint8_t)(z[i] - predicted(type, 0, up[i], 0));
    for (; i + VB <= len; i += VB) {
        const vb d = load(z + i) - predicted_vector(type, load(z + i - n), load(up + i),
                                                    load(up + i - n));
        memcpy(out + i, &d, sizeof d);
    }
    for (; i < len; i++) out[i] = (uint8_t)(z[i] - predicted(type, z[i - n], up[i], up[i - n]));
}

static uint64_t total(vq v)
{
    uint64_t t = 0;
    for (int i = 0; i < VB / 8; i++) t += v[i];
    return t;
}

/* One byte's magnitudes under each filter, added to cost. */
static inline void add_byte_costs(int x, int a, int b, int c, uint64_t cost[5])
{
    for (int t = NONE; t <= PAETH; t++)
        cost[t] += (uint64_t)abs((int8_t)(uint8_t)(x - predicted(t, a, b, c)));
}

/* The five filters' sums of magnitudes for row z: the first pixel's bytes
 * (zeros to their left) and the tail a byte at a time, the rest by
 * vectors. */
static void filter_costs(const uint8_t *restrict z, const uint8_t *restrict up, size_t len,
                         size_t n, uint64_t cost[5])
{
    for (int t = NONE; t <= PAETH; t++) cost[t] = 0;
    size_t i = 0;
    for (; i < n && i < len; i++) add_byte_costs(z[i], 0, up[i], 0, cost);
    vq sums[5] = {{0}};
    for (; i + VB <= len; i += VB) {
        const vb x = load(z + i), a = load(z + i - n), b = load(up + i), c = load(up + i - n);
#pragma GCC unroll 5 /* each filter its own code, its sums in registers */
        for (int t = NONE; t <= PAETH; t++)
            sums[t] = add_sums(sums[t], magnitudes(x - predicted_vector(t, a, b, c)));
    }
    for (int t = NONE; t <= PAETH; t++) cost[t] += total(sums[t]);
    for (; i < len; i++) add_byte_costs(z[i], z[i - n], up[i], up[i - n], cost);
}

/* stb's choice: the smallest sum, the lowest type on a tie. */
static int cheapest(const uint64_t cost[5])
{
    int best = NONE;
    for (int t = SUB; t <= PAETH; t++)
        if (cost[t] < cost[best]) best = t;
    return best;
}

void GI_PNG_FILTER_ROWS(const uint8_t *pixels, size_t stride, size_t len, int n, int filter,
                        int y0, int y1, const uint8_t *zeros, uint8_t *out)
{
    for (int y = y0; y < y1; y++) {
        const uint8_t *z = pixels + (size_t)y * stride, *up = y ? z - stride : zeros;
        uint8_t *row = out + (size_t)y * (len + 1);
        int type = filter;
        if (type < 0) {
            uint64_t cost[5];
            filter_costs(z, up, len, (size_t)n, cost);
            type = cheapest(cost);
        }
        row[0] = (uint8_t)type;
        switch (type) {
        case NONE: memcpy(row + 1, z, len); break;
        case SUB: filter_row(SUB, z, up, len, (size_t)n, row + 1); break;
        case UP: filter_row(UP, z, up, len, (size_t)n, row + 1); break;
        case AVERAGE: filter_row(AVERAGE, z, up, len, (size_t)n, row + 1); break;
        default: filter_row(PAETH, z, up, len, (size_t)n, row + 1); break;
        }
    }
}
