/* float64 references; see ref_ops.h for why each is written the way it is. */
#include "ref_ops.h"
#include "../testimg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sample c of pixel (x, y) with (x, y) anywhere: the border rule applies to
 * each coordinate, and zero mode reads the border value on every channel. */
static double sample(const gi_image *img, long x, long y, int c, gi_border b)
{
    long bx = gi_border_index(x, img->width, b.mode);
    long by = gi_border_index(y, img->height, b.mode);
    if (bx < 0 || by < 0) return b.value;
    return ti_px(img, (int)bx, (int)by)[c];
}

/* table[k + r] = the index that k reads, for k in [-r, n + r): the direct
 * blur looks up (2R+1)^2 taps per sample, so map each coordinate once. */
static long *border_table(long n, long r, gi_border_mode mode)
{
    long *table = malloc((size_t)(n + 2 * r) * sizeof *table);
    if (!table) abort();
    for (long k = -r; k < n + r; k++) table[k + r] = gi_border_index(k, n, mode);
    return table;
}

/* The direct 2D sum for sample c of (x, y). With alpha >= 0 the colour is
 * weighted by alpha and *den receives the alpha weight sum. */
static double window_sum(const gi_image *src, const long *bx, const long *by, int x, int y,
                         int c, int alpha, const int32_t *weights, int radius,
                         uint8_t border_value, double *den)
{
    double num = 0;
    *den = 0;
    for (int j = -radius; j <= radius; j++)
        for (int i = -radius; i <= radius; i++) {
            long sx = bx[x + i + radius], sy = by[y + j + radius];
            const uint8_t *p = sx < 0 || sy < 0 ? NULL : ti_px(src, (int)sx, (int)sy);
            double w = (double)weights[i + radius] * weights[j + radius];
            double u = p ? p[c] : border_value;
            if (alpha >= 0) {
                double a = p ? p[alpha] : border_value;
                num += w * u * a;
                *den += w * a;
            } else {
                num += w * u;
            }
        }
    return num;
}

void ref_blur(const gi_image *src, const int32_t *weights, int radius, gi_border border,
              double *out)
{
    int ch = src->channels, alpha = (ch == 2 || ch == 4) ? ch - 1 : -1;
    long *bx = border_table(src->width, radius, border.mode);
    long *by = border_table(src->height, radius, border.mode);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < ch; c++) {
                int premultiplied = alpha >= 0 && c != alpha;
                double den, num = window_sum(src, bx, by, x, y, c, premultiplied ? alpha : -1,
                                             weights, radius, border.value, &den);
                double *o = &out[((size_t)y * src->width + x) * ch + c];
                if (premultiplied) *o = den == 0 ? 0 : num / den;
                else *o = num / (65536.0 * 65536.0);
            }
    free(bx);
    free(by);
}

void ref_convolve(const gi_image *src, const double *mask, int mw, int mh, gi_border border,
                  double *out)
{
    int ch = src->channels, rx = (mw - 1) / 2, ry = (mh - 1) / 2;
    long *bx = border_table(src->width, rx, border.mode);
    long *by = border_table(src->height, ry, border.mode);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < ch; c++) {
                double sum = 0;
                for (int j = 0; j < mh; j++)
                    for (int i = 0; i < mw; i++) {
                        long sx = bx[x + i], sy = by[y + j];
                        double u = sx < 0 || sy < 0 ? border.value
                                                    : ti_px(src, (int)sx, (int)sy)[c];
                        sum += mask[j * mw + i] * u;
                    }
                out[((size_t)y * src->width + x) * ch + c] = sum;
            }
    free(bx);
    free(by);
}

/* Luma as gpuimg.h defines it, from the sample at (x, y) with borders. */
static double luma(const gi_image *img, long x, long y, gi_border b)
{
    if (img->channels < 3) return sample(img, x, y, 0, b);
    long r = (long)sample(img, x, y, 0, b), g = (long)sample(img, x, y, 1, b);
    long bl = (long)sample(img, x, y, 2, b);
    return (double)((77 * r + 150 * g + 29 * bl + 128) >> 8);
}

static uint8_t sobel_out(double gx, double gy, const gi_sobel_params *p)
{
    double m = sqrt(gx * gx + gy * gy);
    if (p->use_threshold) return p->scale * m >= p->threshold ? 255 : 0;
    double v = floor(p->scale * m + 0.5);
    return v > 255 ? 255 : (uint8_t)v;
}

void ref_sobel(const gi_image *src, const gi_sobel_params *p, gi_image *dst)
{
    int ch = src->channels, colours = (ch == 2 || ch == 4) ? ch - 1 : ch;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            uint8_t *o = ti_px(dst, x, y);
            for (int c = 0; c < (p->gray ? 1 : colours); c++) {
                double gx = 0, gy = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        double u = p->gray ? luma(src, (long)x + dx, (long)y + dy, p->border)
                                           : sample(src, (long)x + dx, (long)y + dy, c, p->border);
                        gx += dx * (dy == 0 ? 2 : 1) * u;
                        gy += dy * (dx == 0 ? 2 : 1) * u;
                    }
                o[c] = sobel_out(gx, gy, p);
            }
            if (!p->gray && colours < ch) o[colours] = ti_px(src, x, y)[colours];
        }
}

void ref_transform(const gi_image *src, gi_transform t, gi_image *dst)
{
    int w = src->width, h = src->height;
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++) {
            int sx = 0, sy = 0;
            switch (t) {
            case GI_TRANSPOSE:  sx = y;         sy = x;         break;
            case GI_ROTATE_90:  sx = y;         sy = h - 1 - x; break;
            case GI_ROTATE_180: sx = w - 1 - x; sy = h - 1 - y; break;
            case GI_ROTATE_270: sx = w - 1 - y; sy = x;         break;
            case GI_FLIP_H:     sx = w - 1 - x; sy = y;         break;
            case GI_FLIP_V:     sx = x;         sy = h - 1 - y; break;
            }
            memcpy(ti_px(dst, x, y), ti_px(src, sx, sy), (size_t)src->channels);
        }
}

void ref_hist(const gi_image *src, int bins, uint64_t counts[4][GI_HIST_MAX_BINS])
{
    memset(counts, 0, sizeof(uint64_t[4][GI_HIST_MAX_BINS]));
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < src->channels; c++)
                counts[c][ti_px(src, x, y)[c] * bins / 256]++;
}

static int cmp_u8(const void *a, const void *b)
{
    return *(const uint8_t *)a - *(const uint8_t *)b;
}

void ref_stats(const gi_image *src, int c, gi_channel_stats *stats)
{
    size_t n = (size_t)src->width * src->height, k = 0;
    uint8_t *v = malloc(n);
    double sum = 0, dev = 0;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) v[k++] = ti_px(src, x, y)[c];
    qsort(v, n, 1, cmp_u8);
    for (k = 0; k < n; k++) sum += v[k];
    stats->mean = sum / n;
    for (k = 0; k < n; k++) dev += (v[k] - stats->mean) * (v[k] - stats->mean);
    stats->stddev = sqrt(dev / n);
    stats->min = v[0];
    stats->max = v[n - 1];
    stats->median = v[(n + 1) / 2 - 1]; /* at least ceil(n/2) samples <= it */
    free(v);
}
