/* Linked into a test built for AVX-512: skips it (exit 77, meson's skip)
 * on a CPU without, before main, which the compiler may already have
 * given AVX-512 instructions. Compiled without those flags itself. */
#include <stdio.h>
#include <stdlib.h>

/* referenced by the test, so that the linker takes this file in */
const int avx512_guard_linked = 1;

__attribute__((constructor)) static void skip_without_avx512(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("fma"))
        return;
    fputs("skipped: this CPU lacks AVX-512\n", stderr);
    exit(77);
}
