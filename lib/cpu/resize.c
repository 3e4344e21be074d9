/* CPU resampling with the integer weights of gpuimg.h (resize).
 *
 * Each band of output rows keeps a ring of horizontally filtered source
 * rows, as many as a vertical window holds (axis_y.taps): the windows of
 * successive output rows start at non-decreasing source rows, so each
 * source row is filtered once per band, and memory stays at a few rows
 * however large the reduction or the enlargement.
 *
 * Gray and RGB, the photos' case, run vectorized (AVX2) with gpuimg.h's
 * very arithmetic: the horizontal sums through pmaddwd, or four taps at a
 * time with AVX-512's vpermb and vpdpbusd where the CPU has them
 * (resize_quads.h), the vertical sums in int32 lanes where the weights
 * prove that exact (vertical_fits_int32), 512 bits at a time with
 * AVX-512. Images with alpha, and CPUs without AVX2, take the scalar
 * loops. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache_lines.h"
#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "resize_quads.h"
#include "base/cpu_isa.h"
#include "base/resize_axis.h"

#if defined(__x86_64__) && defined(__GNUC__) /* as cpu_isa.c: AVX2 is asked of the CPU there */
#define HAVE_PAIR_FILTER 1
#include <immintrin.h>
#else
#define HAVE_PAIR_FILTER 0
#endif
/* Most groups whose weights filter_span_rows keeps in registers (6: a
 * third with lanczos3, 18 taps, 1.13x faster than a row at a time on one
 * Zen 4 thread under AVX2, some of them on the stack) */
#define ROWS_GROUPS 6

/* Bytes ahead of a window's loads that the pmaddwd pass fetches meanwhile
 * (a prefetch past the image does not fault): under GPUIMG_CPU_ISA=avx2,
 * one thread of the 2-core AMD EPYC took a 9 MP photo to a third with
 * linear in 3.5 ms against 5.0-5.3 without (cubic 5.0-5.2 against
 * 6.2-6.6; 1024 bytes ahead: 3.8, 4096 as 2048). */
#define PAIRS_PREFETCH_AHEAD 2048

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const gi_resize_axis *ax, *ay;
    size_t n;            /* samples of an output row (and of a ring row) */
    size_t ring_stride;  /* between ring rows: n and room for a 4-lane store, in whole lines */
    int ahead;           /* source rows filtered past a window, at most (filter_new_rows);
                            the ring holds a window's taps and these */
    /* the vector horizontal pass (gray and RGB with AVX2), else NULL: per
     * output position, its taps in groups of 4 (pair_weights) */
    int16_t *pair_q;
    int groups;          /* groups of 4 taps a position has room for */
    int32_t *pair_first, *pair_count; /* each window without its zero end taps */
    int narrow;          /* every window has at most 2 taps: 2 positions a pmaddwd */
    /* Positions [0, direct) read the source row where it lies; the rest
     * read a copy of its bytes from byte tail_from on, with zeros after
     * (their loads would pass the row's end). */
    int direct;
    size_t tail_from;
    gi__resize_quads *quads; /* the positions resize_quads.c takes, or NULL */
    int vertical32;      /* the vertical sums fit int32 */
    int wide_lanes;      /* ...and go 512 bits at a time (AVX-512) */
} resize_job;

/* The vector horizontal pass's tables (resize_job's pair_q to quads) for
 * one axis and source row, kept by the CPU backend's state for the next
 * resize of the same geometry (cpu_state.c): with lanczos3, a 300x300
 * image to 100x100 spent 14% of its call making them. Its key is a copy
 * of the axis's weights, the source's width and channels: the tables
 * depend on nothing else (the instruction set is fixed for the
 * process). */
struct gi__resize_plan {
    gi_resize_axis ax;
    int ch, width;
    int16_t *pair_q;
    int groups, narrow, direct;
    int32_t *pair_first, *pair_count;
    size_t tail_from;
    gi__resize_quads *quads;
};
/* Axes of more taps are not kept: their tables (and the key) would hold
 * memory for little, as making them costs little beside their resize. */
#define PLAN_MAX_TAPS (1 << 16)

/* One band's ring of filtered rows (h of gpuimg.h, int32), and the
 * source row as the horizontal pass reads it: premultiplied int32
 * samples (scalar), or its bytes with room to read past (vector). */
typedef struct {
    int32_t *rows;
    int32_t *premultiplied;
    uint8_t *padded;     /* the row's bytes from tail_from, row_padding zeros after */
    int64_t *sums;
    const int32_t **window; /* the ring rows of a vertical window (taps) */
    int next; /* the next source row to filter */
    int limit; /* ...and the end of the band's last window */
} band_state;

/* ---- the horizontal pass, scalar ---- */

/* h of one source row into out (dst->width * ch), ch a constant where
 * this is inlined; u is the row's samples, premultiplied where needed. */
static inline __attribute__((always_inline)) void filter_row_ch(const resize_job *j,
                                                                const int32_t *u, int32_t *out,
                                                                const int ch)
{
    const gi_resize_axis *ax = j->ax;
    for (int x = 0; x < ax->n_out; x++) {
        const int32_t *q = ax->q + (size_t)x * ax->taps;
        const int32_t *p = u + (size_t)ax->first[x] * ch;
        int32_t acc[4] = {0, 0, 0, 0};
        for (int k = 0; k < ax->count[x]; k++)
            for (int c = 0; c < ch; c++) acc[c] += q[k] * p[k * ch + c];
        if (ch == 2 || ch == 4) /* with alpha: the exact sums (gpuimg.h) */
            for (int c = 0; c < ch; c++) out[x * ch + c] = acc[c];
        else
            for (int c = 0; c < ch; c++) out[x * ch + c] = (acc[c] + 32) >> 6;
    }
}

/* The samples of source row y as int32, colour times alpha where the
 * image has alpha (gpuimg.h: u = c * a). */
static void row_samples(const gi_image *src, int y, int32_t *u)
{
    const uint8_t *row = src->data + (size_t)y * src->stride;
    const int ch = src->channels, n = src->width * ch;
    if (ch == 2 || ch == 4) {
        for (int i = 0; i < n; i += ch) {
            const int32_t a = row[i + ch - 1];
            for (int c = 0; c < ch - 1; c++) u[i + c] = row[i + c] * a;
            u[i + ch - 1] = a;
        }
    } else {
        for (int i = 0; i < n; i++) u[i] = row[i];
    }
}

static void filter_row_scalar(const resize_job *j, band_state *b, int y, int32_t *out)
{
    row_samples(j->src, y, b->premultiplied);
    switch (j->src->channels) {
    case 1: filter_row_ch(j, b->premultiplied, out, 1); break;
    case 2: filter_row_ch(j, b->premultiplied, out, 2); break;
    case 3: filter_row_ch(j, b->premultiplied, out, 3); break;
    default: filter_row_ch(j, b->premultiplied, out, 4); break;
    }
}

/* ---- the horizontal pass, vector ----
 *
 * A group of 4 taps is one pmaddwd: the 4 pixels' bytes shuffled into
 * int16 lanes as two pairs, [p0c0 p1c0 p0c1 p1c1 p0c2 p1c2 0 0] and the
 * same of p2 and p3 (gray: [p0 p1 0 ...]), against the weights [q0 q1] x 4
 * and [q2 q3] x 4, gives each channel's q0 p0 + q1 p1 (+ q2 p2 + q3 p3 in
 * the other half) in an int32 lane. Taps past a position's count weigh 0
 * (and read the row's zero padding at its end). Exact: samples (<= 255)
 * and weights (|q| <= 32767, resize_weights.c) fit int16, and every sum
 * of a position's products is within 255 * sum |q| <= 255 * 32767 < 2^31,
 * so the int32 lanes add what gpuimg.h's int32 sum adds. */

/* Bytes past a row's samples that a window's last group may read. */
static size_t row_padding(int ch, int groups)
{
    return (size_t)ch * 4 * (size_t)groups + 16;
}

/* The horizontal windows without the zero weights at their ends (area's
 * and the cubic's edges; zero terms add nothing), into the job's
 * pair_first and pair_count; the groups of 4 taps a window needs at most,
 * and whether every window has 2 taps or fewer (enlarging with linear or
 * area). */
static int trim_windows(resize_job *j)
{
    const gi_resize_axis *ax = j->ax;
    j->pair_first = malloc(sizeof(int32_t) * (size_t)ax->n_out);
    j->pair_count = malloc(sizeof(int32_t) * (size_t)ax->n_out);
    if (!j->pair_first || !j->pair_count) return -1;
    int most = 1;
    for (int x = 0; x < ax->n_out; x++) {
        const int32_t *q = ax->q + (size_t)x * ax->taps;
        int lead = 0, count = ax->count[x];
        while (count > 1 && q[lead] == 0) lead++, count--;
        while (count > 1 && q[lead + count - 1] == 0) count--;
        j->pair_first[x] = ax->first[x] + lead;
        j->pair_count[x] = count;
        if (count > most) most = count;
    }
    j->groups = (most + 3) / 4;
    j->narrow = most <= 2;
    /* a position's last load: 16 bytes at its window's group groups - 1 */
    const size_t ch = (size_t)j->src->channels, row = (size_t)j->src->width * ch;
    const size_t reach = (j->narrow ? 0 : 4 * ch * (size_t)(j->groups - 1)) + 16;
    j->direct = 0;
    while (j->direct < ax->n_out && (size_t)j->pair_first[j->direct] * ch + reach <= row) j->direct++;
    j->tail_from = row;
    for (int x = j->direct; x < ax->n_out; x++)
        if ((size_t)j->pair_first[x] * ch < j->tail_from) j->tail_from = (size_t)j->pair_first[x] * ch;
    return 0;
}

/* Bytes of a position's taps as pmaddwd reads them (pair_weights). */
static size_t pair_bytes(const resize_job *j)
{
    return (j->narrow ? 8 : (size_t)j->groups * 16) * sizeof(int16_t);
}

/* Per position x in [x0, x1), its trimmed window's taps as pmaddwd reads
 * them into the zeroed pair_q: groups of 4 taps, [q0 q1] x 4 then
 * [q2 q3] x 4; narrow, [q0 q1] x 4 alone, so that positions x and x + 1
 * make one 256-bit vector. */
static void pair_weights(const resize_job *j, int x0, int x1)
{
    const gi_resize_axis *ax = j->ax;
    const size_t per = pair_bytes(j) / sizeof(int16_t);
    for (int x = x0; x < x1; x++) {
        const int32_t *q = ax->q + (size_t)x * ax->taps + (j->pair_first[x] - ax->first[x]);
        for (int k = 0; k < j->pair_count[x]; k++) {
            /* tap k: group k / 4, half (k / 2) % 2, lane k % 2 of each pair */
            int16_t *half = j->pair_q + (size_t)x * per + (size_t)(k / 4) * 16 + (k / 2 % 2) * 8;
            for (int c = 0; c < 4; c++) half[2 * c + k % 2] = (int16_t)q[k];
        }
    }
}

/* The horizontal pass's tables, pmaddwd's and the quads', of units
 * [u0, u1) of 16 positions (a gray group's, 4 RGB groups'). */
static int plan_units(void *arg, int u0, int u1)
{
    const resize_job *j = arg;
    const int x0 = u0 * 16, x1 = u1 * 16 < j->ax->n_out ? u1 * 16 : j->ax->n_out;
    pair_weights(j, x0, x1);
    if (j->quads) gi__resize_quads_fill(j->quads, j->ax, j->pair_first, j->pair_count, x0, x1);
    return 0;
}

#if HAVE_PAIR_FILTER
/* The 4 int32 lanes of position x (its channels, rounded and shifted)
 * into out; for RGB lane 3 is overwritten by the next position. */
__attribute__((target("avx2"))) static inline void store_position(int32_t *out, int x, __m128i sum,
                                                                  const int ch)
{
    if (ch == 3)
        _mm_storeu_si128((__m128i *)(out + 3 * (size_t)x), sum);
    else
        out[x] = _mm_cvtsi128_si32(sum);
}

/* Where position x's window starts: byte pair_first[x] * ch - sub of row. */
static inline __attribute__((always_inline)) const uint8_t *
window_at(const resize_job *j, const uint8_t *row, size_t sub, int x, const int ch)
{
    return row + ((size_t)j->pair_first[x] * ch - sub);
}

/* The shuffle of a window's bytes: pixels 0, 1 (low half) and 2, 3 (high
 * half) into pairs; -1 gives 0. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
pair_shuffle(const int ch)
{
    return ch == 3 ? _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1, 6,
                                      -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1)
                   : _mm256_setr_epi8(0, -1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                      2, -1, 3, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
}

/* acc plus group g's 4 taps of a window at p, weighed by q: both halves
 * of one pmaddwd, as the comment above says. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
add_group_q(__m256i acc, const uint8_t *p, __m256i q, int g, const int ch, __m256i pairs)
{
    const __m128i bytes = _mm_loadu_si128((const __m128i *)(p + 4 * ch * g));
    const __m256i u = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(bytes), pairs);
    return _mm256_add_epi32(acc, _mm256_madd_epi16(u, q));
}

/* The same with group g's weights of w. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256i
add_group(__m256i acc, const uint8_t *p, const int16_t *w, int g, const int ch, __m256i pairs)
{
    return add_group_q(acc, p, _mm256_loadu_si256((const __m256i *)(w + 16 * g)), g, ch, pairs);
}

/* Positions x and x + 1 of out from their sums s0 and s1 (each two
 * halves): added crosswise, rounded, shifted and stored. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
store_two(int32_t *out, int x, __m256i s0, __m256i s1, const int ch)
{
    __m256i sum = _mm256_add_epi32(_mm256_permute2x128_si256(s0, s1, 0x20),
                                   _mm256_permute2x128_si256(s0, s1, 0x31));
    sum = _mm256_srai_epi32(_mm256_add_epi32(sum, _mm256_set1_epi32(32)), 6);
    store_position(out, x, _mm256_castsi256_si128(sum), ch);
    store_position(out, x + 1, _mm256_extracti128_si256(sum, 1), ch);
}

/* h of positions [x, x_end) of one source row (gray or RGB) into out,
 * which has room for a 4-lane store past its end. Position x's window
 * starts at byte pair_first[x] * ch - sub of row, whose loads stay in the
 * row's bytes or its zero padding (resize_job.direct). ch, narrow and
 * groups (the job's, or 0: the job's at run time) are constants where
 * this is inlined. Two positions at a time: each one's groups add up in a
 * register of their own, and the two halves of both are added crosswise
 * once, so that the rounding, the shift and the stores serve both. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
filter_span(const resize_job *j, const uint8_t *row, size_t sub, int32_t *out, int x, int x_end,
            const int ch, const int narrow, const int fixed_groups)
{
    const int groups = fixed_groups ? fixed_groups : j->groups;
    const __m256i pairs = pair_shuffle(ch);
    const __m256i round = _mm256_set1_epi32(32);
    if (narrow) { /* positions x and x + 1 in the two halves, a pair each */
        const __m256i both = _mm256_permute2x128_si256(pairs, pairs, 0x00);
        for (; x + 1 < x_end; x += 2) {
            const __m128i b0 = _mm_loadu_si128((const __m128i *)window_at(j, row, sub, x, ch));
            const __m128i b1 = _mm_loadu_si128((const __m128i *)window_at(j, row, sub, x + 1, ch));
            const __m256i bytes = _mm256_inserti128_si256(_mm256_castsi128_si256(b0), b1, 1);
            const __m256i w = _mm256_loadu_si256((const __m256i *)(j->pair_q + 8 * (size_t)x));
            __m256i sum = _mm256_madd_epi16(_mm256_shuffle_epi8(bytes, both), w);
            sum = _mm256_srai_epi32(_mm256_add_epi32(sum, round), 6);
            store_position(out, x, _mm256_castsi256_si128(sum), ch);
            store_position(out, x + 1, _mm256_extracti128_si256(sum, 1), ch);
        }
        if (x < x_end) {
            const __m128i bytes = _mm_loadu_si128((const __m128i *)window_at(j, row, sub, x, ch));
            const __m128i w = _mm_loadu_si128((const __m128i *)(j->pair_q + 8 * (size_t)x));
            __m128i sum = _mm_madd_epi16(_mm_shuffle_epi8(bytes, _mm256_castsi256_si128(pairs)), w);
            sum = _mm_srai_epi32(_mm_add_epi32(sum, _mm256_castsi256_si128(round)), 6);
            store_position(out, x, sum, ch);
        }
        return;
    }
    const size_t per = (size_t)j->groups * 16;
    for (; x + 1 < x_end; x += 2) {
        const uint8_t *p0 = window_at(j, row, sub, x, ch), *p1 = window_at(j, row, sub, x + 1, ch);
        _mm_prefetch((const char *)p0 + PAIRS_PREFETCH_AHEAD, _MM_HINT_T0);
        const int16_t *w0 = j->pair_q + per * x, *w1 = w0 + per;
        __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
        for (int g = 0; g < groups; g++) {
            s0 = add_group(s0, p0, w0, g, ch, pairs);
            s1 = add_group(s1, p1, w1, g, ch, pairs);
        }
        store_two(out, x, s0, s1, ch);
    }
    if (x < x_end) {
        const uint8_t *p = window_at(j, row, sub, x, ch);
        __m256i acc = _mm256_setzero_si256();
        for (int g = 0; g < groups; g++) acc = add_group(acc, p, j->pair_q + per * x, g, ch, pairs);
        __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        sum = _mm_srai_epi32(_mm_add_epi32(sum, _mm256_castsi256_si128(round)), 6);
        store_position(out, x, sum, ch);
    }
}

/* filter_span (wide windows) of nrows (<= GI_RESIZE_QUADS_ROWS) rows at
 * once, their windows at the same offsets: each pair of positions' weights
 * (groups * 64 bytes) is loaded once for all the rows, where a row at a
 * time read them from L2 for every row (a third of a 9 MP photo with
 * cubic: 123 KB of weights a row). The same sums and stores as
 * filter_span, a row's positions in order. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
filter_span_rows(const resize_job *j, const uint8_t *const *rows, int32_t *const *outs, int nrows,
                 int x, int x_end, const int ch, const int groups)
{
    const __m256i pairs = pair_shuffle(ch);
    const size_t per = (size_t)groups * 16;
    for (; x + 1 < x_end; x += 2) {
        const size_t at0 = (size_t)j->pair_first[x] * ch, at1 = (size_t)j->pair_first[x + 1] * ch;
        const int16_t *w0 = j->pair_q + per * x, *w1 = w0 + per;
        __m256i q0[ROWS_GROUPS], q1[ROWS_GROUPS];
        for (int g = 0; g < groups; g++) {
            q0[g] = _mm256_loadu_si256((const __m256i *)(w0 + 16 * g));
            q1[g] = _mm256_loadu_si256((const __m256i *)(w1 + 16 * g));
        }
        for (int r = 0; r < nrows; r++) {
            const uint8_t *p0 = rows[r] + at0, *p1 = rows[r] + at1;
            _mm_prefetch((const char *)p0 + PAIRS_PREFETCH_AHEAD, _MM_HINT_T0);
            __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
            for (int g = 0; g < groups; g++) {
                s0 = add_group_q(s0, p0, q0[g], g, ch, pairs);
                s1 = add_group_q(s1, p1, q1[g], g, ch, pairs);
            }
            store_two(outs[r], x, s0, s1, ch);
        }
    }
    if (x < x_end)
        for (int r = 0; r < nrows; r++) filter_span(j, rows[r], 0, outs[r], x, x_end, ch, 0, 0);
}

#define FILTER_SPAN_ROWS(ch)                                                                        \
    __attribute__((target("avx2"))) static void filter_span_rows_##ch(                             \
        const resize_job *j, const uint8_t *const *rows, int32_t *const *outs, int nrows, int x,    \
        int x_end)                                                                                  \
    {                                                                                               \
        switch (j->groups) {                                                                        \
        case 1: filter_span_rows(j, rows, outs, nrows, x, x_end, ch, 1); break;                    \
        case 2: filter_span_rows(j, rows, outs, nrows, x, x_end, ch, 2); break;                    \
        case 3: filter_span_rows(j, rows, outs, nrows, x, x_end, ch, 3); break;                    \
        case 4: filter_span_rows(j, rows, outs, nrows, x, x_end, ch, 4); break;                    \
        case 5: filter_span_rows(j, rows, outs, nrows, x, x_end, ch, 5); break;                    \
        default: filter_span_rows(j, rows, outs, nrows, x, x_end, ch, 6); break;                   \
        }                                                                                           \
    }
FILTER_SPAN_ROWS(1)
FILTER_SPAN_ROWS(3)

/* filter_span for ch channels, with the window's shape a constant: the
 * group loops of 1 to 3 groups unrolled (linear and cubic reductions
 * down to a third, lanczos3 enlargements and reductions to a half) */
#define FILTER_SPANS(ch)                                                                            \
    __attribute__((target("avx2"))) static void filter_span_##ch(                                  \
        const resize_job *j, const uint8_t *row, size_t sub, int32_t *out, int x, int x_end)        \
    {                                                                                               \
        if (j->narrow) filter_span(j, row, sub, out, x, x_end, ch, 1, 1);                          \
        else if (j->groups == 1) filter_span(j, row, sub, out, x, x_end, ch, 0, 1);                \
        else if (j->groups == 2) filter_span(j, row, sub, out, x, x_end, ch, 0, 2);                \
        else if (j->groups == 3) filter_span(j, row, sub, out, x, x_end, ch, 0, 3);                \
        else filter_span(j, row, sub, out, x, x_end, ch, 0, 0);                                    \
    }
FILTER_SPANS(1)
FILTER_SPANS(3)
#endif

#if HAVE_PAIR_FILTER
/* h of positions [x0, x1) of the source row (gray or RGB) by pmaddwd,
 * those from resize_job.direct on from the row's padded copy. Runs go
 * in order of position: an RGB store's fourth lane falls on the next
 * position, which its own run writes after. */
static void filter_pairs(const resize_job *j, band_state *b, const uint8_t *row, int32_t *out,
                         int x0, int x1)
{
    void (*span)(const resize_job *, const uint8_t *, size_t, int32_t *, int, int) =
        j->src->channels == 3 ? filter_span_3 : filter_span_1;
    const int split = j->direct < x0 ? x0 : j->direct > x1 ? x1 : j->direct;
    if (x0 < split) span(j, row, 0, out, x0, split);
    if (split < x1) {
        const size_t bytes = (size_t)j->src->width * j->src->channels;
        memcpy(b->padded, row + j->tail_from, bytes - j->tail_from);
        span(j, b->padded, j->tail_from, out, split, x1);
    }
}
#endif

/* Whether filter_pairs_rows takes several rows at once: wide windows of
 * at most ROWS_GROUPS groups (narrow ones load no weights to share). */
static int pairs_take_rows(const resize_job *j)
{
    return !j->narrow && j->groups <= ROWS_GROUPS;
}

#if HAVE_PAIR_FILTER

/* filter_pairs of n rows, several at once where pairs_take_rows says so:
 * the positions before resize_job.direct for all the rows together, the
 * rest row by row from each row's padded copy. */
static void filter_pairs_rows(const resize_job *j, band_state *b, const uint8_t *const *rows,
                              int32_t *const *outs, int n, int x0, int x1)
{
    if (n == 1 || !pairs_take_rows(j)) {
        for (int r = 0; r < n; r++) filter_pairs(j, b, rows[r], outs[r], x0, x1);
        return;
    }
    const int split = j->direct < x0 ? x0 : j->direct > x1 ? x1 : j->direct;
    if (x0 < split) {
        if (j->src->channels == 3) filter_span_rows_3(j, rows, outs, n, x0, split);
        else filter_span_rows_1(j, rows, outs, n, x0, split);
    }
    if (split < x1)
        for (int r = 0; r < n; r++) filter_pairs(j, b, rows[r], outs[r], split, x1);
}
#endif

/* The ring's row for source row y. */
static int32_t *ring_slot(const resize_job *j, const band_state *b, int y)
{
    return b->rows + (size_t)(y % (j->ay->taps + j->ahead)) * j->ring_stride;
}

/* h of source rows [y, y + n) (n <= GI_RESIZE_QUADS_ROWS) into their ring
 * rows. */
static void filter_rows(const resize_job *j, band_state *b, int y, int n)
{
#if HAVE_PAIR_FILTER
    if (j->pair_q) {
        const uint8_t *rows[GI_RESIZE_QUADS_ROWS];
        int32_t *outs[GI_RESIZE_QUADS_ROWS];
        for (int r = 0; r < n; r++) {
            rows[r] = j->src->data + (size_t)(y + r) * j->src->stride;
            outs[r] = ring_slot(j, b, y + r);
        }
        int nruns = 1;
        const gi__resize_run whole = {0, j->ax->n_out, 0},
                             *runs = j->quads ? gi__resize_quads_runs(j->quads, &nruns) : &whole;
        for (int i = 0; i < nruns; i++) {
            if (runs[i].grouped) {
                gi__resize_quads_span(j->quads, &runs[i], rows, outs, n);
                continue;
            }
            filter_pairs_rows(j, b, rows, outs, n, runs[i].x0, runs[i].x1);
        }
        return;
    }
#endif
    for (int r = 0; r < n; r++) filter_row_scalar(j, b, y + r, ring_slot(j, b, y + r));
}

/* Source rows [b->next, end) into the ring, a few at a time, so that a
 * group's tables serve them at once (resize_quads.c): with them up to
 * j->ahead rows past end, where the band's later windows need every row
 * (resize_job.ahead). The ring holds a window and those, so
 * the new rows take the slots of rows before the window. */
static void filter_new_rows(const resize_job *j, band_state *b, int end)
{
    const int stop = b->limit > end ? b->limit : end; /* at least one row a round */
    while (b->next < end) {
        int n = GI_RESIZE_QUADS_ROWS;
        if (n > end + j->ahead - b->next) n = end + j->ahead - b->next;
        if (n > stop - b->next) n = stop - b->next;
        filter_rows(j, b, b->next, n);
        b->next += n;
    }
}

/* ---- the vertical pass ---- */

static uint8_t clamp_byte(int64_t v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* The output row from the vertical sums (gpuimg.h: plain and colour). */
static void finish_row(const int64_t *v, uint8_t *out, int width, int ch)
{
    const int n = width * ch;
    if (ch == 1 || ch == 3) {
        for (int i = 0; i < n; i++) out[i] = clamp_byte((v[i] + (1 << 21)) >> 22);
        return;
    }
    for (int i = 0; i < n; i += ch) {
        const int64_t va = v[i + ch - 1];
        for (int c = 0; c < ch - 1; c++)
            out[i + c] = va <= 0 || v[i + c] <= 0 ? 0 : clamp_byte((v[i + c] + va / 2) / va);
        out[i + ch - 1] = clamp_byte((va + (1 << 27)) >> 28);
    }
}

/* Samples of a row summed at a time in the vertical pass: their sums stay
 * in L1 while every tap's row adds to them (summing whole rows of a 2x
 * enlargement of a photo, 21840 samples, went through L2 for each of the
 * taps). */
#define SPAN 512

/* The sums of position x's positive weights and of its negative ones'
 * magnitudes. */
static void weight_sums(const gi_resize_axis *axis, int x, int64_t *positive, int64_t *negative)
{
    *positive = *negative = 0;
    for (int k = 0; k < axis->count[x]; k++) {
        const int32_t q = axis->q[(size_t)x * axis->taps + k];
        if (q > 0) *positive += q;
        else *negative -= q;
    }
}

/* Whether the vertical sums of gray or RGB fit int32, so that int32
 * lanes give gpuimg.h's int64 sums exactly. With P and N a position's
 * sums of positive weights and of negative ones' magnitudes, a sample u
 * in 0..255 gives h in -(255 Nx / 64 + 1) .. (255 Px + 32) / 64, and any
 * partial sum of a vertical window lies within Py hmax + Ny hneg (and
 * Py hneg + Ny hmax below 0); the rounding adds 2^21. Weights without
 * negative lobes (area, linear, nearest: 2^14 in all) give at most about
 * 2^30; lanczos3 (P about 1.2 and N 0.2 times 2^14) about 1.6 2^30. A
 * resize whose weights pass 2^31 takes the int64 sums. */
static int vertical_fits_int32(const gi_resize_axis *ax, const gi_resize_axis *ay)
{
    int64_t hmax = 0, hneg = 0, p, n;
    for (int x = 0; x < ax->n_out; x++) {
        weight_sums(ax, x, &p, &n);
        if ((255 * p + 32) / 64 > hmax) hmax = (255 * p + 32) / 64;
        if (255 * n / 64 + 1 > hneg) hneg = 255 * n / 64 + 1;
    }
    for (int y = 0; y < ay->n_out; y++) {
        weight_sums(ay, y, &p, &n);
        const int64_t above = p * hmax + n * hneg, below = p * hneg + n * hmax;
        if ((above > below ? above : below) + (1 << 21) > INT32_MAX) return 0;
    }
    return 1;
}

#if HAVE_PAIR_FILTER
/* An output row of gray or RGB from the ring's rows, samples [i, n) (the
 * ones before made already), its sums in int32 lanes (where
 * vertical_fits_int32 holds), 32 samples at a time: each
 * tap's rows add into 4 registers, then round, shift and clamp (packs and
 * packus saturate to 0..255, the clamp). */
__attribute__((target("avx2"))) static void vertical_row32(const int32_t *const *rows,
                                                           const int32_t *q, int count, size_t i,
                                                           size_t n, uint8_t *out)
{
    const __m256i round = _mm256_set1_epi32(1 << 21), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 32 <= n; i += 32) {
        __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                          _mm256_setzero_si256()};
        for (int k = 0; k < count; k++) {
            const __m256i w = _mm256_set1_epi32(q[k]);
            const int32_t *h = rows[k] + i;
            for (int a = 0; a < 4; a++)
                acc[a] = _mm256_add_epi32(
                    acc[a], _mm256_mullo_epi32(w, _mm256_loadu_si256((const __m256i *)(h + 8 * a))));
        }
        for (int a = 0; a < 4; a++) acc[a] = _mm256_srai_epi32(_mm256_add_epi32(acc[a], round), 22);
        const __m256i words =
            _mm256_packus_epi16(_mm256_packs_epi32(acc[0], acc[1]), _mm256_packs_epi32(acc[2], acc[3]));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_permutevar8x32_epi32(words, order));
    }
    for (; i < n; i++) {
        int32_t v = 0;
        for (int k = 0; k < count; k++) v += q[k] * rows[k][i];
        v = (v + (1 << 21)) >> 22;
        out[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

/* vertical_row32's samples [0, returned) 64 at a time in 512-bit lanes,
 * where the CPU has AVX-512: a multiply of 16 lanes costs Intel's cores
 * what one of 8 does in 256 bits (the vertical pass of a 2x enlargement
 * with cubic is these multiplies), and AMD's the same per lane. packs and
 * packus work within each 128-bit lane, so the bytes come out as dwords
 * a0[4L..] a1[4L..] a2[4L..] a3[4L..] of lane L; `order` puts dword
 * 4 (m % 4) + m / 4 at m. */
__attribute__((target("avx512f,avx512bw"))) static size_t
vertical_row32_avx512(const int32_t *const *rows, const int32_t *q, int count, size_t n,
                      uint8_t *out)
{
    const __m512i round = _mm512_set1_epi32(1 << 21);
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                          _mm512_setzero_si512()};
        for (int k = 0; k < count; k++) {
            const __m512i w = _mm512_set1_epi32(q[k]);
            const int32_t *h = rows[k] + i;
            for (int a = 0; a < 4; a++)
                acc[a] = _mm512_add_epi32(acc[a],
                                          _mm512_mullo_epi32(w, _mm512_loadu_si512(h + 16 * a)));
        }
        for (int a = 0; a < 4; a++) acc[a] = _mm512_srai_epi32(_mm512_add_epi32(acc[a], round), 22);
        const __m512i words =
            _mm512_packus_epi16(_mm512_packs_epi32(acc[0], acc[1]), _mm512_packs_epi32(acc[2], acc[3]));
        _mm512_storeu_si512(out + i, _mm512_permutexvar_epi32(order, words));
    }
    return i;
}
#endif

static void resize_row(const resize_job *j, band_state *b, int y)
{
    const gi_resize_axis *ay = j->ay;
    const size_t n = j->n;
    const int32_t *q = ay->q + (size_t)y * ay->taps;
    const int first = ay->first[y];
    int count = ay->count[y];
    uint8_t *out = j->dst->data + (size_t)y * j->dst->stride;
    /* rows a window starts past are never needed by this band */
    if (b->next < first) b->next = first;
    const int32_t **rows = b->window;
    filter_new_rows(j, b, first + count);
    for (int k = 0; k < count; k++) rows[k] = ring_slot(j, b, first + k);
    /* the zero weights at the window's ends (area's and the cubic's
     * edges) add nothing: their rows are filtered, as the ring walks
     * every window in order, but not read */
    int lead = 0;
    while (count > 1 && q[lead] == 0) lead++, count--;
    while (count > 1 && q[lead + count - 1] == 0) count--;
    q += lead;
    const int32_t *const *used = rows + lead;
#if HAVE_PAIR_FILTER
    if (j->vertical32) {
        const size_t from = j->wide_lanes ? vertical_row32_avx512(used, q, count, n, out) : 0;
        vertical_row32(used, q, count, from, n, out);
        return;
    }
#endif
    for (size_t i0 = 0; i0 < n; i0 += SPAN) {
        const size_t i1 = i0 + SPAN < n ? i0 + SPAN : n;
        int64_t *sums = b->sums;
        for (size_t i = i0; i < i1; i++) sums[i] = 0;
        for (int k = 0; k < count; k++) {
            const int32_t *h = used[k];
            const int64_t w = q[k];
            for (size_t i = i0; i < i1; i++) sums[i] += w * h[i];
        }
    }
    finish_row(b->sums, out, j->dst->width, j->src->channels);
}

/* Whether each window of the axis starts within or just past the one
 * before. */
static int windows_touch(const gi_resize_axis *a)
{
    for (int y = 1; y < a->n_out; y++)
        if (a->first[y] > a->first[y - 1] + a->count[y - 1]) return 0;
    return 1;
}

int gi__resize_rows_taken(const gi_resize_axis *ay)
{
    const long first_window = ((long)ay->taps * ay->n_out + ay->n_in - 1) / ay->n_in;
    return (int)(2 * first_window + 2);
}

/* The output rows the cursor gives through one ring, filled again from
 * each run's first window. */
static int resize_band(void *arg, gi__row_cursor *rows)
{
    const resize_job *j = arg;
    band_state b = {0};
    b.rows = gi__lines_alloc(j->ring_stride * (size_t)(j->ay->taps + j->ahead), sizeof(int32_t));
    b.sums = malloc(sizeof(int64_t) * j->n);
    b.window = malloc(sizeof(*b.window) * (size_t)j->ay->taps);
    int ok = b.rows && b.sums && b.window;
    if (j->pair_q) {
        const size_t bytes = (size_t)j->src->width * j->src->channels;
        ok = ok && (b.padded = calloc(bytes + row_padding(j->src->channels, j->groups), 1));
    } else {
        ok = ok && (b.premultiplied = malloc(sizeof(int32_t) * (size_t)j->src->width *
                                             j->src->channels)) != NULL;
    }
    for (int y, end, fresh; ok && (y = gi__rows_next(rows, 1, &end, &fresh)) >= 0;) {
        if (fresh) {
            /* rows taken from another band lie anywhere: the ring starts
             * again at this row's window, and the rows filtered ahead end
             * at the run's last window */
            const int last = gi__row_end(rows) - 1;
            b.next = 0;
            b.limit = j->ay->first[last] + j->ay->count[last];
        }
        resize_row(j, &b, y);
    }
    free(b.rows);
    free(b.premultiplied);
    free(b.padded);
    free(b.sums);
    free(b.window);
    return ok ? 0 : -1;
}

/* The horizontal pass's tables (a job's or a plan's), freed. */
static void free_tables(int16_t *pair_q, int32_t *pair_first, int32_t *pair_count,
                        gi__resize_quads *quads)
{
    gi__resize_quads_free(quads);
    free(pair_q);
    free(pair_first);
    free(pair_count);
}

void gi__resize_plan_free(gi__resize_plan *plan)
{
    if (!plan) return;
    gi_resize_axis_free(&plan->ax);
    free_tables(plan->pair_q, plan->pair_first, plan->pair_count, plan->quads);
    free(plan);
}

/* Whether plan was made for axis ax on rows of width x ch. */
static int plan_fits(const gi__resize_plan *plan, const gi_resize_axis *ax, int width, int ch)
{
    return plan->ch == ch && plan->width == width && gi__resize_axis_same(&plan->ax, ax);
}

/* The horizontal pass's tables into j, on up to `threads` threads; 0, or
 * -1 where memory ran out (j's arrays then freed). */
static int make_tables(resize_job *j, int threads)
{
    const gi_resize_axis *ax = j->ax;
    const int ch = j->src->channels;
    if (trim_windows(j) != 0 || !(j->pair_q = calloc(ax->n_out, pair_bytes(j)))) {
        free_tables(j->pair_q, j->pair_first, j->pair_count, j->quads);
        j->pair_first = j->pair_count = NULL;
        return -1;
    }
    /* windows of 4 taps or fewer stay with pmaddwd: a 2x enlargement
     * with cubic took 1.05-1.2x its time by quads (their tables, 48
     * bytes a position, stream from L2 for each row) */
    if (j->groups >= 2)
        j->quads = gi__resize_quads_plan(ax, j->groups, ch, (size_t)j->src->width * ch);
    /* the tables on the threads where they are large: a reduction to
     * a third of a 9 MP photo with cubic took 0.1 ms making them on
     * one, a twentieth of its 2 threads' call */
    const int shared = (long)ax->n_out * j->groups * 4 >= GI_TAPS_ON_THREADS;
    gi__parallel_rows(shared ? threads : 1, (ax->n_out + 15) / 16, plan_units, j);
    if (j->quads) j->quads = gi__resize_quads_finish(j->quads, ax->n_out);
    return 0;
}

/* A plan holding j's tables (which it then owns) and a copy of its axis,
 * or NULL where memory is short (j keeps its tables). */
static gi__resize_plan *plan_of(const resize_job *j)
{
    gi__resize_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return NULL;
    if (gi__resize_axis_copy(j->ax, &plan->ax) != 0) {
        free(plan);
        return NULL;
    }
    plan->ch = j->src->channels;
    plan->width = j->src->width;
    plan->pair_q = j->pair_q;
    plan->groups = j->groups;
    plan->narrow = j->narrow;
    plan->direct = j->direct;
    plan->pair_first = j->pair_first;
    plan->pair_count = j->pair_count;
    plan->tail_from = j->tail_from;
    plan->quads = j->quads;
    return plan;
}

static void use_plan(resize_job *j, const gi__resize_plan *plan)
{
    j->pair_q = plan->pair_q;
    j->groups = plan->groups;
    j->narrow = plan->narrow;
    j->direct = plan->direct;
    j->pair_first = plan->pair_first;
    j->pair_count = plan->pair_count;
    j->tail_from = plan->tail_from;
    j->quads = plan->quads;
}

/* j's horizontal tables: from one of the state's plans where one fits
 * (it becomes the most recent), else made, and kept in place of the
 * oldest where the axis is small enough. *owned: j's tables are its own,
 * to free after the resize. 0, or -1 where memory ran out. */
static int find_tables(void *state, resize_job *j, int threads, int *owned)
{
    gi__resize_plan **plans = gi__cpu_resize_plans(state);
    const int ch = j->src->channels, width = j->src->width;
    *owned = 0;
    for (int i = 0; i < GI_CPU_RESIZE_PLANS; i++)
        if (plans[i] && plan_fits(plans[i], j->ax, width, ch)) {
            gi__resize_plan *hit = plans[i];
            memmove(&plans[1], &plans[0], sizeof *plans * (size_t)i);
            plans[0] = hit;
            use_plan(j, hit);
            return 0;
        }
    if (make_tables(j, threads) != 0) return -1;
    gi__resize_plan *made = (size_t)j->ax->n_out * (size_t)j->ax->taps <= PLAN_MAX_TAPS ? plan_of(j) : NULL;
    if (!made) {
        *owned = 1;
        return 0;
    }
    gi__resize_plan_free(plans[GI_CPU_RESIZE_PLANS - 1]);
    memmove(&plans[1], &plans[0], sizeof *plans * (GI_CPU_RESIZE_PLANS - 1));
    plans[0] = made;
    return 0;
}

gi_status gi__cpu_resize(void *state, const gi_image *src, gi_image *dst, const gi_resize_axis *ax,
                         const gi_resize_axis *ay)
{
    const int ch = src->channels, plain = ch == 1 || ch == 3, threads = gi__cpu_threads_for(state, src, dst, 2);
    resize_job j = {.src = src, .dst = dst, .ax = ax, .ay = ay};
    int owned = 0;
    j.n = (size_t)dst->width * ch;
    /* whole lines: the vertical pass loads every ring row in vectors from its start */
    j.ring_stride = gi__lines_round(j.n + 4, sizeof(int32_t));
    if (HAVE_PAIR_FILTER && plain && gi__cpu_isa() >= GI__ISA_AVX2) {
        if (find_tables(state, &j, threads, &owned) != 0)
            return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate resize weights");
        j.vertical32 = vertical_fits_int32(ax, ay);
        /* rows ahead: where the quads pass batches rows, and every
         * window overlaps or touches the next (a reduction's windows with
         * gaps between them, nearest's, would have rows filtered that no
         * window reads) */
        /* and where pmaddwd takes several rows at once: CPUs without the
         * quads (AVX2 alone), where the tables are pmaddwd's weights. With
         * the quads, pmaddwd's runs are enlargements, whose rows are long:
         * there a ring of 7 rows instead of 4 took a doubling with cubic
         * 3-5% longer on one Zen 4 thread */
        const int pairs_batch = !j.quads && gi__cpu_isa() < GI__ISA_AVX512 && pairs_take_rows(&j);
        if ((j.quads || pairs_batch) && windows_touch(ay)) j.ahead = GI_RESIZE_QUADS_ROWS - 1;
        j.wide_lanes = gi__cpu_isa() >= GI__ISA_AVX512;
    }
    /* bands shared: a thread done early takes rows from one still at
     * work (16 threads ended equal bands 1.5-2x apart on the H200
     * machine's Xeon) */
    const int failed = gi__parallel_rows_shared(threads, dst->height, gi__resize_rows_taken(ay),
                                                resize_band, &j);
    if (owned) free_tables(j.pair_q, j.pair_first, j.pair_count, j.quads);
    if (failed) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate resize row buffers");
    return GI_OK;
}
