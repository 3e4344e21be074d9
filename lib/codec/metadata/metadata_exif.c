/* The Exif (TIFF) structure, checked before it is kept, and the
 * orientation: reading the tag, setting it, and the transforms it asks for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/gi_error.h"
#include "metadata.h"

#define MAX_IFDS 32
#define TAG_ORIENTATION 0x0112
#define TYPE_SHORT 3

static int big_endian(const uint8_t *exif)
{
    return exif[0] == 'M';
}

uint16_t gi__exif_u16(const uint8_t *exif, size_t at)
{
    const uint8_t *p = exif + at;
    return big_endian(exif) ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

void gi__exif_put_u16(uint8_t *exif, size_t at, uint16_t value)
{
    int hi = big_endian(exif) ? 0 : 1;
    exif[at + hi] = (uint8_t)(value >> 8);
    exif[at + 1 - hi] = (uint8_t)value;
}

static uint32_t u32(const uint8_t *exif, size_t at)
{
    uint32_t hi = gi__exif_u16(exif, at), lo = gi__exif_u16(exif, at + 2);
    return big_endian(exif) ? hi << 16 | lo : lo << 16 | hi;
}

/* Bytes per value of each TIFF type (0: unknown, its entry is skipped). */
static uint64_t type_size(uint16_t type)
{
    static const uint8_t sizes[] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4};
    return type < sizeof sizes ? sizes[type] : 0;
}

static int is_sub_ifd_pointer(uint16_t tag)
{
    return tag == 0x8769 || tag == 0x8825 || tag == 0xa005; /* Exif, GPS, interoperability */
}

typedef struct {
    const uint8_t *exif;
    size_t size;
    uint32_t pending[MAX_IFDS], visited[MAX_IFDS];
    int pending_count, visited_count;
    const char *why;
} ifd_walk;

static int fail(ifd_walk *w, const char *why)
{
    w->why = why;
    return -1;
}

/* Queues an IFD offset, refusing one seen before (a loop) and too many. */
static int queue_ifd(ifd_walk *w, uint32_t offset)
{
    for (int i = 0; i < w->visited_count; i++)
        if (w->visited[i] == offset) return fail(w, "its IFDs form a loop");
    for (int i = 0; i < w->pending_count; i++)
        if (w->pending[i] == offset) return fail(w, "its IFDs form a loop");
    if (w->visited_count + w->pending_count >= MAX_IFDS) return fail(w, "over 32 IFDs");
    w->pending[w->pending_count++] = offset;
    return 0;
}

/* One IFD: every entry's value inside the bytes, sub-IFDs and the next
 * IFD queued, IFD0's orientation found. */
static int check_ifd(ifd_walk *w, uint32_t offset, int is_ifd0, size_t *orientation_at)
{
    const uint8_t *e = w->exif;
    if (offset < 8 || offset > w->size || w->size - offset < 2)
        return fail(w, "an IFD offset points past the end");
    uint64_t count = gi__exif_u16(e, offset);
    uint64_t entries = (uint64_t)offset + 2;
    if (entries + 12 * count > w->size) return fail(w, "an IFD runs past the end");
    for (uint64_t i = 0; i < count; i++) {
        size_t at = (size_t)(entries + 12 * i);
        uint16_t tag = gi__exif_u16(e, at), type = gi__exif_u16(e, at + 2);
        uint64_t bytes = type_size(type) * (uint64_t)u32(e, at + 4);
        if (bytes > 4 && (uint64_t)u32(e, at + 8) + bytes > w->size)
            return fail(w, "a value's offset points past the end");
        if (is_ifd0 && tag == TAG_ORIENTATION && type == TYPE_SHORT && bytes >= 2 &&
            bytes <= 4)
            *orientation_at = at + 8;
        if (is_sub_ifd_pointer(tag) && bytes == 4 && queue_ifd(w, u32(e, at + 8))) return -1;
    }
    uint64_t next_at = entries + 12 * count;
    if (next_at + 4 <= w->size && u32(e, (size_t)next_at) != 0 &&
        queue_ifd(w, u32(e, (size_t)next_at)))
        return -1;
    return 0;
}

int gi__exif_check(const uint8_t *exif, size_t size, size_t *orientation_at, const char **why)
{
    ifd_walk w = {.exif = exif, .size = size};
    *orientation_at = SIZE_MAX;
    int header = size >= 8 && ((memcmp(exif, "II*\0", 4) == 0) || memcmp(exif, "MM\0*", 4) == 0);
    int rc = header ? queue_ifd(&w, u32(exif, 4)) : fail(&w, "no TIFF header");
    for (int first = 1; rc == 0 && w.pending_count > 0; first = 0) {
        uint32_t offset = w.pending[--w.pending_count];
        w.visited[w.visited_count++] = offset;
        rc = check_ifd(&w, offset, first, orientation_at);
    }
    *why = w.why;
    return rc;
}

/* IFD0 of one entry, the Orientation, and no next IFD. */
#define ORIENTATION_ALONE_BYTES 26

uint8_t *gi__exif_of_orientation(int orientation, size_t *size)
{
    static const uint8_t ifd0[ORIENTATION_ALONE_BYTES] = {
        'M', 'M', 0, 42, 0, 0, 0, 8,                        /* big-endian, IFD0 at 8 */
        0, 1,                                               /* one entry: */
        0x01, 0x12, 0, TYPE_SHORT, 0, 0, 0, 1, 0, 0, 0, 0,  /* Orientation, 1 value */
        0, 0, 0, 0};                                        /* no next IFD */
    uint8_t *exif = malloc(sizeof ifd0);
    if (!exif) return NULL;
    memcpy(exif, ifd0, sizeof ifd0);
    gi__exif_put_u16(exif, 18, (uint16_t)orientation);
    *size = sizeof ifd0;
    return exif;
}

int gi__exif_is_orientation_alone(const uint8_t *exif, size_t size)
{
    size_t at;
    const char *why;
    if (gi__exif_check(exif, size, &at, &why) != 0 || at == SIZE_MAX) return 0;
    const uint32_t ifd0 = u32(exif, 4);
    /* checked: IFD0's count and its entries lie inside the bytes */
    return gi__exif_u16(exif, ifd0) == 1 && (size_t)ifd0 + 2 + 12 + 4 <= size &&
           u32(exif, ifd0 + 14) == 0;
}

/* XMP writes the tag as tiff:Orientation="N" or <tiff:Orientation>N<;
 * both have one digit, rewritten in place. */
static void set_xmp_orientation(uint8_t *xmp, size_t size, int orientation)
{
    static const char name[] = "tiff:Orientation";
    size_t len = sizeof name - 1;
    for (size_t i = 0; i + len + 3 <= size; i++) {
        if (memcmp(xmp + i, name, len) != 0) continue;
        uint8_t *p = xmp + i + len;
        size_t digit = p[0] == '=' ? 2 : p[0] == '>' ? 1 : 0;
        if (digit && p[digit] >= '0' && p[digit] <= '9') p[digit] = (uint8_t)('0' + orientation);
    }
}

gi_status gi_metadata_set_orientation(gi_metadata *m, int orientation)
{
    GI__REFUSE_NULL(m);
    if (orientation < 1 || orientation > 8)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "orientation %d: must be 1..8", orientation);
    size_t at = SIZE_MAX;
    const char *why;
    if (m->exif && gi__exif_check(m->exif, m->exif_size, &at, &why) != 0) at = SIZE_MAX;
    if (at == SIZE_MAX && orientation != 1)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "no Exif Orientation tag to set to %d",
                        orientation);
    if (at != SIZE_MAX) gi__exif_put_u16(m->exif, at, (uint16_t)orientation);
    if (m->xmp) set_xmp_orientation(m->xmp, m->xmp_size, orientation);
    m->orientation = orientation;
    return GI_OK;
}

int gi_orientation_steps(int orientation, gi_transform steps[2])
{
    if (!steps) return 0;
    switch (orientation) {
    case 2: steps[0] = GI_FLIP_H; return 1;
    case 3: steps[0] = GI_ROTATE_180; return 1;
    case 4: steps[0] = GI_FLIP_V; return 1;
    case 5: steps[0] = GI_TRANSPOSE; return 1;
    case 6: steps[0] = GI_ROTATE_90; return 1;
    case 7: steps[0] = GI_FLIP_H; steps[1] = GI_ROTATE_90; return 2;
    case 8: steps[0] = GI_ROTATE_270; return 1;
    default: return 0;
    }
}
