/* The PNG writer's row filters (png_write.h), compiled once per
 * instruction set (lib/codec/meson.build) and picked at run time by the
 * rule the blur and the JPEG writer's scan follow (cpu_isa.h).
 *
 * The bytes are stb_image_write 1.16's, for each of its filter modes: the
 * five filters of the PNG standard, the first row's "above" being zeros
 * (which is what stb's substitutions for that row compute), and stb's
 * per-row choice: the filter whose bytes, read as signed, have the
 * smallest sum of magnitudes, the lowest type on a tie. */
#ifndef GI_PNG_FILTER_H
#define GI_PNG_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* Rows y0..y1-1 of an image of width x n bytes a row (rows stride bytes
 * apart), each as its filter type byte and then its len filtered bytes,
 * into out (row y at out + y * (len + 1)). filter: 0..4 for that filter on
 * every row, -1 for the per-row choice. zeros: len zero bytes, the row
 * above the first. */
typedef void png_filter_fn(const uint8_t *pixels, size_t stride, size_t len, int n, int filter,
                           int y0, int y1, const uint8_t *zeros, uint8_t *out);

png_filter_fn gi__png_filter_rows_base, gi__png_filter_rows_avx2, gi__png_filter_rows_avx512;

/* The widest set this CPU has, capped by GPUIMG_CPU_ISA. */
png_filter_fn *gi__png_filter_rows(void);

#endif
