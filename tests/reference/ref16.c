/* 16-bit references; ref16.h says what each is. */
#include "ref16.h"
#include "../harness.h"
#include "../testimg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gi_image r16_blank(int width, int height, int channels)
{
    gi_image img = {0};
    img.width = width;
    img.height = height;
    img.channels = channels;
    img.depth = 16;
    img.stride = (size_t)width * channels * 2 + 2 * (size_t)th_rand_int(0, 5);
    img.data = malloc(img.stride * height);
    if (!img.data) abort();
    memset(img.data, TI_SENTINEL, img.stride * height);
    return img;
}

gi_image r16_random(int width, int height, int channels, int full)
{
    gi_image img = r16_blank(width, height, channels);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width * channels; x++) {
            int kind = th_rand_int(0, 3);
            r16_px(&img, 0, y)[x] = full || kind == 1 ? 65535 : kind == 0 ? 0
                                                                          : (uint16_t)th_rand_int(0, 65535);
        }
    return img;
}

void r16_free(gi_image *img)
{
    free(img->data);
    img->data = NULL;
}

int r16_padding_intact(const gi_image *img)
{
    const size_t row = (size_t)img->width * img->channels * 2;
    for (int y = 0; y < img->height; y++)
        for (size_t b = row; b < img->stride; b++)
            if (img->data[(size_t)y * img->stride + b] != TI_SENTINEL) return 0;
    return 1;
}

int r16_same(const gi_image *a, const gi_image *b, char *why, size_t size)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels) {
        snprintf(why, size, "shapes differ");
        return 0;
    }
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < a->channels; c++)
                if (r16_px(a, x, y)[c] != r16_px(b, x, y)[c]) {
                    snprintf(why, size, "(%d,%d) channel %d: %d vs %d", x, y, c,
                             r16_px(a, x, y)[c], r16_px(b, x, y)[c]);
                    return 0;
                }
    return 1;
}

/* Sample c of (x, y) anywhere: the border rule on each coordinate; zero
 * mode reads value * 257 on every channel. */
static uint32_t sample(const gi_image *img, long x, long y, int c, gi_border b)
{
    long bx = gi_border_index(x, img->width, b.mode), by = gi_border_index(y, img->height, b.mode);
    if (bx < 0 || by < 0) return b.value * 257u;
    return r16_px(img, (int)bx, (int)by)[c];
}

static int alpha_channel(int ch)
{
    return ch == 2 || ch == 4 ? ch - 1 : -1;
}

/* table[k + r] = the index that k reads, k in [-r, n + r) (-1: outside). */
static long *border_table(long n, long r, gi_border_mode mode)
{
    long *table = malloc((size_t)(n + 2 * r) * sizeof *table);
    if (!table) abort();
    for (long k = -r; k < n + r; k++) table[k + r] = gi_border_index(k, n, mode);
    return table;
}

void ref16_blur_exact(const gi_image *src, const int32_t *weights, int radius, gi_border border,
                      double *out)
{
    const int ch = src->channels, alpha = alpha_channel(ch);
    const double outside = border.value * 257.0;
    long *bx = border_table(src->width, radius, border.mode);
    long *by = border_table(src->height, radius, border.mode);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < ch; c++) {
                const int premultiplied = alpha >= 0 && c != alpha;
                double num = 0, den = 0;
                for (int j = -radius; j <= radius; j++) {
                    const long sy = by[y + j + radius];
                    for (int i = -radius; i <= radius; i++) {
                        const long sx = bx[x + i + radius];
                        const uint16_t *px = sx < 0 || sy < 0 ? NULL : r16_px(src, (int)sx, (int)sy);
                        const double w = (double)weights[i + radius] * weights[j + radius];
                        const double u = px ? px[c] : outside;
                        if (premultiplied) {
                            const double a = px ? px[alpha] : outside;
                            num += w * u * a;
                            den += w * a;
                        } else {
                            num += w * u;
                        }
                    }
                }
                out[((size_t)y * src->width + x) * ch + c] =
                    premultiplied ? (den == 0 ? 0 : num / den) : num / 0x1p32;
            }
    free(bx);
    free(by);
}

/* h of gpuimg.h's 16-bit blur for channel c at virtual (x, y). */
static uint64_t blur_h(const gi_image *src, const int32_t *w, int R, gi_border b, long x, long y,
                       int c)
{
    const int ch = src->channels, alpha = alpha_channel(ch);
    uint64_t sum = 0;
    for (int k = -R; k <= R; k++) {
        uint64_t u = sample(src, x + k, y, c, b);
        if (alpha >= 0 && c != alpha) u *= sample(src, x + k, y, alpha, b);
        sum += (uint64_t)w[k + R] * u;
    }
    if (alpha < 0) return (sum + 128) >> 8;
    return c == alpha ? sum : (sum + (1u << 15)) >> 16;
}

void ref16_blur_defined(const gi_image *src, const int32_t *weights, int radius, gi_border border,
                        gi_image *dst)
{
    const int ch = src->channels, alpha = alpha_channel(ch), R = radius, w = src->width;
    /* h of virtual rows -R .. height + R - 1, each once */
    const size_t row = (size_t)w * ch;
    uint64_t *h = malloc(((size_t)src->height + 2 * R) * row * sizeof *h);
    if (!h) abort();
    for (long vy = -R; vy < (long)src->height + R; vy++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++)
                h[(size_t)(vy + R) * row + (size_t)x * ch + c] = blur_h(src, weights, R, border, x, vy, c);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < w; x++) {
            uint64_t v[4] = {0, 0, 0, 0};
            for (int c = 0; c < ch; c++)
                for (int k = -R; k <= R; k++)
                    v[c] += (uint64_t)weights[k + R] * h[(size_t)(y + k + R) * row + (size_t)x * ch + c];
            uint16_t *o = r16_px(dst, x, y);
            for (int c = 0; c < ch; c++) {
                uint64_t out;
                if (alpha < 0) out = (v[c] + (1u << 23)) >> 24;
                else if (c == alpha) out = (v[c] + (1ull << 31)) >> 32;
                else if (v[alpha] == 0) out = 0;
                else {
                    out = ((v[c] << 16) + v[alpha] / 2) / v[alpha];
                    if (out > 65535) out = 65535;
                }
                o[c] = (uint16_t)out;
            }
        }
    free(h);
}

static double luma(const gi_image *img, long x, long y, gi_border b)
{
    if (img->channels < 3) return sample(img, x, y, 0, b);
    uint32_t r = sample(img, x, y, 0, b), g = sample(img, x, y, 1, b), bl = sample(img, x, y, 2, b);
    return (double)((77 * r + 150 * g + 29 * bl + 128) >> 8);
}

void ref16_sobel(const gi_image *src, const gi_sobel_params *p, gi_image *dst)
{
    const int ch = src->channels, colours = alpha_channel(ch) >= 0 ? ch - 1 : ch;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            uint16_t *o = r16_px(dst, x, y);
            for (int c = 0; c < (p->gray ? 1 : colours); c++) {
                double gx = 0, gy = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        double u = p->gray ? luma(src, (long)x + dx, (long)y + dy, p->border)
                                           : sample(src, (long)x + dx, (long)y + dy, c, p->border);
                        gx += dx * (dy == 0 ? 2 : 1) * u;
                        gy += dy * (dx == 0 ? 2 : 1) * u;
                    }
                double m = sqrt(gx * gx + gy * gy), v = floor(p->scale * m + 0.5);
                o[c] = p->use_threshold ? (p->scale * m >= p->threshold ? 65535 : 0)
                                        : v > 65535 ? 65535 : (uint16_t)v;
            }
            if (!p->gray && colours < ch) o[colours] = r16_px(src, x, y)[colours];
        }
}

void ref16_convolve_exact(const gi_image *src, const double *mask, int mw, int mh,
                          gi_border border, double *out)
{
    const int ch = src->channels, rx = (mw - 1) / 2, ry = (mh - 1) / 2;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < ch; c++) {
                double sum = 0;
                for (int j = 0; j < mh; j++)
                    for (int i = 0; i < mw; i++)
                        sum += mask[j * mw + i] *
                               sample(src, (long)x + i - rx, (long)y + j - ry, c, border);
                out[((size_t)y * src->width + x) * ch + c] = sum;
            }
}

void ref16_convolve_defined(const gi_image *src, const gi_convolve_weights *w, gi_border border,
                            gi_image *dst)
{
    const int ch = src->channels, rx = (w->width - 1) / 2, ry = (w->height - 1) / 2;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < ch; c++) {
                int64_t sum = 0;
                for (int j = 0; j < w->height; j++)
                    for (int i = 0; i < w->width; i++)
                        sum += (int64_t)w->q[j * w->width + i] *
                               sample(src, (long)x + i - rx, (long)y + j - ry, c, border);
                if (w->shift > 0) sum = (sum + (1ll << (w->shift - 1))) >> w->shift;
                r16_px(dst, x, y)[c] = (uint16_t)(sum < 0 ? 0 : sum > 65535 ? 65535 : sum);
            }
}
