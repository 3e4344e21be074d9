/* The premultiplied blur's vertical pass sums its h rows in floats and
 * finishes from an interval that provably holds the exact quotient,
 * redoing in integers the lanes where the interval straddles an integer
 * (lib/cpu/blur_finish.h). This checks that, through the same functions
 * the kernels use (blur_float_sums, blur_symmetric_sums where the taps
 * are symmetric, blur_finish_vector, and with AVX2 blur_exact_vector on
 * every vector), against the
 * integer formula of gpuimg.h,
 *     colour  out = va == 0 ? 0 : min(255, (vc + va / 2) / va)
 *     alpha   out = (va + 2^23) >> 24,
 * for RGBA and gray+alpha lanes:
 *   - random rows under Gaussian and box taps, 1 to 2049 of them, several
 *     output rows a call, as the kernels make them;
 *   - the hard cases, from two taps (65535, 1) that reach any sum, and
 *     from three symmetric ones (1, 65534, 1) through the symmetric sums: colour
 *     sums at, next to and within the float interval's width of a
 *     quotient's boundary, alpha sums next to (m + 1/2) 2^24, va = 0,
 *     tiny va, and the largest sums.
 * Built once per vector width (BLUR_LANES 4, 8, 16: the kernels' SSE2 or
 * NEON, AVX2 and AVX-512 widths), and where the compiler can, once with
 * the instructions of AVX2 with FMA and once with AVX-512's, as the
 * kernels run them there (isa_guard.c skips them where the CPU lacks
 * them). */
#include <math.h>

#include "harness.h"
#include "cpu/blur_finish.h"

#define MAX_HA 65280u             /* the largest h of alpha: 255 * 256 */
#define MAX_HC 16646400u          /* and of a premultiplied colour: 65025 * 256 */
#define MAX_VA (65536ull * MAX_HA)
#define MAX_VC (65536ull * MAX_HC)
#define MAX_TAPS 2049

static uint8_t formula(uint64_t vc, uint64_t va, int is_alpha)
{
    if (is_alpha) return (uint8_t)((va + (1u << 23)) >> 24);
    if (!va) return 0;
    uint64_t q = (vc + va / 2) / va;
    return (uint8_t)(q > 255 ? 255 : q);
}

static uint64_t rand_below(uint64_t n)
{
    return n ? th_rand64() % n : 0;
}

typedef struct {
    int32_t wi[MAX_TAPS];
    float w[MAX_TAPS];
    blur_float_taps t;
    float *rows[MAX_TAPS + BLUR_ROWS - 1]; /* BLUR_LANES values each, and a
                                              block's more that the sums read */
} case_rows;

static void set_taps(case_rows *c, const int32_t *w, int taps)
{
    for (int k = 0; k < taps; k++) c->wi[k] = w[k], c->w[k] = (float)w[k];
    int symmetric = taps <= BLUR_CHUNK;
    for (int k = 0; k < taps / 2; k++) symmetric &= w[k] == w[taps - 1 - k];
    c->t = (blur_float_taps){c->w, c->wi, taps, blur_float_bound(taps), symmetric && taps % 2,
                             blur_symmetric_bound(taps)};
}

/* Runs the float sums (symmetric: blur_symmetric_sums', which makes
 * BLUR_ROWS rows) and finish over nrows output rows and counts the lanes
 * that differ from the formula over the same rows in integers. */
static long check_rows(const case_rows *c, int channels, int nrows, int symmetric)
{
    blur_vf acc[BLUR_ROWS][BLUR_GROUP];
    const float *const *rows = (const float *const *)c->rows;
    long bad = 0;
    if (symmetric) {
        blur_vf out[BLUR_ROWS];
        blur_symmetric_sums(&c->t, rows, 0, out);
        for (int j = 0; j < BLUR_ROWS; j++) acc[j][0] = out[j];
    } else {
        switch (nrows) { /* a constant, as in the kernels */
        case 1: blur_float_sums(&c->t, rows, 0, 1, acc); break;
        default: blur_float_sums(&c->t, rows, 0, BLUR_ROWS, acc); break;
        }
    }
    for (int j = 0; j < nrows; j++) {
        const float bound = symmetric ? c->t.symmetric_bound : c->t.bound; /* as the kernels take it */
        const blur_vf low = blur_splatf(1.0f - bound), high = blur_splatf(1.0f + bound);
        const blur_vi v = channels == 4 ? blur_finish_vector(&c->t, rows + j, 0, acc[j][0], low, high, 4)
                                        : blur_finish_vector(&c->t, rows + j, 0, acc[j][0], low, high, 2);
        int32_t out[BLUR_LANES], exact[BLUR_LANES];
        memcpy(out, &v, sizeof out);
#if BLUR_LANES == 8 && defined(__AVX2__) && defined(__FMA__)
        const blur_vi e = blur_exact_vector(&c->t, rows + j, 0, channels); /* AVX2's redo of undecided lanes */
        memcpy(exact, &e, sizeof exact);
#else
        memcpy(exact, out, sizeof exact);
#endif
        for (int l = 0; l < BLUR_LANES; l++) {
            const int alpha = l - l % channels + channels - 1;
            uint64_t vc = 0, va = 0;
            for (int k = 0; k < c->t.taps; k++) {
                vc += (uint64_t)c->wi[k] * (uint64_t)c->rows[j + k][l];
                va += (uint64_t)c->wi[k] * (uint64_t)c->rows[j + k][alpha];
            }
            static int shown;
            const int want = formula(vc, va, l == alpha);
            if ((out[l] != want || exact[l] != want) && shown++ < 5)
                th_check(0, "lane %d, %d channels, %d taps: vc %llu va %llu gave %d (exact: %d), not %d", l,
                         channels, c->t.taps, (unsigned long long)vc, (unsigned long long)va, out[l], exact[l],
                         want);
            bad += out[l] != want || exact[l] != want;
        }
    }
    return bad;
}

/* Gaussian (sigma) or box weights summing to 65536 over 2R + 1 taps, each
 * at most 65536, as gi_blur_weights makes them (near enough: the finish
 * does not rely on their sum). */
static int make_weights(int R, int box, int32_t *w)
{
    const int taps = 2 * R + 1;
    if (box) {
        for (int k = 0; k < taps; k++) w[k] = 65536 / taps;
        w[R] += 65536 - (65536 / taps) * taps;
        return taps;
    }
    double g[MAX_TAPS], sum = 0, sigma = R / 3.0 + 0.1;
    for (int k = 0; k < taps; k++) sum += g[k] = exp(-(double)(k - R) * (k - R) / (2 * sigma * sigma));
    int32_t total = 0;
    for (int k = 0; k < taps; k++) total += w[k] = (int32_t)(65536 * g[k] / sum);
    w[R] += 65536 - total;
    return taps;
}

/* Random h rows: alpha's h anywhere (often 0 or the largest), a colour's
 * h up to 256 times alpha's plus a little (the horizontal pass's rounding
 * lets it pass 255 times alpha's), or anywhere. */
static void random_rows(case_rows *c, int channels, int count)
{
    const int mode = (int)rand_below(4);
    for (int r = 0; r < count; r++)
        for (int l = 0; l < BLUR_LANES; l += channels) {
            const uint64_t pick = rand_below(8);
            const uint32_t ha = mode == 0 ? MAX_HA : pick == 0 ? 0 : pick == 1 ? MAX_HA : (uint32_t)rand_below(MAX_HA + 1);
            c->rows[r][l + channels - 1] = (float)ha;
            for (int k = 0; k < channels - 1; k++) {
                uint64_t most = mode == 3 ? MAX_HC : (uint64_t)ha * 256 + 256;
                c->rows[r][l + k] = (float)rand_below((most > MAX_HC ? MAX_HC : most) + 1);
            }
        }
}

/* Two taps (65535, 1): the rows' values h0, h1 with 65535 h0 + h1 = s
 * (s < 2^40 keeps h0 < 2^24). */
static void put_sum(case_rows *c, int lane, uint64_t s)
{
    c->rows[0][lane] = (float)(s / 65535);
    c->rows[1][lane] = (float)(s % 65535);
}

static uint64_t clamp_vc(int64_t v)
{
    return v < 0 ? 0 : (uint64_t)v > MAX_VC ? MAX_VC : (uint64_t)v;
}

/* Three symmetric taps (1, 65534, 1): h0 + 65534 h1 + h2 = s, h0 and h2
 * splitting the rest unevenly (s < 2^40 keeps h1 < 2^24). */
static void put_sum3(case_rows *c, int lane, uint64_t s)
{
    const uint64_t rest = s % 65534, h0 = rand_below(rest + 1);
    c->rows[0][lane] = (float)h0;
    c->rows[1][lane] = (float)(s / 65534);
    c->rows[2][lane] = (float)(rest - h0);
}

static void put_any(case_rows *c, int lane, uint64_t s)
{
    if (c->t.taps == 3)
        put_sum3(c, lane, s);
    else
        put_sum(c, lane, s);
}

/* One pixel's sums in every pixel of the vector: colour sums next to
 * k va - va / 2 (where the quotient's floor steps), off by d; under the
 * two taps or the three symmetric ones, whichever c has. */
static long check_boundary(case_rows *c, int channels, uint64_t va, int64_t spread)
{
    for (int l = 0; l < BLUR_LANES; l += channels) {
        put_any(c, l + channels - 1, va);
        for (int k = 0; k < channels - 1; k++) {
            const int64_t step = (int64_t)rand_below(258);
            const int64_t d = spread ? (int64_t)rand_below(2 * (uint64_t)spread + 1) - spread : 0;
            put_any(c, l + k, clamp_vc(step * (int64_t)va - (int64_t)(va / 2) + d));
        }
    }
    return check_rows(c, channels, 1, c->t.symmetric);
}

#ifdef BLUR_ISA_GUARD
extern const int isa_guard_linked;
#endif

int main(void)
{
#ifdef BLUR_ISA_GUARD
    if (!isa_guard_linked) return 1;
#endif
    th_seed();
    static case_rows c;
    static float storage[MAX_TAPS + BLUR_ROWS - 1][BLUR_GROUP * BLUR_LANES];
    for (int r = 0; r < MAX_TAPS + BLUR_ROWS - 1; r++) c.rows[r] = storage[r];
    long bad = 0, cases = 0;
    int32_t w[MAX_TAPS];

    /* random rows under real taps, one and several output rows a call */
    for (int i = 0; i < 20000; i++) {
        const int R = i % 50 == 0 ? 1024 : i % 10 == 0 ? (int)rand_below(200) : (int)rand_below(20);
        const int taps = make_weights(R, i % 3 == 0, w), channels = i % 2 ? 4 : 2;
        const int nrows = i % 4 ? BLUR_ROWS : 1;
        set_taps(&c, w, taps);
        random_rows(&c, channels, taps + BLUR_ROWS - 1); /* the symmetric sums make BLUR_ROWS rows */
        bad += check_rows(&c, channels, nrows, 0) != 0;
        cases++;
        if (c.t.symmetric) { /* the same rows through the symmetric sums */
            bad += check_rows(&c, channels, BLUR_ROWS, 1) != 0;
            cases++;
        }
    }

    /* the hard cases, from two taps that reach any sum, then from three
     * symmetric ones */
    const int32_t two[2] = {65535, 1}, three[3] = {1, 65534, 1};
    for (int i = 0; i < 1200000; i++, cases++) {
        if (i % 600000 == 0) set_taps(&c, i ? three : two, i ? 3 : 2);
        const int channels = i % 2 ? 4 : 2;
        const uint64_t va = i % 5 == 0 ? 1 + rand_below(1 << 20) : 1 + rand_below(MAX_VA);
        /* exactly on, one off, and within the interval's width (about
         * 256 * 2^-17 relative) of a boundary */
        const int64_t spread = i % 3 == 0 ? 0 : i % 3 == 1 ? 2 : (int64_t)(va >> 9) + 2;
        bad += check_boundary(&c, channels, va, spread) != 0;
    }
    for (int i = 0; i < 400000; i++, cases++) { /* alpha next to (m + 1/2) 2^24 */
        if (i % 200000 == 0) set_taps(&c, i ? two : three, i ? 2 : 3);
        const int channels = i % 2 ? 4 : 2;
        const uint64_t m = rand_below(255);
        const int64_t d = (int64_t)rand_below(1 << 12) - (1 << 11);
        const uint64_t va = (uint64_t)((int64_t)((2 * m + 1) << 23) + d);
        bad += check_boundary(&c, channels, va, 2) != 0;
    }
    const uint64_t edges[][2] = {{0, 0}, {MAX_VC, 0}, {MAX_VC, 1}, {MAX_VC, MAX_VA}, {0, MAX_VA},
                                 {1, 1}, {255, 1}, {256, 1}, {254, 1}, {MAX_VA * 255, MAX_VA},
                                 {MAX_VA * 255 - MAX_VA / 2 - 1, MAX_VA}, {0, 1}, {1, 2}, {2, 3}};
    for (unsigned i = 0; i < sizeof edges / sizeof *edges; i++)
        for (int channels = 2; channels <= 4; channels += 2, cases++) {
            for (int l = 0; l < BLUR_LANES; l++)
                put_sum(&c, l, l % channels == channels - 1 ? edges[i][1] : edges[i][0]);
            bad += check_rows(&c, channels, 1, 0) != 0;
        }
    th_check(bad == 0, "%ld of %ld premultiplied cases differ from the integer formula", bad, cases);
    return th_finish();
}
