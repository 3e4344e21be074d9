/* A gi_image as a TIFF: strips of about 256 KiB, deflate with the
 * horizontal predictor or uncompressed, alpha as an unassociated extra
 * sample, and the ICC profile, XMP packet and orientation of the metadata
 * in their tags.
 *
 * With libdeflate the strips are predicted and compressed here, on the
 * encode's threads, and handed to libtiff as they are
 * (TIFFWriteRawStrip): libtiff's own deflate is zlib's, on one thread,
 * and took 10.4 s for a 24 MP 16-bit RGB photo on the 2-core machine.
 * A strip goes through deflate_runs.h (literals, and runs a byte, a
 * sample or a pixel back), or through libdeflate (level 1) where that
 * one's search for matches pays (group_coder). Each strip is one zlib
 * stream, so the bytes do not depend on the thread count. Without
 * libdeflate, libtiff compresses each strip. */
#include <stdlib.h>
#include <string.h>

#ifdef GPUIMG_HAVE_LIBDEFLATE
#include <libdeflate.h>

#include "deflate_runs.h"
#endif

#include "gi_tiff.h"
#include "tiff_memory.h"
#include "base/gi_error.h"
#include "base/share_work.h"

/* Rows a strip: about STRIP_BYTES of samples, at least one row. Large
 * enough that deflate finds its matches and the strip table stays short,
 * small enough that a reader can decode part of the image. */
#define STRIP_BYTES (256u << 10)

/* libdeflate's level for the strips: a blurred 24 MP 16-bit RGB photo
 * with noise in its low bits, on the 2-core machine's two threads, took
 * 0.68-0.91 s at level 1 (60.8 MB) against 1.4-1.7 s at level 3 (59.3
 * MB): 2.5% larger for half the time. */
#define TIFF_DEFLATE_LEVEL 1

/* The image's strips, predicted and compressed by the threads that share
 * them (strip_job). */
typedef struct {
    const gi_image *img;
    size_t row_bytes;
    uint32_t rows, count; /* rows a strip, strips */
    int depth, channels, swap;
    int deflate;          /* 0: uncompressed */
    int next, failed;     /* the next strip to take; a thread ran out of memory */
    uint8_t *coder;       /* each group of GROUP_STRIPS strips' coder: 0 not chosen yet,
                             RUNS or LZ (group_coder) */
    uint8_t **data;       /* each strip's zlib stream, malloc'ed */
    size_t *size;
} strip_job;

/* The rows of strip s (the last may be short). */
static uint32_t strip_rows(const strip_job *j, uint32_t s)
{
    const uint32_t y = s * j->rows, h = (uint32_t)j->img->height;
    return h - y < j->rows ? h - y : j->rows;
}

/* libtiff encodes each strip (uncompressed, or deflate where the build has
 * no libdeflate) from a copy: it works in place on the strip it is given
 * (the predictor, the byte order), and the caller's pixels stay as they
 * are. 1, or 0 when out of memory or libtiff failed (its message in the
 * TIFF's error). */
static int write_strips_by_libtiff(TIFF *tif, const strip_job *j)
{
    uint8_t *strip = malloc(j->row_bytes * j->rows);
    int ok = strip != NULL;
    for (uint32_t s = 0; ok && s < j->count; s++) {
        const uint32_t n = strip_rows(j, s);
        for (uint32_t r = 0; r < n; r++)
            memcpy(strip + (size_t)r * j->row_bytes,
                   j->img->data + (size_t)(s * j->rows + r) * j->img->stride, j->row_bytes);
        ok = TIFFWriteEncodedStrip(tif, s, strip, (tmsize_t)(j->row_bytes * n)) >= 0;
    }
    free(strip);
    return ok;
}

#ifdef GPUIMG_HAVE_LIBDEFLATE
/* One row with the horizontal predictor: each sample less the same
 * channel's sample of the pixel before, modulo 2^depth, the first pixel
 * as it is (TIFF 6.0, section 14); 16-bit samples byte-swapped after,
 * where the file's byte order is not the host's. */
static void predict_row(const strip_job *j, const uint8_t *src, uint8_t *dst)
{
    const size_t ch = (size_t)j->channels;
    if (j->depth == 8) {
        for (size_t i = 0; i < ch && i < j->row_bytes; i++) dst[i] = src[i];
        for (size_t i = ch; i < j->row_bytes; i++) dst[i] = (uint8_t)(src[i] - src[i - ch]);
        return;
    }
    const size_t n = j->row_bytes / 2;
    uint16_t *d = (uint16_t *)dst;
    const uint16_t *s = (const uint16_t *)src;
    for (size_t i = 0; i < ch && i < n; i++) d[i] = s[i];
    for (size_t i = ch; i < n; i++) d[i] = (uint16_t)(s[i] - s[i - ch]);
    if (j->swap)
        for (size_t i = 0; i < n; i++) d[i] = (uint16_t)(d[i] << 8 | d[i] >> 8);
}

/* The first `rows` rows of strip s, predicted, one after another into dst. */
static void predict_rows(const strip_job *j, uint32_t s, uint32_t rows, uint8_t *dst)
{
    for (uint32_t r = 0; r < rows; r++)
        predict_row(j, j->img->data + (size_t)(s * j->rows + r) * j->img->stride,
                    dst + (size_t)r * j->row_bytes);
}

/* Whether deflate_runs codes a group of GROUP_STRIPS strips: where it
 * makes the first SAMPLE_BYTES of the group's first strip no more than
 * 1/RUNS_SLACK larger than libdeflate level 1 does (so the choice depends
 * on those bytes alone, whichever thread makes it). On the 2-core
 * machine, the strips of 24 MP 16-bit RGB photos
 *   as taken: 0.668 of their size at 1.1 GB/s, against 0.649 at 133 MB/s;
 *   blurred (sigma 2): 0.475 at 510 MB/s, against 0.463 at 231 MB/s;
 * and of a smooth render with noise of 2 in 65535, where libdeflate's
 * search finds the short repeats a run does not: 0.444 against 0.348.
 * A sample of 8 KiB for each strip (not 16) made 8 blurred photos 4%
 * faster for 0.06% in size; one for each group of eight strips made 8
 * smooth renders, all of whose strips libdeflate codes, 3-4% faster (as
 * fast as libdeflate alone) and 8 blurred photos 3% faster. */
#define SAMPLE_BYTES ((size_t)8 << 10)
#define RUNS_SLACK 20
#define GROUP_STRIPS 8
enum { RUNS = 1, LZ = 2 };

/* The rows of a strip a sample needs. */
static uint32_t sample_rows(const strip_job *j)
{
    const uint32_t r = (uint32_t)((SAMPLE_BYTES + j->row_bytes - 1) / j->row_bytes);
    return r < j->rows ? r : j->rows;
}

/* The coder of strip s's group, chosen here where no thread has yet.
 * sample: room for sample_rows rows; out: for cap bytes. */
static int group_coder(strip_job *j, uint32_t s, struct libdeflate_compressor *c,
                       const uint32_t *dist, int nd, uint8_t *sample, uint8_t *out, size_t cap)
{
    const uint32_t g = s / GROUP_STRIPS, first = g * GROUP_STRIPS;
    int coder = __atomic_load_n(&j->coder[g], __ATOMIC_RELAXED);
    if (coder) return coder;
    const uint32_t most = sample_rows(j), rows = most < strip_rows(j, first) ? most : strip_rows(j, first);
    predict_rows(j, first, rows, sample);
    size_t n = rows * j->row_bytes;
    if (n > SAMPLE_BYTES) n = SAMPLE_BYTES;
    const size_t lz = libdeflate_zlib_compress(c, sample, n, out, cap);
    const size_t runs = gi__deflate_runs(sample, n, dist, nd, out, cap);
    coder = runs && runs <= lz + lz / RUNS_SLACK ? RUNS : LZ;
    __atomic_store_n(&j->coder[g], (uint8_t)coder, __ATOMIC_RELAXED);
    return coder;
}

/* The distances deflate_runs looks back at: a byte (zeros), a sample and
 * a pixel. Not a row: its distance costs 10-13 extra bits a run, and with
 * it the blurred photo's strips below came to 0.489 of their size. */
static int run_distances(const strip_job *j, uint32_t *d)
{
    d[0] = 1;
    d[1] = (uint32_t)(j->depth / 8);
    d[2] = (uint32_t)(j->channels * j->depth / 8);
    return 3;
}

static void compress_strips(strip_job *j, struct libdeflate_compressor *c, uint8_t *predicted,
                            uint8_t *sample)
{
    const size_t lz_bound = libdeflate_zlib_compress_bound(c, j->row_bytes * j->rows),
                 runs_bound = gi__deflate_runs_bound(j->row_bytes * j->rows),
                 bound = lz_bound > runs_bound ? lz_bound : runs_bound;
    uint32_t dist[GI_DEFLATE_RUNS_MAX_DISTANCES];
    const int nd = run_distances(j, dist);
    for (;;) {
        const int s = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if ((uint32_t)s >= j->count || __atomic_load_n(&j->failed, __ATOMIC_RELAXED)) return;
        const uint32_t n = strip_rows(j, (uint32_t)s);
        predict_rows(j, (uint32_t)s, n, predicted);
        const size_t bytes = (size_t)n * j->row_bytes;
        uint8_t *out = malloc(bound);
        const size_t z = !out ? 0
                         : group_coder(j, (uint32_t)s, c, dist, nd, sample, out, bound) == RUNS
                             ? gi__deflate_runs(predicted, bytes, dist, nd, out, bound)
                             : libdeflate_zlib_compress(c, predicted, bytes, out, bound);
        if (z == 0) { /* no memory (a bound that is too small cannot happen) */
            free(out);
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
            return;
        }
        uint8_t *fit = realloc(out, z);
        j->data[s] = fit ? fit : out;
        j->size[s] = z;
    }
}

static void *strip_worker(void *arg)
{
    strip_job *j = arg;
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(TIFF_DEFLATE_LEVEL);
    uint8_t *predicted = c ? malloc(j->row_bytes * j->rows) : NULL;
    uint8_t *sample = predicted ? malloc(j->row_bytes * sample_rows(j)) : NULL;
    if (sample) compress_strips(j, c, predicted, sample);
    free(sample);
    free(predicted);
    if (c) libdeflate_free_compressor(c);
    return NULL; /* a thread without memory leaves its share to the others */
}

/* Writes every strip, deflate ones compressed on up to `threads` threads:
 * 1, or 0 when out of memory or libtiff failed (its message in the TIFF's
 * error). */
static int write_strips(TIFF *tif, strip_job *j, int threads)
{
    if (!j->deflate) return write_strips_by_libtiff(tif, j);
    j->data = calloc(j->count, sizeof *j->data);
    j->size = calloc(j->count, sizeof *j->size);
    j->coder = calloc(j->count / GROUP_STRIPS + 1, 1);
    int ok = j->data && j->size && j->coder;
    if (ok) {
        gi__share_work(threads < 1 ? 1 : threads > (int)j->count ? (int)j->count : threads,
                       strip_worker, j);
        for (uint32_t s = 0; ok && s < j->count; s++)
            ok = j->data[s] && TIFFWriteRawStrip(tif, s, j->data[s], (tmsize_t)j->size[s]) >= 0;
    }
    for (uint32_t s = 0; j->data && s < j->count; s++) free(j->data[s]);
    free(j->data);
    free(j->size);
    free(j->coder);
    return ok;
}
#else
static int write_strips(TIFF *tif, strip_job *j, int threads)
{
    (void)threads;
    return write_strips_by_libtiff(tif, j);
}
#endif

static gi_status write_fail(TIFF *tif, gi_tiff_memory *m, const gi_image *img)
{
    TIFFClose(tif);
    free(m->data);
    if (m->failed) return gi__fail(GI_ERR_NO_MEMORY, "out of memory for a TIFF");
    return gi__fail(GI_ERR_ENCODE, "cannot encode a %dx%d TIFF (%s)", img->width, img->height,
                    *m->error ? m->error : "libtiff failed");
}

gi_status gi__tiff_encode(const gi_image *img, const gi_save_options *opts, uint8_t **bytes,
                          size_t *size)
{
    const gi_metadata *meta = opts->metadata;
    const int deflate = opts->tiff_compression != GI_TIFF_UNCOMPRESSED;
    *bytes = NULL;
    *size = 0;
    const int depth = img->depth ? img->depth : 8, ch = img->channels;
    if ((depth != 8 && depth != 16) || ch < 1 || ch > 4 || img->width < 1 || img->height < 1)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "cannot encode a %dx%dx%d %d-bit image as TIFF",
                        img->width, img->height, ch, depth);
    const size_t row_bytes = (size_t)img->width * (size_t)ch * (size_t)(depth / 8);
    /* Classic TIFF addresses 4 GiB; larger images (and their metadata)
     * go into BigTIFF, which libtiff and every current reader take. */
    const int big = row_bytes * (size_t)img->height > (3u << 30);
    if (!gi__tiff_load()) return gi__fail(GI_ERR_UNSUPPORTED, "%s", gi__tiff_load_error());
    gi_tiff_memory m;
    TIFF *tif = gi__tiff_open_write(&m, big);
    if (!tif) return gi__fail(GI_ERR_ENCODE, "cannot encode TIFF (%s)", m.error);
    uint32_t rows = (uint32_t)(STRIP_BYTES / row_bytes);
    if (rows < 1) rows = 1;
    if (rows > (uint32_t)img->height) rows = (uint32_t)img->height;
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    int ok = TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width) &&
             TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)img->height) &&
             TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)depth) &&
             TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)ch) &&
             TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT) &&
             TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
                          ch >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK) &&
             TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
             TIFFSetField(tif, TIFFTAG_COMPRESSION,
                          deflate ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE) &&
             (!deflate || TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL)) &&
             TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows) &&
             (ch == 2 || ch == 4 ? TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra) : 1);
    if (ok && meta && meta->icc_size)
        ok = TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)meta->icc_size, meta->icc);
    if (ok && meta && meta->xmp_size)
        ok = TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)meta->xmp_size, meta->xmp);
    /* the pixels stay as stored: a viewer turns them as the tag says (1,
     * the default, is not written) */
    if (ok && meta && meta->orientation > ORIENTATION_TOPLEFT &&
        meta->orientation <= ORIENTATION_LEFTBOT)
        ok = TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)meta->orientation);
    strip_job job = {.img = img, .row_bytes = row_bytes, .rows = rows,
                     .count = (uint32_t)((img->height - 1) / (int)rows + 1), .depth = depth,
                     .channels = ch, .swap = TIFFIsByteSwapped(tif), .deflate = deflate};
    ok = ok && write_strips(tif, &job, opts->encode_threads);
    if (!ok || !TIFFWriteDirectory(tif)) return write_fail(tif, &m, img);
    TIFFClose(tif);
    if (m.failed) {
        free(m.data);
        return gi__fail(GI_ERR_NO_MEMORY, "out of memory for a TIFF");
    }
    *bytes = m.data;
    *size = m.size;
    return GI_OK;
}
