/* JOB and ITEM payloads: encoders for the client and the server, and
 * their checking decoders. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/gi_error.h"
#include "request.h"

static void put_border(gi__put *w, gi_border b)
{
    gi__put_u32(w, (uint32_t)b.mode);
    gi__put_u8(w, b.value);
}

/* A step is its kind, then each parameter of the table of operation
 * parameters (gpuimg.h, parameters) in the table's order. */
static void put_param(gi__put *w, const gi_op_param *p, const gi_op *op)
{
    const char *at = (const char *)op + p->offset;
    if (p->given_offset) gi__put_i32(w, *(const int *)((const char *)op + p->given_offset));
    switch (p->type) {
    case GI_PARAM_DOUBLE: gi__put_f64(w, *(const double *)at); break;
    case GI_PARAM_INT:
    case GI_PARAM_FLAG: gi__put_i32(w, *(const int *)at); break;
    case GI_PARAM_CHOICE: gi__put_u32(w, (uint32_t)*(const int *)at); break;
    case GI_PARAM_BORDER: put_border(w, *(const gi_border *)at); break;
    case GI_PARAM_MASK: {
        const gi_convolve_params *c = (const gi_convolve_params *)at;
        gi__put_i32(w, c->width);
        gi__put_i32(w, c->height);
        for (int i = 0; i < c->width * c->height; i++) gi__put_f64(w, c->mask[i]);
        break;
    }
    }
}

static void put_step(gi__put *w, const gi_op *op)
{
    gi__put_u32(w, (uint32_t)op->kind);
    int n;
    const gi_op_param *p = gi_op_params(op->kind, &n);
    for (int i = 0; i < n; i++) put_param(w, &p[i], op);
}

int gi__serve_job_encode(const char *command, const char *build, const gi_batch_options *o,
                         const gi__serve_item *items, size_t n_items, gi__put *w)
{
    const gi_job *j = &o->job;
    gi__put_str(w, command);
    gi__put_str(w, build);
    gi__put_u32(w, (uint32_t)j->n_steps);
    for (int i = 0; i < j->n_steps; i++) put_step(w, &j->steps[i]);
    gi__put_u64(w, j->limits.max_input_bytes);
    gi__put_u64(w, j->limits.max_pixels);
    gi__put_i32(w, j->limits.shrink_to);
    gi__put_u32(w, (uint32_t)j->save.format);
    gi__put_i32(w, j->save.jpeg_quality);
    gi__put_i32(w, j->save.png_level);
    gi__put_u32(w, (uint32_t)j->save.png_filter);
    gi__put_i32(w, j->save.depth);
    gi__put_u32(w, (uint32_t)j->save.tiff_compression);
    gi__put_i32(w, j->auto_orient);
    gi__put_i32(w, j->strip);
    gi__put_u32(w, (uint32_t)o->device);
    gi__put_i32(w, o->codec_workers);
    gi__put_i32(w, o->lanes);
    gi__put_i32(w, o->lane_cpu_threads);
    gi__put_i32(w, o->no_bridge);
    gi__put_i32(w, o->skip_existing);
    gi__put_u32(w, (uint32_t)n_items);
    for (size_t i = 0; i < n_items; i++) {
        const gi__serve_item *it = &items[i];
        gi__put_str(w, it->in);
        gi__put_str(w, it->out);
        gi__put_str(w, it->problem);
        gi__put_str(w, it->out_name);
        gi__put_i32(w, it->in_fd);
        gi__put_i32(w, it->in_errno);
        gi__put_i32(w, it->dir_fd);
        gi__put_i32(w, it->out_fd);
    }
    return w->failed ? -1 : 0;
}

/* The decoder's checks: each leaves a reason and makes the job fail. */
typedef struct {
    gi__get r;
    const char *why;
} reader;

static void check(reader *rd, int ok, const char *why)
{
    if (!ok && !rd->why) rd->why = why;
}

static uint32_t get_enum(reader *rd, uint32_t last, const char *what)
{
    uint32_t v = gi__get_u32(&rd->r);
    check(rd, v <= last, what);
    return v <= last ? v : 0;
}

static int32_t get_int_in(reader *rd, int32_t lo, int32_t hi, const char *what)
{
    int32_t v = gi__get_i32(&rd->r);
    check(rd, v >= lo && v <= hi, what);
    return v >= lo && v <= hi ? v : lo;
}

static double get_finite(reader *rd, const char *what)
{
    double v = gi__get_f64(&rd->r);
    check(rd, isfinite(v), what);
    return isfinite(v) ? v : 0;
}

static gi_border get_border(reader *rd)
{
    gi_border b;
    b.mode = (gi_border_mode)get_enum(rd, GI_BORDER_WRAP, "border mode");
    b.value = gi__get_u8(&rd->r);
    return b;
}

/* Masks are counted against the payload as they are read: a mask cannot
 * ask for more doubles than the bytes left could hold. */
static void get_mask(reader *rd, gi_convolve_params *c, double **masks, size_t *used)
{
    int w = get_int_in(rd, 1, GI_CONVOLVE_MAX_SIZE, "mask width");
    int h = get_int_in(rd, 1, GI_CONVOLVE_MAX_SIZE, "mask height");
    size_t n = (size_t)w * (size_t)h;
    check(rd, rd->r.left / 8 >= n, "mask longer than the request");
    if (rd->why) return;
    double *grown = realloc(*masks, (*used + n) * sizeof *grown);
    check(rd, grown != NULL, "out of memory");
    if (!grown) return;
    *masks = grown;
    for (size_t i = 0; i < n; i++) grown[*used + i] = get_finite(rd, "mask value");
    c->width = w;
    c->height = h;
    c->mask = (const double *)(uintptr_t)*used; /* an offset until the end */
    *used += n;
}

/* A value of the table's parameter p: within its rule, or its default
 * (which may mean "not given", as blur's radius -1). */
static double get_value(reader *rd, const gi_op_param *p)
{
    double v;
    switch (p->type) {
    case GI_PARAM_DOUBLE: v = gi__get_f64(&rd->r); break;
    case GI_PARAM_CHOICE: v = gi__get_u32(&rd->r); break;
    default: v = gi__get_i32(&rd->r); break;
    }
    int ok = v == p->default_value || gi_op_param_check(p, v, "") == GI_OK;
    check(rd, ok, p->name);
    return ok ? v : p->default_value;
}

static void get_param(reader *rd, const gi_op_param *p, gi_op *op, double **masks, size_t *used)
{
    char *at = (char *)op + p->offset;
    if (p->given_offset)
        *(int *)((char *)op + p->given_offset) = get_int_in(rd, 0, 1, "parameter given flag");
    switch (p->type) {
    case GI_PARAM_DOUBLE: *(double *)at = get_value(rd, p); break;
    case GI_PARAM_INT:
    case GI_PARAM_FLAG:
    case GI_PARAM_CHOICE: *(int *)at = (int)get_value(rd, p); break;
    case GI_PARAM_BORDER: *(gi_border *)at = get_border(rd); break;
    case GI_PARAM_MASK: get_mask(rd, (gi_convolve_params *)at, masks, used); break;
    }
}

static void get_step(reader *rd, gi_op *op, double **masks, size_t *used)
{
    memset(op, 0, sizeof *op);
    op->kind = (gi_op_kind)get_enum(rd, GI_OP_CROP, "step kind");
    int n;
    const gi_op_param *p = gi_op_params(op->kind, &n);
    for (int i = 0; i < n && !rd->why; i++) get_param(rd, &p[i], op, masks, used);
}

static int one_component(const char *name)
{
    return name && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static void get_item(reader *rd, gi__serve_item *it, int n_fds)
{
    it->in = gi__get_str(&rd->r);
    it->out = gi__get_str(&rd->r);
    it->problem = gi__get_str(&rd->r);
    it->out_name = gi__get_str(&rd->r);
    it->in_fd = get_int_in(rd, -1, n_fds - 1, "input descriptor index");
    it->in_errno = get_int_in(rd, 0, 4095, "input errno");
    it->dir_fd = get_int_in(rd, -1, n_fds - 1, "directory descriptor index");
    it->out_fd = get_int_in(rd, -1, n_fds - 1, "output descriptor index");
    check(rd, it->in && it->out, "item without names");
    if (!it->problem) {
        check(rd, (it->dir_fd >= 0 && one_component(it->out_name) && it->out_fd < 0) ||
                      (it->dir_fd < 0 && !it->out_name && it->out_fd >= 0),
              "output neither in a directory nor a descriptor");
        check(rd, it->in_fd >= 0 || it->in_errno != 0, "input without descriptor or errno");
    }
}

gi_status gi__serve_job_decode(const uint8_t *payload, size_t size, int n_fds, gi__serve_job *job)
{
    memset(job, 0, sizeof *job);
    gi_batch_options_default(&job->opts);
    reader rd = {{payload, size, 0}, NULL};
    job->command = gi__get_str(&rd.r);
    check(&rd, job->command != NULL, "no command name");
    job->build = gi__get_str(&rd.r);
    check(&rd, job->build != NULL, "no build");
    gi_job *j = &job->opts.job;
    uint32_t n_steps = gi__get_u32(&rd.r);
    check(&rd, n_steps >= 1 && n_steps <= GI_MAX_STEPS, "step count");
    size_t masks_used = 0;
    for (uint32_t i = 0; i < n_steps && !rd.why && !rd.r.failed; i++)
        get_step(&rd, &job->steps[i], &job->masks, &masks_used);
    j->steps = job->steps;
    j->n_steps = (int)n_steps;
    j->limits.max_input_bytes = gi__get_u64(&rd.r);
    j->limits.max_pixels = gi__get_u64(&rd.r);
    j->limits.shrink_to = get_int_in(&rd, 0, GI_RESIZE_MAX_SIDE, "shrink-on-load size");
    j->save.format = (gi_format)get_enum(&rd, GI_FORMAT_TIFF, "output format");
    j->save.jpeg_quality = get_int_in(&rd, 1, 100, "jpeg quality");
    j->save.png_level = get_int_in(&rd, 0, 12, "png level");
    j->save.png_filter = (gi_png_filter)get_enum(&rd, GI_PNG_FILTER_PAETH, "png filter");
    j->save.depth = get_int_in(&rd, 0, 16, "output depth");
    check(&rd, j->save.depth == 0 || j->save.depth == 8 || j->save.depth == 16, "output depth");
    j->save.tiff_compression =
        (gi_tiff_compression)get_enum(&rd, GI_TIFF_UNCOMPRESSED, "tiff compression");
    j->auto_orient = get_int_in(&rd, 0, 1, "auto-orient flag");
    j->strip = get_int_in(&rd, 0, GI_STRIP_BUT_COLOUR, "strip setting");
    job->opts.device = (gi_device)get_enum(&rd, GI_DEVICE_CUDA, "device");
    job->opts.codec_workers = get_int_in(&rd, 0, 4096, "codec workers");
    job->opts.lanes = get_int_in(&rd, 0, 256, "lanes");
    job->opts.lane_cpu_threads = get_int_in(&rd, 0, 4096, "lane threads");
    job->opts.no_bridge = get_int_in(&rd, 0, 1, "no-bridge flag");
    job->opts.skip_existing = get_int_in(&rd, 0, 1, "skip-existing flag");
    uint32_t n_items = gi__get_u32(&rd.r);
    check(&rd, n_items >= 1 && n_items <= GI__SERVE_MAX_ITEMS, "item count");
    /* Each item takes at least 38 bytes (in and out of one byte at least):
     * no allocation past the payload's worth. */
    check(&rd, rd.r.left / 36 >= n_items, "items longer than the request");
    if (!rd.why && !rd.r.failed) {
        job->items = calloc(n_items, sizeof *job->items);
        check(&rd, job->items != NULL, "out of memory");
    }
    for (uint32_t i = 0; job->items && i < n_items && !rd.why && !rd.r.failed; i++)
        get_item(&rd, &job->items[i], n_fds);
    job->n_items = n_items;
    check(&rd, rd.r.left == 0, "bytes after the job");
    if (rd.r.failed || rd.why) {
        const char *why = rd.r.failed ? "truncated or malformed field" : rd.why;
        gi__serve_job_free(job);
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "malformed job: %s", why);
    }
    for (uint32_t i = 0; i < n_steps; i++)
        if (job->steps[i].kind == GI_OP_CONVOLVE)
            job->steps[i].convolve.mask = job->masks + (uintptr_t)job->steps[i].convolve.mask;
    return GI_OK;
}

void gi__serve_job_free(gi__serve_job *job)
{
    free(job->masks);
    free(job->items);
    memset(job, 0, sizeof *job);
}

/* Present-or-absent strings (NULL differs from ""). */
static void put_opt_str(gi__put *w, const char *s)
{
    gi__put_u8(w, s != NULL);
    if (s) gi__put_str(w, s);
}

void gi__serve_result_encode(size_t index, const gi_batch_item *it, gi__put *w)
{
    gi__put_u32(w, (uint32_t)index);
    gi__put_u32(w, (uint32_t)it->status);
    put_opt_str(w, it->reason);
    gi__put_f64(w, it->ms);
    gi__put_f64(w, it->megapixels);
    for (int s = 0; s < GI_STAGE_COUNT; s++) gi__put_f64(w, it->stage_ms[s]);
    put_opt_str(w, it->backend);
    gi__put_str(w, it->choice);
    gi__put_str(w, it->note);
    gi__put_str(w, it->metadata_note);
    put_opt_str(w, it->decoded_by);
    put_opt_str(w, it->encoded_by);
    gi__put_str(w, it->codecs_note);
    gi__put_str(w, it->warning);
    gi__put_u8(w, (uint8_t)it->depth_read);
    gi__put_u8(w, (uint8_t)it->depth_written);
}

/* Codec and backend names are static strings in the server; the client
 * keeps one copy of each name it is told, for as long as it runs. */
static const char *intern(const char *name)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const char *names[64];
    static int count;
    if (!name) return NULL;
    const char *found = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < count && !found; i++)
        if (strcmp(names[i], name) == 0) found = names[i];
    if (!found && count < 64 && strlen(name) < 64 && (found = strdup(name))) names[count++] = found;
    pthread_mutex_unlock(&lock);
    return found ? found : "?";
}

static const char *get_opt_str(gi__get *r)
{
    uint8_t present = gi__get_u8(r);
    if (present > 1) r->failed = 1;
    return present == 1 ? gi__get_str(r) : NULL;
}

int gi__serve_result_decode(const uint8_t *payload, size_t size, size_t count, size_t *index,
                            gi_batch_item *it)
{
    gi__get r = {payload, size, 0};
    *index = gi__get_u32(&r);
    uint32_t status = gi__get_u32(&r);
    const char *reason = get_opt_str(&r);
    double ms = gi__get_f64(&r), mp = gi__get_f64(&r), stage[GI_STAGE_COUNT];
    for (int s = 0; s < GI_STAGE_COUNT; s++) stage[s] = gi__get_f64(&r);
    const char *backend = get_opt_str(&r), *choice = gi__get_str(&r), *note = gi__get_str(&r);
    const char *metadata_note = gi__get_str(&r), *decoded_by = get_opt_str(&r);
    const char *encoded_by = get_opt_str(&r), *codecs_note = gi__get_str(&r);
    const char *warning = gi__get_str(&r);
    const int depth_read = gi__get_u8(&r), depth_written = gi__get_u8(&r);
    if (r.failed || r.left != 0 || *index >= count || status > GI_ITEM_SKIPPED) return -1;
    it->status = (gi_item_status)status;
    it->reason = reason ? strdup(reason) : NULL;
    it->ms = ms;
    it->megapixels = mp;
    memcpy(it->stage_ms, stage, sizeof stage);
    it->backend = intern(backend);
    /* the texts point into the payload, which lives as long as on_item */
    it->choice = choice ? choice : "";
    it->note = note ? note : "";
    it->metadata_note = metadata_note ? metadata_note : "";
    it->decoded_by = intern(decoded_by);
    it->encoded_by = intern(encoded_by);
    it->codecs_note = codecs_note ? codecs_note : "";
    it->warning = warning ? warning : "";
    it->depth_read = depth_read;
    it->depth_written = depth_written;
    return 0;
}
