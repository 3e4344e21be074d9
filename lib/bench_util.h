/* Pieces the backends' benchmarks share. */
#ifndef GI_BENCH_UTIL_H
#define GI_BENCH_UTIL_H

#include <stddef.h>

/* Sorts ms[0..n) and returns the median. */
double gi__median(double *ms, int n);

/* Host clock in milliseconds (monotonic). */
double gi__now_ms(void);

/* The seed paper's input: n x n floats in [0, 1) from a fixed generator,
 * so every variant sees the same matrix. */
void gi__paper_matrix(float *m, int n);

/* Largest |out - exact| over a fixed sample of outputs, where exact is the
 * float64 5x5 box sum with zeros outside. */
double gi__paper_max_error(const float *in, const float *out, int n);

#endif
