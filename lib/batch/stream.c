/* A stream of images, one output (gpuimg.h, "streams"):
 *
 *   reader thread: read + decode -> [decoded] -> calling thread: the
 *   steps -> [computed] -> writer thread: encode + write
 *
 * Each queue holds at most QUEUE_DEPTH images. The end of the stream, or
 * its failure, travels down the queues as a last item, so that every
 * image before it is written first. A failure downstream (the steps, a
 * write) aborts the queues and cancels the reader, which may be waiting
 * in read() for input that never comes. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/cores.h"
#include "base/gi_error.h"
#include "engine/job_flow.h"

#define QUEUE_DEPTH 2

typedef struct {
    gi_image img;
    gi_metadata meta; /* a PNG's or JPEG's, as job.strip keeps it */
    size_t number;    /* from 1 */
    int last;         /* the end of the stream: clean when status is GI_OK */
    gi_status status;
    char why[1200];   /* the failure, naming the input and the image */
    double decode_ms, compute_ms;
    const char *backend;
} frame;

typedef struct {
    frame items[QUEUE_DEPTH];
    size_t head, count;
    int aborted;
    pthread_mutex_t lock;
    pthread_cond_t changed;
} frame_queue;

typedef struct {
    const gi_stream_options *opts;
    const char *in_name, *out_path; /* in_name: "standard input" for "-" */
    gi_job job;       /* the caller's, with the output format settled */
    gi_reader *reader;
    frame_queue decoded, computed;
    size_t written;
    gi_status write_status;
    char write_why[1200];
} stream;

void gi_stream_options_default(gi_stream_options *opts)
{
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    gi_job_default(&opts->job);
    opts->device = GI_DEVICE_AUTO;
}

static void queue_init(frame_queue *q)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->changed, NULL);
}

static void frame_free(frame *f)
{
    gi_image_free(&f->img);
    gi_metadata_free(&f->meta);
}

static void queue_destroy(frame_queue *q)
{
    for (; q->count; q->count--, q->head = (q->head + 1) % QUEUE_DEPTH)
        frame_free(&q->items[q->head]);
    pthread_cond_destroy(&q->changed);
    pthread_mutex_destroy(&q->lock);
}

/* Waits for room; returns -1 (the frame's image freed) once aborted. */
static int queue_push(frame_queue *q, frame *f)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == QUEUE_DEPTH && !q->aborted) pthread_cond_wait(&q->changed, &q->lock);
    int aborted = q->aborted;
    if (!aborted) q->items[(q->head + q->count++) % QUEUE_DEPTH] = *f;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    if (aborted) frame_free(f);
    return aborted ? -1 : 0;
}

/* Waits for an item; returns -1 once aborted. */
static int queue_pop(frame_queue *q, frame *f)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == 0 && !q->aborted) pthread_cond_wait(&q->changed, &q->lock);
    int aborted = q->aborted;
    if (!aborted) {
        *f = q->items[q->head];
        q->head = (q->head + 1) % QUEUE_DEPTH;
        q->count--;
    }
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    return aborted ? -1 : 0;
}

static void queue_abort(frame_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->aborted = 1;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

static void set_failure(frame *f, gi_status status, const char *why)
{
    f->last = 1;
    f->status = status;
    snprintf(f->why, sizeof f->why, "%s", why);
}

/* Cancellation is allowed only inside gi_reader_next, which holds no
 * lock and allocates an image only after its last read(). */
static void *read_frames(void *arg)
{
    stream *s = arg;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    for (size_t number = 1;; number++) {
        frame f = {.number = number};
        double start = gi__now_ms();
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
        gi_status st = gi_reader_next_with_metadata(s->reader, &f.img, &f.meta);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
        gi__job_keep_metadata(&s->job, &f.meta);
        f.decode_ms = gi__now_ms() - start;
        if (st != GI_OK) set_failure(&f, st, gi_last_error());
        else f.last = f.img.data == NULL;
        if (queue_push(&s->decoded, &f) != 0 || f.last) return NULL;
    }
}

/* Tells the caller about an image written. */
static void report(const stream *s, const frame *f, double encode_ms)
{
    const int depth = f->img.depth == 16 ? 16 : 8; /* the steps keep the depth read */
    gi_stream_frame info = {f->number, f->decode_ms, f->compute_ms, encode_ms, f->backend, "", "",
                            depth, s->job.save.depth ? s->job.save.depth : depth};
    snprintf(info.metadata_dropped, sizeof info.metadata_dropped, "%s", f->meta.dropped);
    if (s->job.strip != 1)
        gi_metadata_unwritable(&f->meta, s->job.save.format, info.metadata_left_out,
                               sizeof info.metadata_left_out);
    s->opts->on_frame(s->opts->user, &info);
}

/* Writes the images as they come; opens the output at the first one and
 * keeps it when at least one image was written and no write failed. */
static void *write_frames(void *arg)
{
    stream *s = arg;
    gi_save_options save = s->job.save;
    gi_output *out = NULL;
    gi_status st = GI_OK;
    frame f;
    while (queue_pop(&s->computed, &f) == 0 && !f.last) {
        double start = gi__now_ms();
        if (!out) st = gi_output_open(&out, s->out_path);
        save.metadata = s->job.strip == 1 ? NULL : &f.meta;
        if (st == GI_OK) st = gi_output_image(out, &f.img, &save);
        if (st == GI_OK && s->opts->on_frame) report(s, &f, gi__now_ms() - start);
        frame_free(&f);
        if (st != GI_OK) break;
        s->written++;
    }
    if (st != GI_OK) snprintf(s->write_why, sizeof s->write_why, "%s", gi_last_error());
    gi_status closed = gi_output_close(out, st == GI_OK && s->written > 0);
    if (st == GI_OK && closed != GI_OK)
        snprintf(s->write_why, sizeof s->write_why, "%s", gi_last_error());
    s->write_status = st != GI_OK ? st : closed;
    if (s->write_status != GI_OK) { /* the steps and the reading stop too */
        queue_abort(&s->computed);
        queue_abort(&s->decoded);
    }
    return NULL;
}

/* The steps on each decoded image, in this thread (which owns the
 * context). *end gets the failure that ended the stream, if one did. */
static void compute_frames(stream *s, gi_context *ctx, frame *end)
{
    frame in;
    while (queue_pop(&s->decoded, &in) == 0) {
        if (in.last) {
            *end = in;
            break;
        }
        frame out = {.number = in.number, .meta = in.meta, .decode_ms = in.decode_ms};
        double start = gi__now_ms();
        gi_status st = gi_job_apply(ctx, &s->job, &in.img, &out.meta, &out.img, NULL);
        gi_image_free(&in.img);
        out.compute_ms = gi__now_ms() - start;
        out.backend = gi_context_last_backend(ctx);
        if (st != GI_OK) {
            frame_free(&out);
            char why[1100];
            snprintf(why, sizeof why, "%s", gi_last_error());
            snprintf(end->why, sizeof end->why, "%s: image %zu: %s", s->in_name, in.number, why);
            end->status = st;
            break;
        }
        if (queue_push(&s->computed, &out) != 0) break;
    }
    frame last = {.last = 1};
    queue_push(&s->computed, &last);
}

/* Opens the context and computes; CUDA, where it is used, starts while
 * the first image is read. */
static void compute(stream *s, frame *end)
{
    int threads = s->opts->cpu_threads ? s->opts->cpu_threads : gi__process_cores();
    gi_context_options copts = {s->opts->device, threads, 0};
    gi_context *ctx;
    gi_status st = gi_context_create(&ctx, &copts);
    if (st == GI_OK) {
        compute_frames(s, ctx, end);
        gi_context_destroy(ctx);
    } else {
        set_failure(end, st, gi_last_error());
        queue_abort(&s->computed);
    }
}

gi_status gi_stream_run(const char *in, const char *out, const gi_stream_options *opts,
                        size_t *written)
{
    GI__REFUSE_NULL(in, out, opts);
    if (opts->job.n_steps > 0) GI__REFUSE_NULL(opts->job.steps);
    stream s = {.opts = opts, .out_path = out, .job = opts->job,
                .in_name = strcmp(in, "-") == 0 ? "standard input" : gi_quote_name(in)};
    if (written) *written = 0;
    if (s.job.save.format == GI_FORMAT_AUTO) s.job.save.format = gi_format_from_path(out);
    if (s.job.save.format == GI_FORMAT_AUTO)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "cannot tell the output format of %s", gi_quote_name(out));
    gi_status st = gi_reader_open(&s.reader, in, &opts->job.limits);
    if (st != GI_OK) return st;
    queue_init(&s.decoded);
    queue_init(&s.computed);
    pthread_t reader, writer;
    int reading = pthread_create(&reader, NULL, read_frames, &s) == 0;
    int writing = reading && pthread_create(&writer, NULL, write_frames, &s) == 0;
    frame end = {.last = 1};
    if (writing) {
        compute(&s, &end);
        pthread_join(writer, NULL);
    } else {
        set_failure(&end, GI_ERR_NO_MEMORY, "cannot start a thread");
    }
    if (reading) {
        queue_abort(&s.decoded); /* no-ops when the reader has ended */
        pthread_cancel(reader);
        pthread_join(reader, NULL);
    }
    queue_destroy(&s.decoded);
    queue_destroy(&s.computed);
    gi_reader_close(s.reader);
    if (written) *written = s.written;
    if (end.status != GI_OK) return gi__fail(end.status, "%s", end.why);
    if (s.write_status != GI_OK) return gi__fail(s.write_status, "%s", s.write_why);
    return GI_OK;
}
