/* Huffman decoding of JPEG scans into quantized coefficients
 * (jpeg_coeffs.h), giving stb_image 2.27's very values.
 *
 * The decoder is a strict subset of stb: on data that stb decodes in a way
 * of its own (bits read past a marker or the end of the file, bytes between
 * a restart interval's data and its marker, fill bytes before the marker
 * that ends a scan, codes no table holds) it gives up, and the caller
 * leaves the file to stb. Where it does not give up, every coefficient is
 * the one stb computes, corrupt data included (runs past the end of a
 * block land where stb puts them). */
#ifndef GI_JPEG_ENTROPY_H
#define GI_JPEG_ENTROPY_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_coeffs.h"

struct gi_jpeg_progress;

/* Whether any of the 8 bytes of w is 0xFF (a byte of ~w is zero): data
 * free of markers and stuffed bytes is read, or skipped, 8 bytes at a
 * time. */
static inline int gi__jpeg_word_has_ff(uint64_t w)
{
    return (((~w) - 0x0101010101010101ull) & w & 0x8080808080808080ull) != 0;
}

/* The 0xFF of the marker that ends a scan's data from p: restart markers
 * and stuffed bytes are data; NULL where the decoder would judge the end
 * otherwise (fill bytes, which it refuses; no marker). */
const uint8_t *gi__jpeg_data_end(const uint8_t *p, const uint8_t *end);

/* Codes of up to this many bits decode in one table probe. */
#define GI_JPEG_LOOKUP_BITS 10

/* A Huffman table ready for decoding. lookup[] is indexed by the next
 * GI_JPEG_LOOKUP_BITS bits of the stream; an entry holds the code's symbol
 * and length and, when its magnitude bits fit in the same bits, the
 * coefficient they give (jpeg_entropy.c describes the fields). Longer
 * codes go through maxcode and delta, as in the JPEG standard's decoder
 * (F.2.2.3). */
typedef struct gi_jpeg_huff {
    uint32_t lookup[1 << GI_JPEG_LOOKUP_BITS];
    uint32_t maxcode[18]; /* 1 + the last code of each length, left-aligned in 16 bits */
    int32_t delta[17];    /* symbol index minus code, per length */
    uint8_t values[256];
} gi_jpeg_huff;

/* Builds a table from a DHT segment's 16 counts and their symbols (ac: an
 * AC table, whose symbols are run/size pairs; else DC, whose symbols are
 * sizes). Returns -1 where stb refuses the table (more than 256 symbols,
 * codes that do not fit their lengths) or where we leave it to stb (a DC
 * size over 15, which stb refuses only when it is decoded). */
int gi__jpeg_huff_build(gi_jpeg_huff *h, const uint8_t counts[16], const uint8_t *values, int ac);

/* A baseline block whose AC coefficients are not read (a component read
 * for its DC alone: gi_jpeg_coeffs.dc_only) still has every code of its
 * AC to be passed over; a skip table, indexed by the next
 * GI_JPEG_SKIP_BITS bits of the stream, gives how many of those bits its
 * whole codes (magnitude bits included) take, how far they move in the
 * block and whether the last of them ends the block
 * (gi__jpeg_huff_skip_build; jpeg_entropy.c has the fields). */
#define GI_JPEG_SKIP_BITS 12
void gi__jpeg_huff_skip_build(const gi_jpeg_huff *h, uint32_t skip[1 << GI_JPEG_SKIP_BITS]);

/* One scan, as its header and the frame say. */
typedef struct gi_jpeg_scan {
    int n;                         /* components in the scan, 1..4 */
    int comp[GI_JPEG_MAX_COMPONENTS]; /* their planes, in the scan's order */
    const gi_jpeg_huff *dc[GI_JPEG_MAX_COMPONENTS], *ac[GI_JPEG_MAX_COMPONENTS];
    int ss, se, ah, al;            /* spectral selection, successive approximation */
    int restart_interval;          /* MCUs per interval; 0 = none */
    unsigned zero_blocks;          /* a progressive file's first DC scan of its components,
                                      decoded alone: bit i, it zeroes each block of its
                                      component i before the DC, the storage having been
                                      left as allocated (0 for a component whose AC
                                      coefficients are not read: gi_jpeg_coeffs.dc_only) */
    const uint32_t *skip[GI_JPEG_MAX_COMPONENTS]; /* a baseline scan: the skip table of
                                      component i's AC table where its blocks' AC
                                      coefficients are not read (only its DC is then
                                      stored), else NULL */
} gi_jpeg_scan;

/* What a scan's blocks hold: every coefficient (baseline, sequential), or
 * in a progressive frame the first bits of the DC, a DC refinement (one
 * bit a block), the first bits of a band of AC coefficients (with runs of
 * empty blocks), or a band's refinement (correction bits for the
 * coefficients already nonzero). */
enum { GI_JPEG_BASELINE, GI_JPEG_DC_FIRST, GI_JPEG_DC_REFINE, GI_JPEG_AC_FIRST, GI_JPEG_AC_REFINE };

static inline int gi__jpeg_scan_kind(int progressive, const gi_jpeg_scan *sc)
{
    return !progressive  ? GI_JPEG_BASELINE
           : sc->ss == 0 ? (sc->ah == 0 ? GI_JPEG_DC_FIRST : GI_JPEG_DC_REFINE)
           : sc->ah == 0 ? GI_JPEG_AC_FIRST
                         : GI_JPEG_AC_REFINE;
}

/* Decodes the scan whose entropy-coded data starts at bytes + at into c's
 * planes (baseline, c->progressive 0: each block zeroed, then decoded;
 * progressive: added onto the coefficients so far; its AC scans keep, for
 * each block, which of its AC coefficients are not 0 in c->ac_nonzero,
 * zeroed before the first scan: an AC refinement reads its block's mask
 * instead of the block, and needs the block only where the band holds
 * nonzero coefficients or gets new ones). Runs of restart intervals go to up to `threads` threads (each
 * interval starts afresh, so they decode apart; stb's values either way).
 * With `progress` (may be NULL), a baseline scan of every component that
 * is decoded in one pass is published row by row (jpeg_progress.h).
 * Returns 0 with *end at the 0xFF of the marker that follows the data, or
 * -1: not a scan this decoder takes (see above). */
int gi__jpeg_decode_scan(gi_jpeg_coeffs *c, const gi_jpeg_scan *scan, const uint8_t *bytes,
                         size_t size, size_t at, int threads, struct gi_jpeg_progress *progress,
                         size_t *end);

/* Decodes n scans of c's progressive frame on this thread, a row of MCUs
 * at a time: MCU row m of every scan, in the file's order, before row m + 1
 * of any. Each block sees the scans in the file's order, as decoding them
 * one after another gives, but the blocks of a row stay in the caches
 * from scan to scan, where one scan after another sweeps the whole
 * coefficient storage from memory each time (10 sweeps of 26 MB for a
 * 9 MP 4:2:0 photo and jpegtran's script). scan i's data starts at
 * bytes + at[i] and must end at the 0xFF at bytes + end[i]. 0, or -1
 * where a scan did not decode (as gi__jpeg_decode_scan) or ended
 * elsewhere. */
int gi__jpeg_decode_scans_by_rows(gi_jpeg_coeffs *c, const gi_jpeg_scan *const *scans,
                                  const size_t *at, const size_t *end, int n,
                                  const uint8_t *bytes, size_t size);

/* One scan of c's progressive frame decoded a row of MCUs at a time, as
 * gi__jpeg_decode_scans_by_rows decodes each: its data at `data`. c and
 * sc are borrowed until gi__jpeg_rows_free. */
typedef struct gi_jpeg_rows gi_jpeg_rows;
gi_jpeg_rows *gi__jpeg_rows_new(gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, const uint8_t *data,
                                const uint8_t *file_end); /* NULL: no memory */
/* The scan's units through MCU row m of the frame (rows before m already
 * decoded; the last MCU row takes the scan's last units): 0, or -1 where
 * the data does not decode (as gi__jpeg_decode_scan). */
int gi__jpeg_rows_decode(gi_jpeg_rows *r, long m);
/* Once every row is decoded: whether the data ended as a scan's must, at
 * the 0xFF at `marker`. */
int gi__jpeg_rows_ended_at(const gi_jpeg_rows *r, const uint8_t *marker);
void gi__jpeg_rows_free(gi_jpeg_rows *r);

#endif
