/* harness.h - the few helpers every C test binary shares.
 *
 * A test binary makes many checks, keeps going after a failure so one run
 * shows every broken case, and ends with the line "N passed, M failed".
 * Randomised tests draw from one seeded generator: the seed is fresh each
 * run (so the suite keeps exploring) and printed, and GPUIMG_SEED=N replays
 * a failing run exactly.
 */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <stdint.h>

/* Counts one check; on failure prints "FAIL: <message>" to stderr. Returns ok. */
int th_check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "N passed, M failed" and returns the process exit status (0 or 1). */
int th_finish(void);

/* Seeds the generator from GPUIMG_SEED or the clock, prints the seed. */
void th_seed(void);
uint64_t th_rand64(void);
/* Uniform in [lo, hi], both inclusive. */
int th_rand_int(int lo, int hi);
/* Uniform in [lo, hi). */
double th_rand_double(double lo, double hi);

#endif
