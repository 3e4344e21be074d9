/* The batch engine's threads and queues; see batch_pipeline.h. One mutex
 * and one condition variable guard the queues: at tens of images a second
 * they are far from contended. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "batch_pipeline.h"
#include "image_job.h"
#include "work_estimate.h"

/* A ring of jobs. `reserved` counts places promised to jobs still being
 * produced (decoded or computed), so a producer never waits with an image
 * in its hands. */
typedef struct {
    image_job **jobs;
    size_t cap, head, count, reserved;
} job_queue;

typedef struct {
    gi_context *ctx;  /* NULL when it could not be created */
    char why[600];    /* ...and why */
    struct pipeline *p;
    int bridge;       /* the CPU lane that serves while CUDA starts */
} compute_lane;

typedef struct pipeline {
    const pipeline_config *cfg;
    batch_list *list;
    progress *prog;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t *order; /* item indices, largest file first (NULL: list order) */
    size_t next;   /* the next position in `order` to start */
    job_queue decoded, computed;
    compute_lane *lanes;
    int first_lane_open; /* lanes[0] has tried to open its context */
    int lane_warm;       /* a lane other than the bridge has finished an image */
} pipeline;

static int queue_init(job_queue *q, size_t cap)
{
    *q = (job_queue){.jobs = calloc(cap, sizeof *q->jobs), .cap = cap};
    return q->jobs ? 0 : -1;
}

static int queue_has_room(const job_queue *q)
{
    return q->count + q->reserved < q->cap;
}

static void queue_push(job_queue *q, image_job *job)
{
    q->jobs[(q->head + q->count++) % q->cap] = job;
}

static image_job *queue_pop(job_queue *q)
{
    image_job *job = q->jobs[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return job;
}

static int inputs_exhausted(const pipeline *p)
{
    return p->next == p->list->count || *p->cfg->stop;
}

/* Nothing more can reach the compute lanes. */
static int decoding_done(const pipeline *p)
{
    return inputs_exhausted(p) && p->decoded.count == 0 && p->decoded.reserved == 0;
}

static int all_done(const pipeline *p)
{
    return decoding_done(p) && p->computed.count == 0 && p->computed.reserved == 0;
}

/* The stop flag is set by a signal handler, which cannot signal the
 * condition variable: waits are short so that a stop is noticed. */
static void wait_for_change(pipeline *p)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&p->changed, &p->lock, &until);
}

/* Reports a job whose fate is settled (ok or failed) and frees it. */
static void settle(pipeline *p, image_job *job)
{
    const batch_item *it = job->item;
    int failed = it->status != ITEM_OK;
    if (failed) progress_message(p->prog, "%s", it->reason ? it->reason : "out of memory");
    else if (p->cfg->common->verbosity >= 2) {
        char text[2400];
        image_job_describe(job, text, sizeof text);
        progress_message(p->prog, "%s", text);
    }
    progress_item(p->prog, failed, 0, it->megapixels);
    image_job_release(job);
    free(job);
}

static batch_item *take_next_item(pipeline *p)
{
    size_t i = p->next++;
    return &p->list->items[p->order ? p->order[i] : i];
}

/* Skips, refuses or decodes one input. Returns the decoded job, or NULL
 * when the item has already been settled. */
static image_job *start_job(pipeline *p, batch_item *it)
{
    const cli_common *c = p->cfg->common;
    struct stat st;
    if (c->skip_existing && !it->problem && stat(it->out, &st) == 0) {
        it->status = ITEM_SKIPPED;
        progress_item(p->prog, 0, 1, 0);
        return NULL;
    }
    image_job *job = calloc(1, sizeof *job);
    if (!job) {
        it->status = ITEM_FAILED;
        progress_message(p->prog, "%s: out of memory", it->in);
        progress_item(p->prog, 1, 0, 0);
        return NULL;
    }
    job->item = it;
    if (it->problem) image_job_fail(job, "%s: %s", it->in, it->problem);
    else if (strcmp(it->in, "-") == 0 && c->output_dir)
        image_job_fail(job, "'-' (standard input) cannot be part of a batch");
    else if (image_job_decode(c, job) == 0)
        return job;
    settle(p, job);
    return NULL;
}

static int compute(pipeline *p, compute_lane *lane, image_job *job)
{
    if (!lane->ctx) {
        image_job_fail(job, "%s: %s", job->item->in, lane->why);
        return -1;
    }
    return image_job_compute(lane->ctx, p->cfg->op, p->cfg->settings, job);
}

static void finish(pipeline *p, image_job *job)
{
    image_job_encode(p->cfg->common, job);
    settle(p, job);
}

static void *codec_worker(void *arg)
{
    pipeline *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (p->computed.count) {
            image_job *job = queue_pop(&p->computed);
            pthread_cond_broadcast(&p->changed);
            pthread_mutex_unlock(&p->lock);
            finish(p, job);
            pthread_mutex_lock(&p->lock);
            pthread_cond_broadcast(&p->changed);
        } else if (!inputs_exhausted(p) && queue_has_room(&p->decoded)) {
            batch_item *it = take_next_item(p);
            p->decoded.reserved++;
            pthread_mutex_unlock(&p->lock);
            image_job *job = start_job(p, it);
            pthread_mutex_lock(&p->lock);
            p->decoded.reserved--;
            if (job) queue_push(&p->decoded, job);
            pthread_cond_broadcast(&p->changed);
        } else if (all_done(p)) {
            break;
        } else {
            wait_for_change(p);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* The bridge's CPU context. When it cannot be had the bridge just takes
 * no image: the lanes compute them all. */
static void open_bridge(pipeline *p, compute_lane *lane)
{
    gi_context_options opts = {GI_DEVICE_CPU, p->cfg->bridge_cpu_threads};
    if (gi_context_create(&lane->ctx, &opts) != GI_OK) lane->ctx = NULL;
}

/* Opens a lane's context on the lane's own thread, so that CUDA starts
 * while the codec workers decode. The other lanes wait for the first one:
 * when it fails they all fail the same way, and that is reported once. */
static void open_lane(pipeline *p, compute_lane *lane)
{
    compute_lane *first = &p->lanes[0];
    if (lane != first) {
        pthread_mutex_lock(&p->lock);
        while (!p->first_lane_open) wait_for_change(p);
        pthread_mutex_unlock(&p->lock);
        if (!first->ctx) {
            snprintf(lane->why, sizeof lane->why, "%s", first->why);
            return;
        }
    }
    lane->ctx = open_context(p->cfg->common, p->cfg->lane_cpu_threads);
    if (!lane->ctx) snprintf(lane->why, sizeof lane->why, "%s", gi_last_error());
    if (lane == first) {
        pthread_mutex_lock(&p->lock);
        p->first_lane_open = 1;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
    }
}

static void *compute_worker(void *arg)
{
    compute_lane *lane = arg;
    pipeline *p = lane->p;
    if (lane->bridge) open_bridge(p, lane);
    else open_lane(p, lane);
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (lane->bridge && (p->lane_warm || !lane->ctx)) {
            break;
        } else if (p->decoded.count && queue_has_room(&p->computed)) {
            image_job *job = queue_pop(&p->decoded);
            p->computed.reserved++;
            pthread_cond_broadcast(&p->changed);
            pthread_mutex_unlock(&p->lock);
            int failed = compute(p, lane, job);
            if (failed) settle(p, job);
            pthread_mutex_lock(&p->lock);
            p->computed.reserved--;
            if (!lane->bridge) p->lane_warm = 1;
            if (!failed) queue_push(&p->computed, job);
            pthread_cond_broadcast(&p->changed);
        } else if (decoding_done(p)) {
            break;
        } else {
            wait_for_change(p);
        }
    }
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Every stage in the calling thread, one image after another: a single
 * image, or a batch when no threads can be had. */
static void run_in_turn(pipeline *p, compute_lane *lane)
{
    if (!lane->ctx && !*lane->why) open_lane(p, lane);
    while (!inputs_exhausted(p)) {
        image_job *job = start_job(p, take_next_item(p));
        if (!job) continue;
        if (compute(p, lane, job) == 0) finish(p, job);
        else settle(p, job);
    }
}

/* Starts the lanes and codec workers, returning 0 once all have ended, or
 * -1 when no thread of one kind could start (nothing was run then). */
static int run_threaded(pipeline *p, compute_lane *lanes, int lane_count, int workers)
{
    pthread_t ids[2 * 256 + 1];
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
        p->next = p->list->count;
        pthread_mutex_unlock(&p->lock);
    }
    /* The bridge is optional, and only of use once the others run. */
    compute_lane bridge = {.p = p, .bridge = 1};
    if (workers_started && p->cfg->bridge_cpu_threads &&
        pthread_create(&ids[started], NULL, compute_worker, &bridge) == 0)
        started++;
    for (int t = 0; t < started; t++) pthread_join(ids[t], NULL);
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
 * RGB one), so the work comes from the header. */
static size_t *heaviest_first(const cli_common *c, const batch_list *list)
{
    item_work *work = malloc(list->count * sizeof *work);
    size_t *order = malloc(list->count * sizeof *order);
    if (work && order) {
        for (size_t i = 0; i < list->count; i++) {
            const batch_item *it = &list->items[i];
            work[i] = (item_work){i, it->problem ? 0 : estimate_work(it->in, output_format(c, it->out))};
        }
        qsort(work, list->count, sizeof *work, by_work_descending);
        for (size_t i = 0; i < list->count; i++) order[i] = work[i].item;
    } else {
        free(order);
        order = NULL; /* list order will do */
    }
    free(work);
    return order;
}

void pipeline_run(const pipeline_config *cfg, batch_list *list, progress *prog)
{
    compute_lane lanes[256] = {{0}};
    pipeline p = {.cfg = cfg, .list = list, .prog = prog, .lanes = lanes};
    int lane_count = cfg->lanes < 1 ? 1 : cfg->lanes > 256 ? 256 : cfg->lanes;
    int workers = cfg->codec_workers > 256 ? 256 : cfg->codec_workers;
    lanes[0].p = &p;
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.changed, NULL);
    /* Queue depths bound the images in memory: one or two per codec
     * worker (a decoder's or encoder's own buffers), the decoded queue
     * (which also caps the decodes under way, so that some workers are
     * left to encode), two per lane and the computed queue. */
    size_t decoded_cap = (size_t)workers / 2 + lane_count, computed_cap = lane_count + 1;
    int threaded = workers > 0 && queue_init(&p.decoded, decoded_cap) == 0 &&
                   queue_init(&p.computed, computed_cap) == 0;
    if (threaded) p.order = heaviest_first(cfg->common, list);
    if (!threaded || run_threaded(&p, lanes, lane_count, workers) != 0) run_in_turn(&p, &lanes[0]);
    free(p.order);
    free(p.decoded.jobs);
    free(p.computed.jobs);
    pthread_cond_destroy(&p.changed);
    pthread_mutex_destroy(&p.lock);
    for (int i = 0; i < lane_count; i++) gi_context_destroy(lanes[i].ctx);
}
