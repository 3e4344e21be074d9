/* The JPEG decoder's arithmetic kernels (jpeg_reconstruct.c walks the
 * rows): dequantization with the IDCT of a row of blocks, stb_image
 * 2.27's chroma upsamplers, and its YCbCr to RGB conversion. Each is a
 * pure function of its inputs, the shape a GPU kernel mirrors.
 *
 * The scalar set (jpeg_recon_scalar.c) is the definition, written to read
 * like stb's code; the vector set (jpeg_recon_vector.c, GCC vector
 * extensions) is compiled once per instruction set like the JPEG writer's
 * scan: SSE2 or NEON as the base, AVX2, AVX-512. Every set gives the same
 * bytes for every input; tests/codec/test_jpeg_reconstruct.c compares each
 * with stb's own functions.
 *
 * The IDCT is the one stb runs on x86-64, stbi__idct_simd (SSE2), whose
 * column pass adds coefficient pairs in 16 bits and saturates its outputs
 * to 16 bits. stb's C version (stbi__idct_block, what stb runs without
 * SSE2 or NEON) differs from it only where those overflow: dequantized
 * coefficients no encoder of 8-bit samples makes (|c| past about 2^13),
 * found in hostile files. One definition for every machine and the GPU,
 * so the x86 one. */
#ifndef GI_JPEG_RECON_KERNELS_H
#define GI_JPEG_RECON_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes every upsampled row buffer has past its hs * w samples: the vector
 * kernels write whole vectors. */
#define JPEG_RECON_SLACK 64

typedef struct jpeg_recon_kernels {
    const char *name; /* generic, sse2 or neon, avx2, avx512 */
    /* n blocks of 64 quantized coefficients (natural order, one after the
     * other) dequantized in 16 bits by quant and inverse transformed: block
     * b's 8x8 samples at out + 8 b, rows stride apart. */
    void (*idct_blocks)(const int16_t *coeffs, int n, const uint16_t quant[64], uint8_t *out,
                        size_t stride);
    /* stb's resamplers for w >= 1 input samples (stbi__resample_row_v_2,
     * _h_2, _hv_2): out gets w (v2) or 2 w (h2, hv2) samples. near is the
     * row the output row lies in, far the neighbour row on its side. */
    void (*upsample_v2)(uint8_t *out, const uint8_t *near, const uint8_t *far, int w);
    void (*upsample_h2)(uint8_t *out, const uint8_t *in, int w);
    void (*upsample_hv2)(uint8_t *out, const uint8_t *near, const uint8_t *far, int w);
    /* stbi__YCbCr_to_RGB_row with step 3: count pixels of R, G, B. */
    void (*ycc_to_rgb)(uint8_t *out, const uint8_t *y, const uint8_t *cb, const uint8_t *cr,
                       int count);
} jpeg_recon_kernels;

extern const jpeg_recon_kernels gi__jpeg_recon_generic, gi__jpeg_recon_base,
    gi__jpeg_recon_avx2, gi__jpeg_recon_avx512;

/* The widest set this CPU runs up to `cap` (cpu_isa.h), or the scalar set
 * where `generic`. */
const jpeg_recon_kernels *gi__jpeg_recon_kernels_capped(int cap, int generic);
/* ...up to GPUIMG_CPU_ISA's cap (overrides.h: generic picks the scalar set). */
const jpeg_recon_kernels *gi__jpeg_recon_kernels(void);

#endif
