/* JPEG markers as stb_image 2.27 reads them (stbi__decode_jpeg_image and
 * stbi__process_marker), for the files jpeg_parse.h says we take; every
 * other case returns NOT_MINE where stb would do something else. */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_deferred.h"
#include "jpeg_entropy.h"
#include "jpeg_parse.h"
#include "jpeg_progress.h"
#include "jpeg_scans_parallel.h"
#include "jpeg_shrink.h"
#include "jpeg_tables.h"
#include "base/pixel_alloc.h"

/* read_file's answer where a scan after deferred ones is not deferred
 * (the file is read again without deferral), or where the scans recorded
 * to decode on threads did not decode there (again, serially). */
#define READ_AGAIN 2

typedef struct {
    const uint8_t *b;
    size_t size, at;
    gi_jpeg_coeffs *c;
    gi_jpeg_huff huff[2][4]; /* [0] DC, [1] AC */
    int huff_defined[2][4];
    uint16_t quant[4][64];
    int quant_defined[4], quant_used[4];
    int restart_interval;
    int threads;
    int defer; /* the scan may be deferred (jpeg_deferred.h) */
    int parallel; /* a progressive frame's scans may decode on threads */
    int listed;   /* a progressive frame's scans are recorded, then decoded (jpeg_scans_parallel.h);
                     0 on a second reading: each decoded as its marker is read */
    gi_jpeg_scan_list *scans; /* ...and are recorded here to do so */
    gi_jpeg_progress *progress;
    int shrink_to;     /* the image is to be shrunk on load for this (0: not) */
    int dc_only_known; /* c->dc_only set, at the first scan */
    int skip_failed;   /* a scan left out had no plain end, or c->dc_only changed by the
                          end: read again, every coefficient decoded */
    int frame;                           /* SOF read */
    int scanned[GI_JPEG_MAX_COMPONENTS]; /* baseline: its scan came; progressive: its first DC scan */
    /* Last, and not zeroed with the rest (64 KB each file, most never
     * read): a baseline scan's skip tables, of AC tables 0-3
     * (gi_jpeg_scan.skip), each built before a scan points at it, for
     * each scan that reads a component for its DC alone. */
    uint32_t skip[4][1 << GI_JPEG_SKIP_BITS];
} parser;

static unsigned be16(const uint8_t *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

/* The marker at the cursor (0xFF, fill bytes, the code), or -1 for
 * anything else: stb skips some junk in some places, and we leave it that. */
static int next_marker(parser *ps)
{
    if (ps->at >= ps->size || ps->b[ps->at] != 0xFF) return -1;
    while (ps->at < ps->size && ps->b[ps->at] == 0xFF) ps->at++;
    return ps->at < ps->size ? ps->b[ps->at++] : -1;
}

/* A segment's payload after its length, or NULL when it does not fit the
 * file; the cursor moves past it. */
static const uint8_t *segment(parser *ps, size_t *len)
{
    if (ps->size - ps->at < 2) return NULL;
    size_t l = be16(ps->b + ps->at);
    if (l < 2 || l > ps->size - ps->at) return NULL;
    const uint8_t *p = ps->b + ps->at + 2;
    ps->at += l;
    *len = l - 2;
    return p;
}

static int read_dqt(parser *ps, const uint8_t *p, size_t len)
{
    while (len > 0) {
        int precision = p[0] >> 4, t = p[0] & 15;
        size_t need = precision ? 129 : 65;
        if (precision > 1 || t > 3 || len < need) return -1;
        if (ps->quant_used[t]) return -1; /* a scan read the table as it was */
        for (int i = 0; i < 64; i++)
            ps->quant[t][gi__jpeg_natural_order[i]] =
                (uint16_t)(precision ? be16(p + 1 + 2 * i) : p[1 + i]);
        ps->quant_defined[t] = 1;
        p += need;
        len -= need;
    }
    return 0;
}

static int read_dht(parser *ps, const uint8_t *p, size_t len)
{
    while (len > 0) {
        if (len < 17) return -1;
        int tc = p[0] >> 4, th = p[0] & 15;
        if (tc > 1 || th > 3) return -1;
        size_t n = 0;
        for (int i = 1; i <= 16; i++) n += p[i];
        if (len < 17 + n) return -1;
        if (gi__jpeg_huff_build(&ps->huff[tc][th], p + 1, p + 17, tc) < 0) return -1;
        ps->huff_defined[tc][th] = 1;
        p += 17 + n;
        len -= 17 + n;
    }
    return 0;
}

/* APP0 JFIF and APP14 Adobe set what stb's colour conversion reads; stb
 * looks at them wherever they are, and the last Adobe segment counts. */
static void read_app(parser *ps, int marker, const uint8_t *p, size_t len)
{
    if (marker == 0xE0 && len >= 5 && memcmp(p, "JFIF", 5) == 0) ps->c->jfif = 1;
    if (marker == 0xEE && len >= 12 && memcmp(p, "Adobe", 6) == 0) ps->c->adobe_transform = p[11];
}

/* A segment that may come anywhere: tables, restart interval, APPn, COM. */
static int read_table_or_misc(parser *ps, int marker)
{
    size_t len;
    const uint8_t *p = segment(ps, &len);
    if (!p) return -1;
    if (marker == 0xDB) return read_dqt(ps, p, len);
    if (marker == 0xC4) return read_dht(ps, p, len);
    if (marker == 0xDD) {
        if (len != 2) return -1;
        ps->restart_interval = (int)be16(p);
        return 0;
    }
    if ((marker >= 0xE0 && marker <= 0xEF) || marker == 0xFE) {
        read_app(ps, marker, p, len);
        return 0;
    }
    return -1; /* stb: unknown marker */
}

/* The planes' places in storage for c->dc_only (0 at the frame header,
 * judged at the first scan): the planes of blocks of 64 first, so that a
 * block's index in the AC scans' masks is its place / 64 (jpeg_entropy.c,
 * jpeg_scans_parallel.c), then those of DCs alone. A 10 MP progressive photo's thumbnail (4:2:0, its luma read for
 * the DC alone) took 36 MB of blocks of 64, 8100 page faults and 34 ms,
 * where a baseline one's took 8 ms. Returns the blocks of 64. */
static size_t lay_out_storage(gi_jpeg_coeffs *c)
{
    size_t next = 0, full_blocks = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < c->ncomp; i++) {
            gi_jpeg_plane *pl = &c->plane[i];
            const int dc_alone = (int)(c->dc_only >> i & 1u);
            if (dc_alone != pass) continue;
            pl->block_len = dc_alone ? 1 : 64;
            pl->offset = next;
            const size_t blocks =
                (size_t)pl->blocks_w * (size_t)(pl->ring_rows ? pl->ring_rows : pl->blocks_h);
            next += blocks * (size_t)pl->block_len;
            if (!dc_alone) full_blocks += blocks;
        }
    c->storage_bytes = next * sizeof(int16_t);
    return full_blocks;
}

/* stbi__mad3sizes_valid and friends: products that stb keeps in an int. */
static int fits_int(uint64_t v)
{
    return v <= (uint64_t)INT_MAX;
}

static int read_frame(parser *ps, int marker, uint64_t max_pixels)
{
    gi_jpeg_coeffs *c = ps->c;
    size_t len;
    const uint8_t *p = segment(ps, &len);
    if (!p || len < 6) return GI_JPEG_NOT_MINE;
    int n = p[5];
    if (p[0] != 8 || (n != 1 && n != 3 && n != 4) || len != 6 + 3 * (size_t)n)
        return GI_JPEG_NOT_MINE;
    int h = (int)be16(p + 1), w = (int)be16(p + 3);
    if (w == 0 || h == 0 || (uint64_t)w * (uint64_t)h > max_pixels) return GI_JPEG_NOT_MINE;
    c->width = w;
    c->height = h;
    c->ncomp = n;
    c->progressive = marker == 0xC2;
    c->out_channels = n >= 3 ? 3 : 1;
    c->hmax = c->vmax = 1;
    for (int i = 0; i < n; i++) {
        const uint8_t *q = p + 6 + 3 * i;
        gi_jpeg_plane *pl = &c->plane[i];
        pl->id = q[0];
        pl->h = q[1] >> 4;
        pl->v = q[1] & 15;
        pl->tq = q[2];
        if (pl->h < 1 || pl->h > 4 || pl->v < 1 || pl->v > 4 || pl->tq > 3)
            return GI_JPEG_NOT_MINE;
        for (int j = 0; j < i; j++)
            if (c->plane[j].id == pl->id) return GI_JPEG_NOT_MINE; /* stb takes the first */
        if (pl->h > c->hmax) c->hmax = pl->h;
        if (pl->v > c->vmax) c->vmax = pl->v;
    }
    /* stb's limits: the decoded size and its output in an int */
    if (!fits_int((uint64_t)w * (uint64_t)h * (uint64_t)n) ||
        !fits_int((uint64_t)w * (uint64_t)h * (uint64_t)c->out_channels + 1))
        return GI_JPEG_NOT_MINE;
    c->mcus_x = (w + 8 * c->hmax - 1) / (8 * c->hmax);
    c->mcus_y = (h + 8 * c->vmax - 1) / (8 * c->vmax);
    for (int i = 0; i < n; i++) {
        gi_jpeg_plane *pl = &c->plane[i];
        if (c->hmax % pl->h || c->vmax % pl->v) return GI_JPEG_NOT_MINE;
        pl->width = (w * pl->h + c->hmax - 1) / c->hmax;
        pl->height = (h * pl->v + c->vmax - 1) / c->vmax;
        pl->blocks_w = c->mcus_x * pl->h;
        pl->blocks_h = c->mcus_y * pl->v;
        /* stb's planes of samples (and of coefficients, progressive) */
        uint64_t samples = (uint64_t)pl->blocks_w * pl->blocks_h * 64;
        if (!fits_int(samples * (c->progressive ? 2 : 1) + 15)) return GI_JPEG_NOT_MINE;
    }
    /* The pipelined decode's ring (jpeg_progress.h): MCU rows enough for
     * the workers' chunks of output rows, and two more (the rows above and
     * below a chunk that its vertical filters read). */
    int ring = 0;
    if (ps->progress && ps->progress->ring_output_rows && !c->progressive) {
        ring = (ps->progress->ring_output_rows + 8 * c->vmax - 1) / (8 * c->vmax) + 2;
        if (ring >= c->mcus_y) ring = 0;
        ps->progress->ring_used = ring > 0;
    }
    for (int i = 0; i < n; i++) c->plane[i].ring_rows = ring * c->plane[i].v;
    /* every plane in blocks of 64 (c->dc_only is judged at the first
     * scan): the device's layout, and the size the plan reads; the host
     * lays its storage out again at the first scan it decodes */
    lay_out_storage(c);
    ps->frame = 1;
    return GI_JPEG_OK;
}

/* Zeroes the blocks of each plane's MCU grid that hold no samples: a
 * one-component scan does not visit them (so its first DC scan does not
 * zero them), and a progressive file's grid is zero there (jpeg_coeffs.h),
 * where the arithmetic half reads it whole. A thin border: the last
 * blocks of a row, the last rows. */
static void zero_padding(gi_jpeg_coeffs *c)
{
    for (int i = 0; i < c->ncomp; i++) {
        const gi_jpeg_plane *p = &c->plane[i];
        const int w = (p->width + 7) / 8, h = (p->height + 7) / 8;
        for (int by = 0; by < p->blocks_h; by++) {
            const int from = by < h ? w : 0; /* a row below the samples: all of it */
            if (from < p->blocks_w)
                memset(gi__jpeg_block_row(p, by) + (size_t)p->block_len * (size_t)from, 0,
                       (size_t)p->block_len * sizeof(int16_t) * (size_t)(p->blocks_w - from));
        }
    }
}

/* The planes' one allocation, made when the first scan is decoded here (a
 * deferred scan's coefficients are made on the device: jpeg_deferred.h).
 * The GPU's upload reads it where it lies. A baseline scan zeroes each
 * block it decodes (stb's decode_block does too) and the rest of the grid
 * (a non-interleaved scan's padding blocks) is never read; not zeroing
 * 50 MB a 9 MP photo saved a tenth of the entropy half's time where 16
 * workers share the memory's bandwidth. Progressive scans add to the
 * coefficients bit by bit, and each component's first scan is its first
 * DC scan (read_scan_header): decoded in order, that scan zeroes the
 * blocks as it visits them (gi_jpeg_scan.zero_blocks), as stb's does, in
 * the same pass, and zero_padding the blocks no scan of one component
 * visits. Scans decoded side by side (jpeg_scans_parallel.h), where an
 * AC scan may run beside that DC scan, start from zeroed storage and
 * masks, which their threads zero (side_by_side: neither is zeroed
 * here). Neither zeroes the planes of c->dc_only, which hold their DCs
 * alone (lay_out_storage), each set by its DC scan. */
static int allocate_storage(gi_jpeg_coeffs *c, int side_by_side)
{
    if (c->storage) return GI_JPEG_OK;
    const size_t full_blocks = lay_out_storage(c);
    c->storage = gi__pixels_alloc_for_device(c->storage_bytes);
    if (!c->storage) return GI_JPEG_NO_MEMORY;
    for (int i = 0; i < c->ncomp; i++) c->plane[i].coeffs = c->storage + c->plane[i].offset;
    if (c->progressive) zero_padding(c);
    /* the AC scans' masks of nonzero coefficients (jpeg_entropy.h) */
    const size_t mask_bytes = sizeof(uint64_t) * full_blocks;
    if (c->progressive && !(c->ac_nonzero = side_by_side ? gi__pixels_alloc(mask_bytes)
                                                         : gi__pixels_calloc(mask_bytes)))
        return GI_JPEG_NO_MEMORY;
    return GI_JPEG_OK;
}

/* The scan header (stbi__process_scan_header), checked as stb checks it and
 * as we need it: tables and quantizers defined, the progressive order that
 * makes stb's values defined (each component's first DC scan before any
 * other of its scans, once). */
static int read_scan_header(parser *ps, gi_jpeg_scan *sc)
{
    gi_jpeg_coeffs *c = ps->c;
    size_t len;
    const uint8_t *p = segment(ps, &len);
    if (!p || len < 1) return -1;
    sc->n = p[0];
    if (sc->n < 1 || sc->n > c->ncomp || len != 4 + 2 * (size_t)sc->n) return -1;
    const uint8_t *tail = p + 1 + 2 * sc->n;
    sc->ss = tail[0];
    sc->se = tail[1];
    sc->ah = tail[2] >> 4;
    sc->al = tail[2] & 15;
    if (c->progressive) {
        if (sc->ss > 63 || sc->se > 63 || sc->ss > sc->se || sc->ah > 13 || sc->al > 13) return -1;
        if (sc->ss == 0 && sc->se != 0) return -1; /* stb: can't merge dc and ac */
        if (sc->n > 1 && sc->ss != 0) return -1;   /* interleaved AC: the same */
    } else {
        if (sc->ss != 0 || sc->ah != 0 || sc->al != 0) return -1;
        sc->se = 63;
    }
    int dc_first = c->progressive && sc->ss == 0 && sc->ah == 0;
    for (int i = 0; i < sc->n; i++) {
        int id = p[1 + 2 * i], td = p[2 + 2 * i] >> 4, ta = p[2 + 2 * i] & 15, k = 0;
        while (k < c->ncomp && c->plane[k].id != id) k++;
        if (k == c->ncomp || td > 3 || ta > 3) return -1;
        for (int j = 0; j < i; j++)
            if (sc->comp[j] == k) return -1;
        int needs_dc = !c->progressive || dc_first, needs_ac = !c->progressive || sc->ss > 0;
        if ((needs_dc && !ps->huff_defined[0][td]) || (needs_ac && !ps->huff_defined[1][ta]))
            return -1;
        int tq = c->plane[k].tq;
        if (!ps->quant_defined[tq]) return -1;
        /* baseline: one scan per component; progressive: its first DC scan
         * zeroes its blocks in stb, so it must come first, once */
        if (!c->progressive || dc_first) {
            if (ps->scanned[k]) return -1;
            ps->scanned[k] = 1;
        } else if (!ps->scanned[k]) {
            return -1;
        }
        ps->quant_used[tq] = 1;
        sc->comp[i] = k;
        sc->dc[i] = &ps->huff[0][td];
        sc->ac[i] = &ps->huff[1][ta];
    }
    sc->restart_interval = ps->restart_interval;
    return 0;
}

/* The tables as they stand into c: at the end, and before a scan that
 * the arithmetic half may follow as it is decoded (a table that the scan
 * reads cannot change after it: read_dqt). */
static void publish_quant(parser *ps)
{
    for (int t = 0; t < 4; t++)
        if (ps->quant_defined[t]) memcpy(ps->c->quant[t], ps->quant[t], sizeof ps->quant[t]);
}

/* c->dc_only, judged at the first scan: the components whose shrunk
 * planes read their blocks' DC alone, for a shrunk image. Not for a
 * baseline scan the device may take (it decodes every coefficient). */
static void judge_dc_only(parser *ps)
{
    if (ps->dc_only_known) return;
    gi_jpeg_coeffs *c = ps->c;
    c->dc_only = ps->shrink_to > 0 && (c->progressive || !ps->defer)
                     ? gi__jpeg_dc_only_components(c, ps->shrink_to)
                     : 0;
    ps->dc_only_known = 1;
}

/* Whether the scan is left out for a shrunk image: an AC scan of a
 * component whose shrunk plane reads its blocks' DC alone (progressive
 * AC scans hold one component). Its coefficients are never read and no
 * scan that is decoded reads them (every AC scan of the component is
 * left out), so the image does not depend on its data: the data is
 * skipped to its marker, not checked. The components are judged at the
 * first scan and again at the end (read_file): a segment between may
 * change the colour mode. */
static int left_out(parser *ps, const gi_jpeg_scan *sc)
{
    judge_dc_only(ps);
    return sc->ss > 0 && (ps->c->dc_only >> sc->comp[0] & 1u);
}

/* A baseline scan's components read for their DC alone get their AC
 * table's skip table (gi_jpeg_scan.skip): their AC codes are passed over,
 * not stored. */
static void skip_dc_only(parser *ps, gi_jpeg_scan *sc)
{
    judge_dc_only(ps);
    unsigned built = 0;
    for (int i = 0; i < sc->n; i++) {
        if (!(ps->c->dc_only >> sc->comp[i] & 1u)) continue;
        const int t = (int)(sc->ac[i] - ps->huff[1]);
        if (!(built >> t & 1u)) gi__jpeg_huff_skip_build(sc->ac[i], ps->skip[t]);
        built |= 1u << t;
        sc->skip[i] = ps->skip[t];
    }
}

static int read_file(parser *ps, uint64_t max_pixels)
{
    gi_jpeg_coeffs *c = ps->c;
    if (next_marker(ps) != 0xD8) return GI_JPEG_NOT_MINE;
    for (;;) {
        int m = next_marker(ps);
        if (!ps->frame && (m == 0xC0 || m == 0xC1 || m == 0xC2)) {
            int r = read_frame(ps, m, max_pixels);
            if (r != GI_JPEG_OK) return r;
            /* progressive scans decoded once the markers are read: side
             * by side on threads, or on one a row of MCUs at a time */
            if (c->progressive && ps->listed && !ps->defer &&
                (!ps->parallel || c->storage_bytes >= GI_JPEG_SCANS_PARALLEL_MIN_BYTES))
                ps->scans = gi__jpeg_scan_list_new();
        } else if (ps->frame && m == 0xDA) {
            gi_jpeg_scan sc = {0};
            size_t end;
            if (read_scan_header(ps, &sc) < 0) return GI_JPEG_NOT_MINE;
            if (ps->progress) publish_quant(ps);
            if (left_out(ps, &sc)) {
                const uint8_t *marker = gi__jpeg_data_end(ps->b + ps->at, ps->b + ps->size);
                if (!marker) {
                    ps->skip_failed = 1;
                    return READ_AGAIN;
                }
                ps->at = (size_t)(marker - ps->b);
                continue;
            }
            /* Every component read for its DC alone: two DC scans are left,
             * which the CPU decodes in a few ms; the device's rounds for
             * interleaved DC data did not settle on 2 of 5 such 12 MP
             * photos (10 ms, then the CPU anyway). Read again, here. */
            if (ps->defer && c->dc_only == (1u << c->ncomp) - 1u) return READ_AGAIN;
            /* Every scan may be left to the device, from the first on.
             * Where the deferral does not take one as it is, the file is
             * decoded here: from that scan on if it is the first, else
             * all over again (read_again). */
            if (ps->defer && !c->storage) {
                if (gi__jpeg_defer_scan(c, &sc, gi__jpeg_scan_kind(c->progressive, &sc), ps->b,
                                        ps->size, ps->at, &end) == 0) {
                    ps->at = end;
                    continue;
                }
                if (c->deferred) return READ_AGAIN;
            }
            const int side_by_side = ps->scans && ps->parallel;
            int r = allocate_storage(c, c->progressive && side_by_side);
            if (r != GI_JPEG_OK) return r;
            sc.zero_blocks = 0;
            if (!c->progressive) skip_dc_only(ps, &sc);
            if (c->progressive && !side_by_side && sc.ss == 0 && sc.ah == 0)
                for (int i = 0; i < sc.n; i++)
                    if (!(c->dc_only >> sc.comp[i] & 1u)) sc.zero_blocks |= 1u << i;
            if (ps->scans) { /* decoded once the file is read */
                /* on threads, restart intervals already split each scan
                 * over them, into more parts than scans side by side give */
                if ((side_by_side && sc.restart_interval) ||
                    gi__jpeg_scan_list_add(ps->scans, &sc, ps->b, ps->size, ps->at, &end) < 0)
                    return READ_AGAIN;
                ps->at = end;
                continue;
            }
            if (gi__jpeg_decode_scan(c, &sc, ps->b, ps->size, ps->at, ps->threads, ps->progress,
                                     &end) < 0)
                return GI_JPEG_NOT_MINE;
            ps->at = end;
        } else if (ps->frame && m == 0xD9) {
            break;
        } else if (m < 0 || read_table_or_misc(ps, m) < 0) {
            return GI_JPEG_NOT_MINE;
        }
    }
    for (int i = 0; i < c->ncomp; i++)
        if (!ps->scanned[i]) return GI_JPEG_NOT_MINE; /* stb's memory for it is uninitialised */
    /* The shrunk planes read other coefficients after all: read again,
     * every coefficient decoded. Not where a baseline scan's rows went to
     * the caller as they came (progress started): it judges the colour
     * mode again itself and decodes the file otherwise (jpeg_shrink.c). */
    if (c->dc_only && !(ps->progress && ps->progress->started) &&
        gi__jpeg_dc_only_components(c, ps->shrink_to) != c->dc_only) {
        ps->skip_failed = 1;
        return READ_AGAIN;
    }
    if (ps->scans &&
        gi__jpeg_scan_list_decode(ps->scans, c, ps->b, ps->size, ps->parallel ? ps->threads : 1) < 0)
        return READ_AGAIN;
    gi__pixels_free(c->ac_nonzero); /* the scans' alone */
    c->ac_nonzero = NULL;
    publish_quant(ps);
    return GI_JPEG_OK;
}

int gi__jpeg_read_coeffs(const uint8_t *bytes, size_t size, uint64_t max_pixels, int threads,
                         int defer, int shrink_to, gi_jpeg_progress *progress, gi_jpeg_coeffs *c)
{
    parser *ps = malloc(sizeof *ps); /* 100 KB of tables: not on a worker's stack */
    if (!ps) return GI_JPEG_NO_MEMORY;
    int r, parallel = threads > 1, listed = 1;
    do {
        memset(c, 0, sizeof *c);
        c->adobe_transform = -1;
        c->read_shrink_to = shrink_to;
        memset(ps, 0, offsetof(parser, skip));
        ps->b = bytes;
        ps->size = size;
        ps->c = c;
        ps->threads = threads;
        ps->defer = defer && !progress;
        ps->parallel = parallel && !ps->defer;
        ps->listed = listed;
        ps->progress = progress;
        ps->shrink_to = shrink_to;
        r = read_file(ps, max_pixels);
        gi__jpeg_scan_list_free(ps->scans);
        if (r == GI_JPEG_OK && c->deferred && gi__jpeg_deferred_finish(c->deferred) < 0)
            r = GI_JPEG_NO_MEMORY;
        if (r == READ_AGAIN) gi__jpeg_coeffs_free(c);
        if (ps->skip_failed) { /* again, every scan decoded, the rest as it was */
            shrink_to = 0;
        } else if (ps->defer) {
            defer = 0;
        } else { /* decoded again scan by scan as the markers are read */
            parallel = 0;
            listed = 0;
        }
    } while (r == READ_AGAIN);
    free(ps);
    /* the arithmetic half's workers may still read what was decoded */
    if (r != GI_JPEG_OK && !(progress && progress->started)) gi__jpeg_coeffs_free(c);
    return r;
}

int gi__jpeg_decode_deferred(const gi_jpeg_coeffs *c, int threads, gi_jpeg_coeffs *out)
{
    /* the file passed the pixel limit once: none is needed again */
    return gi__jpeg_read_coeffs(c->deferred->file, c->deferred->file_size, UINT64_MAX, threads, 0,
                                c->read_shrink_to, NULL, out);
}
