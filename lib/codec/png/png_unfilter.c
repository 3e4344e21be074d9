/* PNG row filters undone in place (png_unfilter.h).
 *
 * Row j's filtered bytes start at j * (n + 1) + 1 and its pixels go to
 * j * n, before them: every store lands on bytes already read (its own
 * row's, or the filter byte), so one buffer serves inflate and pixels and
 * no second image-sized buffer is touched. Up runs 16 bytes at a time.
 * Sub, Avg and Paeth depend on the pixel to the left, so they run a pixel
 * at a time with its samples in the lanes of one vector (the approach of
 * libpng's SSE2 filters), specialised for each pixel size, and two such
 * rows in a row run at once (unfilter_pair). Lanes are 16 bits wide:
 * Avg's sum and Paeth's differences need 9 and 10 bits.
 *
 * Tried and left out, on 1 MP RGB tiles (2.28 ms a decode with this
 * file): four rows at once as four chains (2.35 ms against 2.42 for two
 * at the time, not worth the code), two rows in the two halves of one
 * 8-lane vector so one Paeth serves two pixels (3.2 ms: the lane moves and
 * per-row checks cost more than the Paeth saved), AVX2 and AVX-512 clones
 * (3%). */
#include <stdlib.h>
#include <string.h>

#include "png_unfilter.h"

enum { F_NONE, F_SUB, F_UP, F_AVG, F_PAETH, F_AVG_FIRST };

/* The first row reads zeros above it: Up is None, Paeth(a, 0, 0) is a. */
static const int first_row_filter[5] = {F_NONE, F_SUB, F_NONE, F_AVG_FIRST, F_SUB};

/* A pixel's samples in lanes 0 to 3 of a 16-byte vector: x86 and NEON
 * registers hold 16 bytes, and on 8-byte vectors GCC spends instructions
 * moving lanes in and out. */
typedef int16_t px __attribute__((vector_size(16)));
typedef uint8_t u8x8 __attribute__((vector_size(8)));
typedef uint8_t v16 __attribute__((vector_size(16)));

#define INLINE static inline __attribute__((always_inline))

/* A pixel's samples; whole: 4 bytes may be read (the pixel's, and for 3
 * bytes per pixel the next one's first, which the lane ignores). */
INLINE px load_px(const uint8_t *p, int bpp, int whole)
{
    if (bpp >= 3 && whole) {
        u8x8 v = {0};
        memcpy(&v, p, 4);
        return __builtin_convertvector(v, px);
    }
    px v = {0};
    for (int i = 0; i < bpp; i++) v[i] = p[i];
    return v;
}

/* Stores 4 bytes for 3 bytes per pixel as well: the fourth lands on the
 * next pixel's place, which its own store fills later, or past the last
 * row (inside the buffer, which is a byte per row longer than the pixels),
 * and never on filtered bytes not yet read. */
INLINE void store_px(uint8_t *p, px v, int bpp)
{
    if (bpp >= 3) {
        const u8x8 b = __builtin_convertvector(v, u8x8);
        memcpy(p, &b, 4);
        return;
    }
    for (int i = 0; i < bpp; i++) p[i] = (uint8_t)v[i];
}

INLINE px abs_px(px x)
{
    const px sign = x >> 15;
    return (x ^ sign) - sign;
}

/* The spec's predictor: with p = a + b - c, the one of a, b, c nearest p,
 * ties in that order; |p - a| = |b - c|, |p - b| = |a - c|. */
INLINE px paeth(px a, px b, px c)
{
    const px pa = abs_px(b - c), pb = abs_px(a - c), pc = abs_px(a + b - c - c);
    const px use_a = (pa <= pb) & (pa <= pc), use_b = ~use_a & (pb <= pc);
    return (a & use_a) | (b & use_b) | (c & ~(use_a | use_b));
}

/* Loads before stores, 16 bytes at a time: see the top of the file. */
static void unfilter_up(uint8_t *cur, const uint8_t *prior, const uint8_t *raw, size_t n)
{
    size_t k = 0;
    for (; k + 16 <= n; k += 16) {
        v16 r, p;
        memcpy(&r, raw + k, 16);
        memcpy(&p, prior + k, 16);
        r += p;
        memcpy(cur + k, &r, 16);
    }
    for (; k < n; k++) cur[k] = (uint8_t)(raw[k] + prior[k]);
}

/* `whole` for the pixel at k: 4 bytes from k are inside the row. */
#define WHOLE(k) (bpp == 4 || (k) + 4 <= n)

/* A pixel of Sub, Avg or Paeth (the filters that read the pixel to the
 * left) from its filtered bytes r, its left neighbour a, the pixel above b
 * and above-left c. */
INLINE px step(int filter, px a, px b, px c, px r)
{
    switch (filter) {
    case F_SUB: return (r + a) & 0xff;
    case F_AVG_FIRST: return (r + (a >> 1)) & 0xff;
    case F_AVG: return (r + ((a + b) >> 1)) & 0xff;
    default: return (r + paeth(a, b, c)) & 0xff;
    }
}

static int is_sequential(int filter)
{
    return filter != F_NONE && filter != F_UP;
}

INLINE void unfilter_row(int filter, uint8_t *cur, const uint8_t *prior, const uint8_t *raw,
                         size_t n, int bpp)
{
    const px zero = {0};
    px a = zero, c = zero;
    if (filter == F_NONE) memmove(cur, raw, n);
    else if (filter == F_UP) unfilter_up(cur, prior, raw, n);
    else
        for (size_t k = 0; k < n; k += bpp) {
            const px b = prior ? load_px(prior + k, bpp, WHOLE(k)) : zero;
            a = step(filter, a, b, c, load_px(raw + k, bpp, WHOLE(k)));
            c = b;
            store_px(cur + k, a, bpp);
        }
}

/* Two rows of sequential filters at once, the second a pixel behind the
 * first, which has then just made the pixels above it: two independent
 * chains of pixels, which the core runs side by side (one chain leaves it
 * waiting on the latency of each pixel). The second row goes to `next`,
 * since its place in buf still holds the end of the first row's filtered
 * bytes; the caller copies it there. */
INLINE void unfilter_pair(int f0, int f1, uint8_t *cur, const uint8_t *prior, const uint8_t *raw0,
                          const uint8_t *raw1, uint8_t *next, size_t n, int bpp)
{
    const px zero = {0};
    px a0 = zero, c0 = zero, a1 = zero, c1 = zero, above = zero;
    for (size_t k = 0; k < n; k += bpp) {
        const px b0 = load_px(prior + k, bpp, WHOLE(k));
        const px r0 = load_px(raw0 + k, bpp, WHOLE(k));
        if (k) { /* the second row's pixel at k - bpp, below the first row's last pixel */
            a1 = step(f1, a1, above, c1, load_px(raw1 + k - bpp, bpp, 1));
            c1 = above;
            store_px(next + k - bpp, a1, bpp);
        }
        a0 = step(f0, a0, b0, c0, r0);
        c0 = b0;
        above = a0;
        store_px(cur + k, a0, bpp);
    }
    a1 = step(f1, a1, above, c1, load_px(raw1 + n - bpp, bpp, bpp == 4));
    store_px(next + n - bpp, a1, bpp);
}

#undef WHOLE

/* One copy of the pixel loops per pixel size, with bpp a constant. */
static void unfilter_row_bpp(int filter, uint8_t *cur, const uint8_t *prior, const uint8_t *raw,
                             size_t n, int bpp)
{
    switch (bpp) {
    case 1: unfilter_row(filter, cur, prior, raw, n, 1); return;
    case 2: unfilter_row(filter, cur, prior, raw, n, 2); return;
    case 3: unfilter_row(filter, cur, prior, raw, n, 3); return;
    default: unfilter_row(filter, cur, prior, raw, n, 4); return;
    }
}

static void unfilter_pair_bpp(int f0, int f1, uint8_t *cur, const uint8_t *prior,
                              const uint8_t *raw0, const uint8_t *raw1, uint8_t *next, size_t n,
                              int bpp)
{
    switch (bpp) {
    case 1: unfilter_pair(f0, f1, cur, prior, raw0, raw1, next, n, 1); return;
    case 2: unfilter_pair(f0, f1, cur, prior, raw0, raw1, next, n, 2); return;
    case 3: unfilter_pair(f0, f1, cur, prior, raw0, raw1, next, n, 3); return;
    default: unfilter_pair(f0, f1, cur, prior, raw0, raw1, next, n, 4); return;
    }
}

int gi__png_unfilter(uint8_t *buf, size_t row_bytes, uint32_t rows, int bpp)
{
    const size_t n = row_bytes;
    uint8_t *next = malloc(n + 4); /* a pair's second row; 4: store_px's width */
    if (!next) return -1;
    int result = 0;
    for (uint32_t j = 0; j < rows && result == 0; j++) {
        const uint8_t *raw = buf + (size_t)j * (n + 1) + 1;
        uint8_t *cur = buf + (size_t)j * n;
        const int filter = raw[-1], second = j + 1 < rows ? raw[n] : F_NONE;
        if (filter > F_PAETH || second > F_PAETH) {
            result = -1;
        } else if (j && is_sequential(filter) && is_sequential(second)) {
            unfilter_pair_bpp(filter, second, cur, cur - n, raw, raw + n + 1, next, n, bpp);
            memcpy(cur + n, next, n);
            j++;
        } else {
            unfilter_row_bpp(j ? filter : first_row_filter[filter], cur, j ? cur - n : NULL, raw,
                             n, bpp);
        }
    }
    free(next);
    return result;
}
