/* A file's histograms with fast codecs, counted where nvJPEG decodes it
 * (gpuimg hist --codecs fast): the JPEG's bytes go to the GPU, and only the
 * counts come back, never the pixels. A device lane of one file decodes it
 * (batch_device.c), so a file takes this path exactly when a batch's
 * device path would take it, and its pixels are the same; the chain then
 * runs on the lane's CUDA context from device memory (ops.c). */
#include <string.h>

#include "batch_device.h"
#include "file_io.h"
#include "gi_error.h"
#include "jpeg_nvjpeg.h"
#include "job_flow.h"
#include "ops.h"
#include "pixel_alloc.h"
#include "work_estimate.h"

/* The job's chain with a hist step after it; -1 when it does not fit (the
 * host path, which runs the turn apart, takes the file then). */
static int hist_chain(const gi_job *job, const gi_metadata *meta, gi_op chain[GI_MAX_STEPS])
{
    gi_op steps[GI_MAX_STEPS];
    if (job->n_steps < 0 || job->n_steps >= GI_MAX_STEPS) return -1;
    if (job->n_steps) memcpy(steps, job->steps, sizeof *steps * (size_t)job->n_steps);
    steps[job->n_steps] = (gi_op){.kind = GI_OP_HIST, .bins = GI_HIST_MAX_BINS};
    gi_job with_hist = *job;
    with_hist.steps = steps;
    with_hist.n_steps = job->n_steps + 1;
    return gi__job_chain(&with_hist, meta, chain);
}

/* Each histogram of the decoded pixels at src (device memory), one chain
 * run apiece: the counts are all that comes back. */
static gi_status count(gi_context *ctx, const gi_image *src, gi_op *chain, int n,
                       const int *bins, int n_bins, gi_histogram *hists, int *width,
                       int *height)
{
    int channels;
    gi_status st = gi_apply_size(src, chain, n, width, height, &channels);
    for (int i = 0; i < n_bins && st == GI_OK; i++) {
        chain[n - 1].bins = bins[i];
        st = gi__apply_from_device(ctx, src, chain, n, NULL, GI__HOST, &hists[i]);
    }
    return st;
}

/* The file's bytes on a lane of one: decoded there, or *decoded_by left
 * NULL when the device path does not take them. */
static gi_status hist_bytes(const gi_job *job, const uint8_t *bytes, size_t size,
                            const char *path, const int *bins, int n_bins, gi_histogram *hists,
                            int *width, int *height, const char **decoded_by)
{
    if (!gi__jpeg_for_device(bytes, size, &job->limits)) return GI_OK;
    gi__device_lane *lane;
    gi__nvjpeg_start(); /* nvJPEG's handle is made while CUDA starts */
    if (gi__device_lane_open(1, &lane) != GI_OK) return GI_OK; /* no GPU, no engines */
    gi_image src;
    const char *by;
    gi_status st = gi__device_lane_decode(lane, bytes, size, path, &job->limits, &src, &by);
    if (st != GI_OK) { /* the host path decodes or refuses it, as FAST does */
        gi__device_lane_close(lane);
        return GI_OK;
    }
    /* A histogram carries no metadata: only the orientation is read, and
     * only when the job turns the pixels. */
    gi_job counted = *job;
    counted.strip = 1;
    gi_metadata meta = {0};
    gi__job_read_metadata(&counted, bytes, size, &meta);
    gi_op chain[GI_MAX_STEPS];
    int n = hist_chain(&counted, &meta, chain);
    gi_metadata_free(&meta);
    if (n > 0) {
        st = count(gi__device_lane_context(lane), &src, chain, n, bins, n_bins, hists, width,
                   height);
        if (st != GI_OK) st = gi__fail(st, "%s: %s", path, gi_last_error());
        else *decoded_by = by;
    }
    gi__device_lane_close(lane);
    return st;
}

gi_status gi_hist_file_fast(gi_device device, const gi_job *job, const char *path,
                            const int *bins, int n_bins, gi_histogram *hists, int *width,
                            int *height, const char **decoded_by)
{
    if (!decoded_by || !job || !path || !bins || !hists || !width || !height || n_bins < 1)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "gi_hist_file_fast: no file, bins or histograms");
    *decoded_by = NULL;
    if (!gi__device_path_asked(&job->limits, device) || !gi__file_rereadable(path) ||
        !gi__is_jpeg_file(path)) /* a PNG is not read whole here, then again */
        return GI_OK;
    uint8_t *bytes;
    size_t size;
    /* A file that cannot be read is the host path's to report. */
    if (gi__read_file(path, job->limits.max_input_bytes, &bytes, &size) != GI_OK) return GI_OK;
    gi_status st =
        hist_bytes(job, bytes, size, path, bins, n_bins, hists, width, height, decoded_by);
    gi__pixels_free(bytes);
    return st;
}
