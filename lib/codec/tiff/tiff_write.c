/* A gi_image as a TIFF: deflate with the horizontal predictor, strips of
 * about 256 KiB, alpha as an unassociated extra sample, and the ICC
 * profile and XMP packet of the metadata in their tags. */
#include <stdlib.h>
#include <string.h>

#include "gi_tiff.h"
#include "tiff_memory.h"
#include "base/gi_error.h"

/* Rows a strip: about STRIP_BYTES of samples, at least one row. Large
 * enough that deflate finds its matches and the strip table stays short,
 * small enough that a reader can decode part of the image. */
#define STRIP_BYTES (256u << 10)

static gi_status write_fail(TIFF *tif, gi_tiff_memory *m, const gi_image *img)
{
    TIFFClose(tif);
    free(m->data);
    if (m->failed) return gi__fail(GI_ERR_NO_MEMORY, "out of memory for a TIFF");
    return gi__fail(GI_ERR_ENCODE, "cannot encode a %dx%d TIFF (%s)", img->width, img->height,
                    *m->error ? m->error : "libtiff failed");
}

gi_status gi__tiff_encode(const gi_image *img, const gi_metadata *meta, uint8_t **bytes,
                          size_t *size)
{
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
             TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE) &&
             TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL) &&
             TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows) &&
             (ch == 2 || ch == 4 ? TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra) : 1);
    if (ok && meta && meta->icc_size)
        ok = TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)meta->icc_size, meta->icc);
    if (ok && meta && meta->xmp_size)
        ok = TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)meta->xmp_size, meta->xmp);
    /* libtiff's predictor works in place on the strip it is given: each
     * strip is copied first, so that the caller's pixels stay as they are. */
    uint8_t *strip = ok ? malloc(row_bytes * rows) : NULL;
    ok = ok && strip;
    for (uint32_t y = 0, s = 0; ok && y < (uint32_t)img->height; y += rows, s++) {
        const uint32_t n = (uint32_t)img->height - y < rows ? (uint32_t)img->height - y : rows;
        for (uint32_t r = 0; r < n; r++)
            memcpy(strip + r * row_bytes, img->data + (size_t)(y + r) * img->stride, row_bytes);
        ok = TIFFWriteEncodedStrip(tif, s, strip, (tmsize_t)(row_bytes * n)) >= 0;
    }
    free(strip);
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
