/* The CPU backend finishes the premultiplied blur in floats where that is
 * provably exact, first from the high parts of the colour sums alone, then
 * with their low parts, else in doubles (lib/cpu/blur_finish.h). This
 * checks all three against the integer formula of gpuimg.h,
 * out = va == 0 ? 0 : min(255, (vc + va / 2) / va), on random sums over
 * their whole range and on the hard cases: numerators at, just below and
 * just above a multiple of va, va = 0, and the largest sums, each colour
 * split into high and low parts at random as the vertical pass can make
 * them (the low part anywhere up to BLUR_LO_MAX). Built once
 * per vector width (BLUR_LANES 4, 8, 16: the kernels' SSE2 or NEON, AVX2
 * and AVX-512 widths). */
#include "harness.h"
#include "blur_finish.h"

#define MAX_VA (65536ull * 65280)          /* 65536 times the largest h of alpha */
#define MAX_VC (65536ull * 16646400)       /* and of a premultiplied colour */

static uint8_t formula(uint64_t vc, uint64_t va)
{
    if (!va) return 0;
    uint64_t q = (vc + va / 2) / va;
    return (uint8_t)(q > 255 ? 255 : q);
}

static void finish_lanes(const uint32_t *hi, const uint32_t *lo, int channels, uint8_t *out)
{
    blur_vu h, l;
    uint32_t lanes[BLUR_LANES];
    memcpy(&h, hi, sizeof h);
    memcpy(&l, lo, sizeof l);
    /* as the kernels: high parts alone, then with the low ones, then doubles */
    if (blur_any(blur_finish_lanes(h, (blur_vu){0}, BLUR_LO_MAX, channels, lanes)) &&
        blur_any(blur_finish_lanes(h, l, 0, channels, lanes)))
        blur_finish_exact(h, l, channels, lanes);
    for (int i = 0; i < BLUR_LANES; i++) out[i] = (uint8_t)lanes[i];
}

static uint64_t rand_below(uint64_t n)
{
    return th_rand64() % n;
}

/* One RGBA pixel and the same pixel as two gray+alpha lanes; counts misses. */
static int check(const uint64_t vc[3], uint64_t va)
{
    uint32_t hi[4], lo[4];
    for (int c = 0; c < 3; c++) { /* vc = 256 hi + lo, lo <= BLUR_LO_MAX, hi < 2^32 */
        uint64_t most = vc[c] < BLUR_LO_MAX ? vc[c] : BLUR_LO_MAX;
        uint64_t low = (vc[c] & BLUR_SPLIT_MASK) + (rand_below(most / 256 + 1) << BLUR_SPLIT_SHIFT);
        if (low > most) low = vc[c] & BLUR_SPLIT_MASK;
        hi[c] = (uint32_t)((vc[c] - low) >> BLUR_SPLIT_SHIFT);
        lo[c] = (uint32_t)low;
    }
    hi[3] = (uint32_t)va, lo[3] = 0; /* alpha's sum comes whole */
    uint8_t out[4];
    blur_finish4(hi, lo, 4, out);
    int bad = 0;
    for (int c = 0; c < 3; c++) bad += out[c] != formula(vc[c], va);
    uint8_t alpha = (uint8_t)((va + (1u << 23)) >> 24);
    bad += out[3] != alpha;
    uint32_t ga_hi[4] = {hi[0], hi[3], hi[1], hi[3]}, ga_lo[4] = {lo[0], lo[3], lo[1], lo[3]};
    blur_finish4(ga_hi, ga_lo, 2, out);
    bad += out[0] != formula(vc[0], va) || out[2] != formula(vc[1], va) || out[1] != alpha;
    /* the float path: the pixel repeated as RGBA pixels, and as gray+alpha
     * ones (its three colours in turn) */
    uint32_t hv[BLUR_LANES], lv[BLUR_LANES];
    uint8_t outv[BLUR_LANES];
    for (int i = 0; i < BLUR_LANES; i++) hv[i] = hi[i % 4], lv[i] = lo[i % 4];
    finish_lanes(hv, lv, 4, outv);
    for (int i = 0; i < BLUR_LANES; i++) bad += outv[i] != (i % 4 == 3 ? alpha : formula(vc[i % 4], va));
    for (int i = 0; i < BLUR_LANES / 2; i++) {
        hv[2 * i] = hi[i % 3], lv[2 * i] = lo[i % 3];
        hv[2 * i + 1] = hi[3], lv[2 * i + 1] = lo[3];
    }
    finish_lanes(hv, lv, 2, outv);
    for (int i = 0; i < BLUR_LANES / 2; i++)
        bad += outv[2 * i] != formula(vc[i % 3], va) || outv[2 * i + 1] != alpha;
    return bad;
}

int main(void)
{
    th_seed();
    long bad = 0, cases = 0;
    for (int i = 0; i < 2000000; i++, cases++) { /* anywhere in the range */
        uint64_t va = i % 7 == 0 ? rand_below(1 << 20) : rand_below(MAX_VA + 1);
        uint64_t vc[3] = {rand_below(MAX_VC + 1), rand_below(va * 300 + 1), rand_below(va * 256 + 1)};
        for (int c = 0; c < 3; c++) vc[c] = vc[c] > MAX_VC ? MAX_VC : vc[c];
        bad += check(vc, va) != 0;
    }
    for (int i = 0; i < 2000000; i++, cases++) { /* next to a multiple of va */
        uint64_t va = i % 3 ? 1 + rand_below(MAX_VA) : MAX_VA - rand_below(1000);
        uint64_t k = rand_below(258), vc[3];
        for (int c = 0; c < 3; c++) {
            int64_t v = (int64_t)(k * va) - (int64_t)(va / 2) + (int64_t)rand_below(3) - 1;
            vc[c] = v < 0 ? 0 : (uint64_t)v > MAX_VC ? MAX_VC : (uint64_t)v;
        }
        bad += check(vc, va) != 0;
    }
    for (int i = 0; i < 2000000; i++, cases++) { /* within 2^-11 of a multiple: the float
                                                     path's error bound and window */
        uint64_t va = (1ull << 20) + rand_below(MAX_VA - (1ull << 20)), k = rand_below(257), vc[3];
        for (int c = 0; c < 3; c++) {
            int64_t d = (int64_t)rand_below(va >> 10) - (int64_t)(va >> 11);
            int64_t v = (int64_t)(k * va) - (int64_t)(va / 2) + d;
            vc[c] = v < 0 ? 0 : (uint64_t)v > MAX_VC ? MAX_VC : (uint64_t)v;
        }
        bad += check(vc, va) != 0;
    }
    const uint64_t edges[][2] = {{0, 0}, {MAX_VC, 0}, {MAX_VC, 1}, {MAX_VC, MAX_VA}, {0, MAX_VA},
                                 {1, 1}, {255, 1}, {256, 1}, {254, 1}, {MAX_VA * 255, MAX_VA}};
    for (unsigned i = 0; i < sizeof edges / sizeof *edges; i++, cases++) {
        uint64_t vc[3] = {edges[i][0], edges[i][0], edges[i][0]};
        bad += check(vc, edges[i][1]) != 0;
    }
    th_check(bad == 0, "%ld of %ld premultiplied pixels differ from the integer formula", bad, cases);
    return th_finish();
}
