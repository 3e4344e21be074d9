/* Which x86 instruction set the CPU code may use: the widest this CPU
 * runs, capped by GPUIMG_CPU_ISA (overrides.h), so that
 * the blur's kernels (lib/cpu) and the JPEG writer's scan (lib/codec),
 * each compiled once per set, are picked by one rule. */
#ifndef GPUIMG_CPU_ISA_H
#define GPUIMG_CPU_ISA_H

typedef enum {
    GI__ISA_BASE,    /* SSE2 on x86-64; the generic build elsewhere */
    GI__ISA_AVX2,    /* with FMA */
    GI__ISA_AVXVNNI, /* AVX2 with FMA and AVX-VNNI (Alder Lake, Zen 5 on) */
    GI__ISA_AVX512,  /* F, BW, VL, DQ and VNNI */
} gi__isa;

/* The widest set this CPU runs, up to `cap`. */
gi__isa gi__cpu_isa_capped(gi__isa cap);
/* ...up to GPUIMG_CPU_ISA's cap, found once (CPUID traps to the
 * hypervisor in a virtual machine): cheap to ask in a loop. */
gi__isa gi__cpu_isa(void);

/* Whether BMI2's pdep runs in hardware here (every x86 CPU with BMI2
 * but AMD's before Zen 3, which run it in microcode, at hundreds of
 * cycles), with GPUIMG_CPU_ISA's cap at avx2 or above. */
int gi__cpu_fast_bit_deposit(void);

/* Whether AVX-512 VBMI's byte permutes (vpermb) run here, with the
 * AVX-512 set allowed (Ice Lake and Zen 4 on; not Skylake-X nor Cascade
 * Lake). */
int gi__cpu_byte_permute(void);

#endif
