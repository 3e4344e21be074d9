/* The three steps of one image of a batch, each timed into its item. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch_image.h"
#include "base/clock.h"
#include "codec/format_sniff.h"
#include "batch_files.h"
#include "codec/file_io.h"
#include "codec/image_io.h"
#include "codec/tiff/gi_tiff.h"
#include "engine/job_flow.h"
#include "base/pixel_alloc.h"

void gi__batch_release(gi__batch_image *job)
{
    gi_image_free(&job->src);
    gi_image_free(&job->dst);
    gi__jpeg_coeffs_free(&job->coeffs);
    gi__pixels_free(job->in_bytes);
    job->in_bytes = NULL;
    gi_metadata_free(&job->meta);
    free(job->jpeg_out.bytes);
    job->jpeg_out.bytes = NULL;
}

void gi__batch_fail(gi__batch_image *job, const char *fmt, ...)
{
    /* Allocated to fit: a path may be longer than any fixed buffer. */
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    char *why = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (why) vsnprintf(why, (size_t)len + 1, fmt, again);
    va_end(again);
    va_end(ap);
    job->item->status = GI_ITEM_FAILED;
    free(job->item->reason);
    job->item->reason = why;
    gi__batch_release(job);
}

/* The input's name as the decode's messages give it. */
static const char *input_name(const gi__batch_image *job)
{
    const char *in = job->item->in;
    return strcmp(in, "-") ? gi_quote_name(in) : "standard input";
}

/* Adds a stage's time to the item's record. */
static void add_stage(gi__batch_image *job, gi_stage stage, double ms)
{
    job->item->stage_ms[stage] += ms;
    job->item->ms += ms;
}

/* Appends to the item's metadata note. */
static void note_metadata(gi__batch_image *job, const char *prefix, const char *what)
{
    char *note = job->notes.metadata_note;
    size_t used = strlen(note), size = sizeof job->notes.metadata_note;
    snprintf(note + used, size - used, "%s%s%s", used ? "; " : "", prefix, what);
}

/* Whether the item's output is an exact JPEG (*out: the writer's request). */
static int exact_jpeg_output(const gi_batch_options *o, const gi__batch_image *job,
                             gi__chain_jpeg_out *out)
{
    gi_format format = o->job.save.format;
    if (format == GI_FORMAT_AUTO) format = gi_format_from_path(job->item->out);
    return gi__job_jpeg_out(&o->job, format, out);
}

int gi__batch_decode(const gi_batch_options *o, const gi__jpeg_route *route,
                     gi__batch_image *job)
{
    gi__jpeg_route item_route;
    gi__chain_jpeg_out unused;
    if (route) { /* the plan weighs the device's encode for an exact JPEG output */
        item_route = *route;
        item_route.encodes_jpeg = exact_jpeg_output(o, job, &unused);
        route = &item_route;
    }
    uint8_t *bytes;
    size_t size;
    double start = gi__now_ms();
    char route_why[200] = "";
    gi_status st = gi__item_read(job->item, o->job.limits.max_input_bytes, &bytes, &size);
    double read = gi__now_ms();
    add_stage(job, GI_STAGE_READ, read - start);
    char short_note[160] = "";
    if (st == GI_OK) {
        st = gi__job_decode_routed(&o->job, bytes, size, input_name(job), route, &job->src, &job->coeffs, &job->meta, route_why,
                                   sizeof route_why);
        if (st == GI_OK && gi__sniff_format(bytes, size) == GI_FORMAT_JPEG)
            gi__jpeg_data_short(bytes, size, short_note, sizeof short_note);
        if (st == GI_OK && gi__sniff_format(bytes, size) == GI_FORMAT_TIFF)
            gi__tiff_pages_note(bytes, size, job->notes.warning, sizeof job->notes.warning);
        /* a deferred scan reads the file until the compute is done */
        if (job->coeffs.deferred) job->in_bytes = bytes;
        else gi__pixels_free(bytes);
        add_stage(job, GI_STAGE_DECODE, gi__now_ms() - read);
    }
    job->item->decoded_by = gi_last_codec();
    job->item->depth_read = st != GI_OK ? 0 : job->src.depth == 16 ? 16 : 8;
    if (st != GI_OK) {
        gi__batch_fail(job, "%s", gi_last_error());
        return -1;
    }
    if (*job->meta.dropped && !o->job.strip) note_metadata(job, "", job->meta.dropped);
    snprintf(job->notes.codecs_note, sizeof job->notes.codecs_note, "%s%s%s", route_why,
             *route_why && *short_note ? "; " : "", short_note);
    job->item->megapixels = (double)job->src.width * job->src.height / 1e6;
    return 0;
}

/* Records the context's last operation in the item: its stage times, the
 * backend that ran it, the device choice and any fallback. A JPEG the
 * compute encoded (jpeg_out) counts as the encode stage, out of the
 * kernel time on the CPU (backend.h). */
static void record_compute(gi_context *ctx, gi__batch_image *job, const gi__chain_jpeg_out *jpeg_out)
{
    gi_op_times t;
    gi_context_last_times(ctx, &t);
    job->item->backend = gi_context_last_backend(ctx);
    if (jpeg_out && jpeg_out->bytes) {
        add_stage(job, GI_STAGE_ENCODE, jpeg_out->encode_ms);
        if (strcmp(job->item->backend, "cpu") == 0)
            t.kernel_ms = t.kernel_ms > jpeg_out->encode_ms ? t.kernel_ms - jpeg_out->encode_ms : 0;
    }
    add_stage(job, GI_STAGE_STARTUP, t.startup_ms);
    add_stage(job, GI_STAGE_UPLOAD, t.upload_ms);
    add_stage(job, GI_STAGE_KERNEL, t.kernel_ms);
    add_stage(job, GI_STAGE_DOWNLOAD, t.download_ms);
    snprintf(job->notes.choice, sizeof job->notes.choice, "%s", gi_context_last_choice(ctx));
    snprintf(job->notes.note, sizeof job->notes.note, "%s", gi_context_last_fallback(ctx));
}

int gi__batch_compute(gi_context *ctx, const gi_batch_options *o, gi__batch_image *job,
                      int hand_back)
{
    const int from_jpeg = gi__jpeg_coeffs_present(&job->coeffs);
    const int deferred = job->coeffs.deferred != NULL;
    int fell_back = GI__DECODED_BY_BACKEND;
    /* An exact JPEG output is encoded where the steps ran if the backend
     * can (on CUDA: only the file's bytes come back; on the CPU, a blur
     * coded as its rows come); the encode stage then writes it. */
    gi__chain_jpeg_out *jpeg_out = exact_jpeg_output(o, job, &job->jpeg_out) ? &job->jpeg_out : NULL;
    const double start = gi__now_ms();
    gi_status st = from_jpeg
                       ? gi__job_apply_jpeg(ctx, &o->job, &job->coeffs, input_name(job), &job->meta,
                                            &job->dst, NULL, jpeg_out, &fell_back)
                       : gi__job_apply_to_jpeg(ctx, &o->job, &job->src, &job->meta, &job->dst, NULL,
                                               jpeg_out);
    const double elapsed = gi__now_ms() - start;
    if (st == GI_ERR_DEVICE && hand_back) {
        gi_image_free(&job->dst);
        free(job->jpeg_out.bytes);
        job->jpeg_out.bytes = NULL;
        return 1;
    }
    gi_image_free(&job->src); /* not needed any more: keep memory flat */
    gi__jpeg_coeffs_free(&job->coeffs);
    gi__pixels_free(job->in_bytes);
    job->in_bytes = NULL;
    if (fell_back != GI__DECODED_BY_BACKEND) job->item->decoded_by = gi_last_codec();
    if (st != GI_OK) {
        /* a refused decode's message names the input, as at the decode */
        if (fell_back == GI__DECODE_REFUSED) gi__batch_fail(job, "%s", gi_last_error());
        else gi__batch_fail(job, "%s: %s", gi_quote_name(job->item->in), gi_last_error());
        return -1;
    }
    const double before = job->item->ms;
    record_compute(ctx, job, jpeg_out);
    /* A file the backend left to the host's decoder was decoded again
     * inside the apply, where no stage of the context's times counts it:
     * the decode stage takes what they leave of the apply's time. */
    const double recorded = job->item->ms - before;
    if (fell_back == GI__DECODED_HERE && elapsed > recorded)
        add_stage(job, GI_STAGE_DECODE, elapsed - recorded);
    /* The decode's arithmetic half ran where the steps did; its Huffman
     * decoding too where the scans were deferred, unless the device left
     * the file to the CPU's decoder, which then decoded it whole. */
    if (fell_back == GI__DECODED_BY_BACKEND && from_jpeg && strcmp(job->item->backend, "cuda") == 0)
        job->item->decoded_by = deferred ? "gpuimg-jpeg-cuda-huffman" : "gpuimg-jpeg-cuda";
    return 0;
}

/* mkdir -p of the directories between `root` and `path`. None of them may
 * be a symbolic link: writing through one could land outside `root`. */
static int make_parent_dirs(const char *root, const char *path)
{
    char dir[4096];
    struct stat st;
    if (strlen(path) >= sizeof dir || strncmp(path, root, strlen(root)) != 0) return 0;
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + strlen(root) + 1; p < dir + strlen(path) && *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) return -1;
        if (lstat(dir, &st) != 0) return -1;
        if (!S_ISDIR(st.st_mode)) {
            errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
            return -1;
        }
        *p = '/';
    }
    return 0;
}

/* The save options for the item, noting metadata its format cannot hold. */
static gi_save_options save_options(const gi_batch_options *o, gi__batch_image *job)
{
    gi_save_options save = gi__job_save_options(&o->job, &job->meta);
    if (job->encode_threads > save.encode_threads) save.encode_threads = job->encode_threads;
    if (save.format == GI_FORMAT_AUTO) save.format = gi_format_from_path(job->item->out);
    char left_out[300];
    if (save.metadata &&
        gi_metadata_unwritable(save.metadata, save.format, left_out, sizeof left_out))
        note_metadata(job, "not written: ", left_out);
    return save;
}

/* The output's directories below o->output_root: 0, or -1 after failing
 * the item. */
static int make_dirs(const gi_batch_options *o, gi__batch_image *job)
{
    /* Handed a directory, the batch has nothing to make. */
    if (!o->output_root || job->item->files || make_parent_dirs(o->output_root, job->item->out) == 0) return 0;
    gi__batch_fail(job, "%s: cannot create its directory: %s", gi_quote_name(job->item->out),
                   strerror(errno));
    return -1;
}

/* The item's end once its file is written (st GI_OK) or not: the
 * failures of the writers name the file. 0, or -1 after failing it. */
static int written(gi__batch_image *job, gi_status st)
{
    if (st != GI_OK) {
        gi__batch_fail(job, "%s", gi_last_error());
        return -1;
    }
    job->item->status = GI_ITEM_OK;
    gi__batch_release(job);
    return 0;
}

/* The end of an in-memory encode that began at `start` (gi__now_ms) and
 * returned `encoded`: its time, the atomic write of bytes[0..size) (freed
 * here) and its time, and the item's status. 0, or -1 after failing it. */
static int write_encoded(gi__batch_image *job, gi_status encoded, uint8_t *bytes, size_t size,
                         double start)
{
    job->item->encoded_by = gi_last_codec();
    double done = gi__now_ms();
    add_stage(job, GI_STAGE_ENCODE, done - start);
    if (encoded != GI_OK) {
        free(bytes);
        gi__batch_fail(job, "%s: %s", gi_quote_name(job->item->out), gi_last_error());
        return -1;
    }
    gi_status st = gi__item_write(job->item, bytes, size);
    free(bytes);
    add_stage(job, GI_STAGE_WRITE, gi__now_ms() - done);
    return written(job, st);
}

int gi__batch_encode(const gi_batch_options *o, gi__batch_image *job)
{
    gi_save_options save = save_options(o, job);
    double start = gi__now_ms();
    if (make_dirs(o, job) != 0) return -1;
    job->item->depth_written = save.depth ? save.depth : job->dst.depth == 16 ? 16 : 8;
    if (job->jpeg_out.bytes && save.format == GI_FORMAT_JPEG) {
        /* encoded by the compute: the metadata goes in here */
        uint8_t *file = job->jpeg_out.bytes, *bytes = NULL;
        size_t size = 0;
        job->jpeg_out.bytes = NULL;
        gi_status st = gi__encoded_jpeg(file, job->jpeg_out.size, job->jpeg_out.codec, &save, &bytes,
                                         &size);
        return write_encoded(job, st, bytes, size, start);
    }
    if (save.format == GI_FORMAT_PNG || save.format == GI_FORMAT_JPEG) {
        /* Encoded in memory, then written into place: timed apart. */
        uint8_t *bytes = NULL;
        size_t size = 0;
        gi_status st = gi_encode(&job->dst, &save, &bytes, &size);
        return write_encoded(job, st, bytes, size, start);
    }
    /* Netpbm streams its rows to the file as it encodes them. */
    gi_status st = gi__item_save(job->item, &job->dst, &save);
    add_stage(job, GI_STAGE_ENCODE, gi__now_ms() - start);
    job->item->encoded_by = gi_last_codec();
    return written(job, st);
}
