/* CPU Sobel: gradient magnitude or a binary edge map, per channel or on
 * luma (gpuimg.h gives the exact rounding). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const gi_sobel_params *p;
    int filtered; /* channels that get the filter: 1 with gray, else colour */
} sobel_job;

static inline int luma(const uint8_t *p, int channels)
{
    if (channels < 3) return p[0];
    return (77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8;
}

/* One input row (or an outside row, sy < 0) as filter inputs for virtual
 * columns -1..width, `filtered` values per column. */
static void fill_row(const sobel_job *j, long sy, int *out)
{
    const int ch = j->src->channels, w = j->src->width;
    const uint8_t *row = sy >= 0 ? j->src->data + (size_t)sy * j->src->stride : NULL;
    uint8_t outside[4];
    memset(outside, j->p->border.value, sizeof outside);
    for (long vx = -1; vx <= w; vx++) {
        long sx = row ? gi_border_index(vx, w, j->p->border.mode) : -1;
        const uint8_t *px = sx >= 0 ? row + sx * ch : outside;
        int *o = out + (vx + 1) * j->filtered;
        if (j->p->gray) o[0] = luma(px, ch);
        else
            for (int c = 0; c < j->filtered; c++) o[c] = px[c];
    }
}

/* Plain double arithmetic: the project builds with -ffp-contract=off and
 * the CUDA kernel uses _rn intrinsics, so both round identically. */
static inline uint8_t edge_value(int gx, int gy, const gi_sobel_params *p)
{
    double magnitude = p->scale * sqrt((double)(gx * gx + gy * gy));
    if (p->use_threshold) return magnitude >= p->threshold ? 255 : 0;
    double rounded = floor(magnitude + 0.5);
    return rounded >= 255 ? 255 : (uint8_t)rounded;
}

static void sobel_row(const sobel_job *j, int y, int *rows[3])
{
    const int ch = j->src->channels, out_ch = j->dst->channels, f = j->filtered;
    const uint8_t *src_row = j->src->data + (size_t)y * j->src->stride;
    uint8_t *out = j->dst->data + (size_t)y * j->dst->stride;
    for (int x = 0; x < j->src->width; x++) {
        for (int c = 0; c < f; c++) {
            const int *a = rows[0] + x * f + c, *m = rows[1] + x * f + c, *b = rows[2] + x * f + c;
            int gx = (a[2 * f] - a[0]) + 2 * (m[2 * f] - m[0]) + (b[2 * f] - b[0]);
            int gy = (b[0] - a[0]) + 2 * (b[f] - a[f]) + (b[2 * f] - a[2 * f]);
            out[x * out_ch + c] = edge_value(gx, gy, j->p);
        }
        if (out_ch > f) out[x * out_ch + f] = src_row[x * ch + ch - 1]; /* alpha */
    }
}

static int sobel_band(void *arg, int y0, int y1)
{
    const sobel_job *j = arg;
    const size_t row_len = ((size_t)j->src->width + 2) * (size_t)j->filtered;
    int *buf = malloc(3 * row_len * sizeof *buf);
    if (!buf) return -1;
    const gi_border_mode mode = j->p->border.mode;
    for (int y = y0; y < y1; y++) {
        int *rows[3];
        for (int k = 0; k < 3; k++) {
            rows[k] = buf + (size_t)k * row_len;
            fill_row(j, gi_border_index((long)y + k - 1, j->src->height, mode), rows[k]);
        }
        sobel_row(j, y, rows);
    }
    free(buf);
    return 0;
}

gi_status gi__cpu_sobel(void *state, const gi_image *src, gi_image *dst, const gi_sobel_params *p)
{
    int has_alpha = src->channels == 2 || src->channels == 4;
    sobel_job j = {src, dst, p, p->gray ? 1 : src->channels - has_alpha};
    if (gi__parallel_rows(gi__cpu_threads(state), src->height, sobel_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate sobel row buffers");
    return GI_OK;
}
