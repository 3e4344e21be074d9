/* A job, bytes to bytes: decode, the chain of steps, encode. The pixels
 * between the steps stay where the context's backend computes (ops.c). */
#include <stdlib.h>
#include <string.h>

#include "file_io.h"
#include "format_sniff.h"
#include "gi_error.h"

void gi_job_default(gi_job *job)
{
    memset(job, 0, sizeof *job);
    gi_load_limits_default(&job->limits);
    gi_save_options_default(&job->save);
}

static int ends_in_hist(const gi_job *job)
{
    return job->n_steps > 0 && job->steps[job->n_steps - 1].kind == GI_OP_HIST;
}

/* Decodes and runs the steps; *result is the last image (unless hist). */
static gi_status decode_and_apply(gi_context *ctx, const gi_job *job, const void *in,
                                  size_t in_size, const char *name, gi_image *result,
                                  gi_histogram *hist)
{
    gi_image src;
    memset(result, 0, sizeof *result);
    gi_status st = gi_load_memory(&src, in, in_size, name, &job->limits);
    if (st != GI_OK) return st;
    int w, h, ch;
    st = gi_apply_size(&src, job->steps, job->n_steps, &w, &h, &ch);
    if (st == GI_OK && !ends_in_hist(job)) st = gi_image_alloc(result, w, h, ch);
    if (st == GI_OK) st = gi_apply(ctx, &src, job->steps, job->n_steps, result, hist);
    gi_image_free(&src);
    if (st != GI_OK) {
        gi_image_free(result);
        return gi__fail(st, "%s: %s", name, gi_last_error());
    }
    return GI_OK;
}

gi_status gi_job_run_memory(gi_context *ctx, const gi_job *job, const void *in, size_t in_size,
                            const char *name, uint8_t **out, size_t *out_size,
                            gi_histogram *hist)
{
    if (!name) name = "input";
    if (out) *out = NULL;
    if (out_size) *out_size = 0;
    if (!ends_in_hist(job) && (!out || !out_size))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: no place for the output bytes", name);
    gi_image result;
    gi_status st = decode_and_apply(ctx, job, in, in_size, name, &result, hist);
    if (st != GI_OK || ends_in_hist(job)) return st;
    gi_save_options save = job->save;
    if (save.format == GI_FORMAT_AUTO) save.format = gi__sniff_format(in, in_size);
    st = gi_encode(&result, &save, out, out_size);
    gi_image_free(&result);
    return st == GI_OK ? GI_OK : gi__fail(st, "%s: %s", name, gi_last_error());
}

gi_status gi_job_run_file(gi_context *ctx, const gi_job *job, const char *in_path,
                          const char *out_path, gi_histogram *hist)
{
    uint8_t *in;
    size_t in_size;
    gi_status st = gi__read_file(in_path, job->limits.max_input_bytes, &in, &in_size);
    if (st != GI_OK) return st;
    gi_image result;
    st = decode_and_apply(ctx, job, in, in_size, in_path, &result, hist);
    if (st != GI_OK || ends_in_hist(job)) {
        free(in);
        return st;
    }
    gi_save_options save = job->save;
    if (save.format == GI_FORMAT_AUTO) save.format = gi_format_from_path(out_path);
    if (save.format == GI_FORMAT_AUTO) save.format = gi__sniff_format(in, in_size);
    free(in);
    st = gi_save_file(&result, out_path, &save);
    gi_image_free(&result);
    return st;
}
