/* The resize's horizontal pass four taps at a time (resize_quads.h). */
#include "resize_quads.h"

#include <stdlib.h>
#include <string.h>

#include "base/cpu_isa.h"

#if defined(__x86_64__) && defined(__GNUC__) /* as cpu_isa.c */
#define HAVE_QUADS 1
#include <immintrin.h>
#else
#define HAVE_QUADS 0
#endif

/* A group's tables for each 4 taps: the vpermb indices, then the bytes a
 * and b of the weights (resize_quads.h), 64 bytes each. */
#define QUAD_BYTES 192
/* Bytes ahead of a row's load that are fetched into L1 meanwhile. The
 * rows read together are several streams at once, which the hardware's
 * prefetcher left waiting on memory: with this, a reduction of a 9 MP
 * photo to a third took 0.65-0.7x the time on a Zen core (256 to 4096
 * did the same). A prefetch past the image does not fault. */
#define PREFETCH_AHEAD 1024

struct gi__resize_quads {
    int ch, quads;
    int per;             /* positions a group holds */
    size_t row_bytes;
    int groups;
    int32_t *base;       /* per group of positions: the byte its load starts at */
    uint8_t *fits;       /* per group: its tables are filled (else the AVX2 pass takes it) */
    uint8_t *tables;     /* per group: quads * QUAD_BYTES, 64-byte aligned */
    gi__resize_run *runs;
    int nruns;
};

/* The bytes from group g's first window's start to its last one's end,
 * for groups of per positions, and into *lo the first window's first
 * position. */
static size_t group_reach(const int32_t *first, const int32_t *count, int ch, int per, int g,
                          int *lo)
{
    const int x0 = g * per;
    int hi = first[x0] + count[x0];
    *lo = first[x0];
    for (int x = x0; x < x0 + per; x++) {
        if (first[x] < *lo) *lo = first[x];
        if (first[x] + count[x] > hi) hi = first[x] + count[x];
    }
    return (size_t)(hi - *lo) * (size_t)ch;
}

/* Group g's tables from the windows, where they fit: every window's
 * bytes within the 128 from the group's first and every
 * weight's a in a signed byte. 0, or -1 where they do not fit. */
static int fill_group(gi__resize_quads *p, const gi_resize_axis *ax, const int32_t *first,
                      const int32_t *count, int g)
{
    const int ch = p->ch, per = p->per, x0 = g * per;
    int lo;
    if (group_reach(first, count, ch, per, g, &lo) > 128u) return -1;
    p->base[g] = lo * ch;
    uint8_t *t = p->tables + (size_t)g * (size_t)p->quads * QUAD_BYTES;
    memset(t, 0, (size_t)p->quads * QUAD_BYTES); /* idle lanes and taps: byte 0, weight 0 */
    for (int x = x0; x < x0 + per; x++) {
        const int32_t *q = ax->q + (size_t)x * ax->taps + (first[x] - ax->first[x]);
        for (int k = 0; k < count[x]; k++) {
            const int b = (int)((q[k] & 0xFF) ^ 0x80) - 0x80, a = (q[k] - b) / 256;
            if (a < -128 || a > 127) return -1;
            uint8_t *quad = t + (size_t)(k / 4) * QUAD_BYTES;
            for (int c = 0; c < ch; c++) {
                /* lane (x - x0) * ch + c, its byte k % 4 */
                const int at = ((x - x0) * ch + c) * 4 + k % 4;
                quad[at] = (uint8_t)((first[x] + k) * ch + c - lo * ch);
                quad[64 + at] = (uint8_t)(int8_t)a;
                quad[128 + at] = (uint8_t)(int8_t)b;
            }
        }
    }
    return 0;
}

/* A run appended, or the last one widened when it is of the same kind. */
static void add_run(gi__resize_quads *p, int x0, int x1, int grouped)
{
    if (x1 <= x0) return;
    gi__resize_run *last = p->nruns ? &p->runs[p->nruns - 1] : NULL;
    if (last && last->x1 == x0 && last->grouped == grouped) {
        last->x1 = x1;
        return;
    }
    p->runs[p->nruns++] = (gi__resize_run){x0, x1, grouped};
}

void gi__resize_quads_free(gi__resize_quads *p)
{
    if (!p) return;
    free(p->base);
    free(p->fits);
    free(p->tables);
    free(p->runs);
    free(p);
}

gi__resize_quads *gi__resize_quads_plan(const gi_resize_axis *ax, int quads, int ch,
                                        size_t row_bytes)
{
    if (!HAVE_QUADS || !gi__cpu_byte_permute() || (ch != 1 && ch != 3)) return NULL;
    /* gray: 16 positions a group; RGB: 5 (15 lanes; with 4 a reduction
     * to a third took 1.13-1.18x the time with linear and lanczos3, and
     * with cubic, one load a group where 5 need two, as long) */
    const int per = ch == 1 ? 16 : 5;
    const int groups = ax->n_out / per;
    if (groups == 0) return NULL;
    gi__resize_quads *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->ch = ch;
    p->quads = quads;
    p->per = per;
    p->groups = groups;
    p->row_bytes = row_bytes;
    p->base = malloc(sizeof(int32_t) * (size_t)groups);
    p->fits = malloc((size_t)groups);
    p->tables = aligned_alloc(64, (size_t)groups * (size_t)quads * QUAD_BYTES);
    /* groups alternating with the AVX2 pass make 2 runs each, and a tail */
    p->runs = malloc(sizeof(gi__resize_run) * (2 * (size_t)groups + 1));
    if (!p->base || !p->fits || !p->tables || !p->runs) {
        gi__resize_quads_free(p);
        return NULL;
    }
    return p;
}

void gi__resize_quads_fill(gi__resize_quads *p, const gi_resize_axis *ax, const int32_t *first,
                           const int32_t *count, int x0, int x1)
{
    const int per = p->per;
    const int g1 = (x1 + per - 1) / per < p->groups ? (x1 + per - 1) / per : p->groups;
    for (int g = (x0 + per - 1) / per; g < g1; g++)
        p->fits[g] = fill_group(p, ax, first, count, g) == 0;
}

gi__resize_quads *gi__resize_quads_finish(gi__resize_quads *p, int n_out)
{
    const int per = p->per;
    int fitted = 0;
    for (int g = 0; g < p->groups; g++) {
        fitted += p->fits[g];
        add_run(p, g * per, (g + 1) * per, p->fits[g]);
    }
    add_run(p, p->groups * per, n_out, 0);
    if (!fitted) {
        gi__resize_quads_free(p);
        return NULL;
    }
    return p;
}

const gi__resize_run *gi__resize_quads_runs(const gi__resize_quads *p, int *n)
{
    *n = p->nruns;
    return p->runs;
}

#if HAVE_QUADS
/* The most quads whose tables a group keeps in registers (3 each: 18 of
 * the 32 vector registers at 6); a window of more taps reads them from
 * memory for each row. */
#define QUADS_IN_REGISTERS 6

/* The groups of a run for rows[0..nrows), quads a constant where this
 * is inlined (0: the plan's). A group's tables are read once
 * for all the rows: they are several times a row's bytes, and through L2
 * each row alone waited on them (a third of the pass's time at a
 * reduction to a third with cubic). Where the quads are known here they
 * are also loaded into registers once a group: the row's stores may
 * alias them (a byte table), so the compiler read them again from L1 for
 * every row, seven 64-byte loads a row at a reduction to a third with
 * linear, where the row needs one. Every group reads 128 bytes in two
 * loads and picks from both (vpermt2b), also where its windows lie in
 * the first 64 (a third with linear, 51 bytes): on the H200 machine's
 * Xeon one load and vpermb took that reduction of a 9 MP photo 4.17 ms on
 * one thread against 3.81 with two (2 threads 2.18-2.20 against
 * 1.93-2.13, 16 threads 0.38-0.42 against 0.36), the Zen 4 the same time
 * within its noise. Bytes past the row are masked off, and only zero
 * weights pick them. */
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vnni"))) static inline
    __attribute__((always_inline)) void
    span_groups(const gi__resize_quads *p, const gi__resize_run *run, const uint8_t *const *rows,
                int32_t *const *outs, int nrows, const int ch, const int fixed_quads)
{
    const int quads = fixed_quads ? fixed_quads : p->quads, per = p->per;
    const int g0 = run->x0 / per, g1 = run->x1 / per;
    const size_t row_bytes = p->row_bytes, out_step = (size_t)per * (size_t)ch;
    const int32_t *const base = p->base;
    const uint8_t *const tables = p->tables;
    /* lanes 3p + c of RGB's positions, the rest idle */
    const __mmask16 used = (__mmask16)((1u << (per * ch)) - 1);
    const __m512i round = _mm512_set1_epi32(32);
    for (int g = g0; g < g1; g++) {
        const size_t at = (size_t)base[g];
        /* the bytes of the row from at, 64 and 64 more */
        const size_t left = row_bytes - at;
        const __mmask64 inside = left >= 64 ? ~0ull : ~0ull >> (64 - left),
                        inside2 = left >= 128 ? ~0ull : left <= 64 ? 0 : ~0ull >> (128 - left);
        const uint8_t *t = tables + (size_t)g * (size_t)quads * QUAD_BYTES;
        __m512i index[QUADS_IN_REGISTERS], wa[QUADS_IN_REGISTERS], wb[QUADS_IN_REGISTERS];
        if (fixed_quads)
            for (int j = 0; j < fixed_quads; j++) {
                index[j] = _mm512_load_si512(t + (size_t)j * QUAD_BYTES);
                wa[j] = _mm512_load_si512(t + (size_t)j * QUAD_BYTES + 64);
                wb[j] = _mm512_load_si512(t + (size_t)j * QUAD_BYTES + 128);
            }
        for (int r = 0; r < nrows; r++) {
            _mm_prefetch((const char *)rows[r] + at + PREFETCH_AHEAD, _MM_HINT_T0);
            const __m512i bytes = _mm512_maskz_loadu_epi8(inside, rows[r] + at),
                          more = _mm512_maskz_loadu_epi8(inside2, rows[r] + at + 64);
            __m512i high = _mm512_setzero_si512(), low = round;
            for (int j = 0; j < quads; j++) {
                const uint8_t *quad = t + (size_t)j * QUAD_BYTES;
                const __m512i ix = fixed_quads ? index[j] : _mm512_load_si512(quad);
                const __m512i u = _mm512_permutex2var_epi8(bytes, ix, more);
                high = _mm512_dpbusd_epi32(high, u, fixed_quads ? wa[j] : _mm512_load_si512(quad + 64));
                low = _mm512_dpbusd_epi32(low, u, fixed_quads ? wb[j] : _mm512_load_si512(quad + 128));
            }
            const __m512i h = _mm512_srai_epi32(_mm512_add_epi32(_mm512_slli_epi32(high, 8), low), 6);
            if (ch == 1)
                _mm512_storeu_si512(outs[r] + (size_t)g * 16, h);
            else
                _mm512_mask_storeu_epi32(outs[r] + (size_t)g * out_step, used, h);
        }
    }
}

/* A case of span_##ch's switch: quads as a constant, within what
 * span_groups keeps in registers (its arrays hold that many). */
#define SPAN_CASE(ch, quads)                                                                        \
    case quads: {                                                                                   \
        _Static_assert((quads) <= QUADS_IN_REGISTERS, "a group's tables fit its registers");       \
        span_groups(p, run, rows, outs, nrows, ch, quads);                                          \
    } break;
#define SPAN_GROUPS(ch)                                                                             \
    __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vnni"))) static void span_##ch(       \
        const gi__resize_quads *p, const gi__resize_run *run, const uint8_t *const *rows,           \
        int32_t *const *outs, int nrows)                                                            \
    {                                                                                               \
        switch (p->quads) {                                                                         \
            SPAN_CASE(ch, 2)                                                                        \
            SPAN_CASE(ch, 3)                                                                        \
            SPAN_CASE(ch, 4)                                                                        \
            SPAN_CASE(ch, 5)                                                                        \
            SPAN_CASE(ch, 6)                                                                        \
        default: span_groups(p, run, rows, outs, nrows, ch, 0); break;                              \
        }                                                                                           \
    }
SPAN_GROUPS(1)
SPAN_GROUPS(3)
#endif

void gi__resize_quads_span(const gi__resize_quads *p, const gi__resize_run *run,
                           const uint8_t *const *rows, int32_t *const *outs, int nrows)
{
#if HAVE_QUADS
    if (p->ch == 1) span_1(p, run, rows, outs, nrows);
    else span_3(p, run, rows, outs, nrows);
#else
    (void)p, (void)run, (void)rows, (void)outs, (void)nrows;
#endif
}
