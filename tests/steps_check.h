/* Chains of steps against the same steps one at a time (steps_check.c). */
#ifndef TESTS_STEPS_CHECK_H
#define TESTS_STEPS_CHECK_H

#include <gpuimg.h>

/* A random operation with random parameters; hist only if hist_ok. */
gi_op sc_random_step(int hist_ok);
/* gi_apply(steps) on ctx equals the steps one at a time, byte for byte,
 * with a poisoned destination whose padding stays intact. */
void sc_check_chain(gi_context *ctx, const char *what, const gi_image *src, const gi_op *steps,
                    int n);

#endif
