/* GPUIMG_CPU_ISA's cap and the CPU's sets (cpu_isa.h). */
#include "cpu_isa.h"

#include "overrides.h"

#if defined(__x86_64__) && defined(__GNUC__) /* meson builds the sets there */
#include <cpuid.h>

/* AVX-VNNI (vpdpwssd on 256-bit vectors, VEX-encoded): CPUID leaf 7,
 * subleaf 1, EAX bit 4. Asked of CPUID itself: clang's
 * __builtin_cpu_supports knows no "avxvnni" before clang 16. (The OS's
 * saving of the vector registers is the AVX2 test's.) */
static int has_avx_vnni(void)
{
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 4 & 1);
}

/* The CPU's family as CPUID leaf 1 gives it, its extended family added. */
static unsigned family(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const unsigned base = a >> 8 & 15;
    return base == 15 ? base + (a >> 20 & 255) : base;
}
#endif

gi__isa gi__cpu_isa_capped(gi__isa most)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (most >= GI__ISA_AVX512 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni"))
        return GI__ISA_AVX512;
    const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (most >= GI__ISA_AVXVNNI && avx2 && has_avx_vnni()) return GI__ISA_AVXVNNI;
    if (most >= GI__ISA_AVX2 && avx2) return GI__ISA_AVX2;
#else
    (void)most;
#endif
    return GI__ISA_BASE;
}

/* find's answer, found once and kept in *answer (-1 until then; every
 * thread finds the same answer): CPUID costs a trap to the hypervisor in
 * a virtual machine, and the JPEG decoder asks once a scan, once a row of
 * MCUs of a scan, or once a row of blocks to shrink. */
static int found_once(int *answer, int (*find)(void))
{
    int a = __atomic_load_n(answer, __ATOMIC_RELAXED);
    if (a < 0) {
        a = find();
        __atomic_store_n(answer, a, __ATOMIC_RELAXED);
    }
    return a;
}

/* The process's cap is read once too (overrides.h). */
static int capped_isa(void)
{
    return (int)gi__cpu_isa_capped(gi__process_overrides()->isa_cap);
}

gi__isa gi__cpu_isa(void)
{
    static int answer = -1;
    return (gi__isa)found_once(&answer, capped_isa);
}

static int fast_bit_deposit(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (gi__process_overrides()->isa_cap < GI__ISA_AVX2 || !__builtin_cpu_supports("bmi2")) return 0;
    /* AMD's family 0x19 (Zen 3 and 4) and later decode it in hardware */
    return !__builtin_cpu_is("amd") || family() >= 0x19;
#else
    return 0;
#endif
}

int gi__cpu_fast_bit_deposit(void)
{
    static int answer = -1;
    return found_once(&answer, fast_bit_deposit);
}

int gi__cpu_byte_permute(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return gi__cpu_isa() >= GI__ISA_AVX512 && __builtin_cpu_supports("avx512vbmi");
#else
    return 0;
#endif
}
