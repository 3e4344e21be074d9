/* CPU convolution of 16-bit images with a mask quantized for 16 bits
 * (gi_convolve_quantize_depth): the sums in doubles, exact because every
 * partial sum is at most 65535 * sum|q| <= 2^52, so the vectorized loops
 * give the integer definition's bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

typedef struct {
    const gi_image *src;
    gi_image *dst;
    const gi_convolve_weights *w;
    gi_border_mode mode;
    double outside; /* an outside sample in zero mode */
} convolve16_job;

/* One source row (sy < 0: an outside row) for virtual columns
 * [-rx, width + rx), all channels. */
static void fill_row(const convolve16_job *j, long sy, double *out)
{
    const int ch = j->src->channels, width = j->src->width, rx = (j->w->width - 1) / 2;
    const uint16_t *row = sy >= 0 ? (const uint16_t *)(j->src->data + (size_t)sy * j->src->stride)
                                  : NULL;
    for (long vx = -rx; vx < (long)width + rx; vx++) {
        const long sx = vx >= 0 && vx < width ? vx : gi_border_index(vx, width, j->mode);
        double *o = out + (vx + rx) * ch;
        for (int c = 0; c < ch; c++) o[c] = row && sx >= 0 ? row[sx * ch + c] : j->outside;
    }
}

GI_VECTOR_CLONES
static void add_tap(double q, const double *p, size_t n, double *acc)
{
    for (size_t i = 0; i < n; i++) acc[i] += q * p[i];
}

/* clamp(floor((sum + 2^(S-1)) / 2^S), 0, 65535): the arithmetic shift of
 * gpuimg.h on exact sums. */
GI_VECTOR_CLONES
static void finish_row(const double *acc, size_t n, int shift, uint16_t *out)
{
    const double half = shift > 0 ? ldexp(1.0, shift - 1) : 0.0, unit = ldexp(1.0, -shift);
    for (size_t i = 0; i < n; i++) {
        const double v = floor((acc[i] + half) * unit);
        out[i] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
    }
}

/* The rows the cursor gives, each from its own rows of the source. */
static int convolve16_band(void *arg, gi__row_cursor *rows)
{
    const convolve16_job *j = arg;
    const int ch = j->src->channels, rx = (j->w->width - 1) / 2, ry = (j->w->height - 1) / 2;
    const size_t n = (size_t)j->src->width * ch;
    double *pad = malloc(((size_t)j->src->width + 2 * rx) * ch * sizeof *pad);
    double *acc = malloc(n * sizeof *acc);
    if (!pad || !acc) {
        free(pad);
        free(acc);
        return -1;
    }
    for (int y0, y1, fresh; (y0 = gi__rows_next(rows, GI_ROWS_CLAIM, &y1, &fresh)) >= 0;) {
        for (int y = y0; y < y1; y++) {
            memset(acc, 0, n * sizeof *acc);
            for (int jy = 0; jy < j->w->height; jy++) {
                fill_row(j, gi_border_index((long)y + jy - ry, j->src->height, j->mode), pad);
                for (int ix = 0; ix < j->w->width; ix++) {
                    const int32_t q = j->w->q[jy * j->w->width + ix];
                    if (q) add_tap((double)q, pad + (size_t)ix * ch, n, acc);
                }
            }
            finish_row(acc, n, j->w->shift,
                       (uint16_t *)(j->dst->data + (size_t)y * j->dst->stride));
        }
    }
    free(pad);
    free(acc);
    return 0;
}

gi_status gi__cpu_convolve16(void *state, const gi_image *src, gi_image *dst,
                             const gi_convolve_weights *w, gi_border border)
{
    convolve16_job j = {src, dst, w, border.mode, border.value * 257.0};
    if (gi__parallel_rows_shared(gi__cpu_threads_for(state, src, dst, 1 + w->width * w->height / 8),
                                 src->height, GI_ROWS_MIN_TAKE,
                                 convolve16_band, &j))
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate convolution row buffers");
    return GI_OK;
}
