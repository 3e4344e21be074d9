/* Standard input as a stream of images (see stdin_stream.h):
 *
 *   reader thread: read + decode -> [decoded] -> this thread: the
 *   operation -> [computed] -> writer thread: encode + write
 *
 * Each queue holds at most QUEUE_DEPTH images. The end of the stream, or
 * its failure, travels down the queues as a last item, so that every
 * image before it is written first. A failure downstream (the operation,
 * a write) aborts the queues and cancels the reader, which may be waiting
 * in read() for input that never comes. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stdin_stream.h"

#define QUEUE_DEPTH 2

typedef struct {
    gi_image img;
    gi_metadata meta; /* a PNG's or JPEG's, as --strip keeps it */
    size_t number;    /* from 1 */
    int last;         /* the end of the stream: clean when status is GI_OK */
    gi_status status;
    char why[1200];   /* the failure, naming the input and the image ("": printed already) */
    double decode_ms, compute_ms;
} frame;

typedef struct {
    frame items[QUEUE_DEPTH];
    size_t head, count;
    int aborted;
    pthread_mutex_t lock;
    pthread_cond_t changed;
} frame_queue;

typedef struct {
    const cli_common *c;
    const char *out_path;
    gi_job job;       /* the steps, after the turn a viewer's orientation asks for */
    gi_reader *reader;
    frame_queue decoded, computed;
    size_t written;
    gi_status write_status;
    char write_why[1200];
} stream;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
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
        double start = now_ms();
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
        gi_status st = gi_reader_next_with_metadata(s->reader, &f.img, &f.meta);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
        if (s->c->strip) { /* only the orientation can matter */
            int orientation = f.meta.orientation;
            gi_metadata_free(&f.meta);
            f.meta.orientation = orientation;
        }
        f.decode_ms = now_ms() - start;
        if (st != GI_OK) set_failure(&f, st, gi_last_error());
        else f.last = f.img.data == NULL;
        if (queue_push(&s->decoded, &f) != 0 || f.last) return NULL;
    }
}

static void describe(const stream *s, const frame *f, double encode_ms)
{
    char left_out[300] = "";
    if (!s->c->strip)
        gi_metadata_unwritable(&f->meta, output_format(s->c, s->out_path), left_out,
                               sizeof left_out);
    fprintf(stderr, "gpuimg %s: standard input: image %zu -> %s (%.1f ms: decode %.1f, compute %.1f, "
            "encode %.1f)%s%s%s%s\n", s->c->command, f->number, s->out_path,
            f->decode_ms + f->compute_ms + encode_ms, f->decode_ms, f->compute_ms, encode_ms,
            *f->meta.dropped ? "; metadata: " : "", f->meta.dropped,
            *left_out ? "; metadata not written: " : "", left_out);
}

/* Writes the images as they come; opens the output at the first one and
 * keeps it when at least one image was written and no write failed. */
static void *write_frames(void *arg)
{
    stream *s = arg;
    gi_save_options save = {output_format(s->c, s->out_path), s->c->quality, s->c->png_level,
                            s->c->png_filter, NULL, s->c->jpeg_encoder};
    gi_output *out = NULL;
    gi_status st = GI_OK;
    frame f;
    while (queue_pop(&s->computed, &f) == 0 && !f.last) {
        double start = now_ms();
        if (!out) st = gi_output_open(&out, s->out_path);
        save.metadata = s->c->strip ? NULL : &f.meta;
        if (st == GI_OK) st = gi_output_image(out, &f.img, &save);
        if (st == GI_OK && s->c->verbosity >= 2) describe(s, &f, now_ms() - start);
        frame_free(&f);
        if (st != GI_OK) break;
        s->written++;
    }
    if (st != GI_OK) snprintf(s->write_why, sizeof s->write_why, "%s", gi_last_error());
    gi_status closed = gi_output_close(out, st == GI_OK && s->written > 0);
    if (st == GI_OK && closed != GI_OK)
        snprintf(s->write_why, sizeof s->write_why, "%s", gi_last_error());
    s->write_status = st != GI_OK ? st : closed;
    if (s->write_status != GI_OK) { /* the operation and the reading stop too */
        queue_abort(&s->computed);
        queue_abort(&s->decoded);
    }
    return NULL;
}

/* The operation on each decoded image, in this thread (which owns the
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
        double start = now_ms();
        gi_status st = gi_job_apply(ctx, &s->job, &in.img, &out.meta, &out.img, NULL);
        gi_image_free(&in.img);
        out.compute_ms = now_ms() - start;
        if (st != GI_OK) {
            frame_free(&out);
            char why[1100];
            snprintf(why, sizeof why, "%s", gi_last_error());
            snprintf(end->why, sizeof end->why, "standard input: image %zu: %s", in.number, why);
            end->status = st;
            break;
        }
        if (queue_push(&s->computed, &out) != 0) break;
    }
    frame last = {.last = 1};
    queue_push(&s->computed, &last);
}

static void on_stop_signal(int signo)
{
    gi_remove_partial_outputs();
    signal(signo, SIG_DFL);
    raise(signo);
}

int run_stdin_stream(const cli_common *c, const char *out_path, const gi_op *steps, int n_steps)
{
    stream s = {.c = c, .out_path = out_path};
    gi_job_default(&s.job);
    s.job.steps = steps;
    s.job.n_steps = n_steps;
    s.job.auto_orient = orients_first(c, steps, n_steps);
    gi_status st = gi_reader_open(&s.reader, "-", &c->limits);
    if (st != GI_OK) {
        fprintf(stderr, "gpuimg %s: %s\n", c->command, gi_last_error());
        return EXIT_FAIL;
    }
    queue_init(&s.decoded);
    queue_init(&s.computed);
    signal(SIGINT, on_stop_signal);
    signal(SIGTERM, on_stop_signal);
    pthread_t reader, writer;
    int reading = pthread_create(&reader, NULL, read_frames, &s) == 0;
    int writing = reading && pthread_create(&writer, NULL, write_frames, &s) == 0;
    frame end = {.last = 1};
    if (writing) {
        /* CUDA, where it is used, starts while the first image is read. */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        gi_context *ctx = open_context(c, cores < 1 ? 1 : (int)cores);
        if (ctx) {
            compute_frames(&s, ctx, &end);
            gi_context_destroy(ctx);
        } else { /* open_context said why */
            end.status = GI_ERR_NO_DEVICE;
            queue_abort(&s.computed);
        }
        pthread_join(writer, NULL);
    } else {
        snprintf(end.why, sizeof end.why, "cannot start a thread");
        end.status = GI_ERR_NO_MEMORY;
    }
    if (reading) {
        queue_abort(&s.decoded); /* no-ops when the reader has ended */
        pthread_cancel(reader);
        pthread_join(reader, NULL);
    }
    queue_destroy(&s.decoded);
    queue_destroy(&s.computed);
    gi_reader_close(s.reader);
    const char *why = end.status != GI_OK ? end.why : s.write_status != GI_OK ? s.write_why : NULL;
    if (why && *why) fprintf(stderr, "gpuimg %s: %s\n", c->command, why);
    if (c->verbosity >= 2)
        fprintf(stderr, "gpuimg %s: %zu image%s written\n", c->command, s.written,
                s.written == 1 ? "" : "s");
    return why ? EXIT_FAIL : EXIT_OK;
}
