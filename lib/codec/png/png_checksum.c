/* The CRC-32 and Adler-32 of PNG files (png_checksum.h). */
#include "png_checksum.h"

#ifdef GPUIMG_HAVE_LIBDEFLATE
#include <libdeflate.h>

/* libdeflate gives the starting value for a NULL buffer, whatever the
 * value passed: nothing to add is the value passed here. */
uint32_t gi__crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    return n ? libdeflate_crc32(crc, p, n) : crc;
}

uint32_t gi__adler32(uint32_t adler, const uint8_t *p, size_t n)
{
    return n ? libdeflate_adler32(adler, p, n) : adler;
}

#else
#include <pthread.h>

/* Eight bytes a step through eight tables ("slicing by 8"): table[k][b] is
 * the CRC of byte b followed by k zero bytes. About five times as fast as
 * a byte a step, which matters here: every byte of a PNG read goes
 * through it. */
static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t v = b;
        for (int k = 0; k < 8; k++) v = v >> 1 ^ (0xedb88320u & (0u - (v & 1u)));
        table[0][b] = v;
    }
    for (int k = 1; k < 8; k++)
        for (uint32_t b = 0; b < 256; b++)
            table[k][b] = table[k - 1][b] >> 8 ^ table[0][table[k - 1][b] & 0xff];
}

uint32_t gi__crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    pthread_once(&table_once, make_table);
    crc = ~crc;
    for (; n >= 8; n -= 8, p += 8) {
        const uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                   (uint32_t)p[3] << 24);
        crc = table[7][lo & 0xff] ^ table[6][lo >> 8 & 0xff] ^ table[5][lo >> 16 & 0xff] ^
              table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^
              table[0][p[7]];
    }
    for (; n; n--, p++) crc = crc >> 8 ^ table[0][(crc ^ *p) & 0xff];
    return ~crc;
}

/* The sums are reduced modulo 65521 every 5552 bytes, the most after
 * which b cannot pass 2^32 (zlib's NMAX). A byte a step (2-3 GB/s on Zen
 * 4): the unrolled forms tried, 16 bytes weighted at a time or sums by
 * columns, were at most 20% faster with SSE2, not worth their code. */
#define ADLER_MOD 65521u
#define ADLER_RUN 5552

uint32_t gi__adler32(uint32_t adler, const uint8_t *p, size_t n)
{
    uint32_t a = adler & 0xffff, b = adler >> 16;
    while (n) {
        size_t run = n < ADLER_RUN ? n : ADLER_RUN;
        n -= run;
        for (; run; run--) {
            a += *p++;
            b += a;
        }
        a %= ADLER_MOD;
        b %= ADLER_MOD;
    }
    return b << 16 | a;
}
#endif
