/* Palette entries a PNG's indices name but its PLTE does not define.
 * libpng and browsers show them as opaque black; stb reads entries it
 * never set (its palette is uninitialised stack memory), so a file with
 * such indices would decode differently from run to run. Every decoder
 * here shows them as opaque black: the fast decoder fills its palette so
 * (png_fast.c), and stb is given a copy of the file whose palettes are
 * completed with black entries. */
#ifndef GPUIMG_PNG_PALETTE_H
#define GPUIMG_PNG_PALETTE_H

#include <stddef.h>
#include <stdint.h>

/* Returns 1 with *out a copy of the PNG in bytes (from malloc) whose PLTE
 * chunks have 256 entries, those past the file's own black, and its size
 * in *out_size; 0 with *out NULL where there is nothing to complete (not
 * a palette image, palettes already full) or where stb refuses the file
 * anyway (a tRNS longer than its palette); -1 without memory. The copy's
 * padded chunks keep their old CRC: stb does not check CRCs, and the copy
 * goes nowhere but to stb. */
int gi__png_complete_palette(const uint8_t *bytes, size_t size, uint8_t **out, size_t *out_size);

#endif
