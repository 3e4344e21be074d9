/* CPU convolution (correlation) with a quantized odd mask; gpuimg.h gives
 * the exact arithmetic. */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const gi_convolve_weights *w;
    gi_border border;
} convolve_job;

/* One source row (or an outside row, sy < 0) for virtual columns
 * [-rx, width + rx), all channels. */
static void fill_row(const convolve_job *j, long sy, int32_t *out)
{
    const int ch = j->src->channels, width = j->src->width, rx = (j->w->width - 1) / 2;
    const uint8_t *row = sy >= 0 ? j->src->data + (size_t)sy * j->src->stride : NULL;
    for (long vx = -rx; vx < (long)width + rx; vx++) {
        long sx = vx >= 0 && vx < width ? vx : gi_border_index(vx, width, j->border.mode);
        int32_t *o = out + (vx + rx) * ch;
        for (int c = 0; c < ch; c++) o[c] = row && sx >= 0 ? row[sx * ch + c] : j->border.value;
    }
}

static uint8_t finish(int32_t sum, int shift)
{
    int32_t v = shift > 0 ? (sum + (1 << (shift - 1))) >> shift : sum;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* The rows the cursor gives, each from its own rows of the source. */
static int convolve_band(void *arg, gi__row_cursor *rows)
{
    const convolve_job *j = arg;
    const int ch = j->src->channels, rx = (j->w->width - 1) / 2, ry = (j->w->height - 1) / 2;
    const size_t n = (size_t)j->src->width * ch;
    int32_t *pad = malloc(((size_t)j->src->width + 2 * rx) * ch * sizeof *pad);
    int32_t *acc = malloc(n * sizeof *acc);
    if (!pad || !acc) {
        free(pad);
        free(acc);
        return -1;
    }
    for (int y0, y1, fresh; (y0 = gi__rows_next(rows, GI_ROWS_CLAIM, &y1, &fresh)) >= 0;) {
        for (int y = y0; y < y1; y++) {
            memset(acc, 0, n * sizeof *acc);
            for (int jy = 0; jy < j->w->height; jy++) {
                fill_row(j, gi_border_index((long)y + jy - ry, j->src->height, j->border.mode), pad);
                for (int ix = 0; ix < j->w->width; ix++) {
                    const int32_t q = j->w->q[jy * j->w->width + ix];
                    const int32_t *p = pad + (size_t)ix * ch;
                    if (q)
                        for (size_t i = 0; i < n; i++) acc[i] += q * p[i];
                }
            }
            uint8_t *out = j->dst->data + (size_t)y * j->dst->stride;
            for (size_t i = 0; i < n; i++) out[i] = finish(acc[i], j->w->shift);
        }
    }
    free(pad);
    free(acc);
    return 0;
}

gi_status gi__cpu_convolve(void *state, const gi_image *src, gi_image *dst,
                           const gi_convolve_weights *w, gi_border border)
{
    convolve_job j = {src, dst, w, border};
    if (gi__parallel_rows_shared(gi__cpu_threads_for(state, src, dst, 1 + w->width * w->height / 8),
                                 src->height, GI_ROWS_MIN_TAKE,
                                 convolve_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate convolution row buffers");
    return GI_OK;
}
