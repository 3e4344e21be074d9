/* GPUIMG_CPU_ISA's cap and the CPU's sets (cpu_isa.h). */
#include "cpu_isa.h"

#include <stdlib.h>
#include <string.h>

gi__isa gi__cpu_isa(void)
{
#if defined(__x86_64__) && defined(__GNUC__) /* meson builds the sets there */
    const char *cap = getenv("GPUIMG_CPU_ISA");
    const gi__isa most = !cap || !strcmp(cap, "avx512") ? GI__ISA_AVX512
                         : !strcmp(cap, "avx2")         ? GI__ISA_AVX2
                                                        : GI__ISA_BASE;
    __builtin_cpu_init();
    if (most >= GI__ISA_AVX512 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni"))
        return GI__ISA_AVX512;
    if (most >= GI__ISA_AVX2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return GI__ISA_AVX2;
#endif
    return GI__ISA_BASE;
}
