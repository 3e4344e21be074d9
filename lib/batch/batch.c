/* The batch engine's threads and queues (gpuimg.h, "batch"):
 *
 *   codec workers: read + decode -> [decoded] -> compute lanes: the steps
 *   (and a JPEG output's encode) -> [computed] -> codec workers: encode
 *   (PNG, Netpbm) + write
 *
 * The codec workers serve both ends. A free worker encodes when an image
 * waits for it (draining first bounds the images in memory) and otherwise
 * decodes the next input while the decoded queue has room. Each compute
 * lane owns a gi_context: on CUDA, a stream with its device and pinned
 * buffers, reused from image to image, in the process's one CUDA context.
 * Several lanes let one image's copies overlap another's kernels. The CPU
 * backend runs in the same engine, its lanes using the cores' threads.
 *
 * Every GPU of the batch (gi_batch_options.gpus) has lanes of its own. The
 * first lanes run on the first GPU; once their context runs the batch on
 * CUDA (asked for, or AUTO's plan), the first lane adds the lanes a GPU
 * gets on CUDA (more for a longer batch: device_plan.h, gi__plan_gpu_lanes)
 * on the first GPU and on each other one, the codec workers serving them
 * all. A lane takes the next decoded image only when its GPU is the one
 * that finishes it first (route.h, gi__route_gpu: queued work over rate;
 * equal GPUs, the least loaded), so one GPU runs the same code with a
 * route of one. A lane whose
 * GPU fails hands its image back to the queue, and the GPU's lanes stop;
 * when no other GPU is left, they go on on the CPU under AUTO (or fail the
 * images left, naming the failure, under CUDA).
 *
 * Starting CUDA takes a few hundred milliseconds, in which the decoded
 * queue fills and the codec workers would stand idle. Under AUTO the lanes
 * plan from the first input's header and the number of items (the cost
 * model, device_plan.c); while the lanes wait for the CUDA their plan
 * chose, a bridge lane computes on the CPU, and it stops once another
 * lane has finished an image, or at once when the plan chose the CPU.
 *
 * A long batch of thumbnails planned on the CPU gets GPU lanes beside the
 * CPU's (add_helper_lanes): the cores' time on a thumbnail is nearly all
 * its Huffman decoding, and a file those lanes take whole costs the cores
 * about a third of it. A codec worker sends them its next file while
 * fewer of theirs wait than they have lanes open, and decodes it itself
 * otherwise; the CPU's lanes leave those files to them.
 *
 * On CUDA a JPEG that the exact decoder takes crosses the bus as its
 * coefficients: the codec worker runs the entropy half alone, the lane
 * the arithmetic half on the device before the steps (job_flow.h's
 * route; under AUTO, once the lanes' plan chose CUDA, where the cost model
 * says it pays). The worker leaves the Huffman decoding to the device too,
 * unless the lanes are behind (lanes_behind); a planned thumbnail's JPEG
 * is then shrunk on load on the worker whole (route.h,
 * gi__route_shrunk_on_host).
 *
 * One mutex guards the queues, with a condition for the codec workers and
 * one for the lanes (wake_*: at a thousand images a second, a change must
 * not wake every thread). Another mutex serializes the caller's on_item
 * callback. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch_files.h"
#include "batch_image.h"
#include "base/clock.h"
#include "engine/context.h"
#include "cpu/cpu_parallel.h"
#include "base/gi_error.h"
#include "engine/route.h"
#include "base/op_size.h"
#include "codec/jpeg/jpeg_shrink.h"
#include "work_estimate.h"

/* A ring of jobs. `reserved` counts places promised to jobs still being
 * produced (decoded or computed), so a producer never waits with an image
 * in its hands. */
typedef struct {
    gi__batch_image **jobs;
    size_t cap, head, count, reserved;
    size_t limit;     /* the jobs it holds at most (<= cap, which leaves room for a
                         job a lost GPU hands back); raised as GPUs add lanes */
} job_queue;

typedef struct {
    gi_context *ctx;  /* NULL when it could not be created */
    char why[600];    /* ...and why */
    struct pipeline *p;
    int bridge;       /* the CPU lane that serves while CUDA starts */
    int gpu;          /* its GPU's position in pipeline.gpus; -1: none (a lane that
                         took over on the CPU) */
    int added;        /* opened by add_gpu_lanes once the batch runs on CUDA: a
                         CUDA context on its GPU, which plans nothing */
    int joined;       /* counted among its GPU's open lanes */
    int helper;       /* a GPU's lane beside lanes that the plan put on the CPU
                         (add_helper_lanes): it takes the files decoded for the
                         device alone; gpu is -1, helper_device its CUDA device */
    int helper_device;
    int on_cuda;      /* its context computes on CUDA (counted in cuda_lanes) */
    char gpu_why[200];/* why its GPU took the image it computes */
} compute_lane;

/* The shape of a run: options resolved against the cores and the items. */
typedef struct {
    int codec_workers; /* 0: every stage in the calling thread */
    int lanes;
    int lane_cpu_threads;
    int bridge_cpu_threads; /* 0: no bridge lane */
} batch_shape;

typedef struct pipeline {
    const gi_batch_options *opts;
    batch_shape shape;
    gi_batch_item *items;
    size_t count;
    pthread_mutex_t lock, report_lock;
    /* The codec workers wait on one condition and the lanes on the other,
     * and a change wakes only the threads it may let go on (wake_*). */
    pthread_cond_t for_workers, for_lanes;
    size_t *order;    /* item indices, largest first (NULL: list order) */
    size_t next;      /* the next position in `order` to start */
    job_queue decoded, computed;
    compute_lane *lanes;
    int first_lane_open; /* lanes[0] has tried to open its context */
    int lane_warm;       /* a lane other than the bridge has finished an image */
    int lanes_on_cpu;    /* the lanes' plan chose the CPU: no bridge needed */
    int lanes_on_cuda;   /* ...or CUDA: JPEGs may decode to coefficients */
    int encoding;        /* codec workers encoding an image */
    /* The GPUs' lanes beside lanes on the CPU (add_helper_lanes): those
     * open, those still opening, and the codec workers decoding a file for
     * them now. */
    int helpers_open, helpers_opening, helper_decodes;
    /* The lanes open (not the bridge or the helpers) whose contexts
     * compute on CUDA, and on the CPU (count_lane). */
    int cuda_lanes, cpu_lanes;
    /* The GPUs whose lanes compute: [0] the first lanes' (route.h's view:
     * its index, rate, queued work and open lanes), with for each the
     * lanes computing, those still opening and whether it failed. */
    gi__gpu_load gpus[GI_MAX_GPUS];
    int gpu_busy[GI_MAX_GPUS], gpu_opening[GI_MAX_GPUS], gpu_failed[GI_MAX_GPUS];
    int n_gpus;
    char lost_why[600];  /* the last GPU failure */
    compute_lane *more_lanes; /* the lanes added on CUDA (every GPU's beyond the
                                 first lanes), or the helpers beside the CPU's,
                                 more_count of them */
    pthread_t *more_ids;      /* the threads of those that started */
    int more_count, more_started;
    double waited_ms;    /* every thread's time in wait_for_change, summed */
    int threads;         /* the threads that ran (the calling thread alone: 0) */
} pipeline;

/* A ring of `limit` jobs, with room for `spare` more (the images that
 * lanes opened later may hold, or hand back). */
static int queue_init(job_queue *q, size_t limit, size_t spare)
{
    *q = (job_queue){.jobs = calloc(limit + spare, sizeof *q->jobs), .cap = limit + spare,
                     .limit = limit};
    return q->jobs ? 0 : -1;
}

static int queue_has_room(const job_queue *q)
{
    return q->count + q->reserved < q->limit;
}

static void queue_push(job_queue *q, gi__batch_image *job)
{
    q->jobs[(q->head + q->count++) % q->cap] = job;
}

/* Puts a job back at the head: the next one a lane takes. */
static void queue_push_front(job_queue *q, gi__batch_image *job)
{
    q->head = (q->head + q->cap - 1) % q->cap;
    q->jobs[q->head] = job;
    q->count++;
}

static gi__batch_image *queue_pop(job_queue *q)
{
    gi__batch_image *job = q->jobs[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return job;
}

/* Takes the job at place i of the queue, the jobs before it moving up one
 * place. */
static gi__batch_image *queue_take_at(job_queue *q, size_t i)
{
    gi__batch_image *job = q->jobs[(q->head + i) % q->cap];
    for (size_t k = i; k > 0; k--)
        q->jobs[(q->head + k) % q->cap] = q->jobs[(q->head + k - 1) % q->cap];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return job;
}

/* Takes the first job that the CPU can compute at its own pace: one
 * decoded to pixels, not a JPEG whose Huffman decoding was deferred to the
 * device (jpeg_deferred.h: the CPU would decode it all over again, 50
 * times the GPU's time); NULL when the queue holds none. */
static gi__batch_image *queue_take_for_cpu(job_queue *q)
{
    for (size_t i = 0; i < q->count; i++)
        if (!q->jobs[(q->head + i) % q->cap]->coeffs.deferred) return queue_take_at(q, i);
    return NULL;
}

/* The place of the first job decoded for the device (a JPEG's
 * coefficients or its deferred scan) into *at; 0 when the queue holds
 * none. */
static int find_for_device(const job_queue *q, size_t *at)
{
    for (size_t i = 0; i < q->count; i++)
        if (gi__jpeg_coeffs_present(&q->jobs[(q->head + i) % q->cap]->coeffs)) {
            *at = i;
            return 1;
        }
    return 0;
}

/* Takes the first job decoded for the device; NULL when the queue holds
 * none. */
static gi__batch_image *queue_take_for_device(job_queue *q)
{
    size_t at;
    return find_for_device(q, &at) ? queue_take_at(q, at) : NULL;
}

/* The jobs decoded for the device that wait in the queue. */
static int queue_device_jobs(const job_queue *q)
{
    int n = 0;
    for (size_t i = 0; i < q->count; i++)
        n += gi__jpeg_coeffs_present(&q->jobs[(q->head + i) % q->cap]->coeffs);
    return n;
}

static int stopped(const pipeline *p)
{
    return p->opts->stop && *p->opts->stop;
}

/* An input is left for the codec workers to decode. */
static int inputs_left(const pipeline *p)
{
    return !stopped(p) && p->next < p->count;
}

/* Nothing more can reach the compute lanes. */
static int decoding_done(const pipeline *p)
{
    return !inputs_left(p) && p->decoded.count == 0 && p->decoded.reserved == 0;
}

static int all_done(const pipeline *p)
{
    return decoding_done(p) && p->computed.count == 0 && p->computed.reserved == 0;
}

/* The stop flag is set by a signal handler, which cannot signal the
 * condition variable: waits are short so that a stop is noticed. A codec
 * worker waits on for_workers, a lane on for_lanes. */
static void wait_for_change(pipeline *p, pthread_cond_t *cond)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    double start = gi__now_ms();
    pthread_cond_timedwait(cond, &p->lock, &until);
    p->waited_ms += gi__now_ms() - start; /* under the lock again */
}

/* Wakes the threads a change concerns (under the lock). An image makes
 * four changes on its way (decoded, taken by a lane, computed, taken to
 * encode); each used to wake every thread, and at 1300 images a second a
 * 2-GPU batch's 57 threads then queued for the one lock after each. Now:
 * - one codec worker for room in the decoded queue or a computed job (any
 *   waiting worker can take either; a busy one looks again before it
 *   waits);
 * - the lanes (every one: the next job may be for another GPU's lane)
 *   for a decoded job, or room in the computed queue where it was full;
 * - everybody for what is rare: a plan made, a lane opened or closed, a
 *   GPU failed, the end. */
static void wake_a_worker(pipeline *p)
{
    pthread_cond_signal(&p->for_workers);
}

static void wake_lanes(pipeline *p)
{
    pthread_cond_broadcast(&p->for_lanes);
}

static void wake_all(pipeline *p)
{
    pthread_cond_broadcast(&p->for_workers);
    pthread_cond_broadcast(&p->for_lanes);
}

/* An item's texts when it has none: before and after on_item. */
static void clear_notes(gi_batch_item *it)
{
    it->choice = it->note = it->metadata_note = it->codecs_note = it->warning = "";
}

/* Tells the caller that an item has ended, lending it the texts of its
 * image (notes; NULL: it had none) for the call only. */
static void report(pipeline *p, gi_batch_item *it, const gi__item_notes *notes)
{
    if (p->opts->on_item) {
        if (notes) {
            it->choice = notes->choice;
            it->note = notes->note;
            it->metadata_note = notes->metadata_note;
            it->codecs_note = notes->codecs_note;
            it->warning = notes->warning;
        }
        pthread_mutex_lock(&p->report_lock);
        p->opts->on_item(p->opts->user, it);
        pthread_mutex_unlock(&p->report_lock);
    }
    clear_notes(it);
}

/* Reports a job whose fate is settled (ok or failed) and frees it. */
static void settle(pipeline *p, gi__batch_image *job)
{
    report(p, job->item, &job->notes);
    gi__batch_release(job);
    free(job);
}

/* The codec workers' next input (inputs_left says there is one). */
static gi_batch_item *take_next_item(pipeline *p)
{
    size_t i = p->next++;
    return &p->items[p->order ? p->order[i] : i];
}

/* Skips or refuses one input. Returns its job, or NULL when the item has
 * already been settled. */
static gi__batch_image *admit_job(pipeline *p, gi_batch_item *it)
{
    if (p->opts->skip_existing && !it->problem && gi__item_output_exists(it)) {
        it->status = GI_ITEM_SKIPPED;
        report(p, it, NULL);
        return NULL;
    }
    gi__batch_image *job = calloc(1, sizeof *job);
    if (!job) {
        it->status = GI_ITEM_FAILED;
        free(it->reason);
        it->reason = NULL; /* out of memory: no room for a reason either */
        report(p, it, NULL);
        return NULL;
    }
    job->item = it;
    if (it->problem) gi__batch_fail(job, "%s: %s", gi_quote_name(it->in), it->problem);
    else if (strcmp(it->in, "-") == 0 && p->count > 1)
        gi__batch_fail(job, "'-' (standard input) cannot be part of a batch");
    else return job;
    settle(p, job);
    return NULL;
}

/* Where the JPEG inputs decoded now go (under the lock): to the device
 * as coefficients when the lanes compute on CUDA, asked for or planned;
 * else NULL: pixels. `lane`: the lane that computes one image at a time
 * (no codec workers), whose own context then decides under AUTO: a warm
 * one (gpuimg serve's) has CUDA started, and the JPEG's codecs' arithmetic
 * halves pay there even where the steps alone would not. */
static const gi__jpeg_route *jpeg_route(const pipeline *p, const compute_lane *lane,
                                        gi__jpeg_route *route)
{
    if (p->opts->device == GI_DEVICE_AUTO && !p->lanes_on_cuda && lane && lane->ctx) {
        gi__context_jpeg_route(lane->ctx, route);
    } else {
        const gi__route_engine engine = {
            .requested = p->opts->device, .cuda_planned = p->lanes_on_cuda,
            .cores = p->shape.codec_workers, .lanes = p->shape.lanes,
            .pipelined = p->shape.codec_workers > 0};
        gi__route_jpeg(&engine, route);
    }
    return route->on_cuda ? route : NULL;
}

/* Skips, refuses or decodes one input. Returns the decoded job, or NULL
 * when the item has already been settled. */
static gi__batch_image *start_job(pipeline *p, gi_batch_item *it, const gi__jpeg_route *route)
{
    gi__batch_image *job = admit_job(p, it);
    if (!job || gi__batch_decode(p->opts, route, job) == 0) return job;
    settle(p, job);
    return NULL;
}

/* 0 when computed, -1 when failed (settle it), 1 when the lane's GPU
 * failed and the job, untouched, is to go to another device (in a
 * pipeline only: one image in turn has no other lane to go to). */
static int compute(pipeline *p, compute_lane *lane, gi__batch_image *job)
{
    if (!lane->ctx) {
        gi__batch_fail(job, "%s: %s", gi_quote_name(job->item->in), lane->why);
        return -1;
    }
    const int on_gpu = !lane->bridge && (lane->gpu >= 0 || lane->helper);
    const int hand_back = on_gpu && p->shape.codec_workers > 0;
    int rc = gi__batch_compute(lane->ctx, p->opts, job, hand_back);
    if (rc == 0 && lane->bridge)
        snprintf(job->notes.choice, sizeof job->notes.choice,
                 "cpu: the bridge lane, while CUDA starts");
    /* a GPU's lane names its GPU and why it took the image (one image in
     * turn has no routing to say: its line names the device alone) */
    if (rc == 0 && on_gpu && *lane->gpu_why &&
        strcmp(job->item->backend, "cuda") == 0) {
        char choice[sizeof job->notes.choice];
        snprintf(choice, sizeof choice, "%s", job->notes.choice);
        snprintf(job->notes.choice, sizeof job->notes.choice, "%.199s; %.390s", lane->gpu_why,
                 choice);
    }
    return rc;
}

static void finish(pipeline *p, gi__batch_image *job)
{
    gi__batch_encode(p->opts, job);
    settle(p, job);
}

/* The threads an encode may take (under the lock): one, until fewer
 * images are left than codec workers; then the workers' share each of
 * those left, so that the batch's last images (a folder's PNGs, whose
 * deflate takes 250-320 ms a 9 MP photo on one core) do not run on one
 * core each while the others idle. The bytes are the same on any number
 * of threads (jpeg_write.h, zlib_pieces.h). */
static int tail_threads(const pipeline *p)
{
    size_t left = (p->count - p->next) + p->decoded.count + p->decoded.reserved +
                  p->computed.count + p->computed.reserved + (size_t)p->encoding + 1;
    int workers = p->shape.codec_workers;
    return left < (size_t)workers ? workers / (int)left : 1;
}

/* Whether the lanes' plan is made (under the lock). Under AUTO the codec
 * workers wait for it (a header read and a context, milliseconds): a JPEG
 * decoded before it would be decoded whole on the CPU, 55 ms a 9 MP photo,
 * where the plan may want its Huffman decoding on the device (2 ms). */
static int plan_made(const pipeline *p)
{
    return p->opts->device != GI_DEVICE_AUTO || !gi_cuda_compiled() || p->first_lane_open;
}

/* Whether the GPUs bound the batch now (under the lock): the lanes on
 * CUDA have half the decoded queue's room waiting for them. A codec
 * worker then decodes its JPEG's Huffman codes itself, where it would
 * leave them to the device: its core would otherwise wait for room, and
 * the device's time goes to the steps. Where the lanes catch up, the
 * workers leave the codes to the device again. On a host of 32 cores and
 * one H200, 4000 9 MP JPEGs blurred to JPEG took 4.70-4.86 s with every
 * Huffman decoding on the device and 3.68-3.77 s with every one on the
 * cores; 400 JPEGs of quality 99 on 16 cores, 0.87 s on the device and
 * 2.44 s on the cores. */
static int lanes_behind(const pipeline *p)
{
    return p->lanes_on_cuda && p->decoded.count >= (p->decoded.limit + 1) / 2;
}

static void *codec_worker(void *arg)
{
    pipeline *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (p->computed.count) {
            const int was_full = !queue_has_room(&p->computed);
            gi__batch_image *job = queue_pop(&p->computed);
            job->encode_threads = tail_threads(p);
            p->encoding++;
            if (all_done(p)) wake_all(p);
            else if (was_full) wake_lanes(p);
            pthread_mutex_unlock(&p->lock);
            finish(p, job);
            pthread_mutex_lock(&p->lock);
            p->encoding--;
        } else if (inputs_left(p) && queue_has_room(&p->decoded) && plan_made(p)) {
            gi_batch_item *it = take_next_item(p);
            gi__jpeg_route space;
            const gi__jpeg_route *route = jpeg_route(p, NULL, &space);
            space.entropy_on_host = lanes_behind(p);
            const int for_helpers =
                !route && gi__route_to_helpers(p->helpers_open,
                                               p->helper_decodes + queue_device_jobs(&p->decoded),
                                               p->shape.codec_workers, &space);
            if (for_helpers) route = &space;
            p->helper_decodes += for_helpers;
            p->decoded.reserved++;
            pthread_mutex_unlock(&p->lock);
            gi__batch_image *job = start_job(p, it, route);
            pthread_mutex_lock(&p->lock);
            p->helper_decodes -= for_helpers;
            p->decoded.reserved--;
            if (job) queue_push(&p->decoded, job);
            if (decoding_done(p)) wake_all(p);
            else if (job) wake_lanes(p);
        } else if (all_done(p)) {
            break;
        } else {
            wait_for_change(p, &p->for_workers);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* The bridge's CPU context. When it cannot be had the bridge just takes
 * no image: the lanes compute them all. */
static void open_bridge(pipeline *p, compute_lane *lane)
{
    gi_context_options opts = {GI_DEVICE_CPU, p->shape.bridge_cpu_threads, 0};
    if (gi_context_create(&lane->ctx, &opts) != GI_OK) lane->ctx = NULL;
}

static void add_gpu_lanes(pipeline *p, double samples);
static void add_helper_lanes(pipeline *p, double frame_pixels, double samples);

/* Tells a lane's context what is coming, from the header of the median
 * input by work (the first, the heaviest, overrated a mixed folder's
 * compute: 40 photos went to CUDA and took 1.11x the CPU's time), so that
 * the default device plans before any decoding:
 * one image's CUDA start-up, when the plan wants CUDA, then overlaps its
 * decoding; in a batch the lane waits for the device its plan chose while
 * the bridge lane computes, and when that is the CPU the bridge stops.
 * The first GPU's lanes set the batch's plan; another GPU's only hint. */
static void plan_lane(pipeline *p, compute_lane *lane)
{
    const size_t mid = p->count / 2;
    const gi_batch_item *median = &p->items[p->order ? p->order[mid] : mid];
    gi__image_size size;
    gi__item_image_size(median, &size); /* zeros when unreadable: each image plans alone */
    const double frame_pixels = (double)size.width * size.height;
    /* A shrink-on-load decodes a JPEG at 1/s of its sides, on the CPU
     * (image_io.c), and the steps see that size: planned at the file's
     * size, 400 thumbnails went to CUDA for a resize of 2.5 ms an image
     * and took 0.71 s on the H200 machine, against 0.37 s on the CPU. */
    const int shrink_to = p->opts->job.limits.shrink_to;
    const int shrunk_jpegs = size.format == GI_FORMAT_JPEG && shrink_to > 0;
    if (shrunk_jpegs && size.width <= 65536 && size.height <= 65536) {
        const int s = gi__jpeg_shrink_factor((int)size.width, (int)size.height, shrink_to);
        size.width = (size.width + s - 1) / s;
        size.height = (size.height + s - 1) / s;
    }
    int single = p->shape.codec_workers == 0;
    gi_plan_hint hint = {.images = (long)p->count,
                         .steps = p->opts->job.steps,
                         .n_steps = p->opts->job.n_steps,
                         .width = size.width <= 65536 ? (int)size.width : 0,
                         .height = size.height <= 65536 ? (int)size.height : 0,
                         .channels = size.channels,
                         .ready_in_ms = single ? gi__estimate_decode_ms(&size) : 0,
                         .pipelined = !single};
    gi_format out = p->opts->job.save.format;
    if (out == GI_FORMAT_AUTO && median->out) out = gi_format_from_path(median->out);
    gi__context_hint_files(lane->ctx, size.format == GI_FORMAT_JPEG, out == GI_FORMAT_JPEG);
    if (gi_context_plan_hint(lane->ctx, &hint) != GI_OK || single || lane->added) return;
    /* Where the plan is CUDA, the added lanes' contexts (this GPU's beyond
     * its first lanes, and the other GPUs') start now, beside this one's
     * (a context asked for CUDA has started by now): after it, the other
     * GPUs' started 0.34-0.36 s later on a 4-GPU host. */
    if (lane == &p->lanes[0] && gi__context_plans_cuda(lane->ctx))
        add_gpu_lanes(p, (double)hint.width * hint.height * (hint.channels > 0 ? hint.channels : 4));
    const int on_cpu = strcmp(gi_context_backend(lane->ctx), "cpu") == 0;
    pthread_mutex_lock(&p->lock);
    if (on_cpu) p->lanes_on_cpu = 1;
    else p->lanes_on_cuda = 1;
    /* On CUDA every codec worker may decode at once: the lanes keep the
     * queue short, and they code a JPEG output themselves. With half the
     * workers plus the lanes (12 of 16), 400 progressive photos took
     * 1.23-1.24 s on the H200 machine, against 1.12-1.16 s with 16. The
     * added lanes hold images of their own. */
    const size_t more = (size_t)p->more_count;
    if (!on_cpu && p->decoded.limit < (size_t)p->shape.codec_workers + more)
        p->decoded.limit = (size_t)p->shape.codec_workers + more;
    wake_all(p);
    pthread_mutex_unlock(&p->lock);
    if (on_cpu && lane == &p->lanes[0] && shrunk_jpegs)
        add_helper_lanes(p, frame_pixels,
                         (double)hint.width * hint.height * (hint.channels > 0 ? hint.channels : 3));
}

static void *compute_worker(void *arg);

/* The lanes a GPU gets on CUDA (device_plan.h, gi__plan_gpu_lanes: more
 * for a longer batch, as its memory allows), for images of `samples`
 * samples; lanes asked for by the caller are what every GPU gets. */
static int gpu_lanes(const pipeline *p, const gi_device_info *info, double samples)
{
    if (p->opts->lanes) return p->shape.lanes;
    return gi__plan_gpu_lanes((long)p->count, samples, info ? (double)info->total_memory : 0,
                              p->shape.lanes);
}

/* The GPUs that added lanes go to: a lent context keeps the batch on its
 * GPU unless the caller named GPUs (gpuimg serve names its own: a served
 * folder uses them all, as it would in the client's process); else the
 * ones gi_gpus_resolve gives. 0 where those cannot be had. */
static int added_lanes_gpus(const pipeline *p, gi_gpus *chosen)
{
    if (p->opts->context && p->opts->gpus.count == 0) {
        *chosen = (gi_gpus){.count = 1, .index = {p->gpus[0].index}};
        return 1;
    }
    return gi_gpus_resolve(&p->opts->gpus, chosen) == GI_OK;
}

/* Room for `total` added lanes and their threads: 0, or -1. */
static int alloc_added_lanes(pipeline *p, int total)
{
    if (total == 0 || !(p->more_lanes = calloc((size_t)total, sizeof *p->more_lanes)) ||
        !(p->more_ids = calloc((size_t)total, sizeof *p->more_ids)))
        return -1;
    p->more_count = total;
    return 0;
}

/* Starts an added lane's thread; where it cannot start, the lane never
 * opens, and *opening (under the lock) counts it no more. */
static void start_added_lane(pipeline *p, compute_lane *lane, int *opening)
{
    if (pthread_create(&p->more_ids[p->more_started], NULL, compute_worker, lane) == 0) {
        p->more_started++;
        return;
    }
    pthread_mutex_lock(&p->lock);
    (*opening)--;
    pthread_mutex_unlock(&p->lock);
}

/* Adds lanes once the batch runs on CUDA (called by the first lane, which
 * planned it): the first GPU's beyond the lanes the batch opened first,
 * and every other GPU's (added_lanes_gpus), with its rate. `samples`: the
 * median input's. A GPU that cannot be had is left out; an explicit list
 * was checked by gi_batch_run. */
static void add_gpu_lanes(pipeline *p, double samples)
{
    if (p->shape.codec_workers == 0) return;
    gi_gpus chosen;
    if (!added_lanes_gpus(p, &chosen)) chosen = (gi_gpus){.count = 1, .index = {p->gpus[0].index}};
    gi__gpu_load gpus[GI_MAX_GPUS];
    int added[GI_MAX_GPUS], n = 1, total = 0;
    gpus[0] = (gi__gpu_load){.index = p->gpus[0].index, .rate = 1};
    for (int k = 0; k < chosen.count; k++)
        if (chosen.index[k] != p->gpus[0].index)
            gpus[n++] = (gi__gpu_load){.index = chosen.index[k], .rate = 1};
    if (n == 1 && gpu_lanes(p, NULL, 0) == p->shape.lanes) return; /* a short batch on one GPU */
    for (int g = 0; g < n; g++) {
        gi_device_info info;
        const int known = gi_cuda_device_info(gpus[g].index, 0, &info) == GI_OK;
        if (known) gpus[g].rate = gi__plan_gpu_rate(info.multiprocessors);
        added[g] = gpu_lanes(p, known ? &info : NULL, samples) - (g == 0 ? p->shape.lanes : 0);
        total += added[g];
    }
    if (alloc_added_lanes(p, total) != 0) return;
    pthread_mutex_lock(&p->lock);
    p->gpus[0].rate = gpus[0].rate;
    p->gpu_opening[0] += added[0];
    for (int g = 1; g < n; g++) {
        p->gpus[g] = gpus[g];
        p->gpu_opening[g] = added[g];
    }
    p->n_gpus = n;
    p->decoded.limit += (size_t)total;
    p->computed.limit += (size_t)total;
    pthread_mutex_unlock(&p->lock);
    for (int g = 0, i = 0; g < n; g++)
        for (int k = 0; k < added[g]; k++, i++) {
            p->more_lanes[i] = (compute_lane){.p = p, .gpu = g, .added = 1};
            start_added_lane(p, &p->more_lanes[i], &p->gpu_opening[g]);
        }
}

/* Thumbnails planned on the CPU: their cores' time is nearly all the
 * Huffman decoding, which a GPU's lane takes off them for the files it
 * takes whole (route.h, gi__route_gpu_helpers). On a long enough batch,
 * every GPU of the batch opens lanes beside the CPU's (as many as a batch
 * on CUDA would, for the median image's `samples`), which start CUDA while
 * the cores decode; the codec workers send them files while fewer of
 * theirs wait than they have lanes open (gi__route_to_helpers). A GPU
 * that fails leaves its files to the others, or to the CPU's lanes. */
static void add_helper_lanes(pipeline *p, double frame_pixels, double samples)
{
    if (!gi_cuda_compiled() ||
        !gi__route_gpu_helpers(p->opts->device, (long)p->count, frame_pixels,
                               p->shape.codec_workers, gi__device_costs_default()))
        return;
    gi_gpus chosen;
    if (!added_lanes_gpus(p, &chosen)) return;
    int lanes[GI_MAX_GPUS], total = 0;
    for (int g = 0; g < chosen.count; g++) {
        gi_device_info info;
        lanes[g] = gi_cuda_device_info(chosen.index[g], 0, &info) == GI_OK ? gpu_lanes(p, &info, samples) : 0;
        total += lanes[g];
    }
    if (alloc_added_lanes(p, total) != 0) return;
    pthread_mutex_lock(&p->lock);
    p->helpers_opening = total;
    p->decoded.limit += (size_t)total; /* room for the files waiting for them */
    p->computed.limit += (size_t)total;
    pthread_mutex_unlock(&p->lock);
    for (int g = 0, i = 0; g < chosen.count; g++)
        for (int k = 0; k < lanes[g]; k++, i++) {
            p->more_lanes[i] = (compute_lane){.p = p, .gpu = -1, .added = 1, .helper = 1,
                                              .helper_device = chosen.index[g]};
            start_added_lane(p, &p->more_lanes[i], &p->helpers_opening);
        }
}

/* An added lane: a CUDA context on its GPU. The batch's plan chose CUDA
 * already (these lanes open only then), and each image goes to the GPU
 * that finishes it first (take_job), so the lane does not weigh CUDA
 * against the CPU again: under AUTO, a fresh context would count
 * a whole CUDA start-up against the CPU's every core, though the CPU's
 * share is the codec workers' and the bridge's, and in a server the GPU
 * is warm. (A served folder on a 64-core host kept GPUs 1-3 idle so.) A
 * GPU that cannot start leaves its lanes closed rather than computing on
 * the CPU beside it. */
static void open_gpu_lane(pipeline *p, compute_lane *lane)
{
    gi_context_options opts = {GI_DEVICE_CUDA, p->shape.lane_cpu_threads,
                               p->gpus[lane->gpu].index};
    if (gi_context_create(&lane->ctx, &opts) != GI_OK) {
        lane->ctx = NULL;
        snprintf(lane->why, sizeof lane->why, "GPU %d: %s", opts.gpu, gi_last_error());
        return;
    }
    plan_lane(p, lane);
}

/* Opens a lane's context on the lane's own thread, so that CUDA starts
 * while the codec workers decode. The other lanes wait for the first one:
 * when it fails they all fail the same way, and that is reported once. */
static void open_lane(pipeline *p, compute_lane *lane)
{
    compute_lane *first = &p->lanes[0];
    if (lane->added) {
        open_gpu_lane(p, lane);
        return;
    }
    if (lane != first) {
        pthread_mutex_lock(&p->lock);
        while (!p->first_lane_open) wait_for_change(p, &p->for_lanes);
        pthread_mutex_unlock(&p->lock);
        if (!first->ctx) {
            snprintf(lane->why, sizeof lane->why, "%s", first->why);
            return;
        }
    }
    gi_context_options opts = {p->opts->device, p->shape.lane_cpu_threads, p->gpus[0].index};
    if (lane == first && p->opts->context) {
        lane->ctx = p->opts->context; /* lent: the batch does not destroy it */
        gi__context_set_cpu_threads(lane->ctx, p->shape.lane_cpu_threads);
        if (p->count) plan_lane(p, lane);
    } else if (gi_context_create(&lane->ctx, &opts) != GI_OK) {
        lane->ctx = NULL;
        snprintf(lane->why, sizeof lane->why, "%s", gi_last_error());
    } else if (p->count) {
        plan_lane(p, lane);
    }
    if (lane == first) {
        pthread_mutex_lock(&p->lock);
        p->first_lane_open = 1;
        wake_all(p);
        pthread_mutex_unlock(&p->lock);
    }
}

/* The megapixels of a job's work, as the GPUs' queues count it. */
static double job_work(const gi__batch_image *job)
{
    return (double)job->src.width * job->src.height / 1e6;
}

/* Counts an open lane (sign 1; its kind from its context) or one that
 * leaves (-1) among the lanes on CUDA or on the CPU (under the lock). */
static void count_lane(pipeline *p, compute_lane *lane, int sign)
{
    if (!lane->ctx) return;
    if (sign > 0) lane->on_cuda = strcmp(gi_context_backend(lane->ctx), "cuda") == 0;
    *(lane->on_cuda ? &p->cuda_lanes : &p->cpu_lanes) += sign;
}

/* The next decoded job for this lane (under the lock), or NULL: which
 * jobs it may take as route.h's gi__route_lane_take says; of those, a
 * GPU's lane the first when its GPU finishes it first (lane->gpu_why
 * says why), a lane without a GPU or a context the first. */
static gi__batch_image *take_job(pipeline *p, compute_lane *lane)
{
    const gi__lane_take take =
        gi__route_lane_take(lane->bridge, lane->on_cuda, p->helpers_open + p->helpers_opening,
                            p->cuda_lanes, p->cpu_lanes);
    if (take == GI__TAKE_HOST_JOBS) return queue_take_for_cpu(&p->decoded);
    if (lane->gpu < 0 || !lane->ctx) return queue_pop(&p->decoded);
    gi__gpu_load loads[GI_MAX_GPUS];
    for (int g = 0; g < p->n_gpus; g++) {
        loads[g] = p->gpus[g];
        loads[g].free_lanes = p->gpus[g].open - p->gpu_busy[g];
        if (p->gpu_failed[g]) loads[g].open = 0;
    }
    size_t at = 0; /* the head, or the first job for the device where there is one */
    if (take == GI__TAKE_DEVICE_JOBS_FIRST && !find_for_device(&p->decoded, &at)) at = 0;
    const gi__batch_image *next = p->decoded.jobs[(p->decoded.head + at) % p->decoded.cap];
    int g = gi__route_gpu(loads, p->n_gpus, job_work(next), lane->gpu_why, sizeof lane->gpu_why);
    return g == lane->gpu ? queue_take_at(&p->decoded, at) : NULL;
}

/* Whether a GPU other than g (-1: any GPU) has lanes open or opening, and
 * has not failed (under the lock). */
static int other_gpu_left(const pipeline *p, int g)
{
    for (int h = 0; h < p->n_gpus; h++)
        if (h != g && !p->gpu_failed[h] && p->gpus[h].open + p->gpu_opening[h] > 0) return 1;
    return 0;
}

/* A lane of a failed GPU (or of one that did not open) when no other GPU
 * is left (under the lock): it leaves its GPU and, under AUTO, goes on on
 * the CPU; else it fails the images left with the GPU's failure (compute
 * without a context). */
static void take_over(pipeline *p, compute_lane *lane)
{
    if (lane->joined) p->gpus[lane->gpu].open--;
    lane->joined = 0;
    lane->gpu = -1;
    count_lane(p, lane, -1);
    snprintf(lane->why, sizeof lane->why, "%s", p->lost_why);
    pthread_mutex_unlock(&p->lock);
    if (lane->ctx != p->opts->context) gi_context_destroy(lane->ctx);
    lane->ctx = NULL;
    gi_context_options cpu = {GI_DEVICE_CPU, p->shape.lane_cpu_threads, 0};
    if (p->opts->device == GI_DEVICE_AUTO && gi_context_create(&lane->ctx, &cpu) != GI_OK)
        lane->ctx = NULL;
    pthread_mutex_lock(&p->lock);
    count_lane(p, lane, 1);
}

/* Computes a job taken from the queue (the lock held on entry and exit),
 * counting it in its GPU's queue meanwhile; a job whose GPU failed goes
 * back to the head of the queue. Returns compute's result. */
static int run_job(pipeline *p, compute_lane *lane, gi__batch_image *job)
{
    const int g = lane->bridge ? -1 : lane->gpu;
    const double work = job_work(job);
    if (g >= 0) {
        p->gpus[g].queued += work;
        p->gpu_busy[g]++;
    }
    p->computed.reserved++;
    wake_a_worker(p); /* room in the decoded queue */
    if (p->decoded.count) wake_lanes(p); /* the next job's GPU may have changed */
    pthread_mutex_unlock(&p->lock);
    int rc = compute(p, lane, job);
    if (rc < 0) settle(p, job);
    pthread_mutex_lock(&p->lock);
    p->computed.reserved--;
    if (g >= 0) {
        p->gpus[g].queued -= work;
        p->gpu_busy[g]--;
    }
    const int was_warm = p->lane_warm;
    if (rc > 0) {
        if (g >= 0) p->gpu_failed[g] = 1; /* a helper lane (no position) leaves alone */
        snprintf(p->lost_why, sizeof p->lost_why, "%s", gi_last_error());
        queue_push_front(&p->decoded, job);
    } else {
        if (!lane->bridge) p->lane_warm = 1;
        if (rc == 0) queue_push(&p->computed, job);
    }
    if (rc > 0 || p->lane_warm != was_warm || (decoding_done(p) && p->computed.reserved == 0))
        wake_all(p); /* a GPU lost, the bridge's end, or the lanes' */
    else if (rc == 0)
        wake_a_worker(p); /* a job to encode */
    return rc;
}

/* A helper lane (add_helper_lanes) from its start to the batch's end: a
 * CUDA context on its GPU, and the files decoded for the device. Where
 * its GPU fails, it hands its file back and leaves. */
static void run_helper(pipeline *p, compute_lane *lane)
{
    gi_context_options opts = {GI_DEVICE_CUDA, p->shape.lane_cpu_threads, lane->helper_device};
    if (gi_context_create(&lane->ctx, &opts) != GI_OK) lane->ctx = NULL;
    snprintf(lane->gpu_why, sizeof lane->gpu_why,
             "gpu %d: a lane beside the CPU's, taking whole JPEGs off the cores",
             lane->helper_device);
    pthread_mutex_lock(&p->lock);
    p->helpers_opening--;
    p->helpers_open += lane->ctx != NULL;
    for (int open = lane->ctx != NULL; open;) {
        gi__batch_image *job = NULL;
        if (p->decoded.count && queue_has_room(&p->computed) &&
            (job = queue_take_for_device(&p->decoded)) != NULL)
            open = run_job(p, lane, job) <= 0;
        else if (decoding_done(p))
            break;
        else
            wait_for_change(p, &p->for_lanes);
    }
    p->helpers_open -= lane->ctx != NULL;
    wake_all(p); /* the CPU's lanes take the files left once no helper is */
    pthread_mutex_unlock(&p->lock);
}

static void *compute_worker(void *arg)
{
    compute_lane *lane = arg;
    pipeline *p = lane->p;
    if (lane->helper) {
        run_helper(p, lane);
        return NULL;
    }
    if (lane->bridge) open_bridge(p, lane);
    else open_lane(p, lane);
    pthread_mutex_lock(&p->lock);
    if (!lane->bridge) {
        p->gpu_opening[lane->gpu]--;
        lane->joined = lane->ctx != NULL;
        p->gpus[lane->gpu].open += lane->joined;
        count_lane(p, lane, 1);
        if (lane->added && !lane->ctx && !*p->lost_why) /* a lane that did not open */
            snprintf(p->lost_why, sizeof p->lost_why, "%s", lane->why);
    }
    for (;;) {
        gi__batch_image *job = NULL;
        if (lane->bridge && (p->lane_warm || p->lanes_on_cpu || !lane->ctx)) {
            break;
        } else if (!lane->bridge && lane->gpu >= 0 &&
                   (p->gpu_failed[lane->gpu] || (lane->added && !lane->ctx))) {
            /* its GPU failed (the others compute), or it did not open (the
             * others, its GPU's included, compute) */
            if (other_gpu_left(p, p->gpu_failed[lane->gpu] ? lane->gpu : -1)) break;
            take_over(p, lane);
        } else if (p->decoded.count && queue_has_room(&p->computed) &&
                   (job = take_job(p, lane)) != NULL) {
            run_job(p, lane, job);
        } else if (decoding_done(p) && (lane->bridge || p->computed.reserved == 0)) {
            break; /* a lane stays while others compute: a GPU that fails hands back */
        } else {
            wait_for_change(p, &p->for_lanes);
        }
    }
    if (lane->joined) p->gpus[lane->gpu].open--;
    if (!lane->bridge) count_lane(p, lane, -1);
    wake_all(p);
    pthread_mutex_unlock(&p->lock);
    if (lane == &p->lanes[0])
        for (int i = 0; i < p->more_started; i++) pthread_join(p->more_ids[i], NULL);
    return NULL;
}

/* Every stage in the calling thread, one image after another: a single
 * image, or a batch when no threads can be had. */
static void run_in_turn(pipeline *p, compute_lane *lane)
{
    while (inputs_left(p)) {
        gi_batch_item *it = take_next_item(p);
        if (!lane->ctx && !*lane->why) open_lane(p, lane);
        gi__jpeg_route space;
        gi__batch_image *job = start_job(p, it, jpeg_route(p, lane, &space));
        if (!job) continue;
        if (compute(p, lane, job) == 0) finish(p, job);
        else settle(p, job);
    }
}

/* Starts the lanes and codec workers, returning 0 once all have ended, or
 * -1 when no thread of one kind could start (nothing was run then). */
static int run_threaded(pipeline *p, compute_lane *lanes, int lane_count, int workers)
{
    pthread_t *ids = malloc(sizeof *ids * ((size_t)lane_count + (size_t)workers + 1));
    if (!ids) return -1;
    int started = 0, lanes_started = 0;
    for (int i = 0; i < lane_count; i++) lanes[i] = (compute_lane){.p = p};
    while (lanes_started < lane_count &&
           pthread_create(&ids[started], NULL, compute_worker, &lanes[lanes_started]) == 0) {
        started++;
        lanes_started++;
    }
    int workers_started = 0;
    while (lanes_started && workers_started < workers &&
           pthread_create(&ids[started], NULL, codec_worker, p) == 0) {
        started++;
        workers_started++;
    }
    if (lanes_started && !workers_started) {
        /* Lanes end at once: with no worker, no input is ever taken. */
        pthread_mutex_lock(&p->lock);
        p->next = p->count;
        pthread_mutex_unlock(&p->lock);
    }
    /* The bridge is optional, and only of use once the others run. */
    compute_lane bridge = {.p = p, .bridge = 1};
    if (workers_started && p->shape.bridge_cpu_threads &&
        pthread_create(&ids[started], NULL, compute_worker, &bridge) == 0)
        started++;
    pthread_mutex_lock(&p->lock); /* lanes that never started never open */
    p->gpu_opening[0] -= lane_count - lanes_started;
    pthread_mutex_unlock(&p->lock);
    for (int t = 0; t < started; t++) pthread_join(ids[t], NULL);
    free(ids);
    p->threads = started + p->more_started;
    gi_context_destroy(bridge.ctx);
    if (workers_started) return 0;
    p->next = 0;
    p->first_lane_open = 1;
    return -1;
}

typedef struct {
    size_t item;
    double work;
} item_work;

static int by_work_descending(const void *a, const void *b)
{
    const item_work *x = a, *y = b;
    if (x->work != y->work) return x->work < y->work ? 1 : -1;
    return (x->item > y->item) - (x->item < y->item); /* list order between equals */
}

/* The heaviest inputs go first: a big PNG started last would otherwise
 * keep one core busy while the others have nothing left to do. The file
 * size is a poor guide (an RGBA PNG 1.3 MB long is more work than a 2.6 MB
 * RGB one), so the work comes from the header. Without memory for the
 * order, list order will do. */
static void order_items(pipeline *p)
{
    item_work *work = malloc(p->count * sizeof *work);
    size_t *order = malloc(p->count * sizeof *order);
    if (work && order) {
        for (size_t i = 0; i < p->count; i++) {
            const gi_batch_item *it = &p->items[i];
            gi_format out = p->opts->job.save.format;
            if (out == GI_FORMAT_AUTO) out = gi_format_from_path(it->out);
            work[i] = (item_work){i, it->problem ? 0 : gi__item_estimate_work(it, out)};
        }
        qsort(work, p->count, sizeof *work, by_work_descending);
        for (size_t i = 0; i < p->count; i++) order[i] = work[i].item;
        p->order = order;
    } else {
        free(order);
    }
    free(work);
}

/* Codec workers: one per core unless told, never more than the items. Two
 * compute lanes let one image's copies overlap another's kernels on a
 * GPU; on the CPU, they share the cores between them. Under AUTO with
 * CUDA built in, a bridge lane with every core computes while CUDA
 * starts. A lone item runs every stage in the calling thread. */
static batch_shape shape_of(const gi_batch_options *o, size_t count)
{
    int cores = o->cores ? o->cores : gi__cpu_count();
    if (count <= 1) return (batch_shape){0, 1, o->lane_cpu_threads ? o->lane_cpu_threads : cores, 0};
    int workers = o->codec_workers ? o->codec_workers : cores;
    if ((size_t)workers > count) workers = (int)count;
    if (workers > 256) workers = 256;
    /* Four lanes to begin with, and no more than the cores; on CUDA the
     * first lane adds more for a long batch (add_gpu_lanes). On the H200
     * machine (16 cores) 400 JPEGs blurred in 3.35 s under the default
     * device against 3.57 s with two (--device cuda 3.47 against 3.97: the
     * lanes' staging copies overlap; eight: 3.94 and 3.55; with today's
     * device codecs 400 take the same with four and eight: device_plan.c,
     * gi__plan_gpu_lanes). On 2 cores, since the lanes
     * also code a blur's JPEG (lib/cpu/blur_jpeg.c), two lanes run 40
     * JPEGs in 1.44-1.45 s against 1.45-1.49 with four (blur; sobel 1.53
     * against 1.58, the mixed folder 3.02 against 3.05): fewer threads
     * share each core's L2 (bench/folder_vs_peers.py, medians of 5). */
    int lanes = o->lanes ? o->lanes : cores < 4 ? cores : 4;
    if (lanes > 256) lanes = 256;
    int lane_threads = o->lane_cpu_threads ? o->lane_cpu_threads
                       : cores / lanes > 1  ? cores / lanes
                                            : 1;
    int bridge = o->device == GI_DEVICE_AUTO && gi_cuda_compiled() && !o->no_bridge ? cores : 0;
    return (batch_shape){workers, lanes, lane_threads, bridge};
}

void gi_batch_options_default(gi_batch_options *opts)
{
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    gi_job_default(&opts->job);
}

const char *gi_stage_name(gi_stage stage)
{
    static const char *const names[GI_STAGE_COUNT] = {"read", "decode", "startup", "upload",
                                                      "kernel", "download", "encode", "write"};
    return (unsigned)stage < GI_STAGE_COUNT ? names[stage] : "?";
}

/* Every item names its input (gpuimg.h, NULL POINTERS); its output is
 * gi_batch_check_outputs's to check. */
static gi_status check_inputs(const gi_batch_item *items, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!items[i].in) return gi__fail(GI_ERR_INVALID_ARGUMENT, "item %zu: in is NULL", i);
    return GI_OK;
}

gi_status gi_batch_run(const gi_batch_options *opts, gi_batch_item *items, size_t count)
{
    GI__REFUSE_NULL(opts);
    if (count) GI__REFUSE_NULL(items);
    if (opts->job.n_steps > 0) GI__REFUSE_NULL(opts->job.steps);
    int w, h, ch;
    gi_image probe = {.width = 1, .height = 1, .channels = 1};
    if (opts->job.n_steps > 0 && opts->job.steps[opts->job.n_steps - 1].kind == GI_OP_HIST)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "a batch writes images: hist cannot be its last step");
    gi_status st = gi__chain_size(&probe, opts->job.steps, opts->job.n_steps, 1, &w, &h, &ch);
    if (st != GI_OK) return st;
    if (opts->codec_workers < 0 || opts->lanes < 0 || opts->lane_cpu_threads < 0 ||
        opts->cores < 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "negative worker, lane, thread or core count");
    if (opts->gpus.count < 0 || opts->gpus.count > GI_MAX_GPUS)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "gpus: count %d is not 0..%d", opts->gpus.count,
                        GI_MAX_GPUS);
    /* GPUs named one by one must exist (where the batch may use them):
     * every image would fail, or silently leave a GPU out, otherwise. */
    gi_gpus named;
    if (opts->gpus.count && opts->device != GI_DEVICE_CPU && gi_cuda_compiled() &&
        gi_gpus_resolve(&opts->gpus, &named) == GI_ERR_INVALID_ARGUMENT)
        return GI_ERR_INVALID_ARGUMENT;
    st = check_inputs(items, count);
    if (st == GI_OK) st = gi_batch_check_outputs(items, count);
    if (st != GI_OK) return st;
    const batch_shape shape = shape_of(opts, count);
    /* One image: its decode may take the cores the pipeline leaves idle. */
    gi_batch_options one = *opts;
    if (count == 1 && one.job.limits.decode_threads == 0)
        one.job.limits.decode_threads = shape.lane_cpu_threads;
    if (count == 1 && one.job.save.encode_threads == 0)
        one.job.save.encode_threads = one.job.limits.decode_threads;
    opts = &one;
    for (size_t i = 0; i < count; i++) clear_notes(&items[i]);
    /* The lanes on the heap: 256 of them (a why each) would take 160 KB of
     * the caller's stack. */
    compute_lane *lanes = calloc((size_t)shape.lanes, sizeof *lanes);
    if (!lanes) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate %d compute lanes", shape.lanes);
    pipeline p = {.opts = opts, .shape = shape, .items = items, .count = count,
                  .lanes = lanes, .n_gpus = 1};
    /* The first lanes' GPU: the lent context's, else the first named */
    p.gpus[0] = (gi__gpu_load){.rate = 1,
                               .index = opts->context ? opts->context->gpu
                                        : opts->gpus.count ? opts->gpus.index[0] : 0};
    p.gpu_opening[0] = shape.lanes;
    lanes[0].p = &p;
    pthread_mutex_init(&p.lock, NULL);
    pthread_mutex_init(&p.report_lock, NULL);
    pthread_cond_init(&p.for_workers, NULL);
    pthread_cond_init(&p.for_lanes, NULL);
    /* Queue depths bound the images in memory: one or two per codec
     * worker (a decoder's or encoder's own buffers), the decoded queue
     * (which also caps the decodes under way, so that some workers are
     * left to encode), two per lane and the computed queue. */
    int workers = p.shape.codec_workers, lane_count = p.shape.lanes;
    /* The lanes added on CUDA add their share (add_gpu_lanes: at most the
     * larger of lane_count and GI__GPU_LANES_MAX a GPU), for which the
     * rings leave room, and for the jobs failed GPUs hand back past the
     * limit (one a lane at most). */
    size_t decoded_cap = (size_t)workers / 2 + lane_count, computed_cap = lane_count + 1;
    const size_t per_gpu = lane_count > GI__GPU_LANES_MAX ? lane_count : GI__GPU_LANES_MAX;
    size_t spare = opts->device == GI_DEVICE_CPU ? 1 : per_gpu * GI_MAX_GPUS * 2 + 1;
    /* ...and for every worker's decode on CUDA (plan_lane) */
    size_t cuda_room = opts->device == GI_DEVICE_CPU ? 0 : (size_t)workers;
    int threaded = workers > 0 && queue_init(&p.decoded, decoded_cap, spare + cuda_room) == 0 &&
                   queue_init(&p.computed, computed_cap, spare) == 0;
    if (threaded) order_items(&p);
    if (!threaded || run_threaded(&p, lanes, lane_count, workers) != 0) run_in_turn(&p, &lanes[0]);
    if (opts->waits) *opts->waits = (gi_batch_waits){p.waited_ms, p.threads};
    free(p.order);
    free(p.decoded.jobs);
    free(p.computed.jobs);
    pthread_cond_destroy(&p.for_workers);
    pthread_cond_destroy(&p.for_lanes);
    pthread_mutex_destroy(&p.report_lock);
    pthread_mutex_destroy(&p.lock);
    for (int i = 0; i < lane_count; i++)
        if (lanes[i].ctx != opts->context) gi_context_destroy(lanes[i].ctx);
    for (int i = 0; i < p.more_count; i++) gi_context_destroy(p.more_lanes[i].ctx);
    free(p.more_lanes);
    free(p.more_ids);
    free(lanes);
    return GI_OK;
}
