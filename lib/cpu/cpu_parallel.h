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

/* Rows handed out one at a time: a band's, then rows of other bands once
 * its own are done (gi__parallel_rows_shared). */
typedef struct gi__row_cursor gi__row_cursor;
/* The next rows for this thread, at most `most` (at least 1) of them:
 * returns the first and sets *end past the last; -1 when none is left.
 * Rows come in increasing order but where *fresh is set: the first rows,
 * and the first of rows taken from another band (they may lie before the
 * last ones given, and never just after them), where work that carries
 * state from row to row starts again. */
int gi__rows_next(gi__row_cursor *c, int most, int *end, int *fresh);
/* A bound on the rows of the cursor's present run (from its last fresh
 * row): none is at or past it (it only falls, as other threads take
 * rows). */
int gi__row_end(gi__row_cursor *c);
/* A thread's share of shared work: process the rows gi__rows_next gives.
 * Returns 0, or -1 on failure. */
typedef int (*gi__rows_fn)(void *arg, gi__row_cursor *rows);

/* gi__parallel_rows for work whose rows cost alike but whose threads may
 * not run alike (cores that others share, memory nearer some): each
 * thread takes the rows of its band one at a time, and a thread done with
 * its band takes the later half of the band with most rows left while
 * that is min_take rows or more (a start that costs, such as a resize
 * band's first window, is paid again there, so min_take should outweigh
 * it). fn runs once on each thread. Returns -1 if any call failed. */
int gi__parallel_rows_shared(int threads, int rows, int min_take, gi__rows_fn fn, void *arg);
/* Rows a thread takes at once where each row costs about the same and
 * starts nothing (convolve's, sobel's after its first two): few enough
 * that threads end together, enough that taking them costs nothing; and
 * the fewest rows left in a band that another thread takes half of. */
#define GI_ROWS_CLAIM 8
#define GI_ROWS_MIN_TAKE (2 * GI_ROWS_CLAIM)

/* Taps of weights or tables below which one thread makes them all (the
 * resize's weights and its horizontal tables): about 25 us of work, a few
 * times a hand-out to the threads. */
#define GI_TAPS_ON_THREADS 8192

/* The cores this process may run on (gi__process_cores), at least 1 and at
 * most the pool's threads. */
int gi__cpu_count(void);

#endif
