/* The device path of a batch with fast codecs: a JPEG goes from its bytes
 * to the output's bytes on the GPU. nvJPEG decodes a group of files into
 * device memory (the JPEG engines in one batched call), the steps run on
 * the CUDA backend reading and writing device memory, and nvJPEG encodes
 * from device memory, so only compressed bytes cross PCIe. An output that
 * nvJPEG does not write (PNG, gray JPEG) is downloaded for the codec
 * workers to encode; a file the device path does not take goes back to
 * the host path, which decodes or refuses it exactly as it would have. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_device.h"
#include "batch_files.h"
#include "clock.h"
#include "context.h"
#include "cpu_parallel.h"
#include "device_plan.h"
#include "file_io.h"
#include "gi_error.h"
#include "jpeg_nvjpeg.h"
#include "job_flow.h"
#include "ops.h"
#include "pixel_alloc.h"
#include "plan_job.h"
#include "work_estimate.h"

struct gi__device_lane {
    gi_context *ctx; /* CUDA */
    gi__nvjpeg_batch *batch;
};

gi_status gi__device_lane_open(int files, gi__device_lane **out)
{
    *out = NULL;
    gi__device_lane *l = calloc(1, sizeof *l);
    if (!l) return gi__fail(GI_ERR_NO_MEMORY, "out of memory for a device lane");
    gi_context_options opts = {GI_DEVICE_CUDA, 1};
    gi_status st = gi_context_create(&l->ctx, &opts);
    if (st == GI_OK) st = gi__nvjpeg_batch_take(files, &l->batch);
    if (st != GI_OK) {
        gi__device_lane_close(l);
        return st;
    }
    *out = l;
    return GI_OK;
}

void gi__device_lane_close(gi__device_lane *l)
{
    if (!l) return;
    gi__nvjpeg_batch_release(l->batch);
    gi_context_destroy(l->ctx);
    free(l);
}

gi_context *gi__device_lane_context(gi__device_lane *l)
{
    return l->ctx;
}

int gi__device_lane_files(const gi__device_lane *l)
{
    return gi__nvjpeg_batch_capacity(l->batch);
}

int gi__device_path_asked(const gi_load_limits *limits, gi_device device)
{
    return limits->jpeg_decoder == GI_JPEG_DECODER_FAST && device != GI_DEVICE_CPU &&
           gi__nvjpeg_compiled();
}

static int size_of_path(const void *list, size_t i, gi__image_size *size)
{
    const char *const *inputs = list;
    return inputs && inputs[i] ? gi__read_image_size(inputs[i], size) : -1;
}

int gi_fast_codecs_pay(gi_device device, const gi_job *job, const char *const *inputs,
                       size_t count, char *why, size_t why_size)
{
    return gi__codecs_pay(device, job, size_of_path, inputs, count, why, why_size);
}

/* The device plan's inputs from the files' headers: the JPEGs (which the
 * device path would take, the engines permitting) apart from the rest, and
 * the steps' CPU time per pixel at the first JPEG's size. */
int gi__codecs_pay(gi_device device, const gi_job *job, gi__size_reader size_of,
                   const void *inputs, size_t count, char *why, size_t why_size)
{
    char none[1];
    if (!why || why_size == 0) {
        why = none;
        why_size = sizeof none;
    }
    *why = '\0';
    if (!job || !gi__device_path_asked(&job->limits, device)) return 0;
    if (device == GI_DEVICE_CUDA) {
        snprintf(why, why_size, "gpu codecs: --device cuda");
        return 1;
    }
    gi__codecs_plan_input in = {.cores = gi__cpu_count()};
    const gi__device_costs *costs = gi__device_costs_default();
    for (size_t i = 0; i < count; i++) {
        gi__image_size size;
        if (size_of(inputs, i, &size) != 0) continue;
        const double pixels = (double)size.width * size.height;
        if (size.format != GI_FORMAT_JPEG) {
            in.other_pixels += pixels;
            in.other_files++;
            continue;
        }
        if (in.jpeg_files++ == 0 && job->n_steps > 0 && size.width <= 65536 &&
            size.height <= 65536) {
            gi_plan_hint hint = {.images = 1, .steps = job->steps, .n_steps = job->n_steps,
                                 .width = (int)size.width, .height = (int)size.height,
                                 .channels = size.channels};
            gi__plan_job work;
            if (gi__plan_job_of_hint(&hint, &work) == GI_OK)
                in.steps_ns = gi__plan_cpu_ns(&work, costs);
        }
        in.jpeg_pixels += pixels;
    }
    if (in.jpeg_files == 0) {
        snprintf(why, why_size, "exact codecs: no JPEG file");
        return 0;
    }
    return gi__plan_fast_codecs(&in, costs, why, why_size);
}

/* Whether the device path takes a file's bytes: a JPEG that passes the
 * checks gi_load_memory makes and that the engines decode. It is then in
 * the lane's batch, at *slot. */
static int takes(gi__device_lane *l, const uint8_t *bytes, size_t size, const char *name,
                 const gi_load_limits *limits, int *slot)
{
    *slot = -1;
    return gi__jpeg_for_device(bytes, size, limits) &&
           gi__nvjpeg_batch_add(l->batch, bytes, size, name, limits, slot) == GI_OK;
}

/* What the device path knows of one file while its group is under way. */
typedef struct {
    uint8_t *bytes;
    size_t size;
    int slot; /* -1: not in the batch */
    double read_ms, parse_ms; /* reading the file; its header, into the batch */
} device_file;

/* Reads a file and adds it to the batch when the device path takes it. */
static void add_file(gi__device_lane *l, const gi_batch_options *o, gi__batch_image *job,
                     device_file *f)
{
    double start = gi__now_ms();
    f->slot = -1;
    const char *in = job->item->in;
    if (gi__item_read(job->item, o->job.limits.max_input_bytes, &f->bytes, &f->size) != GI_OK) {
        f->bytes = NULL; /* the host path reads it again and says why it cannot */
        return;
    }
    double read = gi__now_ms();
    (void)takes(l, f->bytes, f->size, in, &o->job.limits, &f->slot);
    f->read_ms = read - start;
    f->parse_ms = gi__now_ms() - read;
}

static gi_image as_image(const gi__device_pixels *px)
{
    return (gi_image){.data = px->data, .width = px->width, .height = px->height,
                      .channels = px->channels, .stride = px->pitch};
}

gi_status gi__device_lane_decode(gi__device_lane *l, const uint8_t *bytes, size_t size,
                                 const char *name, const gi_load_limits *limits, gi_image *src,
                                 const char **decoded_by)
{
    int slot;
    gi__nvjpeg_batch_clear(l->batch); /* the last file's pixels go */
    if (!takes(l, bytes, size, name, limits, &slot))
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: not a file for the device path", name);
    gi__nvjpeg_batch_decode(l->batch);
    gi__device_pixels px;
    gi_status st = gi__nvjpeg_batch_result(l->batch, slot, &px, decoded_by);
    if (st == GI_OK) *src = as_image(&px);
    return st;
}

static void add_compute_times(gi__device_lane *l, gi__batch_image *job)
{
    gi__batch_record_compute(l->ctx, job);
    snprintf(job->item->choice, sizeof job->item->choice,
             "cuda: --codecs fast, decoded and encoded on the GPU");
}

/* The steps into device memory, nvJPEG's encode, and the atomic write. */
static gi__device_outcome encode_on_device(gi__device_lane *l, const gi_batch_options *o,
                                           gi__batch_image *job, int slot, const gi_image *src,
                                           const gi_op *chain, int n, const gi_image *size)
{
    gi_save_options save = gi__batch_save_options(o, job);
    gi__device_pixels out;
    gi_status st = gi__nvjpeg_batch_output(l->batch, slot, size->width, size->height,
                                           size->channels, &out);
    gi_image dst = as_image(&out);
    if (st == GI_OK) st = gi__apply_from_device(l->ctx, src, chain, n, &dst, GI__DEVICE, NULL);
    if (st != GI_OK) {
        gi__batch_fail(job, "%s: %s", job->item->in, gi_last_error());
        return GI__DEVICE_DONE;
    }
    add_compute_times(l, job);
    double start = gi__now_ms();
    if (gi__batch_make_dirs(o, job) != 0) return GI__DEVICE_DONE;
    uint8_t *bytes = NULL;
    size_t length = 0;
    st = gi__encode_device_jpeg(&out, &save, &bytes, &length);
    (void)gi__batch_write_encoded(job, st, bytes, length, start); /* failures are in the item */
    return GI__DEVICE_DONE;
}

/* The steps with the result downloaded into job->dst, for the codec
 * workers to encode. */
static gi__device_outcome download_result(gi__device_lane *l, gi__batch_image *job,
                                          const gi_image *src, const gi_op *chain, int n,
                                          const gi_image *size)
{
    gi_status st = gi_image_alloc(&job->dst, size->width, size->height, size->channels);
    if (st == GI_OK) st = gi__apply_from_device(l->ctx, src, chain, n, &job->dst, GI__HOST, NULL);
    if (st != GI_OK) {
        gi__batch_fail(job, "%s: %s", job->item->in, gi_last_error());
        return GI__DEVICE_DONE;
    }
    add_compute_times(l, job);
    return GI__DEVICE_TO_ENCODE;
}

/* One decoded file: its metadata, then the steps and the encode. */
static gi__device_outcome finish_file(gi__device_lane *l, const gi_batch_options *o,
                                      gi__batch_image *job, const device_file *f)
{
    gi__device_pixels px;
    const char *decoded_by;
    if (gi__nvjpeg_batch_result(l->batch, f->slot, &px, &decoded_by) != GI_OK)
        return GI__DEVICE_TO_HOST; /* stb gets what nvJPEG did not decode, as FAST does */
    gi__job_read_metadata(&o->job, f->bytes, f->size, &job->meta);
    gi_op chain[GI_MAX_STEPS];
    int n = gi__job_chain(&o->job, &job->meta, chain);
    if (n < 0) {
        gi_metadata_free(&job->meta);
        return GI__DEVICE_TO_HOST;
    }
    if (*job->meta.dropped && !o->job.strip)
        gi__batch_note_metadata(job, "", job->meta.dropped);
    job->item->decoded_by = decoded_by;
    job->item->megapixels = (double)px.width * px.height / 1e6;
    /* The turn is in the chain: the output is upright. */
    if (n > o->job.n_steps) (void)gi_metadata_set_orientation(&job->meta, 1);
    const gi_image src = as_image(&px);
    gi_image size = {0}; /* the result's shape */
    if (gi_apply_size(&src, chain, n, &size.width, &size.height, &size.channels) != GI_OK) {
        gi__batch_fail(job, "%s: %s", job->item->in, gi_last_error());
        return GI__DEVICE_DONE;
    }
    gi_format format = o->job.save.format;
    if (format == GI_FORMAT_AUTO) format = gi_format_from_path(job->item->out);
    if (format == GI_FORMAT_JPEG && o->job.save.jpeg_encoder != GI_JPEG_ENCODER_STB &&
        size.channels == 3)
        return encode_on_device(l, o, job, f->slot, &src, chain, n, &size);
    return download_result(l, job, &src, chain, n, &size);
}

void gi__device_lane_run(gi__device_lane *l, const gi_batch_options *o, gi__batch_image **jobs,
                         int n, gi__device_outcome *outcome)
{
    device_file files[256];
    if (n > gi__device_lane_files(l)) n = gi__device_lane_files(l);
    int decoding = 0;
    for (int i = 0; i < n; i++) {
        add_file(l, o, jobs[i], &files[i]);
        decoding += files[i].slot >= 0;
    }
    double start = gi__now_ms();
    if (decoding) gi__nvjpeg_batch_decode(l->batch);
    double share = decoding ? (gi__now_ms() - start) / decoding : 0;
    for (int i = 0; i < n; i++) {
        outcome[i] = GI__DEVICE_TO_HOST;
        if (files[i].slot < 0) continue;
        gi__batch_add_stage(jobs[i], GI_STAGE_READ, files[i].read_ms);
        gi__batch_add_stage(jobs[i], GI_STAGE_DECODE, files[i].parse_ms + share);
        outcome[i] = finish_file(l, o, jobs[i], &files[i]);
        if (outcome[i] == GI__DEVICE_TO_HOST) {
            /* Its time so far is the host path's to count again. */
            memset(jobs[i]->item->stage_ms, 0, sizeof jobs[i]->item->stage_ms);
            jobs[i]->item->ms = 0;
        }
    }
    for (int i = 0; i < n; i++) gi__pixels_free(files[i].bytes);
    gi__nvjpeg_batch_clear(l->batch);
}
