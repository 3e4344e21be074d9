/* jpeg_deferred.h: a file's scans unstuffed for the device. */
#include "jpeg_deferred.h"

#include <stdlib.h>
#include <string.h>

#include "base/pixel_alloc.h"

static size_t align16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* The scan's units, tables and blocks into d; -1 for a unit of more
 * blocks than JPEG allows. Only the tables the kind reads are kept (a DC
 * refinement reads none, an AC scan its AC table). */
static int describe(gi_jpeg_deferred_scan *d, const gi_jpeg_coeffs *c, const gi_jpeg_scan *sc,
                    const gi_jpeg_huff *tables[8])
{
    const gi_jpeg_plane *one = &c->plane[sc->comp[0]];
    d->units_x = sc->n == 1 ? (one->width + 7) >> 3 : c->mcus_x;
    d->units = sc->n == 1 ? (long)d->units_x * ((one->height + 7) >> 3)
                          : (long)c->mcus_x * c->mcus_y;
    d->interval = sc->restart_interval ? sc->restart_interval : d->units;
    d->segments = (int)((d->units + d->interval - 1) / d->interval);
    d->unit_blocks = 0;
    int reads_dc = d->kind == GI_JPEG_BASELINE || d->kind == GI_JPEG_DC_FIRST;
    int reads_ac = d->kind == GI_JPEG_BASELINE || d->kind >= GI_JPEG_AC_FIRST;
    for (int i = 0; i < sc->n; i++) {
        const gi_jpeg_plane *pl = &c->plane[sc->comp[i]];
        int h = sc->n == 1 ? 1 : pl->h, v = sc->n == 1 ? 1 : pl->v;
        int t[2] = {0, 0};
        const gi_jpeg_huff *want[2] = {reads_dc ? sc->dc[i] : NULL, reads_ac ? sc->ac[i] : NULL};
        for (int k = 0; k < 2; k++) {
            if (!want[k]) continue;
            t[k] = -1;
            for (int j = 0; j < d->ntables; j++)
                if (tables[j] == want[k]) t[k] = j;
            if (t[k] < 0) {
                t[k] = d->ntables;
                tables[d->ntables++] = want[k];
            }
        }
        for (int y = 0; y < v; y++)
            for (int x = 0; x < h; x++) {
                if (d->unit_blocks == GI_JPEG_MAX_UNIT_BLOCKS) return -1;
                d->block[d->unit_blocks++] = (gi_jpeg_unit_block){
                    (uint8_t)sc->comp[i], (uint8_t)x, (uint8_t)y, (uint8_t)t[0], (uint8_t)t[1]};
            }
    }
    return 0;
}

/* The data from p unstuffed into `data`, cut at restart markers into
 * d's segments (segment_start, subseq_first); -1 where the CPU decoder
 * must judge it (see the header). */
static int unstuff(gi_jpeg_deferred_scan *d, uint8_t *data, uint32_t *segment_start,
                   uint32_t *subseq_first, const uint8_t *p, const uint8_t *end,
                   const uint8_t **marker)
{
    uint8_t *out = data;
    int seg = 0;
    segment_start[0] = 0;
    for (;;) {
        const uint8_t *ff = memchr(p, 0xFF, (size_t)(end - p));
        if (!ff || ff + 1 >= end) return -1; /* no marker after the data */
        memcpy(out, p, (size_t)(ff - p));
        out += ff - p;
        uint8_t m = ff[1];
        p = ff + 2;
        if (m == 0x00) {
            *out++ = 0xFF;
        } else if (m >= 0xD0 && m <= 0xD7) {
            if (++seg >= d->segments) return -1; /* a restart after the last interval */
            segment_start[seg] = (uint32_t)(out - data);
        } else if (m == 0xFF || seg + 1 != d->segments) {
            return -1; /* fill bytes, or too few intervals */
        } else {
            *marker = ff;
            break;
        }
    }
    segment_start[d->segments] = (uint32_t)(out - data);
    memset(out, 0, align16((size_t)(out - data) + GI_JPEG_DATA_PAD) - (size_t)(out - data));
    uint32_t n = 0, most = 0;
    for (int s = 0; s < d->segments; s++) {
        subseq_first[s] = n;
        uint32_t len = segment_start[s + 1] - segment_start[s];
        uint32_t subseqs = len ? (len + GI_JPEG_SUBSEQ_BYTES - 1) / GI_JPEG_SUBSEQ_BYTES : 1;
        n += subseqs;
        if (subseqs > most) most = subseqs;
    }
    subseq_first[d->segments] = n;
    d->subseqs = n;
    d->segment_subseqs = most;
    return 0;
}

/* Room for `more` bytes after the d->bytes gathered. */
static int reserve(gi_jpeg_deferred *d, size_t more)
{
    if (d->build_cap - d->bytes >= more) return 0;
    size_t cap = d->build_cap * 2;
    if (cap < d->bytes + more) cap = d->bytes + more;
    uint8_t *bigger = realloc(d->build, cap);
    if (!bigger) return -1;
    d->build = bigger;
    d->build_cap = cap;
    return 0;
}

/* A new scan record, zeroed. */
static gi_jpeg_deferred_scan *add_scan(gi_jpeg_deferred *d)
{
    if (d->nscans == d->scans_cap) {
        int cap = d->scans_cap ? 2 * d->scans_cap : 8;
        gi_jpeg_deferred_scan *more = realloc(d->scan, sizeof *more * (size_t)cap);
        if (!more) return NULL;
        d->scan = more;
        d->scans_cap = cap;
    }
    gi_jpeg_deferred_scan *s = &d->scan[d->nscans];
    memset(s, 0, sizeof *s);
    return s;
}

int gi__jpeg_defer_scan(gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, int kind, const uint8_t *bytes,
                        size_t size, size_t at, size_t *end)
{
    gi_jpeg_deferred *d = c->deferred;
    if (!d) {
        d = calloc(1, sizeof *d);
        if (!d) return -1;
        d->file = bytes;
        d->file_size = size;
        c->deferred = d;
    }
    gi_jpeg_deferred_scan *s = add_scan(d);
    if (!s) return -1;
    s->kind = kind;
    s->n = sc->n;
    s->ss = sc->ss;
    s->se = sc->se;
    s->al = sc->al;
    const gi_jpeg_huff *tables[8];
    size_t left = size - at;
    if (describe(s, c, sc, tables) < 0) return -1;
    s->tables_at = d->bytes;
    s->segment_start_at = s->tables_at + align16(sizeof(gi_jpeg_huff) * (size_t)s->ntables);
    s->subseq_first_at = s->segment_start_at + align16(sizeof(uint32_t) * (size_t)(s->segments + 1));
    s->data_at = s->subseq_first_at + align16(sizeof(uint32_t) * (size_t)(s->segments + 1));
    /* bit positions are 32-bit on the device */
    if (left > (UINT32_MAX >> 3) - 4096 || reserve(d, s->data_at - d->bytes + align16(left + GI_JPEG_DATA_PAD)) < 0)
        return -1;
    for (int i = 0; i < s->ntables; i++)
        memcpy(d->build + s->tables_at + sizeof(gi_jpeg_huff) * (size_t)i, tables[i], sizeof *tables[i]);
    uint32_t *segment_start = (uint32_t *)(d->build + s->segment_start_at);
    const uint8_t *marker = NULL;
    if (unstuff(s, d->build + s->data_at, segment_start, (uint32_t *)(d->build + s->subseq_first_at),
                bytes + at, bytes + size, &marker) < 0 ||
        (kind == GI_JPEG_AC_REFINE && (s->segment_subseqs > GI_JPEG_REFINE_MAX_SUBSEQS ||
                                       s->interval * s->unit_blocks > GI_JPEG_REFINE_MAX_SEGMENT_BLOCKS)))
        return -1;
    d->bytes = s->data_at + align16(segment_start[s->segments] + GI_JPEG_DATA_PAD);
    d->nscans++;
    *end = (size_t)(marker - bytes);
    return 0;
}

int gi__jpeg_deferred_finish(gi_jpeg_deferred *d)
{
    d->upload = gi__pixels_alloc_for_device(d->bytes);
    if (!d->upload) return -1;
    memcpy(d->upload, d->build, d->bytes);
    free(d->build);
    d->build = NULL;
    d->build_cap = 0;
    return 0;
}

void gi__jpeg_deferred_free(gi_jpeg_deferred *d)
{
    if (!d) return;
    gi__pixels_free(d->upload);
    free(d->build);
    free(d->scan);
    free(d);
}
