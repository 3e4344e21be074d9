/* A JPEG's histograms counted as the exact decoder makes its rows
 * (gi_hist_file_streamed): each decoding thread counts the bands of rows
 * it makes, in a buffer of its own that the next band reuses, so the
 * image is never in memory. On this project's 2-core machine the 27 MB of
 * a 9 MP photo's pixels cost more, in the kernel zeroing fresh pages,
 * than its decoding: djpeg streams, and so does this. */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_backend.h"
#include "codec/file_io.h"
#include "base/gi_error.h"
#include "codec/jpeg/jpeg_decode.h"
#include "base/pixel_alloc.h"
#include "work_estimate.h"

/* A JPEG's samples are 8-bit: one counter per value. */
#define VALUES 256

typedef struct {
    int workers;
    uint64_t (*counts)[4][VALUES]; /* one set per decoding thread */
    int width, height, channels;
} counter;

static int count_band(void *arg, int worker, int y0, const gi_image *band)
{
    (void)y0;
    counter *cn = arg;
    gi__cpu_hist_add(band, cn->counts[worker]);
    return 0;
}

/* From zero: a second begin (jpeg_decode.h) counts the image again. */
static int begin_counting(void *arg, const gi_jpeg_coeffs *c, gi_jpeg_rows_out *out)
{
    counter *cn = arg;
    memset(cn->counts, 0, sizeof *cn->counts * (size_t)cn->workers);
    cn->width = c->width;
    cn->height = c->height;
    cn->channels = c->out_channels;
    *out = (gi_jpeg_rows_out){.sink = count_band, .sink_arg = cn};
    return 0;
}

/* The threads' counts summed, into each histogram's bins (v * bins / 256,
 * as gi_hist counts). */
static void fill(const counter *cn, const int *bins, int n_bins, gi_histogram *hists)
{
    for (int i = 0; i < n_bins; i++) {
        memset(&hists[i], 0, sizeof hists[i]);
        hists[i].channels = cn->channels;
        hists[i].bins = bins[i];
        hists[i].depth = 8;
        for (int w = 0; w < cn->workers; w++)
            for (int ch = 0; ch < cn->channels; ch++)
                for (int v = 0; v < VALUES; v++)
                    hists[i].counts[ch][v * bins[i] / VALUES] += cn->counts[w][ch][v];
    }
}

gi_status gi_hist_file_streamed(const char *path, const gi_load_limits *limits, const int *bins,
                                int n_bins, gi_histogram *hists, int *width, int *height,
                                int *counted)
{
    GI__REFUSE_NULL(path, bins, hists, width, height, counted);
    if (n_bins < 1)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "gi_hist_file_streamed: %d histograms asked for",
                        n_bins);
    *counted = 0;
    for (int i = 0; i < n_bins; i++)
        if (bins[i] < 1 || bins[i] > VALUES)
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "%d bins: must be 1..%d for an 8-bit image",
                            bins[i], VALUES);
    gi_load_limits defaults;
    if (!limits) {
        gi_load_limits_default(&defaults);
        limits = &defaults;
    }
    /* A file that is not a JPEG is not read whole here, then again. */
    gi__image_size header;
    if (!gi__file_rereadable(path) || gi__read_image_size(path, &header) != 0 ||
        header.format != GI_FORMAT_JPEG)
        return GI_OK;
    uint8_t *bytes;
    size_t size;
    /* A file that cannot be read is the host path's to report. */
    if (gi__read_file(path, limits->max_input_bytes, &bytes, &size) != GI_OK) return GI_OK;
    counter cn = {.workers = limits->decode_threads > 1 ? limits->decode_threads : 1};
    cn.counts = calloc((size_t)cn.workers, sizeof *cn.counts);
    gi_jpeg_target t = {begin_counting, &cn};
    if (cn.counts && gi__load_jpeg_rows(bytes, size, limits, &t)) {
        fill(&cn, bins, n_bins, hists);
        *width = cn.width;
        *height = cn.height;
        *counted = 1;
    }
    free(cn.counts);
    gi__pixels_free(bytes);
    return GI_OK;
}
