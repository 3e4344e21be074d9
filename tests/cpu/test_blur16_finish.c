/* The 16-bit premultiplied blur's last step in doubles
 * (lib/cpu/blur16_finish.h) against gpuimg.h's integer formulas,
 *     colour  out = va == 0 ? 0 : min(65535, (vc 2^16 + va / 2) / va)
 *     alpha   out = (va + 2^31) >> 32,
 * on every kind of input it can see: random sums, quotients a hair below
 * and at integers (n = q va - 1, q va, q va + va - 1, where the double
 * estimate rounds across the integer and the remainder must correct it),
 * alpha sums from 1 to 2^48 - 1, colour past 65535 and va = 0. Each input
 * goes through the scalar colour, and through blur16_finish_row as an RGBA
 * and a gray+alpha pixel in rows of 1 to 40 pixels (the vectors and the
 * pixels after them), its sums split into 32-bit halves v = 2^16 hi + lo
 * in every way the vertical pass can make them. Built once for the base set and, where the compiler
 * can, once with the instructions of AVX2 with FMA and once with
 * AVX-512's, as the blur's kernels run them there (isa_guard.c skips
 * them where the CPU lacks them). */
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "cpu/blur16_finish.h"

#ifdef BLUR_ISA_GUARD
extern const int isa_guard_linked;
#endif

static uint64_t formula(uint64_t vc, uint64_t va)
{
    if (!va) return 0;
    const uint64_t q = ((vc << 16) + va / 2) / va;
    return q > 65535 ? 65535 : q;
}

static long bad;

/* Inputs waiting for the row function: a row is made when ROW are in. */
#define ROW 40
#define MAX_VA (65535ull << 32)
static uint64_t pending[ROW][2];
static int npending;

/* v < 2^48 as 2^16 hi + lo, hi and lo 32-bit: its high and low 16 bits
 * with a random part of the high moved down (the vertical sums of h's
 * halves are any such pair), or at the ends, lo as large or as small as
 * it can be. */
static void split(uint64_t v, uint32_t *hi, uint32_t *lo)
{
    const uint64_t top = v >> 16, most = top < 65535 ? top : 65535;
    const int end = th_rand_int(0, 3);
    const uint64_t down = end == 0 ? 0 : end == 1 ? most : th_rand64() % (most + 1);
    *hi = (uint32_t)(top - down);
    *lo = (uint32_t)((v & 0xFFFF) + (down << 16));
}

static void check_row(int ch, int pixels)
{
    uint32_t hi[4 * ROW], lo[4 * ROW];
    uint16_t out[4 * ROW + 1];
    /* colour c of pixel p: its vc >> c, so that the lanes differ */
    for (int p = 0; p < pixels; p++) {
        for (int c = 0; c < ch - 1; c++) split(pending[p][0] >> c, &hi[p * ch + c], &lo[p * ch + c]);
        split(pending[p][1], &hi[p * ch + ch - 1], &lo[p * ch + ch - 1]);
    }
    out[pixels * ch] = 0xBEEF;
    blur16_finish_row(hi, lo, (size_t)pixels * ch, ch, out);
    th_check(out[pixels * ch] == 0xBEEF, "%d channels, %d pixels: a sample written past the row", ch,
             pixels);
    for (int p = 0; p < pixels; p++) {
        const uint64_t va = pending[p][1];
        for (int c = 0; c < ch; c++) {
            /* alpha's sum is at most 65535 2^32 (w sums to 2^16 twice) */
            if (c == ch - 1 && va > MAX_VA) continue;
            const uint64_t vc = pending[p][0] >> c;
            const uint64_t want = c == ch - 1 ? (va + (1ull << 31)) >> 32 : formula(vc, va);
            if (out[p * ch + c] != want && bad++ < 10)
                th_check(0, "%d channels, pixel %d of %d, channel %d (v = %llu, va = %llu): got %u, want %llu",
                         ch, p, pixels, c, (unsigned long long)(c == ch - 1 ? va : vc),
                         (unsigned long long)va, out[p * ch + c], (unsigned long long)want);
        }
    }
}

static void flush(void)
{
    if (!npending) return;
    check_row(4, npending);
    check_row(2, npending);
    npending = 0;
}

static void check(uint64_t vc, uint64_t va)
{
    const uint64_t want = formula(vc, va);
    const double got = blur16_finish_colour((double)vc, (double)va, 1.0 / (double)va);
    if (got != (double)want && bad++ < 10)
        th_check(0, "vc = %llu, va = %llu: got %.0f, want %llu", (unsigned long long)vc,
                 (unsigned long long)va, got, (unsigned long long)want);
    pending[npending][0] = vc;
    pending[npending][1] = va;
    if (++npending == th_rand_int(1, ROW) || npending == ROW) flush();
}

/* m with m (2q - 1) = 1 mod 2^16 (2q - 1 is odd). */
static uint64_t inverse_odd(uint64_t odd)
{
    uint64_t x = 1;
    for (int k = 0; k < 5; k++) x *= 2 - odd * x; /* Newton: bits double each step */
    return x & 0xFFFF;
}

int main(void)
{
    th_seed();
    const uint64_t limit = (1ull << 48) - 1;
    for (long t = 0; t < 2000000; t++) {
        const uint64_t va = th_rand64() >> (16 + th_rand_int(0, 47));
        const uint64_t vc = va ? th_rand64() % (va / 65536 * 65535 + (1u << 15) + 1) : th_rand64() >> 40;
        check(vc > limit ? limit : vc, va);
    }
    /* n = vc 2^16 + m around q va with va = 2m even: n = q va + d needs
     * m (2q - 1) + d = 0 mod 2^16, so m is fixed mod 2^16 for each d. */
    for (long t = 0; t < 2000000; t++) {
        const uint64_t q = (uint64_t)th_rand_int(1, 65535);
        const int64_t ds[3] = {-1, 0, 1};
        const int64_t d = ds[t % 3];
        const uint64_t base = (uint64_t)(-d) * inverse_odd(2 * q - 1) & 0xFFFF;
        const int top = th_rand_int(17, 46) - 16; /* va up to 2^47 */
        const uint64_t m = base + ((th_rand64() >> (64 - top)) << 16);
        const uint64_t va = 2 * m;
        if (!va || va > limit) continue;
        const uint64_t n = q * va + (uint64_t)d;
        if ((n - m) % 65536) continue;
        const uint64_t vc = (n - m) >> 16;
        if (vc <= limit) check(vc, va);
        if (vc + 1 <= limit) check(vc + 1, va);
        if (vc >= 1) check(vc - 1, va);
    }
    for (uint64_t va = 1; va < 70000; va++) { /* small alpha, colour up to past 65535 */
        check(0, va);
        check(va / 65536 * 65535 + (1u << 15), va);
        check(limit, va);
    }
    check(0, 0);
    check(12345, 0);
    check(limit / 65536 * 65535, limit);
    flush();
#ifdef BLUR_ISA_GUARD
    th_check(isa_guard_linked, "the instruction set's guard is linked");
#endif
    th_check(bad == 0, "%ld outputs off the formulas", bad);
    return th_finish();
}
