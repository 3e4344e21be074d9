/* The exact JPEG decoder against stb_image 2.27, both halves:
 *  - the entropy half (lib/codec/jpeg/jpeg_parse.c, jpeg_entropy.c, its
 *    restart intervals on 1 to 4 threads): every
 *    coefficient block stb hands its IDCT (baseline blocks while decoding,
 *    progressive ones in stbi__jpeg_finish), captured by replacing stb's
 *    idct_block_kernel, must equal ours times the quantizer (16-bit wrap,
 *    as stb multiplies);
 *  - the whole decoder (jpeg_decode.c, with the arithmetic half of
 *    jpeg_reconstruct.c on 1 to 4 threads and the instruction set
 *    GPUIMG_CPU_ISA picks): stb's pixels, byte for byte, as gpuimg asks
 *    for them (stb's channel count).
 * A file we leave to stb ("not mine") is fine; one we decode where stb
 * fails is not.
 *
 *   test_jpeg_decode [-s] FILE|DIR... [-a FILE|DIR...]
 *
 * Each file (in a folder: each that starts as a JPEG does) is checked
 * whole, then cut short at many points and with bytes of its entropy-coded
 * data changed (seeded: GPUIMG_SEED), where the same rule holds, and (files
 * of several scans) with segments inserted before the last scan. After -s
 * (strict, the default) every whole file must be ours but those whose name
 * ends in ".stb.jpg" (arithmetic coding: stb refuses them, and we leave
 * them to it); after -a (any: the bad-input corpus) either is fine. */
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#include "codec/stb_warnings.h"
GI_STB_WARNINGS_OFF
#include <stb_image.h>
GI_STB_WARNINGS_ON
/* stb declares static functions that STBI_ONLY_JPEG leaves undefined; the
 * warning comes at the end of the file. */
#pragma GCC diagnostic ignored "-Wunused-function"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "gpuimg.h"
#include "codec/jpeg/jpeg_decode.h"
#include "codec/jpeg/jpeg_parse.h"

/* ---- stb's coefficients ---- */

typedef struct {
    int16_t *blocks[4]; /* per component, on stb's grid of w2/8 x h2/8 blocks */
    uint8_t *seen[4];
    int bw[4], bh[4];
} capture;

static capture cap;
static stbi__jpeg *cap_jpeg;
static void (*stb_idct)(stbi_uc *out, int out_stride, short data[64]); /* the one stb picked */

static void capture_idct(stbi_uc *out, int out_stride, short data[64])
{
    stbi__jpeg *j = cap_jpeg;
    for (int n = 0; n < j->s->img_n; n++) {
        stbi_uc *base = j->img_comp[n].data;
        if (!base || out < base || out >= base + (size_t)j->img_comp[n].w2 * j->img_comp[n].h2)
            continue;
        if (!cap.blocks[n]) {
            cap.bw[n] = j->img_comp[n].w2 / 8;
            cap.bh[n] = j->img_comp[n].h2 / 8;
            cap.blocks[n] = calloc((size_t)cap.bw[n] * cap.bh[n], 64 * sizeof(int16_t));
            cap.seen[n] = calloc((size_t)cap.bw[n] * cap.bh[n], 1);
            if (!cap.blocks[n] || !cap.seen[n]) abort();
        }
        size_t off = (size_t)(out - base);
        size_t by = off / (size_t)out_stride / 8, bx = off % (size_t)out_stride / 8;
        size_t b = by * (size_t)cap.bw[n] + bx;
        memcpy(cap.blocks[n] + 64 * b, data, 64 * sizeof(int16_t));
        cap.seen[n][b] = 1;
        break;
    }
    stb_idct(out, out_stride, data);
}

static void capture_free(void)
{
    for (int n = 0; n < 4; n++) {
        free(cap.blocks[n]);
        free(cap.seen[n]);
    }
    memset(&cap, 0, sizeof cap);
}

/* stb's decode as gpuimg asks for it (stbi__jpeg_load with `channels`),
 * with the IDCT's input captured. Returns stb's pixels, NULL when it
 * refuses the file. */
static uint8_t *stb_decode(const uint8_t *bytes, size_t size, int channels, int *w, int *h)
{
    stbi__context s;
    stbi__start_mem(&s, bytes, (int)size);
    stbi__jpeg *j = malloc(sizeof *j);
    if (!j) abort();
    j->s = &s;
    stbi__setup_jpeg(j);
    stb_idct = j->idct_block_kernel;
    j->idct_block_kernel = capture_idct;
    cap_jpeg = j;
    int comp;
    uint8_t *pixels = load_jpeg_image(j, w, h, &comp, channels);
    free(j);
    return pixels;
}

/* ---- comparison ---- */

typedef struct {
    int files, ours, left, cut_ours, cut_left;
} tally;

/* 0 when every block stb decoded is ours times the quantizer. */
static int compare(const char *name, const gi_jpeg_coeffs *c)
{
    for (int n = 0; n < c->ncomp; n++) {
        const gi_jpeg_plane *pl = &c->plane[n];
        if (!cap.blocks[n] || cap.bw[n] != pl->blocks_w || cap.bh[n] != pl->blocks_h) {
            fprintf(stderr, "%s: component %d: stb's grid differs\n", name, n);
            return -1;
        }
        int need_w = (pl->width + 7) >> 3, need_h = (pl->height + 7) >> 3;
        for (int by = 0; by < pl->blocks_h; by++)
            for (int bx = 0; bx < pl->blocks_w; bx++) {
                size_t b = (size_t)by * pl->blocks_w + bx;
                if (!cap.seen[n][b]) {
                    if (bx < need_w && by < need_h) {
                        fprintf(stderr, "%s: component %d block %d,%d: stb never decoded it\n",
                                name, n, bx, by);
                        return -1;
                    }
                    continue;
                }
                const int16_t *ours = pl->coeffs + 64 * b, *theirs = cap.blocks[n] + 64 * b;
                for (int i = 0; i < 64; i++) {
                    int16_t v = (int16_t)(uint16_t)((uint32_t)(uint16_t)ours[i] * c->quant[pl->tq][i]);
                    if (v != theirs[i]) {
                        fprintf(stderr, "%s: component %d block %d,%d coefficient %d: ours %d (x%u = %d), stb %d\n",
                                name, n, bx, by, i, ours[i], c->quant[pl->tq][i], v, theirs[i]);
                        return -1;
                    }
                }
            }
    }
    return 0;
}

static int threads_next = 1;

/* Our pixels equal stb's, byte for byte. */
static int compare_pixels(const char *name, const uint8_t *bytes, size_t size,
                          const uint8_t *theirs, int w, int h, int channels)
{
    gi_image img;
    int threads = threads_next;
    threads_next = threads_next % 4 + 1;
    if (!gi__jpeg_decode(&img, bytes, size, 1ull << 32, threads)) {
        fprintf(stderr, "%s: the coefficients were ours, the decode is not\n", name);
        return -1;
    }
    int result = 0;
    if (img.width != w || img.height != h || img.channels != channels) {
        fprintf(stderr, "%s: %dx%dx%d, stb %dx%dx%d\n", name, img.width, img.height, img.channels,
                w, h, channels);
        result = -1;
    } else {
        size_t row = (size_t)w * (size_t)channels;
        for (int y = 0; y < h && result == 0; y++)
            for (size_t x = 0; x < row; x++)
                if (img.data[(size_t)y * img.stride + x] != theirs[(size_t)y * row + x]) {
                    fprintf(stderr, "%s: pixel %zu,%d channel %zu: ours %d, stb %d (%d threads)\n",
                            name, x / (size_t)channels, y, x % (size_t)channels,
                            img.data[(size_t)y * img.stride + x], theirs[(size_t)y * row + x],
                            threads);
                    result = -1;
                    break;
                }
    }
    gi_image_free(&img);
    return result;
}

/* One input: 1 ours and equal to stb, 0 left to stb, -1 a failure. */
static int check_bytes(const char *name, const uint8_t *bytes, size_t size)
{
    gi_jpeg_coeffs c;
    int threads = threads_next;
    threads_next = threads_next % 4 + 1;
    int r = gi__jpeg_read_coeffs(bytes, size, 1ull << 32, threads, 0, 0, NULL, &c);
    if (r == GI_JPEG_NO_MEMORY) {
        fprintf(stderr, "%s: out of memory\n", name);
        return -1;
    }
    if (r == GI_JPEG_NOT_MINE) return 0;
    int w, h, result = 1;
    uint8_t *pixels = stb_decode(bytes, size, c.out_channels, &w, &h);
    if (!pixels) {
        fprintf(stderr, "%s: we decoded it, stb refuses it (%s)\n", name, stbi_failure_reason());
        result = -1;
    } else if (compare(name, &c) < 0 ||
               compare_pixels(name, bytes, size, pixels, w, h, c.out_channels) < 0) {
        result = -1;
    }
    stbi_image_free(pixels);
    capture_free();
    gi__jpeg_coeffs_free(&c);
    return result;
}

static uint32_t next_random(void)
{
    return (uint32_t)th_rand64();
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The file whole, then (files up to 1 MB, so that photos stay quick) cut
 * short at 40 points, and 40 copies with one to three changed bytes past
 * the first quarter (mostly entropy-coded data). */
/* The file with `seg` (n bytes) inserted before its last scan's SOS. The
 * segments are walked by their lengths (an Exif thumbnail inside APP1 holds
 * SOS markers of its own), and a scan's entropy-coded data up to the next
 * marker that is neither a stuffed 0xFF nor a restart. NULL when the file
 * has one scan, or no DQT to copy when seg is NULL (then the first DQT
 * segment is inserted). */
static uint8_t *insert_before_last_scan(const uint8_t *b, size_t size, const uint8_t *seg,
                                        size_t n, size_t *out_size)
{
    size_t first = 0, last = 0, dqt = 0;
    for (size_t i = 2; i + 3 < size && b[i] == 0xFF && b[i + 1] != 0xD9;) {
        size_t len = (size_t)b[i + 2] << 8 | b[i + 3];
        if (b[i + 1] == 0xDB && !dqt && !first) dqt = i;
        if (b[i + 1] != 0xDA) {
            i += 2 + len;
            continue;
        }
        if (!first) first = i;
        last = i;
        for (i += 2 + len; i + 1 < size; i++)
            if (b[i] == 0xFF && b[i + 1] != 0 && !(b[i + 1] >= 0xD0 && b[i + 1] <= 0xD7)) break;
    }
    if (!seg && dqt) {
        seg = b + dqt;
        n = 2 + ((size_t)b[dqt + 2] << 8 | b[dqt + 3]);
    }
    if (last == first || !seg) return NULL;
    uint8_t *out = malloc(size + n);
    if (!out) abort();
    memcpy(out, b, last);
    memcpy(out + last, seg, n);
    memcpy(out + last + n, b + last, size - last);
    *out_size = size + n;
    return out;
}

/* Segments between scans (files of several scans): a comment and an
 * Adobe segment are ours (and stb's values); the first DQT again (a table
 * a scan used, redefined, even to the same values) is left to stb, and so
 * are fill bytes between the last scan's data and the EOI (stb may read
 * one as the marker). */
static void check_between_scans(const char *path, const uint8_t *bytes, size_t size)
{
    static const uint8_t com[] = {0xFF, 0xFE, 0x00, 0x05, 'h', 'i', '!'};
    static const uint8_t adobe[] = {0xFF, 0xEE, 0x00, 0x0E, 'A', 'd', 'o', 'b',
                                    'e',  0,    100,  0,    0,   0,   0,   2};
    static const uint8_t fill[] = {0xFF, 0xFF};
    const struct {
        const uint8_t *seg;
        size_t n;
        int ours;
        const char *what;
    } cases[] = {{com, sizeof com, 1, "a comment"},
                 {adobe, sizeof adobe, 1, "an Adobe segment"},
                 {NULL, 0, 0, "the first DQT again"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        uint8_t *changed = insert_before_last_scan(bytes, size, cases[i].seg, cases[i].n, &n);
        if (!changed) continue; /* one scan */
        int r = check_bytes(path, changed, n);
        th_check(r == cases[i].ours, "%s with %s before its last scan: %s", path, cases[i].what,
                 r < 0 ? "differs from stb" : r ? "ours" : "left to stb");
        free(changed);
    }
    if (size < 4 || bytes[size - 2] != 0xFF || bytes[size - 1] != 0xD9) return;
    uint8_t *filled = malloc(size + sizeof fill);
    if (!filled) abort();
    memcpy(filled, bytes, size - 2);
    memcpy(filled + size - 2, fill, sizeof fill);
    memcpy(filled + size - 2 + sizeof fill, bytes + size - 2, 2);
    int r = check_bytes(path, filled, size + sizeof fill);
    th_check(r == 0, "%s with fill bytes before its EOI: %s", path,
             r < 0 ? "differs from stb" : r ? "ours" : "left to stb");
    free(filled);
}

static void check_file(const char *path, int strict, tally *t)
{
    FILE *f = fopen(path, "rb");
    th_check(f != NULL, "%s: cannot open", path);
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = malloc((size_t)size + 1);
    th_check(bytes && fread(bytes, 1, (size_t)size, f) == (size_t)size, "%s: cannot read", path);
    fclose(f);
    if (!bytes) return;
    if (size < 2 || bytes[0] != 0xFF || bytes[1] != 0xD8) {
        free(bytes);
        return;
    }
    t->files++;
    int r = check_bytes(path, bytes, (size_t)size);
    int expect_left = ends_with(path, ".stb.jpg");
    th_check(r >= 0, "%s: differs from stb", path);
    if (strict) {
        th_check(r != 0 || expect_left, "%s: left to stb", path);
        th_check(r != 1 || !expect_left, "%s: expected to be left to stb", path);
    }
    if (r == 1) t->ours++;
    else t->left++;
    if (strict && r == 1) check_between_scans(path, bytes, (size_t)size);
    uint8_t *copy = malloc((size_t)size + 1);
    for (int i = 0; i < 40 && size > 2 && size <= (1 << 20); i++) {
        size_t cut = i < 8 ? (size_t)size - 1 - (size_t)i : next_random() % (size_t)size;
        r = check_bytes(path, bytes, cut);
        th_check(r >= 0, "%s cut to %zu bytes: differs from stb", path, cut);
        if (r == 1) t->cut_ours++;
        else t->cut_left++;
        memcpy(copy, bytes, (size_t)size);
        int changes = 1 + (int)(next_random() % 3);
        for (int k = 0; k < changes; k++) {
            size_t at = (size_t)size / 4 + next_random() % ((size_t)size - (size_t)size / 4);
            copy[at] = (uint8_t)next_random();
        }
        r = check_bytes(path, copy, (size_t)size);
        th_check(r >= 0, "%s changed (case %d): differs from stb", path, i);
        if (r == 1) t->cut_ours++;
        else t->cut_left++;
    }
    free(copy);
    free(bytes);
}

static void check_path(const char *path, int strict, tally *t)
{
    struct stat st;
    if (stat(path, &st) != 0) return; /* the photos' folder is not everywhere */
    if (!S_ISDIR(st.st_mode)) {
        check_file(path, strict, t);
        return;
    }
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        if (e->d_name[0] != '.' && stat(full, &st) == 0 && S_ISREG(st.st_mode))
            check_file(full, strict, t);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    tally t = {0};
    int strict = 1;
    th_seed();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 || strcmp(argv[i], "-a") == 0) strict = argv[i][1] == 's';
        else check_path(argv[i], strict, &t);
    }
    printf("%d files: %d ours, %d left to stb; damaged copies: %d ours, %d left to stb\n",
           t.files, t.ours, t.left, t.cut_ours, t.cut_left);
    th_check(t.files > 0, "no JPEG files found");
    return th_finish();
}
