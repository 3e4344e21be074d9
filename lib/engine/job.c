/* A job, bytes to bytes: decode, the chain of steps, encode. The pixels
 * between the steps stay where the context's backend computes (ops.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "context.h"
#include "device_plan.h"
#include "codec/file_io.h"
#include "codec/format_sniff.h"
#include "base/gi_error.h"
#include "base/op_size.h"
#include "codec/image_io.h"
#include "codec/jpeg/jpeg_decode.h"
#include "codec/jpeg/jpeg_shrink.h"
#include "codec/jpeg/jpeg_deferred.h"
#include "codec/jpeg/jpeg_parse.h"
#include "job_flow.h"
#include "ops.h"
#include "base/pixel_alloc.h"
#include "base/overrides.h"

void gi_job_default(gi_job *job)
{
    if (!job) return;
    memset(job, 0, sizeof *job);
    gi_load_limits_default(&job->limits);
    gi_save_options_default(&job->save);
}

static int ends_in_hist(const gi_job *job)
{
    return job->n_steps > 0 && job->steps[job->n_steps - 1].kind == GI_OP_HIST;
}

void gi__job_keep_metadata(const gi_job *job, gi_metadata *meta)
{
    if (!job->strip) return;
    gi_metadata kept = {.orientation = meta->orientation, .pages = meta->pages};
    if (job->strip == GI_STRIP_BUT_COLOUR) {
        kept.icc = meta->icc;
        kept.icc_size = meta->icc_size;
        kept.has_srgb = meta->has_srgb;
        kept.srgb_intent = meta->srgb_intent;
        kept.gamma = meta->gamma;
        kept.has_chrm = meta->has_chrm;
        memcpy(kept.chrm, meta->chrm, sizeof kept.chrm);
        meta->icc = NULL;
    }
    gi_metadata_free(meta);
    *meta = kept;
}

/* The input's metadata as the job keeps it (gi__job_keep_metadata); under
 * a full strip none is read unless the job applies the orientation. */
static void read_metadata(const gi_job *job, const void *in, size_t size, gi_metadata *meta)
{
    gi_metadata_free(meta);
    if (job->strip == 1 && !job->auto_orient) return;
    /* Out of memory for the metadata only leaves a note in meta->dropped. */
    (void)gi_metadata_read(in, size, meta);
    gi__job_keep_metadata(job, meta);
}

gi_status gi__job_decode(const gi_job *job, const void *in, size_t size, const char *name,
                         gi_image *img, gi_metadata *meta)
{
    gi_metadata_free(meta);
    gi_status st = gi_load_memory(img, in, size, name, &job->limits);
    if (st == GI_OK) read_metadata(job, in, size, meta);
    return st;
}

/* The job's whole chain for an input with this metadata: the turn that
 * auto_orient applies, then the steps; -1 when that is over GI_MAX_STEPS
 * steps (gi_job_apply then runs the turn apart). */
static int job_chain(const gi_job *job, const gi_metadata *meta, gi_op chain[GI_MAX_STEPS])
{
    gi_transform turn[2];
    int n_turn = job->auto_orient ? gi_orientation_steps(meta->orientation, turn) : 0;
    if (n_turn + job->n_steps > GI_MAX_STEPS || job->n_steps < 1) return -1;
    for (int i = 0; i < n_turn; i++)
        chain[i] = (gi_op){.kind = GI_OP_TRANSFORM, .transform = turn[i]};
    memcpy(chain + n_turn, job->steps, sizeof *chain * (size_t)job->n_steps);
    return n_turn + job->n_steps;
}

/* A job's source: host pixels, or a JPEG's coefficients (jpeg non-NULL). */
typedef struct {
    const gi_image *img;
    const gi_jpeg_coeffs *jpeg;
    gi__chain_jpeg_out *jpeg_out; /* the result as a JPEG file, or NULL */
} job_source;

/* Whether the steps are `gpuimg convert`'s crop of the whole image. */
static int whole_image_crop(const gi_op *steps, int n)
{
    static const gi_crop_params whole = {0};
    return n == 1 && steps[0].kind == GI_OP_CROP &&
           memcmp(&steps[0].crop, &whole, sizeof whole) == 0;
}

/* The pixels as they are, at their depth: a change of format alone runs
 * no operation (ctx records the copy as its last one). */
static gi_status copy_image(gi_context *ctx, const gi_image *src, gi_image *dst)
{
    const double start = gi__now_ms();
    gi_status st = gi_image_alloc_depth(dst, src->width, src->height, src->channels,
                                        src->depth == 16 ? 16 : 8);
    if (st == GI_OK) st = gi_convert_depth(src, dst);
    if (st == GI_OK) gi__context_note_host_copy(ctx, gi__now_ms() - start);
    return st;
}

/* Runs `steps` on src into a newly allocated *dst (none for hist; its
 * size alone for a result that comes back as a JPEG file: jpeg_out). */
static gi_status apply_alloc(gi_context *ctx, const job_source *src, const gi_op *steps, int n,
                             gi_image *dst, gi_histogram *hist)
{
    if (src->img && !src->jpeg_out && whole_image_crop(steps, n)) return copy_image(ctx, src->img, dst);
    int w, h, ch;
    const gi_image size = src->jpeg ? gi__jpeg_decoded_size(src->jpeg) : *src->img;
    gi_status st = gi__chain_size(&size, steps, n, 0, &w, &h, &ch);
    if (st == GI_OK && steps[n - 1].kind != GI_OP_HIST) {
        if (src->jpeg_out)
            *dst = (gi_image){.width = w, .height = h, .channels = ch, .stride = (size_t)w * ch};
        else
            st = gi_image_alloc_depth(dst, w, h, ch, size.depth == 16 ? 16 : 8);
    }
    if (st == GI_OK)
        st = src->jpeg ? gi__apply_jpeg(ctx, src->jpeg, steps, n, dst, hist, src->jpeg_out)
                       : gi__apply_to_jpeg(ctx, src->img, steps, n, dst, hist, src->jpeg_out);
    if (st != GI_OK) gi_image_free(dst);
    return st;
}

gi_status gi_orient_image(gi_context *ctx, gi_image *img, int orientation)
{
    GI__REFUSE_NULL(ctx, img);
    gi_transform turn[2];
    gi_op steps[2];
    int n = gi_orientation_steps(orientation, turn);
    for (int i = 0; i < n; i++) steps[i] = (gi_op){.kind = GI_OP_TRANSFORM, .transform = turn[i]};
    gi_image out = {0};
    const job_source src = {img, NULL, NULL};
    gi_status st = n ? apply_alloc(ctx, &src, steps, n, &out, NULL) : GI_OK;
    if (st != GI_OK || n == 0) return st;
    gi_image_free(img);
    *img = out;
    return GI_OK;
}

/* Refuses a job whose result, or an image between its steps, would have
 * more pixels than its limits let a file have: a resize by a large scale
 * would otherwise allocate, and compute, tens of gigabytes. */
static gi_status check_result_pixels(const gi_job *job, const job_source *src)
{
    const gi_image size = src->jpeg ? gi__jpeg_decoded_size(src->jpeg) : *src->img;
    for (int i = 1; i <= job->n_steps; i++) {
        int w, h, ch;
        gi_status st = gi__chain_size(&size, job->steps, i, 0, &w, &h, &ch);
        if (st != GI_OK) return st;
        if ((uint64_t)w * (uint64_t)h <= job->limits.max_pixels) continue;
        char what[32] = "the result would be";
        if (i < job->n_steps) snprintf(what, sizeof what, "step %d would make", i);
        return gi__fail(GI_ERR_TOO_LARGE,
                        "%s a %dx%d image, more than %llu pixels (the limit of an image's pixels, "
                        "--max-pixels)",
                        what, w, h, (unsigned long long)job->limits.max_pixels);
    }
    return GI_OK;
}

static gi_status apply_job(gi_context *ctx, const gi_job *job, const job_source *src,
                           gi_metadata *meta, gi_image *dst, gi_histogram *hist)
{
    memset(dst, 0, sizeof *dst);
    gi_status checked = check_result_pixels(job, src);
    if (checked != GI_OK) return checked;
    gi_op chain[GI_MAX_STEPS];
    gi_transform turn[2];
    int n_turn = job->auto_orient ? gi_orientation_steps(meta->orientation, turn) : 0;
    if (n_turn == 0) return apply_alloc(ctx, src, job->steps, job->n_steps, dst, hist);
    gi_status st;
    int n = job_chain(job, meta, chain);
    if (n > 0) {
        /* One chain: on CUDA the turn costs no extra upload or download. */
        st = apply_alloc(ctx, src, chain, n, dst, hist);
    } else {
        for (int i = 0; i < n_turn; i++)
            chain[i] = (gi_op){.kind = GI_OP_TRANSFORM, .transform = turn[i]};
        gi_image upright = {0};
        const job_source to_upright = {src->img, src->jpeg, NULL}; /* pixels, not the file */
        st = apply_alloc(ctx, &to_upright, chain, n_turn, &upright, NULL);
        const job_source from_upright = {&upright, NULL, src->jpeg_out};
        if (st == GI_OK) st = apply_alloc(ctx, &from_upright, job->steps, job->n_steps, dst, hist);
        gi_image_free(&upright);
    }
    return st == GI_OK ? gi_metadata_set_orientation(meta, 1) : st;
}

gi_status gi_job_apply(gi_context *ctx, const gi_job *job, const gi_image *src,
                       gi_metadata *meta, gi_image *dst, gi_histogram *hist)
{
    GI__REFUSE_NULL(ctx, job, src, meta, dst);
    if (job->n_steps > 0) GI__REFUSE_NULL(job->steps);
    if (ends_in_hist(job)) GI__REFUSE_NULL(hist);
    return gi__job_apply_to_jpeg(ctx, job, src, meta, dst, hist, NULL);
}

gi_status gi__job_apply_to_jpeg(gi_context *ctx, const gi_job *job, const gi_image *src,
                                gi_metadata *meta, gi_image *dst, gi_histogram *hist,
                                gi__chain_jpeg_out *jpeg_out)
{
    /* A 16-bit result comes back as pixels: the save converts it to 8 bits
     * when asked (gi_save_options.depth), or refuses it as JPEG. */
    const job_source from = {src, NULL, src->depth == 16 ? NULL : jpeg_out};
    return apply_job(ctx, job, &from, meta, dst, hist);
}

gi_status gi__job_apply_jpeg(gi_context *ctx, const gi_job *job, const gi_jpeg_coeffs *coeffs,
                             const char *name, gi_metadata *meta, gi_image *dst,
                             gi_histogram *hist, gi__chain_jpeg_out *jpeg_out, int *fell_back)
{
    const job_source from = {NULL, coeffs, jpeg_out};
    gi_status st = apply_job(ctx, job, &from, meta, dst, hist);
    int how = GI__DECODED_BY_BACKEND;
    if (fell_back) *fell_back = how;
    if (st != GI_ERR_DECODE || !coeffs->deferred) return st;
    /* The backend did not finish the deferred scan the CPU decoder's way
     * (damaged data, which that decoder leaves to stb; a scan that did not
     * settle; or no device): the file decodes here as gi_load_memory
     * decodes any file, and is refused with its message where it refuses. */
    char device_said[256]; /* for -v: why the decode took longer than planned */
    snprintf(device_said, sizeof device_said, "%s", gi_last_error());
    const gi_jpeg_deferred *d = coeffs->deferred;
    gi_image img;
    st = gi_load_memory(&img, d->file, d->file_size, name, &job->limits);
    how = st == GI_OK ? GI__DECODED_HERE : GI__DECODE_REFUSED;
    if (fell_back) *fell_back = how;
    if (st == GI_OK) st = gi__job_apply_to_jpeg(ctx, job, &img, meta, dst, hist, jpeg_out);
    gi_image_free(&img);
    if (st == GI_OK) {
        const size_t n = strlen(ctx->last_fallback);
        snprintf(ctx->last_fallback + n, sizeof ctx->last_fallback - n, "%s%s", n ? "; " : "",
                 device_said);
    }
    return st;
}

int gi__job_jpeg_out(const gi_job *job, gi_format format, gi__chain_jpeg_out *out)
{
    memset(out, 0, sizeof *out);
    if (format != GI_FORMAT_JPEG) return 0;
    out->quality = job->save.jpeg_quality;
    return 1;
}

/* Whether the route sends this JPEG's arithmetic half to the device;
 * why: the reason (why_size >= 1). */
static int route_to_device(const gi_job *job, const gi__jpeg_route *route,
                           const gi_jpeg_coeffs *c, char *why, size_t why_size)
{
    const gi_image size = gi__jpeg_decoded_size(c);
    int w = 0, h = 0, ch = 0;
    const int sized = gi__chain_size(&size, job->steps, job->n_steps, 0, &w, &h, &ch) == GI_OK;
    const gi__jpeg_route_input in = {
        .pixels = (double)c->width * c->height,
        .reconstructed = (double)size.width * size.height,
        .pixel_bytes = (double)size.stride * size.height,
        .coeff_bytes = (double)gi__jpeg_upload_bytes(c),
        .deferred = c->deferred != NULL,
        .out_bytes = (double)w * h * ch,
        .cores = route->cores, .lanes = route->lanes, .pipelined = route->pipelined,
        .encodes_jpeg = route->encodes_jpeg, .out_pixels = (double)w * h};
    return gi__route_jpeg_arithmetic(gi__process_overrides(), route, sized ? &in : NULL,
                                     gi__device_costs_default(), why, why_size);
}

/* A deferred scan decoded here after all; 0 (c freed) where the CPU's
 * decoder leaves the file to stb or memory runs out. */
static int decode_here(gi_jpeg_coeffs *c, const gi_load_limits *limits)
{
    if (!c->deferred) return 1;
    gi_jpeg_coeffs host;
    int r = gi__jpeg_decode_deferred(c, limits->decode_threads > 1 ? limits->decode_threads : 1,
                                     &host);
    gi__jpeg_coeffs_free(c);
    if (r != GI_JPEG_OK) return 0;
    *c = host;
    return 1;
}

gi_status gi__job_decode_routed(const gi_job *job, const void *in, size_t size, const char *name,
                                const gi__jpeg_route *route, gi_image *img,
                                gi_jpeg_coeffs *coeffs, gi_metadata *meta, char *why,
                                size_t why_size)
{
    char none[1];
    if (!why || why_size == 0) {
        why = none;
        why_size = sizeof none;
    }
    *why = '\0';
    memset(coeffs, 0, sizeof *coeffs);
    /* only a JPEG shrinks on load (other formats decode whole, then resize) */
    const int shrinks_jpeg =
        job->limits.shrink_to > 0 && gi__sniff_format(in, size) == GI_FORMAT_JPEG;
    if (gi__route_shrunk_on_host(gi__process_overrides(), route, shrinks_jpeg)) {
        snprintf(why, why_size, "shrunk on load on the CPU: the GPUs had images waiting");
        return gi__job_decode(job, in, size, name, img, meta);
    }
    if (!route || !route->on_cuda ||
        !gi__load_jpeg_coeffs(in, size, &job->limits,
                              gi__route_defers_entropy(gi__process_overrides(), route), coeffs))
        return gi__job_decode(job, in, size, name, img, meta);
    /* shrink-on-load: the arithmetic half makes the shrunk image (the
     * reduced IDCT, on either device), as gi_load_memory does */
    if (job->limits.shrink_to > 0) gi__jpeg_plan_shrink(coeffs, job->limits.shrink_to);
    memset(img, 0, sizeof *img);
    if (route_to_device(job, route, coeffs, why, why_size)) {
        *img = gi__jpeg_decoded_size(coeffs);
        if (route->entropy_on_host && gi__process_overrides()->jpeg_entropy == GI__FORCE_NONE) {
            const size_t n = strlen(why);
            snprintf(why + n, why_size - n, "%sHuffman codes decoded on the CPU: the GPUs had "
                     "images waiting", n ? "; " : "");
        }
    } else if (coeffs->deferred && job->limits.shrink_to > 0) {
        /* the host's shrink-on-load follows the Huffman decoding, block
         * rows at a time, without the frame's coefficients */
        gi__jpeg_coeffs_free(coeffs);
        return gi__job_decode(job, in, size, name, img, meta);
    } else {
        /* The arithmetic half here after all, as gi_load_memory runs it
         * (when memory runs out, gi_load_memory tries again, stb and all). */
        int ok = decode_here(coeffs, &job->limits) && gi__jpeg_image_from_coeffs(img, coeffs, 1);
        gi__jpeg_coeffs_free(coeffs);
        if (!ok) return gi__job_decode(job, in, size, name, img, meta);
    }
    read_metadata(job, in, size, meta);
    return GI_OK;
}

gi_save_options gi__job_save_options(const gi_job *job, const gi_metadata *meta)
{
    gi_save_options save = job->save;
    save.metadata = job->strip == 1 ? NULL : meta;
    return save;
}

/* Decodes and runs the steps; *result is the last image (unless hist),
 * *meta the input's metadata as the job keeps it. */
static gi_status decode_and_apply(gi_context *ctx, const gi_job *job, const void *in,
                                  size_t in_size, const char *name, gi_image *result,
                                  gi_histogram *hist, gi_metadata *meta,
                                  gi__chain_jpeg_out *jpeg_out)
{
    gi_image src;
    gi_jpeg_coeffs coeffs;
    gi__jpeg_route route;
    memset(result, 0, sizeof *result);
    gi__context_jpeg_route(ctx, &route);
    route.encodes_jpeg = jpeg_out != NULL;
    gi_status st = gi__job_decode_routed(job, in, in_size, name, &route, &src, &coeffs, meta,
                                         NULL, 0);
    if (st != GI_OK) return st;
    int how = GI__DECODED_BY_BACKEND;
    st = gi__jpeg_coeffs_present(&coeffs)
             ? gi__job_apply_jpeg(ctx, job, &coeffs, name, meta, result, hist, jpeg_out, &how)
             : gi__job_apply_to_jpeg(ctx, job, &src, meta, result, hist, jpeg_out);
    gi__jpeg_coeffs_free(&coeffs);
    gi_image_free(&src);
    if (st != GI_OK) {
        gi_metadata_free(meta);
        /* a refused decode names the input already, as it does above */
        return how == GI__DECODE_REFUSED ? st : gi__fail(st, "%s: %s", name, gi_last_error());
    }
    return GI_OK;
}

/* The result's bytes: the file the backend encoded (jpeg_out->bytes,
 * taken), or the pixels encoded here. */
static gi_status encode_result(const gi_image *result, gi__chain_jpeg_out *jpeg_out,
                               const gi_save_options *save, uint8_t **out, size_t *out_size)
{
    if (!jpeg_out->bytes) return gi_encode(result, save, out, out_size);
    uint8_t *file = jpeg_out->bytes;
    jpeg_out->bytes = NULL;
    return gi__encoded_jpeg(file, jpeg_out->size, jpeg_out->codec, save, out, out_size);
}

/* The backend's JPEG file, with the metadata, written to path as
 * gi_save_file writes (into place when whole). */
static gi_status save_encoded(gi__chain_jpeg_out *jpeg_out, const gi_save_options *save,
                              const char *path)
{
    uint8_t *bytes;
    size_t size;
    gi_status st = encode_result(NULL, jpeg_out, save, &bytes, &size);
    if (st != GI_OK) return gi__fail(st, "%s: %s", gi_quote_name(path), gi_last_error());
    gi_output *out;
    st = gi_output_open(&out, path);
    if (st == GI_OK) {
        st = gi__output_write(out, bytes, size);
        gi_status closed = gi_output_close(out, st == GI_OK);
        if (st == GI_OK) st = closed;
    }
    free(bytes);
    return st;
}

gi_status gi_job_run_memory(gi_context *ctx, const gi_job *job, const void *in, size_t in_size,
                            const char *name, uint8_t **out, size_t *out_size,
                            gi_histogram *hist)
{
    GI__REFUSE_NULL(ctx, job);
    if (in_size) GI__REFUSE_NULL(in);
    if (job->n_steps > 0) GI__REFUSE_NULL(job->steps);
    if (ends_in_hist(job)) GI__REFUSE_NULL(hist);
    else GI__REFUSE_NULL(out, out_size);
    if (!name) name = "input";
    if (out) *out = NULL;
    if (out_size) *out_size = 0;
    gi_image result;
    gi_metadata meta = {0};
    gi_format format = job->save.format;
    if (format == GI_FORMAT_AUTO) format = gi__sniff_format(in, in_size);
    gi__chain_jpeg_out jpeg_out;
    const int to_jpeg = gi__job_jpeg_out(job, format, &jpeg_out);
    gi_status st = decode_and_apply(ctx, job, in, in_size, name, &result, hist, &meta,
                                    to_jpeg ? &jpeg_out : NULL);
    if (st == GI_OK && !ends_in_hist(job)) {
        gi_save_options save = gi__job_save_options(job, &meta);
        save.format = format;
        st = encode_result(&result, &jpeg_out, &save, out, out_size);
        if (st != GI_OK) gi__fail(st, "%s: %s", name, gi_last_error());
    }
    free(jpeg_out.bytes); /* taken by encode_result, unless it failed before */
    gi_image_free(&result);
    gi_metadata_free(&meta);
    return st;
}

gi_status gi_job_run_file(gi_context *ctx, const gi_job *job, const char *in_path,
                          const char *out_path, gi_histogram *hist)
{
    GI__REFUSE_NULL(ctx, job, in_path);
    if (job->n_steps > 0) GI__REFUSE_NULL(job->steps);
    if (ends_in_hist(job)) GI__REFUSE_NULL(hist);
    else GI__REFUSE_NULL(out_path);
    uint8_t *in;
    size_t in_size;
    gi_status st = gi__read_file(in_path, job->limits.max_input_bytes, &in, &in_size);
    if (st != GI_OK) return st;
    gi_image result;
    gi_metadata meta = {0};
    gi_format format = job->save.format;
    if (format == GI_FORMAT_AUTO && out_path) format = gi_format_from_path(out_path);
    if (format == GI_FORMAT_AUTO) format = gi__sniff_format(in, in_size);
    gi__chain_jpeg_out jpeg_out;
    const int to_jpeg = gi__job_jpeg_out(job, format, &jpeg_out);
    st = decode_and_apply(ctx, job, in, in_size, gi_quote_name(in_path), &result, hist, &meta,
                          to_jpeg ? &jpeg_out : NULL);
    if (st == GI_OK && !ends_in_hist(job)) {
        gi_save_options save = gi__job_save_options(job, &meta);
        save.format = format;
        st = jpeg_out.bytes ? save_encoded(&jpeg_out, &save, out_path)
                            : gi_save_file(&result, out_path, &save);
    }
    free(jpeg_out.bytes);
    gi__pixels_free(in);
    gi_image_free(&result);
    gi_metadata_free(&meta);
    return st;
}
