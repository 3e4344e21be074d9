/* CPU Sobel of 16-bit images: gpuimg.h's double formula itself, per
 * sample. s = gx^2 + gy^2 < 2^38 is exact in a double and the square root,
 * the product and the sum each round once (no fused multiply-add: the
 * build turns contraction off), so the vectorized loop gives the CUDA
 * kernel's bytes. Each band keeps its last three input rows padded with
 * one border column each side, as uint16 (luma when gray). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const gi_sobel_params *p;
    int values; /* samples per padded column: 1 with gray, else the channels */
    uint16_t outside;
} sobel16_job;

static uint16_t luma16(const uint16_t *px)
{
    return (uint16_t)((77u * px[0] + 150u * px[1] + 29u * px[2] + 128) >> 8);
}

/* The filter input of source column sx of row (NULL or sx < 0: outside). */
static void fill_column(const sobel16_job *j, const uint16_t *row, long sx, uint16_t *out)
{
    const int ch = j->src->channels;
    if (!row || sx < 0) {
        for (int c = 0; c < j->values; c++) out[c] = j->outside; /* luma of (v, v, v) is v */
        return;
    }
    const uint16_t *px = row + sx * ch;
    if (j->values == 1 && ch >= 3) out[0] = luma16(px);
    else memcpy(out, px, (size_t)j->values * sizeof *out);
}

/* Source row sy (sy < 0: an outside row) for virtual columns -1..width. */
static void fill_row(const sobel16_job *j, long sy, uint16_t *out)
{
    const int w = j->src->width, k = j->values;
    const uint16_t *row = sy >= 0 ? (const uint16_t *)(j->src->data + (size_t)sy * j->src->stride)
                                  : NULL;
    for (long x = -1; x <= w; x++)
        fill_column(j, row, x >= 0 && x < w ? x : gi_border_index(x, w, j->p->border.mode),
                    out + (x + 1) * k);
}

/* The outputs of the n values of a row from the rows above (a), at (m) and
 * below (b), each from virtual column -1; k values per column. */
GI_VECTOR_CLONES
static void sobel16_values(const uint16_t *a, const uint16_t *m, const uint16_t *b, size_t n,
                           size_t k, double scale, int use_threshold, double threshold,
                           uint16_t *out)
{
    for (size_t i = 0; i < n; i++) {
        const int32_t gx = (a[i + 2 * k] - a[i]) + 2 * (m[i + 2 * k] - m[i]) + (b[i + 2 * k] - b[i]);
        const int32_t gy = (b[i] - a[i]) + 2 * (b[i + k] - a[i + k]) + (b[i + 2 * k] - a[i + 2 * k]);
        const double s = (double)gx * (double)gx + (double)gy * (double)gy;
        const double magnitude = scale * sqrt(s);
        const double rounded = floor(magnitude + 0.5);
        const uint16_t level = rounded >= 65535.0 ? 65535 : (uint16_t)rounded;
        out[i] = use_threshold ? (magnitude >= threshold ? 65535 : 0) : level;
    }
}

static int sobel16_band(void *arg, int y0, int y1)
{
    const sobel16_job *j = arg;
    const int ch = j->src->channels, w = j->src->width, k = j->values;
    const size_t row_len = ((size_t)w + 2) * (size_t)k;
    uint16_t *ring = malloc(3 * row_len * sizeof *ring);
    if (!ring) return -1;
    /* slot (vy mod 3) holds virtual row vy; rows y0 - 1 and y0 come first */
    for (long vy = (long)y0 - 1; vy <= y1; vy++) {
        fill_row(j, gi_border_index(vy, j->src->height, j->p->border.mode),
                 ring + (size_t)(((vy % 3) + 3) % 3) * row_len);
        if (vy < (long)y0 + 1) continue;
        const uint16_t *rows[3];
        for (int t = 0; t < 3; t++) rows[t] = ring + (size_t)((((vy - 2 + t) % 3) + 3) % 3) * row_len;
        const int y = (int)vy - 1;
        uint16_t *out = (uint16_t *)(j->dst->data + (size_t)y * j->dst->stride);
        sobel16_values(rows[0], rows[1], rows[2], (size_t)w * k, (size_t)k, j->p->scale,
                       j->p->use_threshold, j->p->threshold, out);
        if (k > 1 && (ch == 2 || ch == 4)) { /* alpha is copied through */
            const uint16_t *in = (const uint16_t *)(j->src->data + (size_t)y * j->src->stride);
            for (int x = 0; x < w; x++) out[x * ch + ch - 1] = in[x * ch + ch - 1];
        }
    }
    free(ring);
    return 0;
}

gi_status gi__cpu_sobel16(void *state, const gi_image *src, gi_image *dst,
                          const gi_sobel_params *p)
{
    sobel16_job j = {src, dst, p, p->gray ? 1 : src->channels, (uint16_t)(p->border.value * 257)};
    if (gi__parallel_rows(gi__cpu_threads(state), src->height, sobel16_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate sobel row buffers");
    return GI_OK;
}
