/* The two checksums of a PNG: the CRC-32 of each chunk (ISO 3309, as PNG
 * and zlib define it) and the Adler-32 that ends the zlib stream of the
 * image data. libdeflate's where the build has it (the CRC folded with
 * carry-less multiplies, the Adler summed in vector registers), else
 * table-driven code here: no build is without them. */
#ifndef GPUIMG_PNG_CHECKSUM_H
#define GPUIMG_PNG_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of p[0..n) continued from crc (0 to start), as
 * libdeflate_crc32 and zlib's crc32 count it. */
uint32_t gi__crc32(uint32_t crc, const uint8_t *p, size_t n);

/* The Adler-32 of p[0..n) continued from adler (1 to start), as
 * libdeflate_adler32 and zlib's adler32 count it. */
uint32_t gi__adler32(uint32_t adler, const uint8_t *p, size_t n);

/* Whether a checksum that does not match refuses the file. Not in the
 * libFuzzer builds (tests/robust/meson.build defines the macro there, as
 * OSS-Fuzz does), where a file damaged in its critical chunks or its image
 * data goes on to stb, as every damaged file did before the checks, and
 * the metadata reader keeps the chunks it reads whatever their CRC: as
 * libpng's own fuzzer ignores CRCs, since a mutated file would otherwise
 * seldom get past them to the code the fuzzing is for. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define GI_CHECKSUMS_REFUSE 0
#else
#define GI_CHECKSUMS_REFUSE 1
#endif

#endif
