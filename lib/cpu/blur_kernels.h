/* The blur's inner loops (blur_kernels.c), compiled once per instruction
 * set and picked at run time.
 *
 * The horizontal pass, and the plain vertical pass, multiply 16-bit
 * samples by 16-bit weights two taps at a time into 32-bit sums (x86
 * pmaddwd, NEON vmull + vpaddq): the operand is a pair of samples in one
 * 32-bit word, the sample at tap k in the low half and the one at tap k+1
 * in the high half, against the pair of weights (w[k], w[k+1]). The
 * horizontal pass reads pairs built from a padded row of bytes. Plain, it
 * writes its results (h < 2^16) straight into the vertical pass's pairs,
 * rows y and y+1 (y even) in one word. Premultiplied, h reaches 2^24: it writes
 * exact floats, and the vertical pass sums them in floats with a proven
 * error bound (blur_finish.h). Target_clones cannot give each instruction
 * set its own intrinsic, so this file is compiled once per set instead.
 *
 * Why the sums are exact: every operation (pmaddwd, 32-bit adds, shifts)
 * is exact modulo 2^32, and each true sum lies in [0, 2^32), so the sum
 * modulo 2^32 is the sum. That lets samples that do not fit int16 be
 * offset by -2^15 (their sum then lacks 2^15 * 65536 = 2^31, added back
 * as a constant) and the one weight that may not fit, w[0] >= 2^15, be
 * taken as w[0] - 2^16 with u * 2^16 added apart. */
#ifndef GI_BLUR_KERNELS_H
#define GI_BLUR_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "blur_finish.h"

/* Slack, in 32-bit elements, that every buffer the kernels read or write
 * has past its end: they work in blocks of up to 64 values. */
#define BLUR_SLACK 64

/* The taps as pairs (k, k+1) for k = first - shift, first + 2 - shift,
 * ...; first is -R or -R - 1, whichever is even. shift 0: the centre tap
 * is the low half of the pair at index -first / 2 (the horizontal pass,
 * and the vertical pass's even rows); shift 1: the same pair rows seen
 * from the row below, the centre its high half (odd rows). Taps past R
 * weigh 0. */
typedef struct {
    const uint32_t *pair_w; /* (uint16)w[k] | (uint16)w[k+1] << 16 */
    int pairs;
    int first;
    int centre_high; /* w[0] >= 2^15: pair_w holds w[0] - 2^16 */
    int centre_half; /* the centre tap's half of the pair at -first / 2: shift */
} blur_taps;

typedef struct {
    /* pairs[i] = s(i) | s(i + channels) << 16 for i < count, from the
     * bytes of a padded row (whole pixels); s is the byte, or
     * premultiplied, u = c * a - 2^15 and a - 2^15 */
    void (*pairs)(const uint8_t *row, size_t count, int channels, int premultiplied,
                  uint32_t *pairs);
    /* h for n values from the pairs around centre (step: the channels),
     * less 2^15, into the vertical pass's pair row q: an even row into
     * its low halves (q[i] = h, the high halves zeroed), an odd row
     * (high 1) into the high halves of its even row's */
    void (*horizontal_plain)(const blur_taps *t, const uint32_t *centre, int step, size_t n,
                             uint32_t *q, int high);
    /* premultiplied: h (< 2^24) as floats, one row */
    void (*horizontal_premultiplied)(const blur_taps *t, const uint32_t *centre, int step, size_t n,
                                     float *out);
    /* out = (v + 2^23) >> 24 from the pair rows, t->pairs of them */
    void (*vertical_plain)(const blur_taps *t, const uint32_t *const *rows, size_t n, uint8_t *out);
    /* the same for an even row (taps even) and the row below it (taps
     * odd) from the same pair rows, odd->pairs of them: each pair row,
     * read once from L2, serves both (blur.c) */
    void (*vertical_plain2)(const blur_taps *even, const blur_taps *odd,
                            const uint32_t *const *rows, size_t n, uint8_t *out_even,
                            uint8_t *out_odd);
    /* premultiplied: the outputs of pixels pixels of nrows (1 ..
     * BLUR_ROWS) rows y .. y + nrows - 1 into out[0 .. nrows - 1], from
     * the h rows of y - R .. y + nrows - 1 + R (blur_finish.h) */
    void (*vertical_premultiplied)(const blur_float_taps *t, const float *const *rows, size_t pixels,
                                   int channels, uint8_t *const *out, int nrows);

    /* 16 bits, plain (blur16.c): the same pairs and taps with h (< 2^24)
     * split in two pair rows, its bits from 8 up (less 2^15) and its low
     * byte, each multiplied as the 8-bit h is. pairs16: (u[i] - 2^15) |
     * (u[i + channels] - 2^15) << 16 from 16-bit samples */
    void (*pairs16)(const uint16_t *row, size_t count, int channels, uint32_t *pairs);
    /* h for n values into the pair rows hi and lo, low (even rows) or
     * high halves (odd rows), as horizontal_plain */
    void (*horizontal16)(const blur_taps *t, const uint32_t *centre, int step, size_t n, uint32_t *hi,
                         uint32_t *lo, int high);
    /* out = (v + 2^23) >> 24 from the pair rows: hi at rows[p], lo
     * lo_offset values on */
    void (*vertical16)(const blur_taps *t, const uint32_t *const *rows, size_t lo_offset, size_t n,
                       uint16_t *out);
    /* an even row and the one below it, as vertical_plain2 */
    void (*vertical16x2)(const blur_taps *even, const blur_taps *odd, const uint32_t *const *rows,
                         size_t lo_offset, size_t n, uint16_t *out_even, uint16_t *out_odd);

    /* 16 bits with alpha (blur16.c): the premultiplied samples c a of
     * whole pixels of 2 or 4 channels (alpha: a 2^16) as two streams of
     * pairs16's pairs, of their high 16 bits (alpha: a) into high and of
     * their low (alpha: 0) into low; reads row[0 .. count + channels) */
    void (*pairs16p)(const uint16_t *row, size_t count, int channels, uint32_t *high, uint32_t *low);
    /* h (< 2^32) from those into the pair rows hi and lo, its high and
     * low 16 bits, as horizontal16; the first tap's pairs of each stream
     * (centre + first * step) start on a cache line, and the streams
     * have 16 values of slack more (AVX-512 loads whole lines) */
    void (*horizontal16p)(const blur_taps *t, const uint32_t *centre_h, const uint32_t *centre_l,
                          int step, size_t n, uint32_t *hi, uint32_t *lo, int high);
    /* the outputs of n values (whole pixels of ch, 2 or 4, channels)
     * from the vertical sums v (< 2^48, exact) of those pair rows
     * (blur16_finish.h): colour min(65535, (vc 2^16 + va / 2) / va),
     * alpha (va + 2^31) >> 32 */
    void (*vertical16p)(const blur_taps *t, const uint32_t *const *rows, size_t lo_offset, size_t n,
                        int ch, uint16_t *out);
    /* an even row and the one below it */
    void (*vertical16px2)(const blur_taps *even, const blur_taps *odd, const uint32_t *const *rows,
                          size_t lo_offset, size_t n, int ch, uint16_t *out_even, uint16_t *out_odd);
} blur_kernels;

/* The taps from w[-R..R] (weights[k + R]), shifted by shift (0 or 1;
 * pair_w holds R + 2): -1 for weights a pair cannot hold (blur.c). */
int gi__blur_make_taps(const int32_t *weights, int R, int shift, uint32_t *pair_w, blur_taps *t);

/* The bytes a blur's ring of rows may take: half of a core's L2 (blur.c
 * says why), shared by the 8- and 16-bit blurs. */
size_t gi__blur_ring_budget(void);

/* The widest kernels this CPU runs, capped by GPUIMG_CPU_ISA (base, avx2,
 * avxvnni, avx512) where it is set: tests run every set on one machine. */
const blur_kernels *gi__blur_kernels(void);

#endif
