/* Splitting row ranges over threads for the CPU backend. */
#ifndef GI_CPU_PARALLEL_H
#define GI_CPU_PARALLEL_H

/* A unit of work: process rows [begin, end). Returns 0, or -1 on failure
 * (allocation), which gi__parallel_rows reports as a whole. */
typedef int (*gi__row_fn)(void *arg, int begin, int end);

/* Runs fn over [0, rows) in up to `threads` contiguous bands and waits for
 * all of them. Results must not depend on the split: every backend and
 * thread count gives the same bytes. Returns -1 if any band failed. */
int gi__parallel_rows(int threads, int rows, gi__row_fn fn, void *arg);

/* Online cores, at least 1. */
int gi__cpu_count(void);

#endif
