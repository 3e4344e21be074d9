/* Linked into a test built for a wider x86 set (GUARD_AVX512: AVX-512 F
 * and BW with FMA; else AVX2 with FMA): skips it (exit 77, meson's skip)
 * on a CPU without, before main, which the compiler may already have
 * given those instructions. Compiled without those flags itself. */
#include <stdio.h>
#include <stdlib.h>

/* referenced by the test, so that the linker takes this file in */
const int isa_guard_linked = 1;

__attribute__((constructor)) static void skip_without_set(void)
{
    __builtin_cpu_init();
#ifdef GUARD_AVX512
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("fma"))
        return;
    fputs("skipped: this CPU lacks AVX-512\n", stderr);
#else
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return;
    fputs("skipped: this CPU lacks AVX2 and FMA\n", stderr);
#endif
    exit(77);
}
