/* CPU transpose, rotations and flips: exact pixel permutations.
 *
 * Every one of them reads source pixel (sx, sy) = an affine map of output
 * (x, y), so the source byte address is origin + x * dx + y * dy for two
 * constant steps. Output is walked in square tiles whose source pixels fit
 * in L1 together with the output tile, and the pixel copy is specialised
 * for each channel count, so a pixel moves as one load and one store. */
#include <stddef.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

#define TILE_BYTES 64 /* bytes of one tile row: 64 gray pixels, 16 RGBA */

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const uint8_t *origin; /* the source of output (0, 0) */
    ptrdiff_t dx, dy;      /* source bytes per output column, per output row */
} transform_job;

/* The source steps of each transform, from the formulas in gpuimg.h. */
static void source_map(transform_job *j, gi_transform t)
{
    const gi_image *s = j->src;
    const ptrdiff_t ch = s->channels, row = (ptrdiff_t)s->stride;
    const ptrdiff_t last_row = (ptrdiff_t)(s->height - 1) * row, last_col = (s->width - 1) * ch;
    switch (t) {
    case GI_TRANSPOSE: j->dx = row, j->dy = ch, j->origin = s->data; break;
    case GI_ROTATE_90: j->dx = -row, j->dy = ch, j->origin = s->data + last_row; break;
    case GI_ROTATE_180: j->dx = -ch, j->dy = -row, j->origin = s->data + last_row + last_col; break;
    case GI_ROTATE_270: j->dx = row, j->dy = -ch, j->origin = s->data + last_col; break;
    case GI_FLIP_H: j->dx = -ch, j->dy = row, j->origin = s->data + last_col; break;
    case GI_FLIP_V: j->dx = ch, j->dy = -row, j->origin = s->data + last_row; break;
    }
}

/* Output rows [y0, y1) with ch a constant where this is inlined. */
static inline __attribute__((always_inline)) void permute_band(const transform_job *j, int y0,
                                                               int y1, const int ch)
{
    const int tile = TILE_BYTES / ch > 8 ? TILE_BYTES / ch : 8, width = j->dst->width;
    for (int ty = y0; ty < y1; ty += tile) {
        const int ty1 = ty + tile < y1 ? ty + tile : y1;
        for (int tx = 0; tx < width; tx += tile) {
            const int n = tx + tile < width ? tile : width - tx;
            for (int y = ty; y < ty1; y++) {
                uint8_t *out = j->dst->data + (size_t)y * j->dst->stride + (size_t)tx * ch;
                const uint8_t *in = j->origin + (ptrdiff_t)y * j->dy + (ptrdiff_t)tx * j->dx;
                for (int x = 0; x < n; x++) memcpy(out + x * ch, in + x * j->dx, (size_t)ch);
            }
        }
    }
}

static int transform_band(void *arg, int y0, int y1)
{
    const transform_job *j = arg;
    switch (j->src->channels) {
    case 1: permute_band(j, y0, y1, 1); break;
    case 2: permute_band(j, y0, y1, 2); break;
    case 3: permute_band(j, y0, y1, 3); break;
    default: permute_band(j, y0, y1, 4); break;
    }
    return 0;
}

gi_status gi__cpu_transform(void *state, const gi_image *src, gi_image *dst, gi_transform t)
{
    transform_job j = {src, dst, src->data, 0, 0};
    source_map(&j, t);
    gi__parallel_rows(gi__cpu_threads(state), dst->height, transform_band, &j);
    return GI_OK;
}
