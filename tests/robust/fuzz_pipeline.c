/* libFuzzer target: decode, run every operation on a CPU context with
 * parameters taken from the input, and encode one result to memory.
 *
 * Input: PARAM_BYTES bytes of parameters, then the image file. Parameters
 * cover invalid values on purpose (NaN sigma, border mode 5, 0 bins, even
 * masks, ...): the library must refuse those with a status, not crash.
 * Oracles: histogram columns sum to width * height, a transform undone by
 * its inverse gives the source back, a PNG decodes to the bytes encoded. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "gpuimg.h"

/* Blur cost grows with pixels x radius: keep one run in milliseconds. */
#define FUZZ_MAX_PIXELS (1u << 14)
/* ...and with coverage instrumentation each tap costs about 100 times its
 * release time: a radius of 1000 over 16K RGBA pixels (134M taps) took 17 to
 * 50 s and read as a timeout in the campaign of 2026-11-23. Past this many
 * taps the blur is skipped; large radii still run on small images. */
#define FUZZ_MAX_BLUR_TAPS (1u << 22)
#define PARAM_BYTES 48

typedef struct {
    const uint8_t *p;
    size_t at, size;
} params;

static uint8_t next_byte(params *r)
{
    return r->at < r->size ? r->p[r->at++] : 0;
}

/* A double: either a small ordinary value or any 64-bit pattern (NaN,
 * infinities, subnormals, huge). */
static double next_double(params *r, double unit)
{
    uint8_t kind = next_byte(r);
    if (kind < 224) return (double)(int8_t)next_byte(r) * unit;
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) bits = bits << 8 | next_byte(r);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static gi_border next_border(params *r)
{
    gi_border b = {(gi_border_mode)(next_byte(r) % 6), next_byte(r)}; /* mode 5 is invalid */
    return b;
}

static gi_context *cpu_context(void)
{
    static gi_context *ctx;
    gi_context_options opts = {GI_DEVICE_CPU, 1, 0};
    if (!ctx) FUZZ_REQUIRE(gi_context_create(&ctx, &opts) == GI_OK);
    return ctx;
}

/* Runs an operation that writes an image of the given shape into *dst;
 * returns its status (and leaves *dst allocated only on success). */
typedef gi_status (*image_fn)(gi_context *, const gi_image *, gi_image *, const void *);

static gi_status run_into(gi_image *dst, int w, int h, int ch, image_fn fn, const gi_image *src,
                          const void *arg)
{
    gi_status st = gi_image_alloc(dst, w, h, ch);
    if (st == GI_OK) st = fn(cpu_context(), src, dst, arg);
    if (st != GI_OK) gi_image_free(dst);
    return st;
}

static gi_status do_blur(gi_context *c, const gi_image *s, gi_image *d, const void *a)
{
    return gi_blur(c, s, d, a);
}

static gi_status do_sobel(gi_context *c, const gi_image *s, gi_image *d, const void *a)
{
    return gi_sobel(c, s, d, a);
}

static gi_status do_convolve(gi_context *c, const gi_image *s, gi_image *d, const void *a)
{
    return gi_convolve(c, s, d, a);
}

static gi_status do_transform(gi_context *c, const gi_image *s, gi_image *d, const void *a)
{
    return gi_transform_image(c, s, d, *(const gi_transform *)a);
}

static int same_pixels(const gi_image *a, const gi_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels) return 0;
    size_t row = (size_t)a->width * (size_t)a->channels;
    for (int y = 0; y < a->height; y++)
        if (memcmp(a->data + a->stride * y, b->data + b->stride * y, row)) return 0;
    return 1;
}

static void blur(params *r, const gi_image *src, gi_image *out)
{
    gi_blur_params p;
    gi_blur_params_default(&p);
    p.kernel = (gi_blur_kernel)(next_byte(r) % 3); /* 2 is invalid */
    p.sigma = next_double(r, 0.25);
    uint8_t radius = next_byte(r);
    p.radius = radius >= 250 ? 1000 + (radius - 250) * 10 /* past the maximum too */
               : radius >= 200 ? -1 - (radius & 1)          /* auto, or invalid -2 */
                               : radius % 40;
    p.border = next_border(r);
    double taps = (2.0 * gi_blur_radius(&p) + 1) * src->width * src->height * src->channels;
    if (taps > FUZZ_MAX_BLUR_TAPS) return;
    run_into(out, src->width, src->height, src->channels, do_blur, src, &p);
}

static void sobel(params *r, const gi_image *src, gi_image *out)
{
    gi_sobel_params p;
    gi_sobel_params_default(&p);
    p.scale = next_double(r, 1.0 / 16);
    uint8_t flags = next_byte(r);
    p.use_threshold = flags & 1;
    p.gray = (flags >> 1) & 1;
    p.threshold = next_double(r, 4.0);
    p.border = next_border(r);
    int w, h, ch;
    gi_sobel_size(src, &p, &w, &h, &ch);
    run_into(out, w, h, ch, do_sobel, src, &p);
}

static void convolve(params *r, const gi_image *src, gi_image *out)
{
    static double mask[GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE];
    gi_convolve_params p = {0};
    p.width = next_byte(r) % 34;  /* even sizes, 0, 32 and 33 are invalid */
    p.height = next_byte(r) % 34;
    p.normalize = next_byte(r) & 1;
    p.border = next_border(r);
    uint8_t seed[8];
    for (int i = 0; i < 8; i++) seed[i] = next_byte(r);
    for (int i = 0; i < GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE; i++)
        mask[i] = (int8_t)(seed[i % 8] ^ (uint8_t)(i * 37)) / 8.0;
    if (seed[0] == 0xff) mask[seed[1] % 9] = NAN;
    if (seed[0] == 0xfe) mask[0] = 1e300;
    p.mask = mask;
    run_into(out, src->width, src->height, src->channels, do_convolve, src, &p);
}

static gi_transform inverse(gi_transform t)
{
    return t == GI_ROTATE_90 ? GI_ROTATE_270 : t == GI_ROTATE_270 ? GI_ROTATE_90 : t;
}

static void transform(params *r, const gi_image *src, gi_image *out)
{
    gi_transform t = (gi_transform)(next_byte(r) % 7); /* 6 is invalid */
    int w, h;
    gi_transform_size(src, t, &w, &h);
    if (run_into(out, w, h, src->channels, do_transform, src, &t) != GI_OK) return;
    gi_transform back = inverse(t);
    gi_image again;
    FUZZ_REQUIRE(run_into(&again, src->width, src->height, src->channels, do_transform, out,
                          &back) == GI_OK);
    FUZZ_REQUIRE(same_pixels(&again, src));
    gi_image_free(&again);
}

static void hist(params *r, const gi_image *src)
{
    static gi_histogram h;
    int bins = next_byte(r) + (next_byte(r) & 1); /* 0 and 256 included */
    if (gi_hist(cpu_context(), src, bins, &h) != GI_OK) return;
    FUZZ_REQUIRE(h.channels == src->channels && h.bins == bins);
    for (int c = 0; c < h.channels; c++) {
        uint64_t total = 0;
        for (int b = 0; b < bins; b++) total += h.counts[c][b];
        FUZZ_REQUIRE(total == (uint64_t)src->width * (uint64_t)src->height);
    }
}

/* PNM keeps the colour samples (the first channel of gray, the first three
 * of colour) and drops alpha. */
static int same_colour(const gi_image *back, const gi_image *img)
{
    if (back->channels != (img->channels <= 2 ? 1 : 3)) return 0;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < back->channels; c++)
                if (back->data[back->stride * y + (size_t)x * back->channels + c] !=
                    img->data[img->stride * y + (size_t)x * img->channels + c])
                    return 0;
    return 1;
}

/* Encodes to memory; a lossless format must decode to exactly the pixels
 * encoded (PNM: without alpha), a JPEG to three channels. */
static void encode(params *r, const gi_image *img)
{
    gi_save_options opts = {.format = (gi_format)(next_byte(r) % 7), /* 0, 6: invalid */
                            .jpeg_quality = next_byte(r) % 104};
    opts.png_level = 1 + next_byte(r) % 12;
    opts.png_filter = (gi_png_filter)(next_byte(r) % 6 + GI_PNG_FILTER_AUTO); /* auto, then the five */
    uint8_t *bytes;
    size_t size;
    if (gi_encode(img, &opts, &bytes, &size) != GI_OK) return;
    gi_image back;
    FUZZ_REQUIRE(gi_load_memory(&back, bytes, size, "encoded", NULL) == GI_OK);
    FUZZ_REQUIRE(back.width == img->width && back.height == img->height);
    if (opts.format == GI_FORMAT_PNG || opts.format == GI_FORMAT_PAM ||
        opts.format == GI_FORMAT_TIFF)
        FUZZ_REQUIRE(same_pixels(&back, img));
    else if (opts.format == GI_FORMAT_PNM) FUZZ_REQUIRE(same_colour(&back, img));
    else FUZZ_REQUIRE(back.channels == 3);
    gi_image_free(&back);
    gi_free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < PARAM_BYTES) return 0;
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    limits.max_pixels = FUZZ_MAX_PIXELS;
    gi_image src;
    if (gi_load_memory(&src, data + PARAM_BYTES, size - PARAM_BYTES, "fuzz-input", &limits))
        return 0;
    params r = {data, 0, PARAM_BYTES};
    gi_image results[4] = {{0}};
    blur(&r, &src, &results[0]);
    sobel(&r, &src, &results[1]);
    convolve(&r, &src, &results[2]);
    transform(&r, &src, &results[3]);
    hist(&r, &src);
    uint8_t pick = next_byte(&r) % 5;
    encode(&r, pick < 4 && results[pick].data ? &results[pick] : &src);
    for (int i = 0; i < 4; i++) gi_image_free(&results[i]);
    gi_image_free(&src);
    return 0;
}
