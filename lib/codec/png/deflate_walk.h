/* A walker over a raw deflate stream (RFC 1951) that finds where its final
 * block starts and where it ends, without producing the data: what the
 * joining of independently compressed pieces into one zlib stream needs
 * (zlib_pieces.h). It reads only our own compressor's output (libdeflate),
 * but it is bounds-checked all the same: a stream that is not valid deflate
 * or does not end within the buffer is a failure, never a read past it. */
#ifndef GPUIMG_DEFLATE_WALK_H
#define GPUIMG_DEFLATE_WALK_H

#include <stddef.h>
#include <stdint.h>

/* Walks the blocks of the deflate stream in buf[0..size): stored blocks
 * (skipped by their LEN), fixed-Huffman and dynamic-Huffman blocks (their
 * literal/length and distance symbols decoded, extra bits skipped, up to
 * the end-of-block symbol 256) until the first block with BFINAL set.
 * Bits are counted from buf's first byte, least significant bit first
 * (deflate's order). Returns 0 and sets *final_block_bit (where that
 * block's 3 header bits start: its BFINAL bit) and *end_bit (the bit just
 * after its end-of-block code, or after its stored bytes); returns -1 when
 * the stream is damaged (a reserved block type, a bad code, LEN against
 * NLEN, a symbol no code has) or runs past size bytes before its end. */
int gi__deflate_walk(const uint8_t *buf, size_t size, uint64_t *final_block_bit,
                     uint64_t *end_bit);

#endif
