/* The resize's horizontal pass of gray and RGB rows (resize.c) four taps
 * at a time, where the CPU has AVX-512 with VBMI and VNNI (Ice Lake and
 * Zen 4 on).
 *
 * Positions go in groups of a vector's 16 int32 lanes: 16 positions of a
 * gray row, 5 of an RGB row (a lane a channel, lane 3 p + c, the last
 * idle). Two
 * 64-byte loads hold every window of a group where they lie within 128
 * bytes (reductions to a third with linear, cubic and lanczos3, and
 * up); vpermt2b then gives each lane the bytes of 4 of its taps, and
 * vpdpbusd adds their products with the weights. The weights q (|q| <= 32767) are
 * split q = 256 a + b, a and b signed bytes, so two vpdpbusd give
 * sum q u = 256 sum a u + sum b u exactly in int32: the sums gpuimg.h
 * defines, as the AVX2 pass's pmaddwd makes them. Per group of 5 RGB
 * positions that is two loads, a vpermt2b per 4 taps, two vpdpbusd per
 * 4 taps and one store, where the AVX2 pass spends a broadcast, a shuffle,
 * a pmaddwd and an add on each position's 4 taps. The tables (192 bytes
 * a group and 4 taps) serve up to GI_RESIZE_QUADS_ROWS rows at once, so
 * resize.c takes this pass for windows of more than 4 taps alone: with 4
 * or fewer (enlargements) each source row takes a window's rows alone, and
 * the tables, read again for each, made a 2x enlargement with cubic
 * 1.05-1.2x slower than pmaddwd. */
#ifndef GI_RESIZE_QUADS_H
#define GI_RESIZE_QUADS_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* A run of positions [x0, x1): by groups (grouped) or left to the
 * AVX2 pass. */
typedef struct {
    int x0, x1, grouped;
} gi__resize_run;

typedef struct gi__resize_quads gi__resize_quads;

/* The plan of an axis whose trimmed windows (resize.c) start at first[x]
 * and hold count[x] taps (at most 4 * quads), for rows of ch (1 or 3)
 * channels and row_bytes bytes, in three steps: gi__resize_quads_plan
 * allocates it (NULL where the CPU lacks the instructions or memory runs
 * out: the AVX2 pass then takes the rows); gi__resize_quads_fill makes
 * the tables of the groups that start at positions [x0, x1), on any
 * thread, once for every position; gi__resize_quads_finish makes the
 * runs, and frees the plan and gives NULL where no group fits. */
gi__resize_quads *gi__resize_quads_plan(const gi_resize_axis *ax, int quads, int ch,
                                        size_t row_bytes);
void gi__resize_quads_fill(gi__resize_quads *p, const gi_resize_axis *ax, const int32_t *first,
                           const int32_t *count, int x0, int x1);
gi__resize_quads *gi__resize_quads_finish(gi__resize_quads *p, int n_out);
void gi__resize_quads_free(gi__resize_quads *p);
/* The runs, in order of position, *n of them. */
const gi__resize_run *gi__resize_quads_runs(const gi__resize_quads *p, int *n);
/* Source rows read at once at most: each group's tables serve them all.
 * On the H200 machine's Xeon, a 9 MP photo to a third with linear took
 * 3.63-3.79 ms on one thread with 4, 3.01-3.04 with 8 (2 threads
 * 1.91-1.94 against 1.54-1.55; cubic 2.23-2.26 against 2.02-2.13; 16
 * threads alike); the Zen 4 3.79-3.88 against 3.37-3.56. */
#define GI_RESIZE_QUADS_ROWS 8
/* h (gpuimg.h, rounded and shifted) of the positions of a grouped run,
 * from each of nrows (<= GI_RESIZE_QUADS_ROWS) source rows' bytes into its
 * out (ch int32 a position). */
void gi__resize_quads_span(const gi__resize_quads *p, const gi__resize_run *run,
                           const uint8_t *const *rows, int32_t *const *outs, int nrows);

#endif
