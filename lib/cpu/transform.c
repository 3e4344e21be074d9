/* CPU transpose, rotations and flips: exact pixel permutations.
 * Output is walked in square tiles so that the source reads of a transpose
 * stay within a few cache lines per tile row. */
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

#define TILE 32

typedef struct {
    const gi_image *src;
    gi_image *dst;
    gi_transform t;
} transform_job;

/* The source pixel that lands on output (x, y); formulas in gpuimg.h. */
static inline void source_of(gi_transform t, int w, int h, int x, int y, int *sx, int *sy)
{
    switch (t) {
    case GI_TRANSPOSE: *sx = y; *sy = x; return;
    case GI_ROTATE_90: *sx = y; *sy = h - 1 - x; return;
    case GI_ROTATE_180: *sx = w - 1 - x; *sy = h - 1 - y; return;
    case GI_ROTATE_270: *sx = w - 1 - y; *sy = x; return;
    case GI_FLIP_H: *sx = w - 1 - x; *sy = y; return;
    case GI_FLIP_V: *sx = x; *sy = h - 1 - y; return;
    }
    *sx = x;
    *sy = y;
}

static int transform_band(void *arg, int y0, int y1)
{
    const transform_job *j = arg;
    const gi_image *s = j->src;
    const size_t ch = (size_t)s->channels;
    for (int ty = y0; ty < y1; ty += TILE) {
        int ty1 = ty + TILE < y1 ? ty + TILE : y1;
        for (int tx = 0; tx < j->dst->width; tx += TILE) {
            int tx1 = tx + TILE < j->dst->width ? tx + TILE : j->dst->width;
            for (int y = ty; y < ty1; y++) {
                uint8_t *out = j->dst->data + (size_t)y * j->dst->stride;
                for (int x = tx; x < tx1; x++) {
                    int sx, sy;
                    source_of(j->t, s->width, s->height, x, y, &sx, &sy);
                    memcpy(out + x * ch, s->data + (size_t)sy * s->stride + sx * ch, ch);
                }
            }
        }
    }
    return 0;
}

gi_status gi__cpu_transform(void *state, const gi_image *src, gi_image *dst, gi_transform t)
{
    transform_job j = {src, dst, t};
    gi__parallel_rows(gi__cpu_threads(state), dst->height, transform_band, &j);
    return GI_OK;
}
