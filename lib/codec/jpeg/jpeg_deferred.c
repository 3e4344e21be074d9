/* jpeg_deferred.h: a baseline scan unstuffed for the device. */
#include "jpeg_deferred.h"

#include <stdlib.h>
#include <string.h>

#include "base/pixel_alloc.h"

static size_t align16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* The scan's units, tables and blocks into d; -1 for a unit of more
 * blocks than JPEG allows. */
static int describe(gi_jpeg_deferred *d, const gi_jpeg_coeffs *c, const gi_jpeg_scan *sc,
                    const gi_jpeg_huff *tables[8])
{
    const gi_jpeg_plane *one = &c->plane[sc->comp[0]];
    d->units_x = sc->n == 1 ? (one->width + 7) >> 3 : c->mcus_x;
    d->units = sc->n == 1 ? (long)d->units_x * ((one->height + 7) >> 3)
                          : (long)c->mcus_x * c->mcus_y;
    d->interval = sc->restart_interval ? sc->restart_interval : d->units;
    d->segments = (int)((d->units + d->interval - 1) / d->interval);
    d->unit_blocks = 0;
    for (int i = 0; i < sc->n; i++) {
        const gi_jpeg_plane *pl = &c->plane[sc->comp[i]];
        int h = sc->n == 1 ? 1 : pl->h, v = sc->n == 1 ? 1 : pl->v;
        int t[2] = {-1, -1};
        const gi_jpeg_huff *want[2] = {sc->dc[i], sc->ac[i]};
        for (int k = 0; k < 2; k++) {
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

/* The data from p unstuffed into d->data, cut at restart markers; -1
 * where the CPU decoder must judge it (see the header). */
static int unstuff(gi_jpeg_deferred *d, const uint8_t *p, const uint8_t *end, const uint8_t **marker)
{
    uint8_t *out = d->data;
    int seg = 0;
    d->segment_start[0] = 0;
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
            d->segment_start[seg] = (uint32_t)(out - d->data);
        } else if (m == 0xFF || seg + 1 != d->segments) {
            return -1; /* fill bytes, or too few intervals */
        } else {
            *marker = ff;
            break;
        }
    }
    d->segment_start[d->segments] = (uint32_t)(out - d->data);
    memset(out, 0, align16((size_t)(out - d->data) + GI_JPEG_DATA_PAD) - (size_t)(out - d->data));
    uint32_t n = 0;
    for (int s = 0; s < d->segments; s++) {
        d->subseq_first[s] = n;
        uint32_t len = d->segment_start[s + 1] - d->segment_start[s];
        n += len ? (len + GI_JPEG_SUBSEQ_BYTES - 1) / GI_JPEG_SUBSEQ_BYTES : 1;
    }
    d->subseq_first[d->segments] = n;
    return 0;
}

int gi__jpeg_defer_scan(gi_jpeg_coeffs *c, const gi_jpeg_scan *sc, const uint8_t *bytes,
                        size_t size, size_t at, size_t *end)
{
    gi_jpeg_deferred *d = calloc(1, sizeof *d);
    if (!d) return -1;
    const gi_jpeg_huff *tables[8];
    size_t left = size - at;
    /* bit positions are 32-bit on the device */
    if (describe(d, c, sc, tables) < 0 || left > (UINT32_MAX >> 3) - 4096) {
        free(d);
        return -1;
    }
    d->tables_at = 0;
    d->segment_start_at = align16(sizeof(gi_jpeg_huff) * (size_t)d->ntables);
    d->subseq_first_at = d->segment_start_at + align16(sizeof(uint32_t) * (size_t)(d->segments + 1));
    d->data_at = d->subseq_first_at + align16(sizeof(uint32_t) * (size_t)(d->segments + 1));
    size_t room = d->data_at + align16(left + GI_JPEG_DATA_PAD);
    d->upload = gi__pixels_alloc_for_device(room);
    if (!d->upload) {
        free(d);
        return -1;
    }
    d->tables = (gi_jpeg_huff *)(d->upload + d->tables_at);
    d->segment_start = (uint32_t *)(d->upload + d->segment_start_at);
    d->subseq_first = (uint32_t *)(d->upload + d->subseq_first_at);
    d->data = d->upload + d->data_at;
    for (int i = 0; i < d->ntables; i++) d->tables[i] = *tables[i];
    const uint8_t *marker = NULL;
    if (unstuff(d, bytes + at, bytes + size, &marker) < 0) {
        gi__jpeg_deferred_free(d);
        return -1;
    }
    d->bytes = d->data_at + align16(d->segment_start[d->segments] + GI_JPEG_DATA_PAD);
    d->file = bytes;
    d->file_size = size;
    c->deferred = d;
    *end = (size_t)(marker - bytes);
    return 0;
}

void gi__jpeg_deferred_free(gi_jpeg_deferred *d)
{
    if (!d) return;
    gi__pixels_free(d->upload);
    free(d);
}
