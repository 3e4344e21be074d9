/* The JPEG decoder's arithmetic half (lib/codec/jpeg/jpeg_reconstruct.c) against
 * its oracle, stb_image 2.27, compiled into this file so that its static
 * functions can be called: every kernel set this CPU runs (generic C, the
 * base set, AVX2, AVX-512) must give stb's bytes.
 *
 * Kernels: the IDCT on random blocks, on extreme ones (full int16
 * coefficients times full uint16 quantizers, wrapping in 16 bits), on
 * single coefficients; each upsampler on random rows of widths 1..67; the
 * colour conversion on every (Y, Cb, Cr).
 *
 * Whole images: stb decodes a JPEG with its per-block IDCT replaced by one
 * that records the dequantized block (then runs stb's own), so the test
 * knows stb's coefficients exactly; they become a gi_jpeg_coeffs with
 * quantizers of 1, and the pixels gi__jpeg_reconstruct makes from them
 * must be stb's, on 1 and several threads, rows written through a padded
 * stride that must stay untouched. The JPEGs come from cjpeg (libjpeg-
 * turbo) over synthetic images, samples/ and the photos where present: every
 * sampling factor stb handles (its 2x filters and nearest), gray,
 * progressive, RGB, sizes from 1x1, primes; CMYK, YCCK and 4-component
 * files without a transform are made from a cjpeg file with one scan per
 * component by adding a fourth component (a copy of the first one's scan)
 * and an Adobe segment.
 *
 *   test_jpeg_reconstruct SAMPLES_DIR [PHOTOS_DIR]   (77 without cjpeg)
 *   test_jpeg_reconstruct --bench THREADS FILE...    CPU time, medians of 15 runs:
 *       stb's whole decode, and the reconstruction from its coefficients with
 *       each set (BENCH_SET=NAME: that set alone) */
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_JPEG
#define STBI_ONLY_PNG
#include "codec/stb_warnings.h"
GI_STB_WARNINGS_OFF
#include <stb_image.h>
GI_STB_WARNINGS_ON
#pragma GCC diagnostic ignored "-Wunused-function" /* stb_warnings.h says why */

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codec/jpeg/jpeg_coeffs.h"
#include "codec/jpeg/jpeg_recon_kernels.h"
#include "codec/jpeg/jpeg_reconstruct.h"
#include "base/cpu_isa.h"

/* ---- Kernel sets ---- */

/* generic, then the sets up to each cap (cpu_isa.h) */
static const int set_caps[] = {GI__ISA_BASE, GI__ISA_BASE, GI__ISA_AVX2, GI__ISA_AVX512};

/* Set i as GPUIMG_CPU_ISA would select it; NULL where this CPU lacks it
 * (the cap then gives a set already tested). */
static const jpeg_recon_kernels *use_set(int i)
{
    const jpeg_recon_kernels *k = gi__jpeg_recon_kernels_capped(set_caps[i], i == 0);
    if (i > 1 && gi__jpeg_recon_kernels_capped(set_caps[i - 1], 0) == k) return NULL;
    return k;
}

#define N_SETS 4

/* The vector set compiled as for a machine with neither SSE2 nor NEON
 * (tests/codec/meson.build), so that its plain GCC vector fallbacks run
 * here too; kernels only, as no CPU picks it. */
extern const jpeg_recon_kernels gi__jpeg_recon_portable;

/* ---- IDCT ---- */

/* stb's IDCT on x86-64 is stbi__idct_simd, our definition; the C one
 * agrees with it wherever no 16-bit intermediate overflows (|dequantized|
 * <= 256 here), and elsewhere it is the reference for sane blocks only. */
#ifdef STBI_SSE2
#define stb_idct stbi__idct_simd
#define HAVE_EXACT_IDCT 1
#else
#define stb_idct stbi__idct_block
#define HAVE_EXACT_IDCT 0
#endif

static void check_idct_block(const jpeg_recon_kernels *k, const int16_t coeffs[64],
                             const uint16_t quant[64], int sane, const char *what)
{
    if (!sane && !HAVE_EXACT_IDCT) return;
    STBI_SIMD_ALIGN(short, data[64]);
    for (int i = 0; i < 64; i++) data[i] = (short)(coeffs[i] * quant[i]);
    uint8_t want[8 * 8], want_c[8 * 8], got[3][8 * 24];
    short copy[64];
    memcpy(copy, data, sizeof copy);
    stb_idct(want, 8, data);
    if (sane) {
        stbi__idct_block(want_c, 8, copy);
        th_check(!memcmp(want, want_c, 64), "stb's own IDCTs differ on a sane block (%s)", what);
    }
    /* three blocks in a row, the middle one checked: neighbours untouched */
    int16_t three[3 * 64];
    for (int b = 0; b < 3; b++) memcpy(three + 64 * b, coeffs, 64 * sizeof *coeffs);
    memset(got, 0x5A, sizeof got);
    k->idct_blocks(three, 3, quant, got[1], 24);
    int same = 1;
    for (int y = 0; y < 8; y++)
        for (int b = 0; b < 3; b++) same &= !memcmp(got[1] + 24 * y + 8 * b, want + 8 * y, 8);
    th_check(same, "%s IDCT differs from stb's (%s)", k->name, what);
}

static void test_idct(const jpeg_recon_kernels *k)
{
    int16_t c[64];
    uint16_t q[64];
    for (int round = 0; round < 3000; round++) {
        int kind = round % 5;
        for (int i = 0; i < 64; i++) {
            switch (kind) {
            case 0: /* sane: small quantizers and coefficients, sparse */
                q[i] = (uint16_t)th_rand_int(1, 16);
                c[i] = (int16_t)(th_rand_int(0, 3) == 0 ? th_rand_int(-16, 16) : 0);
                break;
            case 1: /* extreme: anything */
                q[i] = (uint16_t)th_rand_int(0, 65535);
                c[i] = (int16_t)th_rand_int(-32768, 32767);
                break;
            case 2: /* large dequantized values that wrap in 16 bits */
                q[i] = (uint16_t)th_rand_int(100, 65535);
                c[i] = (int16_t)th_rand_int(-400, 400);
                break;
            case 3: /* at the edges of int16 */
                q[i] = 1;
                c[i] = (int16_t)(th_rand_int(0, 1) ? 32767 - th_rand_int(0, 3)
                                                   : -32768 + th_rand_int(0, 3));
                break;
            default: /* a dense block of ordinary size */
                q[i] = 1;
                c[i] = (int16_t)th_rand_int(-256, 256);
            }
        }
        check_idct_block(k, c, q, kind == 0 || kind == 4, kind == 0 ? "sparse" : kind == 1 ? "extreme"
                                                           : kind == 2 ? "wrapping" : kind == 3 ? "int16 edges" : "dense");
    }
    /* each coefficient alone, at several values */
    static const int values[] = {1, -1, 255, -256, 1024, -1024, 8191, -8192, 32767, -32768};
    for (int i = 0; i < 64; i++)
        for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
            memset(c, 0, sizeof c);
            for (int j = 0; j < 64; j++) q[j] = 1;
            c[i] = (int16_t)values[v];
            check_idct_block(k, c, q, values[v] >= -256 && values[v] <= 256, "one coefficient");
        }
}

/* ---- Upsampling and colour ---- */

static void test_upsamplers(const jpeg_recon_kernels *k)
{
    for (int round = 0; round < 2000; round++) {
        int w = 1 + round % 67;
        uint8_t near[80], far[80], want[2 * 80 + 8], got[2 * 80 + JPEG_RECON_SLACK];
        for (int i = 0; i < 80; i++) {
            near[i] = (uint8_t)th_rand_int(0, 255);
            far[i] = (uint8_t)(round % 3 == 0 ? th_rand_int(0, 1) * 255 : th_rand_int(0, 255));
        }
        uint8_t *r = stbi__resample_row_v_2(want, near, far, w, 1);
        k->upsample_v2(got, near, far, w);
        th_check(!memcmp(r, got, (size_t)w), "%s v2 differs at width %d", k->name, w);
        r = stbi__resample_row_h_2(want, near, far, w, 2);
        k->upsample_h2(got, near, w);
        th_check(!memcmp(r, got, 2 * (size_t)w), "%s h2 differs at width %d", k->name, w);
        r = stbi__resample_row_hv_2(want, near, far, w, 2);
        k->upsample_hv2(got, near, far, w);
        th_check(!memcmp(r, got, 2 * (size_t)w), "%s hv2 differs at width %d", k->name, w);
#if defined(STBI_SSE2) || defined(STBI_NEON)
        r = stbi__resample_row_hv_2_simd(want, near, far, w, 2);
        th_check(!memcmp(r, got, 2 * (size_t)w), "%s hv2 differs from stb's SIMD at width %d",
                 k->name, w);
#endif
    }
}

/* Every (Y, Cb, Cr): rows of 256 Cr values, at odd offsets so that the
 * vector kernels meet unaligned rows and tails. */
static void test_colour(const jpeg_recon_kernels *k)
{
    uint8_t y[256 + 7], cb[256 + 7], cr[256 + 7], want[4 * 256 + 4], got[3 * 256 + 64];
    long bad = 0;
    for (int yy = 0; yy < 256; yy++)
        for (int b = 0; b < 256; b++) {
            int off = (yy + b) % 7, count = 256 - (b % 5);
            for (int i = 0; i < 256; i++) {
                y[off + i] = (uint8_t)yy;
                cb[off + i] = (uint8_t)b;
                cr[off + i] = (uint8_t)i;
            }
            stbi__YCbCr_to_RGB_row(want, y + off, cb + off, cr + off, count, 3);
            memset(got, 0xA5, sizeof got);
            k->ycc_to_rgb(got, y + off, cb + off, cr + off, count);
            bad += memcmp(want, got, 3 * (size_t)count) != 0;
            for (size_t i = 3 * (size_t)count; i < sizeof got; i++) bad += got[i] != 0xA5;
        }
    th_check(bad == 0, "%s colour conversion differs from stb's or writes past its pixels (%ld)",
             k->name, bad);
}

/* ---- Whole images: stb's coefficients ---- */

static stbi__jpeg *capturing;  /* the decoder whose blocks are recorded */
static gi_jpeg_coeffs captured;
static int capture_failed;

/* stb's IDCT call for one block: which plane and block `out` is, from its
 * address in the component's plane. */
static void capture_block(stbi_uc *out, int out_stride, short data[64])
{
    stbi__jpeg *z = capturing;
    for (int n = 0; n < z->s->img_n; n++) {
        stbi__jpeg *j = z;
        if (out < j->img_comp[n].data || out >= j->img_comp[n].data + (size_t)j->img_comp[n].w2 * j->img_comp[n].h2)
            continue;
        gi_jpeg_plane *p = &captured.plane[n];
        if (!p->coeffs) {
            p->blocks_w = j->img_comp[n].w2 / 8;
            p->blocks_h = j->img_comp[n].h2 / 8;
            p->block_len = 64;
            p->coeffs = calloc((size_t)p->blocks_w * p->blocks_h, 64 * sizeof(int16_t));
            if (!p->coeffs) abort();
        }
        size_t offset = (size_t)(out - j->img_comp[n].data);
        size_t by = offset / ((size_t)j->img_comp[n].w2 * 8), bx = offset % (size_t)j->img_comp[n].w2 / 8;
        memcpy(p->coeffs + 64 * (by * (size_t)p->blocks_w + bx), data, 64 * sizeof(int16_t));
        stb_idct(out, out_stride, data);
        return;
    }
    capture_failed = 1;
}

static void free_captured(void)
{
    for (int n = 0; n < GI_JPEG_MAX_COMPONENTS; n++) free(captured.plane[n].coeffs);
    memset(&captured, 0, sizeof captured);
}

/* stb's pixels for `channels` (1 or 3), with its coefficients in
 * `captured`; NULL when stb refuses the file. */
static uint8_t *stb_decode(const uint8_t *bytes, size_t size, int channels, int *w, int *h)
{
    free_captured();
    capture_failed = 0;
    stbi__context s;
    stbi__start_mem(&s, bytes, (int)size);
    stbi__jpeg *j = calloc(1, sizeof *j);
    if (!j) abort();
    j->s = &s;
    stbi__setup_jpeg(j);
    j->idct_block_kernel = capture_block;
    capturing = j;
    int comp;
    uint8_t *pixels = load_jpeg_image(j, w, h, &comp, channels);
    if (pixels) {
        gi_jpeg_coeffs *c = &captured;
        c->width = *w;
        c->height = *h;
        c->ncomp = s.img_n;
        c->hmax = j->img_h_max;
        c->vmax = j->img_v_max;
        c->mcus_x = j->img_mcu_x;
        c->mcus_y = j->img_mcu_y;
        c->progressive = j->progressive;
        c->jfif = j->jfif;
        c->adobe_transform = j->app14_color_transform;
        c->out_channels = channels;
        for (int t = 0; t < 4; t++)
            for (int i = 0; i < 64; i++) c->quant[t][i] = 1;
        for (int n = 0; n < s.img_n; n++) {
            gi_jpeg_plane *p = &c->plane[n];
            p->id = j->img_comp[n].id;
            p->h = j->img_comp[n].h;
            p->v = j->img_comp[n].v;
            p->tq = n % 4; /* all ones: any table */
            p->width = j->img_comp[n].x;
            p->height = j->img_comp[n].y;
            if (!p->coeffs) { /* no block seen (cannot happen for a decoded file) */
                capture_failed = 1;
            }
        }
    }
    free(j);
    return pixels;
}

/* Compares every set and a few thread counts against stb on one file. */
static void check_file(const uint8_t *bytes, size_t size, const char *what)
{
    for (int channels = 1; channels <= 3; channels += 2) {
        int w, h;
        uint8_t *want = stb_decode(bytes, size, channels, &w, &h);
        if (!th_check(want && !capture_failed, "stb decodes %s (%s)", what,
                      want ? "capture failed" : stbi_failure_reason())) {
            stbi_image_free(want);
            return;
        }
        size_t row = (size_t)w * channels, stride = row + (size_t)th_rand_int(0, 13);
        uint8_t *got = malloc(stride * (size_t)h + 1);
        if (!got) abort();
        for (int set = 0; set < N_SETS; set++) {
            const jpeg_recon_kernels *k = use_set(set);
            if (!k) continue;
            static const int thread_counts[] = {1, 3, 8};
            for (int t = 0; t < 3; t++) {
                memset(got, 0xA5, stride * (size_t)h + 1);
                int rc = gi__jpeg_reconstruct(&captured, &(gi_jpeg_rows_out){.pixels = got, .stride = stride, .kernels = k}, thread_counts[t]);
                long first = -1;
                int padding_ok = got[stride * (size_t)h] == 0xA5;
                for (int y = 0; y < h && first < 0; y++) {
                    for (size_t x = 0; x < row && first < 0; x++)
                        if (got[(size_t)y * stride + x] != want[(size_t)y * row + x])
                            first = (long)((size_t)y * row + x);
                    for (size_t x = row; x < stride; x++) padding_ok &= got[(size_t)y * stride + x] == 0xA5;
                }
                if (!th_check(rc == 0 && first < 0 && padding_ok,
                              "%s, %d channel(s), %s set, %d threads: %s at (%ld, %ld): %d, stb %d",
                              what, channels, k->name, thread_counts[t],
                              rc ? "failed" : first >= 0 ? "differs" : "wrote the padding",
                              first < 0 ? -1L : (long)((size_t)first % row / channels),
                              first < 0 ? -1L : (long)((size_t)first / row),
                              first < 0 ? 0 : got[(size_t)first / row * stride + (size_t)first % row],
                              first < 0 ? 0 : want[first]))
                    break;
            }
        }
        free(got);
        stbi_image_free(want);
    }
}

/* ---- Making JPEGs ---- */

typedef struct {
    uint8_t *data;
    size_t size;
} bytes;

static char tmpdir[64];

static bytes read_file(const char *path)
{
    bytes b = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return b;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b.data = malloc(n > 0 ? (size_t)n : 1);
    if (b.data && fread(b.data, 1, (size_t)n, f) == (size_t)n) b.size = (size_t)n;
    fclose(f);
    return b;
}

static void write_ppm(const char *path, const uint8_t *rgb, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fprintf(f, "P6\n%d %d\n255\n", w, h);
    fwrite(rgb, 3, (size_t)w * h, f);
    fclose(f);
}

/* cjpeg's output for the source PPM with the options; size 0 on failure. */
static bytes cjpeg(const char *options)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cjpeg %s -outfile %s/out.jpg %s/src.ppm", options, tmpdir, tmpdir);
    bytes b = {0};
    if (system(cmd) != 0) return b;
    snprintf(cmd, sizeof cmd, "%s/out.jpg", tmpdir);
    return read_file(cmd);
}

/* The markers of a JPEG: offsets of each segment's 0xFF. */
static size_t find_marker(const bytes *b, size_t from, int marker)
{
    for (size_t i = from; i + 1 < b->size; i++)
        if (b->data[i] == 0xFF && b->data[i + 1] == marker) return i;
    return (size_t)-1;
}

static size_t segment_end(const bytes *b, size_t at)
{
    return at + 2 + ((size_t)b->data[at + 2] << 8 | b->data[at + 3]);
}

/* A 4-component file from a 3-component one with one scan per component
 * (baseline, SOF0): component 4 has component 1's sampling, table and
 * scan; transform < 0 adds no Adobe segment. */
static bytes add_fourth_component(const bytes *in, int transform)
{
    bytes out = {malloc(in->size * 2 + 64), 0};
    size_t sof = find_marker(in, 2, 0xC0), sof_end = segment_end(in, sof);
    size_t sos1 = find_marker(in, sof_end, 0xDA);
    size_t sos2 = find_marker(in, sos1 + 2, 0xDA);
    size_t eoi = in->size - 2;
    if (!out.data || sof == (size_t)-1 || sos1 == (size_t)-1 || sos2 == (size_t)-1 ||
        in->data[sof + 9] != 3 || in->data[sos1 + 4] != 1)
        return (bytes){0};
    uint8_t *p = out.data;
    memcpy(p, in->data, 2); /* SOI */
    p += 2;
    if (transform >= 0) {
        const uint8_t adobe[] = {0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0,
                                 (uint8_t)transform};
        memcpy(p, adobe, sizeof adobe);
        p += sizeof adobe;
    }
    memcpy(p, in->data + 2, sof - 2);
    p += sof - 2;
    /* SOF with one more component: length + 3, count 4 */
    size_t len = sof_end - sof;
    memcpy(p, in->data + sof, len);
    p[3] = (uint8_t)(p[3] + 3);
    p[9] = 4;
    memcpy(p + len, p + 10, 3); /* component 1's entry */
    p[len] = 4;                 /* its id */
    p += len + 3;
    memcpy(p, in->data + sof_end, eoi - sof_end);
    p += eoi - sof_end;
    /* the first scan once more, as component 4's */
    memcpy(p, in->data + sos1, sos2 - sos1);
    p[5] = 4;
    p += sos2 - sos1;
    p[0] = 0xFF;
    p[1] = 0xD9;
    out.size = (size_t)(p + 2 - out.data);
    return out;
}

/* A single-scan 3-component file with its APP0 and APP14 segments
 * replaced: a JFIF segment or not, an Adobe one with `transform` (or
 * none: -1), and component ids 'R', 'G', 'B' or not: the cases of stb's
 * is_rgb. */
static bytes relabel(const bytes *in, int jfif, int transform, int rgb_ids)
{
    bytes out = {malloc(in->size + 64), 0};
    if (!out.data) abort();
    uint8_t *p = out.data;
    *p++ = 0xFF;
    *p++ = 0xD8;
    if (jfif) {
        const uint8_t app0[] = {0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0};
        memcpy(p, app0, sizeof app0);
        p += sizeof app0;
    }
    if (transform >= 0) {
        const uint8_t adobe[] = {0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0,
                                 (uint8_t)transform};
        memcpy(p, adobe, sizeof adobe);
        p += sizeof adobe;
    }
    static const uint8_t ids[2][3] = {{1, 2, 3}, {'R', 'G', 'B'}};
    for (size_t at = 2; at + 4 <= in->size;) {
        int marker = in->data[at + 1];
        size_t end = segment_end(in, at);
        if (end > in->size) break;
        if (marker == 0xE0 || marker == 0xEE) {
            at = end;
            continue;
        }
        size_t len = marker == 0xDA ? in->size - at : end - at; /* a scan: the rest */
        memcpy(p, in->data + at, len);
        for (int c = 0; c < 3; c++) {
            if (marker == 0xC0 || marker == 0xC1) p[10 + 3 * c] = ids[rgb_ids][c];
            if (marker == 0xDA) p[5 + 2 * c] = ids[rgb_ids][c];
        }
        p += len;
        if (marker == 0xDA) break;
        at = end;
    }
    out.size = (size_t)(p - out.data);
    return out;
}

/* Synthetic content: gradients, edges and noise in every channel. */
static uint8_t *synthetic(int w, int h)
{
    uint8_t *rgb = malloc((size_t)w * h * 3 + 1);
    if (!rgb) abort();
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *px = rgb + 3 * ((size_t)y * w + x);
            px[0] = (uint8_t)(x * 255 / (w > 1 ? w - 1 : 1));
            px[1] = (uint8_t)((x / 5 + y / 3) % 2 ? 230 : 20);
            px[2] = (uint8_t)(y * 7 + th_rand_int(0, 40));
        }
    return rgb;
}

static const char *const samplings[] = {
    "-sample 1x1", "-sample 2x1", "-sample 1x2", "-sample 2x2", "-sample 4x1", "-sample 1x4",
    "-sample 3x2", "-sample 4x2", "-sample 2x4", "-sample 3x1", "-sample 2x2,2x1,1x1",
    "-sample 2x2,1x2,1x1", "-sample 2x1,1x2,1x1", "-sample 1x1,1x1,1x1 -rgb",
};

static void check_options(const char *options, const char *what)
{
    bytes b = cjpeg(options);
    char name[4400];
    snprintf(name, sizeof name, "%s, cjpeg %s", what, options);
    if (th_check(b.size > 0, "cjpeg %s failed", options)) check_file(b.data, b.size, name);
    free(b.data);
}

/* Every kind of file from one image. */
static void check_image(const uint8_t *rgb, int w, int h, const char *what, int all)
{
    char path[128], opts[160];
    snprintf(path, sizeof path, "%s/src.ppm", tmpdir);
    write_ppm(path, rgb, w, h);
    for (size_t s = 0; s < sizeof samplings / sizeof *samplings; s++) {
        if (!all && s % 3 != 0) continue;
        snprintf(opts, sizeof opts, "-quality %d %s", s % 2 ? 92 : 40, samplings[s]);
        check_options(opts, what);
        snprintf(opts, sizeof opts, "-quality 75 -progressive %s", samplings[s]);
        if (all) check_options(opts, what);
    }
    check_options("-grayscale -quality 80", what);
    check_options("-grayscale -progressive -quality 20", what);
    check_options("-quality 100 -sample 2x2", what);
    /* 4 components: CMYK, YCCK, YCbCr + K (no Adobe, and transform 1);
     * 3 components with Adobe transform 0 and no JFIF: RGB */
    snprintf(path, sizeof path, "%s/scans", tmpdir);
    FILE *f = fopen(path, "w");
    if (!f) abort();
    fputs("0;\n1;\n2;\n", f);
    fclose(f);
    snprintf(opts, sizeof opts, "-quality 85 -sample 2x2 -scans %s", path);
    bytes three = cjpeg(opts);
    static const int transforms[] = {0, 2, -1, 1};
    for (int t = 0; t < 4 && th_check(three.size > 0, "cjpeg %s failed", opts); t++) {
        bytes four = add_fourth_component(&three, transforms[t]);
        char name[4400];
        snprintf(name, sizeof name, "%s, 4 components, Adobe transform %d", what, transforms[t]);
        if (th_check(four.size > 0, "cannot add a component (%s)", name))
            check_file(four.data, four.size, name);
        free(four.data);
    }
    free(three.data);
    /* stb's is_rgb: ids R, G, B, or Adobe transform 0 without JFIF */
    snprintf(opts, sizeof opts, "-quality 90 -sample %s", w > 40 ? "2x1" : "1x1");
    bytes ycc = cjpeg(opts);
    static const int labels[][3] = {{1, -1, 1}, {0, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {1, 2, 1}};
    for (int l = 0; l < 6 && th_check(ycc.size > 0, "cjpeg %s failed", opts); l++) {
        bytes v = relabel(&ycc, labels[l][0], labels[l][1], labels[l][2]);
        char name[4400];
        snprintf(name, sizeof name, "%s, JFIF %d, Adobe transform %d, ids %s", what, labels[l][0],
                 labels[l][1], labels[l][2] ? "RGB" : "123");
        check_file(v.data, v.size, name);
        free(v.data);
    }
    free(ycc.data);
}

/* Process CPU time: on a shared machine, wall time counts the waits for
 * a core too (the other threads of a run with several count as well). */
static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define BENCH_RUNS 15 /* medians of 15; the fastest too, for loaded machines */

static int bench(int threads, int nfiles, char **files)
{
    for (int f = 0; f < nfiles; f++) {
        bytes b = read_file(files[f]);
        int w, h, comp;
        uint8_t *pixels = stbi_load_from_memory(b.data, (int)b.size, &w, &h, &comp, 0);
        if (!pixels) {
            fprintf(stderr, "%s: %s\n", files[f], stbi_failure_reason());
            return 1;
        }
        double t[BENCH_RUNS];
        for (int r = 0; r < BENCH_RUNS; r++) {
            stbi_image_free(pixels);
            double t0 = now_ms();
            pixels = stbi_load_from_memory(b.data, (int)b.size, &w, &h, &comp, comp);
            t[r] = now_ms() - t0;
        }
        qsort(t, BENCH_RUNS, sizeof *t, by_value);
        double mp = (double)w * h / 1e6;
        printf("%s: %dx%d, %d channel(s); stb decode %.1f ms CPU (%.2f ms/MP), fastest %.1f ms\n",
               files[f], w, h, comp, t[BENCH_RUNS / 2], t[BENCH_RUNS / 2] / mp, t[0]);
        stbi_image_free(pixels);
        uint8_t *want = stb_decode(b.data, b.size, comp, &w, &h);
        uint8_t *got = malloc((size_t)w * h * comp);
        for (int set = 0; set < N_SETS && want && got; set++) {
            const jpeg_recon_kernels *k = use_set(set);
            const char *only = getenv("BENCH_SET"); /* one set, for profiles */
            if (!k || (only && strcmp(only, k->name))) continue;
            double wall[BENCH_RUNS];
            for (int r = 0; r < BENCH_RUNS; r++) {
                double t0 = now_ms(), w0 = wall_ms();
                gi__jpeg_reconstruct(&captured, &(gi_jpeg_rows_out){.pixels = got, .stride = (size_t)w * comp, .kernels = k}, threads);
                t[r] = now_ms() - t0;
                wall[r] = wall_ms() - w0;
            }
            qsort(t, BENCH_RUNS, sizeof *t, by_value);
            qsort(wall, BENCH_RUNS, sizeof *wall, by_value);
            printf("  reconstruct, %s, %d thread(s): %.1f ms CPU (%.2f ms/MP), fastest %.1f ms; "
                   "wall %.1f ms, fastest %.1f ms%s\n",
                   k->name, threads, t[BENCH_RUNS / 2], t[BENCH_RUNS / 2] / mp, t[0],
                   wall[BENCH_RUNS / 2], wall[0],
                   memcmp(got, want, (size_t)w * h * comp) ? "  DIFFERS FROM STB" : "");
        }
        free(got);
        stbi_image_free(want);
        free(b.data);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "--bench")) return bench(atoi(argv[2]), argc - 3, argv + 3);
    th_seed();
    for (int set = 0; set <= N_SETS; set++) {
        const jpeg_recon_kernels *k = set < N_SETS ? use_set(set) : &gi__jpeg_recon_portable;
        if (!k) continue;
        printf("kernel set %s\n", k->name);
        test_idct(k);
        test_upsamplers(k);
        test_colour(k);
    }
    if (system("cjpeg -version >/dev/null 2>&1") != 0) {
        printf("cjpeg not found (libjpeg-turbo-progs): whole images not tested\n");
        th_finish();
        return 77;
    }
    strcpy(tmpdir, "/tmp/gi_recon_XXXXXX");
    if (!mkdtemp(tmpdir)) abort();

    static const int sizes[][2] = {{1, 1}, {1, 23}, {23, 1}, {2, 2}, {7, 5}, {8, 8}, {9, 17},
                                   {16, 16}, {17, 9}, {31, 29}, {33, 65}, {97, 61}, {131, 7}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        uint8_t *rgb = synthetic(sizes[i][0], sizes[i][1]);
        char what[64];
        snprintf(what, sizeof what, "synthetic %dx%d", sizes[i][0], sizes[i][1]);
        check_image(rgb, sizes[i][0], sizes[i][1], what, 1);
        free(rgb);
    }
    for (int a = 1; a < argc; a++) {
        static const char *const names[] = {"scene.png", "scene.jpg", "calla.png",
                                            "firstgeneration.jpg", "the-mouse.jpg",
                                            "warty-final-ubuntu.png"};
        for (size_t n = 0; n < sizeof names / sizeof *names; n++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], names[n]);
            if (access(path, R_OK) != 0) continue;
            int w, h;
            uint8_t *rgb = stbi_load(path, &w, &h, NULL, 3);
            if (!th_check(rgb != NULL, "cannot read %s", path)) continue;
            /* photos: a window of at most 1001 x 757 (odd sides, 95 MCU rows
             * and more: bands for 8 threads), to keep the test short */
            int cw = w < 1001 ? w : 1001, ch = h < 757 ? h : 757;
            for (int y = 0; y < ch; y++)
                memmove(rgb + (size_t)y * cw * 3,
                        rgb + ((size_t)(y + (h - ch) / 2) * w + (size_t)(w - cw) / 2) * 3,
                        (size_t)cw * 3);
            check_image(rgb, cw, ch, path, a == 1);
            stbi_image_free(rgb);
        }
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return th_finish();
}
