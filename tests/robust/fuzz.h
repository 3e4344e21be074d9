/* fuzz.h - what the libFuzzer targets share.
 *
 * Each target defines LLVMFuzzerTestOneInput. Built with -fsanitize=fuzzer
 * it is a fuzzer; linked with fuzz_replay.c instead it replays files (the
 * regression corpus) under any compiler and sanitizer.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 */
#ifndef TESTS_ROBUST_FUZZ_H
#define TESTS_ROBUST_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_REQUIRE(cond)                                                               \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

#endif
