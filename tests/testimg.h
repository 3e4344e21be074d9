/* testimg.h - images for tests: random content, padded strides, compares.
 *
 * Every image made here has a random row padding (stride > width * channels
 * most of the time) filled with a sentinel byte, so tests exercise strides
 * and can check that an operation never writes outside its pixels: a
 * destination may be a view into a larger buffer.
 */
#ifndef TESTS_TESTIMG_H
#define TESTS_TESTIMG_H

#include <gpuimg.h>

#define TI_SENTINEL 0xA5

/* Uninitialised-looking pixels (all sentinel) with random padding. */
gi_image ti_blank(int width, int height, int channels);
/* Random pixels; alpha is 0, 255 or anything with equal odds, so both
 * transparent and opaque neighbourhoods occur. */
gi_image ti_random(int width, int height, int channels);
/* The same pixels in a new buffer (with its own random padding). */
gi_image ti_copy(const gi_image *src);
void ti_free(gi_image *img);

static inline uint8_t *ti_px(const gi_image *img, int x, int y)
{
    return img->data + (size_t)y * img->stride + (size_t)x * (size_t)img->channels;
}

/* 1 when no byte between width * channels and stride was touched. */
int ti_padding_intact(const gi_image *img);
/* Compares size, channels and pixels. Returns 1 when equal; otherwise 0
 * and a description of the first difference in `why`. */
int ti_same(const gi_image *a, const gi_image *b, char *why, size_t why_size);

/* The names (not paths) of dir's *.jpg and *.JPG files, in strcmp order,
 * at most max, each strdup'ed for the caller to free; 0 when dir cannot be
 * opened (folders such as the photos may be absent). */
int ti_jpeg_names(const char *dir, char **names, int max);

/* Calls check(path, arg) for each .jpg in dir, taken from both ends of the
 * sorted names in turn, so that sizes and kinds alternate (i1-*, large-*,
 * size*): a device buffer reused without being written shows the previous
 * file's data. */
void ti_each_jpeg_alternating(const char *dir, void (*check)(const char *path, void *arg),
                              void *arg);

/* Calls check(path, arg) for each .jpg, .jpeg and .png in dir (any
 * case), then prints how many; a dir that is absent is skipped with a
 * line saying so (folders such as the photos may be absent). */
void ti_each_image(const char *dir, void (*check)(const char *path, void *arg), void *arg);

/* The JPEG path's test job: one blur, sigma 2, into *step and *job (which
 * points at it); format: the output's (GI_FORMAT_AUTO: the input's). */
void ti_blur_job(gi_job *job, gi_op *step, gi_format format);

/* The CRC-32 a PNG chunk carries over p[0..n) (its type and data), for
 * tests that build PNG files byte by byte. */
uint32_t ti_crc32(const uint8_t *p, size_t n);

/* Patterned pixels for the writers' tests (a JPEG's coefficients, a PNG
 * row filter's choice): random, smooth gradients, noisy ramps (close
 * sums and small coefficients, where an ulp or a tie decides), flat
 * colours and 0/255 checkerboards; the row padding random too, which a
 * writer must never read into its output. */
typedef enum { TI_RANDOM, TI_GRADIENT, TI_NOISY, TI_FLAT, TI_CHECKER, TI_PATTERNS } ti_pattern;
extern const char *const ti_pattern_name[TI_PATTERNS];
gi_image ti_patterned(ti_pattern k, int width, int height, int channels);

/* Encoded bytes gathered through an stb-style write callback
 * (ti_bytes_append(context = a ti_bytes, data, size)); free data. */
typedef struct {
    uint8_t *data;
    size_t size, cap;
} ti_bytes;
void ti_bytes_append(void *context, void *data, int size);
/* The offset of the first byte where two encodings differ, or -1. */
long ti_first_difference(const uint8_t *a, size_t na, const uint8_t *b, size_t nb);

/* A CPU context with `threads` workers (0 = one per core); aborts on failure. */
gi_context *ti_cpu_context(int threads);

#endif
