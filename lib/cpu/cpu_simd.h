/* How the CPU backend gets vector code: its inner loops are plain integer
 * (and exactly rounded float) loops written so that the compiler vectorizes
 * them (-O3), with no reduction or lane order that could change a result.
 * On x86-64 GCC compiles each marked function three times, for SSE2 (the
 * baseline), AVX2 and AVX-512, and the loader picks the widest one the CPU
 * has; on aarch64 the same loops become NEON. Integer and correctly rounded
 * IEEE results do not depend on the lane count, so every clone gives the
 * same bytes. The blur's kernels need one instruction the compilers do not
 * derive from C (pmaddwd), and a clone cannot pick its own intrinsic, so
 * they are compiled once per set instead (blur_kernels.h). */
#ifndef GI_CPU_SIMD_H
#define GI_CPU_SIMD_H

#include "base/vector_shuffle.h" /* GI_SHUFFLE */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GI_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GI_VECTOR_CLONES
#endif

#endif
