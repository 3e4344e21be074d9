/* The seed paper's input and check, for the CPU and the GPU variants. */
#ifndef GPUIMG_BENCH_PAPER_INPUT_H
#define GPUIMG_BENCH_PAPER_INPUT_H

/* The seed paper's input: n x n floats in [0, 1) from a fixed generator,
 * so every variant sees the same matrix. */
void paper_matrix(float *m, int n);

/* Largest |out - exact| over a fixed sample of outputs, where exact is the
 * float64 5x5 box sum with zeros outside. */
double paper_max_error(const float *in, const float *out, int n);

#endif
